import CivilTime
public import Foundation

/// A wall-clock reading of one instant at one UTC offset, computed with integer arithmetic only.
///
/// Every key is built from one of these, so all `!{timestamp:...}` expressions and the key suffix
/// read the same instant, and the hot path needs neither `DateFormatter` nor `Calendar`.
public struct CivilDateTime: Sendable, Hashable {
    /// Proleptic Gregorian year (1 BC is 0), as Java's `u`.
    public var year: Int
    /// 1...12
    public var month: Int
    /// 1...31
    public var day: Int
    /// 0...23
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// 0...999_999_999
    public var nanosecond: Int
    /// Seconds east of UTC at this instant.
    public var utcOffsetSeconds: Int
    /// 1...366
    public var dayOfYear: Int
    /// ISO numbering: 1 is Monday, 7 is Sunday.
    public var weekday: Int
    /// Days since 1970-01-01 of the local date.
    public var epochDay: Int64

    /// - Parameters:
    ///   - epochSeconds: whole seconds since 1970-01-01T00:00:00Z (floor, so negative before 1970).
    ///   - nanosecond: the fraction, 0...999_999_999.
    ///   - utcOffsetSeconds: the offset to read the wall clock at.
    public init(epochSeconds: Int64, nanosecond: Int, utcOffsetSeconds: Int) {
        precondition((0..<1_000_000_000).contains(nanosecond), "nanosecond out of range")
        let local = epochSeconds + Int64(utcOffsetSeconds)
        let days = CivilCalendar.floorDivide(local, 86_400)
        let secondOfDay = Int(local - days * 86_400)
        let civil = CivilCalendar.date(days: days)
        self.year = Int(civil.year)
        self.month = civil.month
        self.day = civil.day
        self.hour = secondOfDay / 3600
        self.minute = secondOfDay / 60 % 60
        self.second = secondOfDay % 60
        self.nanosecond = nanosecond
        self.utcOffsetSeconds = utcOffsetSeconds
        self.dayOfYear = Int(days - CivilCalendar.days(year: civil.year, month: 1, day: 1)) + 1
        self.weekday = CivilCalendar.weekday(days: days)
        self.epochDay = days
    }

    /// Reads `date` at a fixed offset.
    public init(date: Date, utcOffsetSeconds: Int) {
        let (seconds, nanos) = Self.epochParts(of: date)
        self.init(epochSeconds: seconds, nanosecond: nanos, utcOffsetSeconds: utcOffsetSeconds)
    }

    /// Reads `date` in `timeZone`, using the zone's offset at that instant (so DST applies).
    public init(date: Date, timeZone: TimeZone) {
        self.init(date: date, utcOffsetSeconds: timeZone.secondsFromGMT(for: date))
    }

    /// Splits a `Date` into whole epoch seconds and nanoseconds.
    ///
    /// `Date` is a `Double`; near the present its resolution is about a tenth of a microsecond, so the
    /// value is rounded to whole microseconds first. Without that, a date built as `.123` reads as
    /// `.122999…` and `SSS` would print `122`.
    static func epochParts(of date: Date) -> (seconds: Int64, nanos: Int) {
        // Clamp so a sentinel like `.distantFuture * 1000` cannot trap the conversion.
        let limit = 9.0e12  // seconds, about ±285,000 years
        let interval = min(max(date.timeIntervalSince1970, -limit), limit)
        let micros = Int64((interval * 1_000_000).rounded(.toNearestOrEven))
        let seconds = CivilCalendar.floorDivide(micros, 1_000_000)
        let nanos = Int(micros - seconds * 1_000_000) * 1000
        return (seconds, nanos)
    }
}
