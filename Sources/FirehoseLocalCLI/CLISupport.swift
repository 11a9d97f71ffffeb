import ArgumentParser

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure of one of the script-facing subcommands (`flush`, `objects`, `cat`): printed as
/// `error: <message>` on stderr, then the process exits with `exitCode`.
struct CLIError: Error, Equatable, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1

    var description: String { message }
}

enum CLIOutput {
    /// Writes all of `bytes` to a file descriptor, binary-safe (no text conversion, partial writes
    /// and EINTR retried).
    static func write(_ bytes: some Collection<UInt8>, to fd: Int32 = 1) throws(CLIError) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let written = array.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                    Darwin.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw CLIError(message: "cannot write the output: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    static func printLine(_ text: String) throws(CLIError) {
        try write(Array((text + "\n").utf8))
    }

    static func printError(_ message: String) {
        try? write(Array("error: \(message)\n".utf8), to: 2)
    }

    /// Runs a subcommand body, turning a `CLIError` into its message on stderr and its exit code.
    static func run(_ body: () throws(CLIError) -> Void) throws(ExitCode) {
        do {
            try body()
        } catch {
            printError(error.message)
            throw ExitCode(error.exitCode)
        }
    }
}

enum Environment {
    static func value(_ flag: String?, _ variable: String) -> String? {
        if let flag { return flag }
        if let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty { return text }
        return nil
    }

    /// The data directory as `serve` resolves it (option, `FIREHOSE_LOCAL_DATA_DIR`,
    /// `./firehose-data`), made absolute.
    static func dataDirectory(_ flag: String?) -> String {
        var path = value(flag, "FIREHOSE_LOCAL_DATA_DIR") ?? "./firehose-data"
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return ResolvedSettings.absolute(path)
    }
}

// MARK: - Time

/// ISO 8601 timestamps in UTC (`2026-11-21T13:05:09.123Z`) and the `--since` forms.
enum Timestamps {
    /// Formats with millisecond precision, always in UTC.
    static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = floorDivide(milliseconds, 1000)
        let millis = Int(milliseconds - seconds * 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// `--since`: an ISO 8601 date-time (`2026-11-21T13:05:09Z`, fractional seconds and `±hh:mm`
    /// offsets allowed; without a zone it is UTC), a date (`2026-11-21`, midnight UTC), or a time ago:
    /// a number with `s`, `m`, `h` or `d` (`90s`, `10m`, `1.5h`, `2d`; a bare number is seconds).
    static func parseSince(_ text: String, now: Date) -> Date? {
        if let ago = parseAgo(text) { return now.addingTimeInterval(-ago) }
        return parseISO8601(text)
    }

    static func parseAgo(_ text: String) -> TimeInterval? {
        guard let last = text.last else { return nil }
        let unit: Double
        var number = Substring(text)
        switch last {
        case "s": unit = 1
        case "m": unit = 60
        case "h": unit = 3600
        case "d": unit = 86_400
        default:
            guard last.isASCII, last.isNumber else { return nil }
            unit = 1
        }
        if !last.isNumber { number = number.dropLast() }
        guard !number.isEmpty, number.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }),
            let value = Double(number), value.isFinite
        else { return nil }
        return value * unit
    }

    static func parseISO8601(_ text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(days(fromCivil: year, month, day)) * 86_400
        if scanner.atEnd { return Date(timeIntervalSince1970: seconds) }
        guard scanner.take("T") || scanner.take("t") || scanner.take(" "), let hour = scanner.digits(2),
            scanner.take(":"), let minute = scanner.digits(2), hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if scanner.take(":") {
            guard let second = scanner.digits(2), second < 61 else { return nil }
            seconds += Double(second)
            if scanner.take(".") || scanner.take(",") {
                var fraction = 0.0
                var scale = 0.1
                var any = false
                while let digit = scanner.digit() {
                    fraction += Double(digit) * scale
                    scale /= 10
                    any = true
                }
                guard any else { return nil }
                seconds += fraction
            }
        }
        if scanner.atEnd { return Date(timeIntervalSince1970: seconds) }
        if scanner.take("Z") || scanner.take("z") {
            return scanner.atEnd ? Date(timeIntervalSince1970: seconds) : nil
        }
        let sign: Double
        if scanner.take("+") {
            sign = 1
        } else if scanner.take("-") {
            sign = -1
        } else {
            return nil
        }
        guard let offsetHours = scanner.digits(2), offsetHours < 24 else { return nil }
        _ = scanner.take(":")
        let offsetMinutes = scanner.digits(2) ?? 0
        guard scanner.atEnd, offsetMinutes < 60 else { return nil }
        return Date(timeIntervalSince1970: seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60))
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Character) -> Bool {
            guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { return nil }
            index += 1
            return Int(bytes[index - 1] - 48)
        }

        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, day 0 = 1970-01-01).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), month, day)
    }
}
