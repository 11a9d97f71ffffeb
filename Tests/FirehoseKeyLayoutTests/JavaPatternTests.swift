import CivilTime
import FirehoseKeyLayout
import Foundation
import Testing

private struct GoldenRow {
    var pattern: String
    var zone: String
    var instant: Int
    var output: String
}

private struct GoldenRejection {
    var pattern: String
    var message: String
}

private let golden: (rows: [GoldenRow], rejections: [GoldenRejection]) = {
    var rows: [GoldenRow] = []
    var rejections: [GoldenRejection] = []
    for line in javaGoldenTable.split(separator: "\n") {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        precondition(fields.last == "$", "malformed golden row: \(line)")
        switch fields[0] {
        case "F":
            rows.append(GoldenRow(pattern: fields[1], zone: fields[2], instant: Int(fields[3])!, output: fields[4]))
        case "E": rejections.append(GoldenRejection(pattern: fields[1], message: fields[2]))
        default: preconditionFailure("malformed golden row: \(line)")
        }
    }
    return (rows, rejections)
}()

@Suite("Java DateTimeFormatter patterns")
struct JavaPatternTests {
    @Test("Output matches Java 17 for every golden pattern, instant and zone")
    func matchesJava() throws {
        #expect(golden.rows.count > 3000)
        var patterns: [String: JavaDateTimePattern] = [:]
        var zones: [String: TimeZone] = [:]
        for row in golden.rows {
            let pattern = try patterns[row.pattern] ?? JavaDateTimePattern(row.pattern)
            patterns[row.pattern] = pattern
            let zone = try #require(zones[row.zone] ?? TimeZone(identifier: row.zone))
            zones[row.zone] = zone
            let instant = javaGoldenInstants[row.instant]
            let date = Date(timeIntervalSince1970: TimeInterval(instant.seconds) + TimeInterval(instant.nanos) / 1e9)
            let output = pattern.format(date, timeZone: zone)
            #expect(output == row.output, "pattern '\(row.pattern)' in \(row.zone) at \(row.instant)")
        }
    }

