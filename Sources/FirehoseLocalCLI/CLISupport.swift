import ArgumentParser
import CivilTime
import UnixSignals

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

    static func run(_ body: () async throws(CLIError) -> Void) async throws(ExitCode) {
        do {
            try await body()
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

/// The `--since` forms (instants are printed with `ISO8601Timestamp`).
enum Timestamps {
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
            let day = scanner.digits(2), (1...12).contains(month),
            (1...CivilCalendar.daysInMonth(year: Int64(year), month: month)).contains(day)
        else { return nil }
        var seconds = Double(CivilCalendar.days(year: Int64(year), month: month, day: day)) * 86_400
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
}

/// SIGINT and SIGTERM for the commands that run until stopped (`tail --follow`; `serve` has its
/// service group's).
enum InterruptSignals {
    /// Runs `body` and cancels it at the first SIGINT or SIGTERM, then waits for it to end. The
    /// signals are handled here, not left to their dispositions: a non-interactive shell starts a
    /// background job (`cmd &`, `nohup`) with SIGINT ignored, and such a command would not stop.
    static func cancelling(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await body() }
            group.addTask {
                for await _ in signals { return }
                try Task.checkCancellation()
            }
            do {
                // Whichever ends first, the other is cancelled: the body ends on its own or at a signal.
                try await group.next()
                group.cancelAll()
                while try await group.next() != nil {}
            } catch is CancellationError {
                group.cancelAll()
            }
        }
    }
}
