public import Foundation

/// A `java.time.format.DateTimeFormatter` pattern, as Firehose evaluates inside `!{timestamp:...}`,
/// compiled once so formatting is a walk over a few enum cases.
///
/// Output matches `DateTimeFormatter.ofPattern(pattern, Locale.US)` for the letters listed in
/// `supportedLetters` (checked against Java 17 in the tests). Letters Java accepts whose output
/// depends on the JVM's locale data or zone names (`w W Y e c F B z v V`) or that only pad (`p`)
/// are refused instead of guessed, so a key never silently differs from the real one.
public struct JavaDateTimePattern: Sendable, Equatable {
    /// The pattern as written.
    public let pattern: String
    let elements: [Element]

    /// Letters this implementation formats.
    public static let supportedLetters: Set<Character> = [
        "G", "u", "y", "Q", "q", "M", "L", "D", "d", "E", "a", "H", "k", "K", "h", "m", "s", "S", "n", "N", "A",
        "g", "Z", "X", "x", "O",
    ]

    public init(_ pattern: String) throws(KeyLayoutError) {
        switch Self.compile(pattern) {
        case .success(let elements):
            self.pattern = pattern
            self.elements = elements
        case .failure(let problem):
            let lead =
                problem.unsupported
                ? "Timestamp pattern '\(pattern)' cannot be evaluated by firehose-local: "
                : "Invalid Java DateTimeFormatter pattern '\(pattern)': "
            throw KeyLayoutError.invalidArgument(lead + problem.reason)
        }
    }

    /// Formats `date` as read in `timeZone` (UTC unless given).
    public func format(_ date: Date, timeZone: TimeZone = .gmt) -> String {
        format(CivilDateTime(date: date, timeZone: timeZone))
    }

    public func format(_ time: CivilDateTime) -> String {
        var output = ""
        append(time, to: &output)
        return output
    }

    func append(_ time: CivilDateTime, to output: inout String) {
        for element in elements {
            element.append(time, to: &output)
        }
    }
}

// MARK: - Compiled form

extension JavaDateTimePattern {
    enum NumberField: Sendable, Equatable {
        case yearOfEra, prolepticYear, quarter, month, dayOfMonth, dayOfYear
        case hourOfDay, clockHourOfDay, hourOfAmPm, clockHourOfAmPm, minute, second
        case nanoOfSecond, nanoOfDay, milliOfDay, modifiedJulianDay

        func value(_ t: CivilDateTime) -> Int64 {
            switch self {
            case .yearOfEra: return Int64(t.year >= 1 ? t.year : 1 - t.year)
            case .prolepticYear: return Int64(t.year)
            case .quarter: return Int64((t.month - 1) / 3 + 1)
            case .month: return Int64(t.month)
            case .dayOfMonth: return Int64(t.day)
            case .dayOfYear: return Int64(t.dayOfYear)
            case .hourOfDay: return Int64(t.hour)
            case .clockHourOfDay: return Int64(t.hour == 0 ? 24 : t.hour)
            case .hourOfAmPm: return Int64(t.hour % 12)
            case .clockHourOfAmPm: return Int64(t.hour % 12 == 0 ? 12 : t.hour % 12)
            case .minute: return Int64(t.minute)
            case .second: return Int64(t.second)
            case .nanoOfSecond: return Int64(t.nanosecond)
            case .nanoOfDay:
                return (Int64(t.hour) * 3600 + Int64(t.minute) * 60 + Int64(t.second)) * 1_000_000_000
                    + Int64(t.nanosecond)
            case .milliOfDay:
                return (Int64(t.hour) * 3600 + Int64(t.minute) * 60 + Int64(t.second)) * 1000
                    + Int64(t.nanosecond / 1_000_000)
            // MJD 0 is 1858-11-17, 40_587 days before the Unix epoch.
            case .modifiedJulianDay: return t.epochDay + 40_587
            }
        }

