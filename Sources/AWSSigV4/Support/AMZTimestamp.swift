#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request time in whole seconds since 1970, parsed and printed by hand: `DateFormatter` is slow,
/// locale-sensitive and drags ICU into the server binary, and SigV4 only needs two fixed forms.
struct AMZTimestamp: Hashable, Comparable, Sendable {
    var secondsSince1970: Int64

    init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    /// Truncates to the whole second, as every SigV4 timestamp is.
    init(_ date: Date) {
        self.secondsSince1970 = Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func < (lhs: AMZTimestamp, rhs: AMZTimestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    private struct Civil {
        var year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64
    }

    private var civil: Civil {
        let days = Self.floorDivide(secondsSince1970, 86_400)
        let secondOfDay = secondsSince1970 - days * 86_400
        let (year, month, day) = Self.civilFromDays(days)
        return Civil(
            year: year,
            month: month,
            day: day,
            hour: secondOfDay / 3600,
            minute: secondOfDay / 60 % 60,
            second: secondOfDay % 60
        )
    }

    /// `yyyyMMdd'T'HHmmss'Z'`, the form of `X-Amz-Date` and of the string to sign.
    var iso8601Basic: String {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        appendISO8601Basic(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `yyyyMMdd`, the date of the credential scope.
    var yyyymmdd: String {
        let c = civil
        var out: [UInt8] = []
        out.reserveCapacity(8)
        Self.appendDigits(c.year, count: 4, to: &out)
        Self.appendDigits(c.month, count: 2, to: &out)
        Self.appendDigits(c.day, count: 2, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func appendISO8601Basic(to out: inout [UInt8]) {
        let c = civil
        Self.appendDigits(c.year, count: 4, to: &out)
        Self.appendDigits(c.month, count: 2, to: &out)
        Self.appendDigits(c.day, count: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        Self.appendDigits(c.hour, count: 2, to: &out)
        Self.appendDigits(c.minute, count: 2, to: &out)
        Self.appendDigits(c.second, count: 2, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// Parses `yyyyMMdd'T'HHmmss'Z'` exactly: no separators, no fraction, no other zone.
    init?(iso8601Basic text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z"),
            let year = Self.number(bytes, 0, 4), let month = Self.number(bytes, 4, 2),
            let day = Self.number(bytes, 6, 2), let hour = Self.number(bytes, 9, 2),
            let minute = Self.number(bytes, 11, 2), let second = Self.number(bytes, 13, 2)
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Parses the `Date` header: the RFC 1123 form HTTP uses (`Sun, 06 Nov 1994 08:49:37 GMT`), the
    /// weekday optional and not checked, the zone `GMT`, `UTC`, `+0000` or `-0000` (Python's
    /// `email.utils.formatdate` writes `-0000`). AWS documents that `Date` may also carry the ISO 8601
    /// basic form, so that is accepted too.
    init?(httpDate text: String) {
        if let basic = AMZTimestamp(iso8601Basic: text) {
            self = basic
            return
        }
        var fields = text.split(separator: " ", omittingEmptySubsequences: true)
        if let first = fields.first, first.hasSuffix(",") {
            guard Self.weekdays.contains(String(first.dropLast())) else { return nil }
            fields.removeFirst()
        }
        guard fields.count == 5, ["GMT", "UTC", "+0000", "-0000"].contains(fields[4]),
            let monthIndex = Self.months.firstIndex(of: String(fields[1]))
        else { return nil }
        let dayBytes = Array(fields[0].utf8)
        let yearBytes = Array(fields[2].utf8)
        let timeBytes = Array(fields[3].utf8)
        guard dayBytes.count == 1 || dayBytes.count == 2, yearBytes.count == 4,
            timeBytes.count == 8, timeBytes[2] == ASCII.colon, timeBytes[5] == ASCII.colon,
            let day = Self.number(dayBytes, 0, dayBytes.count), let year = Self.number(yearBytes, 0, 4),
            let hour = Self.number(timeBytes, 0, 2), let minute = Self.number(timeBytes, 3, 2),
            let second = Self.number(timeBytes, 6, 2)
        else { return nil }
        self.init(
            year: year,
            month: Int64(monthIndex + 1),
            day: day,
            hour: hour,
            minute: minute,
            second: second
        )
    }

    private init?(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        self.secondsSince1970 = days * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in bytes[start..<start + count] {
            guard ASCII.isDigit(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    /// The last `count` decimal digits of `value`, most significant first. Digit by digit from the
    /// top, so that formatting a timestamp (on every request) allocates nothing.
    private static func appendDigits(_ value: Int64, count: Int, to out: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(0x30 + value / divisor % 10))
            divisor /= 10
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days: exact for the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
