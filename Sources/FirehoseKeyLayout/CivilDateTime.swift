import Foundation

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
        let days = Self.floorDiv(local, 86_400)
        let secondOfDay = Int(local - days * 86_400)
        let civil = Self.civilFromDays(days)
        self.year = Int(civil.year)
        self.month = civil.month
        self.day = civil.day
        self.hour = secondOfDay / 3600
        self.minute = secondOfDay / 60 % 60
        self.second = secondOfDay % 60
        self.nanosecond = nanosecond
        self.utcOffsetSeconds = utcOffsetSeconds
        self.dayOfYear = Int(days - Self.daysFromCivil(year: civil.year, month: 1, day: 1)) + 1
        // 1970-01-01 was a Thursday (ISO 4).
        self.weekday = Int(Self.floorMod(days + 3, 7)) + 1
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
        let seconds = floorDiv(micros, 1_000_000)
        let nanos = Int(micros - seconds * 1_000_000) * 1000
        return (seconds, nanos)
    }

    // MARK: - Calendar arithmetic

    // The two conversions below are the well-known era-based algorithms for the proleptic Gregorian
    // calendar: a 400-year era has exactly 146_097 days, and counting years from March 1 puts the
    // leap day at the end of the year, so month lengths follow the (153 * m + 2) / 5 pattern.

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    public static func daysFromCivil(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400  // 0...399
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)  // March is 0
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1  // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0...146096
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    public static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468  // days since 0000-03-01
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0...11, March is 0
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    public static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDiv(a, b) * b
    }
}