        /// Widest value for dates within ±99,999 years, sign included; bounds path-segment sizes.
        var maxDigits: Int {
            switch self {
            case .yearOfEra, .prolepticYear: return 6
            case .quarter: return 1
            case .month, .dayOfMonth, .hourOfDay, .clockHourOfDay, .hourOfAmPm, .clockHourOfAmPm, .minute, .second:
                return 2
            case .dayOfYear: return 3
            case .nanoOfSecond: return 9
            case .nanoOfDay: return 14
            case .milliOfDay: return 8
            case .modifiedJulianDay: return 9
            }
        }
    }

    /// Java's `SignStyle` values that patterns can select.
    enum SignStyle: Sendable, Equatable {
        /// Sign only when negative.
        case normal
        /// `+` when the value needs more digits than the minimum width (years from `yyyy` up).
        case exceedsPad
    }

    enum TextField: Sendable, Equatable {
        case era, month, quarter, weekday, amPm
    }

    enum TextWidth: Sendable, Equatable {
        case short, full, narrow
    }

    /// The `DateTimeFormatterBuilder.appendOffset` patterns reachable from pattern letters.
    enum OffsetStyle: Sendable, Equatable {
        /// `+HHmm`: minutes only when non-zero.
        case hoursOptionalMinutes
        /// `+HHMM`
        case hoursMinutes
        /// `+HH:MM`
        case hoursColonMinutes
        /// `+HHMMss`: seconds only when non-zero.
        case hoursMinutesOptionalSeconds
        /// `+HH:MM:ss`
        case hoursColonMinutesOptionalSeconds
    }

    enum Element: Sendable, Equatable {
        case literal(String)
        case number(NumberField, minWidth: Int, sign: SignStyle)
        /// `yy`/`uu`: the last two digits.
        case twoDigitYear(NumberField)
        /// `S…`: the fraction truncated to `digits`.
        case fraction(digits: Int)
        case text(TextField, TextWidth)
        case offset(OffsetStyle, zeroText: String)
        /// `O` (short) and `OOOO` (full): `GMT+5:30`, `GMT+05:30`.
        case localizedOffset(full: Bool)

        func append(_ t: CivilDateTime, to out: inout String) {
            switch self {
            case .literal(let text):
                out += text
            case .number(let field, let minWidth, let sign):
                appendNumber(field.value(t), minWidth: minWidth, sign: sign, to: &out)
            case .twoDigitYear(let field):
                let value = field.value(t) % 100
                appendPadded(value < 0 ? -value : value, width: 2, to: &out)
            case .fraction(let digits):
                var value = t.nanosecond
                for _ in digits..<9 { value /= 10 }
                appendPadded(Int64(value), width: digits, to: &out)
            case .text(let field, let width):
                out += Self.text(field, width, t)
            case .offset(let style, let zeroText):
                appendOffset(t.utcOffsetSeconds, style: style, zeroText: zeroText, to: &out)
            case .localizedOffset(let full):
                appendLocalizedOffset(t.utcOffsetSeconds, full: full, to: &out)
            }
        }

        /// Upper bound on the characters this element prints.
        var maxLength: Int {
            switch self {
            case .literal(let text): return text.count
            case .number(let field, let minWidth, _): return max(minWidth, field.maxDigits)
            case .twoDigitYear: return 2
            case .fraction(let digits): return digits
            case .text(let field, let width):
                if width == .narrow { return 1 }
                switch field {
                case .era: return width == .full ? 13 : 2  // "Before Christ"
                case .month: return width == .full ? 9 : 3  // "September"
                case .quarter: return width == .full ? 11 : 2  // "1st quarter"
                case .weekday: return width == .full ? 9 : 3  // "Wednesday"
                case .amPm: return 2
                }
            case .offset: return 9  // "+HH:MM:ss"
            case .localizedOffset: return 12  // "GMT+HH:MM:ss"
            }
        }

