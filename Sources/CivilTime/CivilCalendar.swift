/// The proleptic Gregorian calendar in integer arithmetic, on days since 1970-01-01: the one place
/// every timestamp of the project (SigV4 dates, object keys, HTTP `Date` headers, ISO 8601 in
/// answers and on the command line) turns days into dates and back. No `Calendar`, no
/// `DateFormatter`: they are slow, locale-sensitive and bring ICU into the server binary.
///
/// The two conversions are Howard Hinnant's era-based algorithms: a 400-year era has exactly
/// 146_097 days, and counting years from March 1 puts the leap day at the end of the year, so month
/// lengths follow the (153 * m + 2) / 5 pattern.
public enum CivilCalendar {
    /// Days since 1970-01-01 of a date (`year` proleptic: 1 BC is 0).
    public static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400  // 0...399
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)  // March is 0
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1  // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0...146096
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01.
    public static func date(days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468  // days since 0000-03-01
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0...11, March is 0
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// ISO numbering of the weekday of `days` after 1970-01-01: 1 is Monday, 7 is Sunday.
    public static func weekday(days: Int64) -> Int {
        // 1970-01-01 was a Thursday (ISO 4).
        Int(floorModulo(days + 3, 7)) + 1
    }

    public static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// 28...31; 0 for a month outside 1...12.
    public static func daysInMonth(year: Int64, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        case 1...12: 31
        default: 0
        }
    }

    /// Division rounding toward negative infinity (instants before 1970 belong to earlier days).
    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    public static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }
}

/// A UTC wall-clock reading of whole seconds since 1970.
public struct UTCDateTime: Sendable, Hashable {
    public var year: Int64
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// Days since 1970-01-01.
    public var days: Int64

    public init(secondsSince1970 seconds: Int64) {
        let days = CivilCalendar.floorDivide(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        (year, month, day) = CivilCalendar.date(days: days)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
        self.days = days
    }

    /// The instant of a date and time, or nil when a field is out of range (a leap second is).
    public static func secondsSince1970(
        year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int
    ) -> Int64? {
        guard day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
            (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second)
        else { return nil }
        return CivilCalendar.days(year: year, month: month, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }
}