    @Test("Patterns Java rejects are rejected, quoting Java's reason")
    func rejectsLikeJava() {
        #expect(golden.rejections.count > 40)
        for rejection in golden.rejections {
            let error = layoutError { try _ = JavaDateTimePattern(rejection.pattern) }
            #expect(error?.errorType == "InvalidArgumentException", "pattern '\(rejection.pattern)'")
            let message = error?.message ?? ""
            let refusedAsUnsupported = message.contains("cannot be evaluated by firehose-local")
            // Letters firehose-local refuses anyway (V, p) may be reported that way instead.
            #expect(
                message == "Invalid Java DateTimeFormatter pattern '\(rejection.pattern)': \(rejection.message)"
                    || (refusedAsUnsupported && rejection.pattern.contains(where: { "Vp".contains($0) })),
                "pattern '\(rejection.pattern)': \(message)"
            )
        }
    }

    @Test(
        "Letters Java accepts but whose output depends on the JVM are refused",
        arguments: [
            "w", "W", "Y", "YYYY", "e", "c", "F", "B", "z", "zzzz", "v", "VV", "ppH",
        ])
    func unsupported(pattern: String) {
        let error = layoutError { try _ = JavaDateTimePattern(pattern) }
        #expect(
            error?.message.hasPrefix(
                "Timestamp pattern '\(pattern)' cannot be evaluated by firehose-local: pattern letter '\(pattern.first!)' is not supported ("
            ) == true)
    }

    @Test("Every supported letter appears in the golden data")
    func goldenCoversSupportedLetters() {
        let used = Set(golden.rows.flatMap { $0.pattern.filter { $0.isASCII && $0.isLetter } })
        #expect(JavaDateTimePattern.supportedLetters.isSubset(of: used))
    }

    @Test("Quoting: quoted runs are literal and '' is one quote")
    func quoting() throws {
        let time = CivilDateTime(date: novemberArrival, utcOffsetSeconds: 0)
        #expect(try JavaDateTimePattern("'yyyy'yyyy").format(time) == "yyyy2026")
        #expect(try JavaDateTimePattern("''").format(time) == "'")
        #expect(try JavaDateTimePattern("'It''s' h a").format(time) == "It's 1 PM")
        #expect(try JavaDateTimePattern("yyyy''MM").format(time) == "2026'11")
        #expect(try JavaDateTimePattern("'a''b''c'").format(time) == "a'b'c")
        #expect(try JavaDateTimePattern("").format(time) == "")
        #expect(try JavaDateTimePattern("- _=:;,.~é").format(time) == "- _=:;,.~é")
    }

    @Test("Year fields across eras and beyond four digits")
    func years() throws {
        // 44 BC is proleptic year -43 in java.time; 10000 needs the '+' of EXCEEDS_PAD at width 4.
        let bc = CivilDateTime(
            epochSeconds: (CivilCalendar.days(year: -43, month: 3, day: 15)) * 86_400, nanosecond: 0,
            utcOffsetSeconds: 0)
        let expectBC: [(String, String)] = [
            ("y", "44"), ("yy", "44"), ("yyyy", "0044"), ("u", "-43"), ("uu", "43"), ("uuu", "-043"), ("uuuu", "-0043"),
            ("G", "BC"), ("GGGG", "Before Christ"), ("GGGGG", "B"),
        ]
        for (pattern, expected) in expectBC {
            #expect(try JavaDateTimePattern(pattern).format(bc) == expected, "\(pattern)")
        }
        let far = CivilDateTime(
            epochSeconds: CivilCalendar.days(year: 10000, month: 1, day: 1) * 86_400, nanosecond: 0,
            utcOffsetSeconds: 0)
        let expectFar: [(String, String)] = [
            ("y", "10000"), ("yy", "00"), ("yyy", "10000"), ("yyyy", "+10000"), ("yyyyy", "10000"),
        ]
        for (pattern, expected) in expectFar {
            #expect(try JavaDateTimePattern(pattern).format(far) == expected, "\(pattern)")
        }
    }

    @Test("Fractions are truncated, not rounded")
    func fractionTruncates() throws {
        let time = CivilDateTime(epochSeconds: 0, nanosecond: 999_999_999, utcOffsetSeconds: 0)
        #expect(try JavaDateTimePattern("s.S SSS SSSSSSSSS").format(time) == "0.9 999 999999999")
    }

    @Test("Offsets with seconds, as some historical zones have")
    func offsetSeconds() throws {
        let time = CivilDateTime(epochSeconds: 0, nanosecond: 0, utcOffsetSeconds: -(4 * 3600 + 56 * 60 + 2))
        let expected: [(String, String)] = [
            ("X", "-0456"), ("XX", "-0456"), ("XXX", "-04:56"), ("XXXX", "-045602"), ("XXXXX", "-04:56:02"),
            ("ZZZZ", "GMT-04:56:02"), ("O", "GMT-4:56:02"), ("ZZZZZ", "-04:56:02"),
        ]
        for (pattern, output) in expected {
            #expect(try JavaDateTimePattern(pattern).format(time) == output, "\(pattern)")
        }
        let whole = CivilDateTime(epochSeconds: 0, nanosecond: 0, utcOffsetSeconds: 9 * 3600)
        #expect(try JavaDateTimePattern("X O xxx").format(whole) == "+09 GMT+9 +09:00")
    }

    @Test("Formatting a Date defaults to UTC")
    func defaultZone() throws {
        let pattern = try JavaDateTimePattern("yyyy-MM-dd HH:mm:ss XXX")
        #expect(pattern.format(novemberArrival) == "2026-11-21 13:05:09 Z")
        #expect(pattern.pattern == "yyyy-MM-dd HH:mm:ss XXX")
        #expect(try pattern == JavaDateTimePattern("yyyy-MM-dd HH:mm:ss XXX"))
        #expect(try pattern != JavaDateTimePattern("yyyy-MM-dd HH:mm:ss xxx"))
    }
}