        private static let monthsFull = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        private static let weekdaysFull = [
            "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
        ]
        private static let quartersFull = ["1st quarter", "2nd quarter", "3rd quarter", "4th quarter"]

        private static func text(_ field: TextField, _ width: TextWidth, _ t: CivilDateTime) -> String {
            switch field {
            case .era:
                let ad = t.year >= 1
                switch width {
                case .short: return ad ? "AD" : "BC"
                case .full: return ad ? "Anno Domini" : "Before Christ"
                case .narrow: return ad ? "A" : "B"
                }
            case .month:
                return abbreviate(monthsFull[t.month - 1], width)
            case .weekday:
                return abbreviate(weekdaysFull[t.weekday - 1], width)
            case .quarter:
                let quarter = (t.month - 1) / 3 + 1
                switch width {
                case .short: return "Q\(quarter)"
                case .full: return quartersFull[quarter - 1]
                case .narrow: return "\(quarter)"
                }
            case .amPm:
                return t.hour < 12 ? "AM" : "PM"
            }
        }

        /// English short names are the first three letters and narrow names the first letter.
        private static func abbreviate(_ name: String, _ width: TextWidth) -> String {
            switch width {
            case .full: return name
            case .short: return String(name.prefix(3))
            case .narrow: return String(name.prefix(1))
            }
        }
    }
}

// MARK: - Number and offset printing

private func appendPadded(_ value: Int64, width: Int, to out: inout String) {
    let digits = String(value)
    if digits.count < width {
        out += String(repeating: "0", count: width - digits.count)
    }
    out += digits
}

private func appendNumber(_ value: Int64, minWidth: Int, sign: JavaDateTimePattern.SignStyle, to out: inout String) {
    let magnitude = value.magnitude
    let digits = String(magnitude)
    if value < 0 {
        out += "-"
    } else if sign == .exceedsPad && digits.count > minWidth {
        out += "+"
    }
    if digits.count < minWidth {
        out += String(repeating: "0", count: minWidth - digits.count)
    }
    out += digits
}

private func offsetParts(_ seconds: Int) -> (sign: String, hours: Int, minutes: Int, seconds: Int) {
    let magnitude = abs(seconds)
    return (seconds < 0 ? "-" : "+", magnitude / 3600, magnitude / 60 % 60, magnitude % 60)
}

private func twoDigits(_ value: Int) -> String {
    value < 10 ? "0\(value)" : "\(value)"
}

private func appendOffset(
    _ totalSeconds: Int, style: JavaDateTimePattern.OffsetStyle, zeroText: String, to out: inout String
) {
    if totalSeconds == 0 {
        out += zeroText
        return
    }
    let p = offsetParts(totalSeconds)
    out += p.sign + twoDigits(p.hours)
    switch style {
    case .hoursOptionalMinutes:
        if p.minutes != 0 { out += twoDigits(p.minutes) }
    case .hoursMinutes:
        out += twoDigits(p.minutes)
    case .hoursColonMinutes:
        out += ":" + twoDigits(p.minutes)
    case .hoursMinutesOptionalSeconds:
        out += twoDigits(p.minutes)
        if p.seconds != 0 { out += twoDigits(p.seconds) }
    case .hoursColonMinutesOptionalSeconds:
        out += ":" + twoDigits(p.minutes)
        if p.seconds != 0 { out += ":" + twoDigits(p.seconds) }
    }
}

private func appendLocalizedOffset(_ totalSeconds: Int, full: Bool, to out: inout String) {
    out += "GMT"
    if totalSeconds == 0 { return }
    let p = offsetParts(totalSeconds)
    if full {
        out += p.sign + twoDigits(p.hours) + ":" + twoDigits(p.minutes)
        if p.seconds != 0 { out += ":" + twoDigits(p.seconds) }
    } else {
        out += p.sign + String(p.hours)
        if p.minutes != 0 || p.seconds != 0 {
            out += ":" + twoDigits(p.minutes)
            if p.seconds != 0 { out += ":" + twoDigits(p.seconds) }
        }
    }
}

