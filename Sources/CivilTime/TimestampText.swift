#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The HTTP `Date` header's form (RFC 1123, always GMT): `Sat, 21 Nov 2026 13:05:09 GMT`.
public enum HTTPDate {
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date`, truncated to the whole second.
    public static func format(_ date: Date) -> String {
        let time = UTCDateTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        var text = weekdays[CivilCalendar.weekday(days: time.days) - 1] + ", "
        text += digits(time.day, 2) + " " + months[time.month - 1] + " " + digits(Int(time.year), 4) + " "
        text += digits(time.hour, 2) + ":" + digits(time.minute, 2) + ":" + digits(time.second, 2) + " GMT"
        return text
    }

    /// Whole seconds since 1970 of an RFC 1123 date, or nil when `text` is not one. The weekday is
    /// optional and not checked; the zone may be `GMT`, `UTC`, `+0000` or `-0000` (Python's
    /// `email.utils.formatdate` writes `-0000`).
    public static func parse(_ text: String) -> Int64? {
        var fields = text.split(separator: " ", omittingEmptySubsequences: true)
        if let first = fields.first, first.hasSuffix(",") {
            guard weekdays.contains(String(first.dropLast())) else { return nil }
            fields.removeFirst()
        }
        guard fields.count == 5, ["GMT", "UTC", "+0000", "-0000"].contains(fields[4]),
            let monthIndex = months.firstIndex(of: String(fields[1]))
        else { return nil }
        let time = Array(fields[3].utf8)
        guard (1...2).contains(fields[0].utf8.count), fields[2].utf8.count == 4,
            time.count == 8, time[2] == UInt8(ascii: ":"), time[5] == UInt8(ascii: ":"),
            let day = number(fields[0].utf8), let year = number(fields[2].utf8),
            let hour = number(time[0..<2]), let minute = number(time[3..<5]), let second = number(time[6..<8])
        else { return nil }
        return UTCDateTime.secondsSince1970(
            year: year, month: monthIndex + 1, day: Int(day), hour: Int(hour), minute: Int(minute),
            second: Int(second))
    }
}

/// ISO 8601 basic in UTC, the form of SigV4's `X-Amz-Date`: `20261121T130509Z`. (SigV4 writes it
/// itself, byte by byte, on every request.)
public enum ISO8601Basic {
    /// Whole seconds since 1970 of `yyyyMMdd'T'HHmmss'Z'` exactly (no separators, no fraction, no
    /// other zone), or nil.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z"),
            let year = number(bytes[0..<4]), let month = number(bytes[4..<6]), let day = number(bytes[6..<8]),
            let hour = number(bytes[9..<11]), let minute = number(bytes[11..<13]), let second = number(bytes[13..<15])
        else { return nil }
        return UTCDateTime.secondsSince1970(
            year: year, month: Int(month), day: Int(day), hour: Int(hour), minute: Int(minute), second: Int(second))
    }
}

/// ISO 8601 in UTC with milliseconds, as answers and listings print instants:
/// `2026-11-21T13:05:09.123Z`.
public enum ISO8601Timestamp {
    /// `date`, truncated to the millisecond. `Date` is a `Double`, so the instant is first rounded to
    /// whole microseconds: a date made as `.123` (or `-0.001`) reads as `.122999…` and would print
    /// one millisecond early.
    public static func format(_ date: Date) -> String {
        // Clamped so a sentinel like `.distantFuture` cannot trap the conversion.
        let interval = min(max(date.timeIntervalSince1970, -9.0e12), 9.0e12)
        let microseconds = Int64((interval * 1_000_000).rounded(.toNearestOrEven))
        let milliseconds = CivilCalendar.floorDivide(microseconds, 1000)
        let seconds = CivilCalendar.floorDivide(milliseconds, 1000)
        let time = UTCDateTime(secondsSince1970: seconds)
        return digits(Int(time.year), 4) + "-" + digits(time.month, 2) + "-" + digits(time.day, 2) + "T"
            + digits(time.hour, 2) + ":" + digits(time.minute, 2) + ":" + digits(time.second, 2) + "."
            + digits(Int(milliseconds - seconds * 1000), 3) + "Z"
    }
}

/// `value` in decimal, zero-padded to at least `width` digits.
private func digits(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

/// A decimal number of ASCII digits only (no sign, no space), or nil.
private func number(_ bytes: some Collection<UInt8>) -> Int64? {
    guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
    var value: Int64 = 0
    for byte in bytes {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    return value
}

/// `java.util.Date.toString()` in UTC, as AWS's Java services print instants in their messages:
/// `Thu Jul 02 12:57:57 UTC 2015`.
public enum JavaDateText {
    public static func format(_ date: Date) -> String {
        let time = UTCDateTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        var text = HTTPDate.weekdays[CivilCalendar.weekday(days: time.days) - 1] + " "
        text += HTTPDate.months[time.month - 1] + " " + digits(time.day, 2) + " "
        text += digits(time.hour, 2) + ":" + digits(time.minute, 2) + ":" + digits(time.second, 2) + " UTC "
        return text + digits(Int(time.year), 4)
    }
}