// MARK: - Compiling

extension JavaDateTimePattern {
    struct Problem: Error, Equatable {
        /// For Java-invalid patterns, the text of Java's `IllegalArgumentException`.
        var reason: String
        /// Java accepts the pattern but firehose-local cannot match its output.
        var unsupported: Bool
    }

    /// What Java's letters mean, for letters firehose-local refuses.
    private static let unsupportedLetters: [Character: String] = [
        "w": "week-of-week-based-year depends on the JVM locale's week rules",
        "W": "week-of-month depends on the JVM locale's week rules",
        "Y": "week-based-year depends on the JVM locale's week rules",
        "e": "localized day-of-week depends on the JVM locale's first day of week",
        "c": "localized day-of-week depends on the JVM locale's first day of week",
        "F": "its meaning changed between Java versions",
        "B": "day-period text depends on the JVM locale's data",
        "z": "time-zone names depend on the JVM's zone name data",
        "v": "time-zone names depend on the JVM's zone name data",
        "V": "the zone ID Firehose uses for UTC is not documented",
        "p": "pad modifiers are not implemented",
    ]

    static func compile(_ pattern: String) -> Result<[Element], Problem> {
        let chars = Array(pattern)
        var elements: [Element] = []
        var pendingLiteral = ""
        var optionalDepth = 0

        func flushLiteral() {
            if !pendingLiteral.isEmpty {
                elements.append(.literal(pendingLiteral))
                pendingLiteral = ""
            }
        }

        var index = 0
        while index < chars.count {
            let c = chars[index]
            if c.isASCII && c.isLetter {
                var count = 1
                while index + count < chars.count && chars[index + count] == c { count += 1 }
                index += count
                if let reason = unsupportedLetters[c] {
                    return .failure(
                        Problem(reason: "pattern letter '\(c)' is not supported (\(reason))", unsupported: true))
                }
                switch element(for: c, count: count) {
                case .success(let element):
                    flushLiteral()
                    elements.append(element)
                case .failure(let problem):
                    return .failure(problem)
                }
                continue
            }
            switch c {
            case "'":
                // A quoted run is literal; `''` inside or outside quotes stands for one quote.
                let start = index
                index += 1
                while index < chars.count {
                    if chars[index] == "'" {
                        if index + 1 < chars.count && chars[index + 1] == "'" {
                            index += 1
                        } else {
                            break
                        }
                    }
                    index += 1
                }
                if index >= chars.count {
                    return .failure(
                        Problem(
                            reason: "Pattern ends with an incomplete string literal: \(pattern)", unsupported: false)
                    )
                }
                let quoted = String(chars[(start + 1)..<index])
                pendingLiteral += quoted.isEmpty ? "'" : quoted.replacingOccurrences(of: "''", with: "'")
                index += 1
            case "[":
                // Optional sections print when their fields are available, and every field here
                // always is, so the brackets only need to balance.
                optionalDepth += 1
                index += 1
            case "]":
                if optionalDepth == 0 {
                    return .failure(
                        Problem(reason: "Pattern invalid as it contains ] without previous [", unsupported: false)
                    )
                }
                optionalDepth -= 1
                index += 1
            case "{", "}", "#":
                return .failure(Problem(reason: "Pattern includes reserved character: '\(c)'", unsupported: false))
            default:
                pendingLiteral.append(c)
                index += 1
            }
        }
        flushLiteral()
        return .success(elements)
    }

    private static func tooMany(_ c: Character) -> Result<Element, Problem> {
        .failure(Problem(reason: "Too many pattern letters: \(c)", unsupported: false))
    }

    private static func minimumWidthProblem(_ count: Int) -> Result<Element, Problem> {
        .failure(
            Problem(
                reason: "The minimum width must be from 1 to 19 inclusive but was \(count)",
                unsupported: false
            )
        )
    }

    private static func textWidth(_ count: Int) -> TextWidth {
        count == 4 ? .full : count == 5 ? .narrow : .short
    }

    /// One run of a pattern letter, following `DateTimeFormatterBuilder.appendPattern`'s rules.
    private static func element(for c: Character, count: Int) -> Result<Element, Problem> {
        switch c {
        case "G":
            return count > 5 ? tooMany(c) : .success(.text(.era, textWidth(count)))
        case "y", "u":
            let field: NumberField = c == "y" ? .yearOfEra : .prolepticYear
            if count == 2 { return .success(.twoDigitYear(field)) }
            if count > 19 { return minimumWidthProblem(count) }
            return .success(.number(field, minWidth: count, sign: count < 4 ? .normal : .exceedsPad))
        case "Q", "q":
            switch count {
            case 1: return .success(.number(.quarter, minWidth: 1, sign: .normal))
            case 2: return .success(.number(.quarter, minWidth: 2, sign: .normal))
            case 3...5: return .success(.text(.quarter, textWidth(count)))
            default: return tooMany(c)
            }
        case "M", "L":
            switch count {
            case 1: return .success(.number(.month, minWidth: 1, sign: .normal))
            case 2: return .success(.number(.month, minWidth: 2, sign: .normal))
            case 3...5: return .success(.text(.month, textWidth(count)))
            default: return tooMany(c)
            }
        case "D":
            return count > 3 ? tooMany(c) : .success(.number(.dayOfYear, minWidth: count, sign: .normal))
        case "d", "H", "k", "K", "h", "m", "s":
            let fields: [Character: NumberField] = [
                "d": .dayOfMonth, "H": .hourOfDay, "k": .clockHourOfDay, "K": .hourOfAmPm, "h": .clockHourOfAmPm,
                "m": .minute, "s": .second,
            ]
            return count > 2 ? tooMany(c) : .success(.number(fields[c]!, minWidth: count, sign: .normal))
        case "E":
            return count > 5 ? tooMany(c) : .success(.text(.weekday, textWidth(count)))
        case "a":
            return count > 1 ? tooMany(c) : .success(.text(.amPm, .short))
        case "S":
            if count > 9 {
                return .failure(
                    Problem(reason: "Minimum width must be from 0 to 9 inclusive but was \(count)", unsupported: false)
                )
            }
            return .success(.fraction(digits: count))
        case "n", "N", "A", "g":
            let fields: [Character: NumberField] = [
                "n": .nanoOfSecond, "N": .nanoOfDay, "A": .milliOfDay, "g": .modifiedJulianDay,
            ]
            if count > 19 { return minimumWidthProblem(count) }
            return .success(.number(fields[c]!, minWidth: count, sign: .normal))
        case "Z":
            switch count {
            case 1...3: return .success(.offset(.hoursMinutes, zeroText: "+0000"))
            case 4: return .success(.localizedOffset(full: true))
            case 5: return .success(.offset(.hoursColonMinutesOptionalSeconds, zeroText: "Z"))
            default: return tooMany(c)
            }
        case "X", "x":
            let styles: [OffsetStyle] = [
                .hoursOptionalMinutes, .hoursMinutes, .hoursColonMinutes, .hoursMinutesOptionalSeconds,
                .hoursColonMinutesOptionalSeconds,
            ]
            let zeroTexts = ["+00", "+0000", "+00:00", "+0000", "+00:00"]
            guard count <= 5 else { return tooMany(c) }
            return .success(.offset(styles[count - 1], zeroText: c == "X" ? "Z" : zeroTexts[count - 1]))
        case "O":
            switch count {
            case 1: return .success(.localizedOffset(full: false))
            case 4: return .success(.localizedOffset(full: true))
            default:
                return .failure(Problem(reason: "Pattern letter count must be 1 or 4: O", unsupported: false))
            }
        default:
            return .failure(Problem(reason: "Unknown pattern letter: \(c)", unsupported: false))
        }
    }
}
