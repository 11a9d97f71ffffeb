import CivilTime
import Foundation
import Testing

@Suite("Civil calendar")
struct CivilCalendarTests {
    @Test("Known day numbers")
    func knownDays() {
        let known: [(Int64, Int, Int, Int64)] = [
            (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 3, 1, 11_017), (2000, 2, 29, 11_016), (2024, 2, 29, 19_782),
            (1900, 3, 1, -25_508), (0, 3, 1, -719_468), (2026, 11, 21, 20_778), (9999, 12, 31, 2_932_896),
        ]
        for (year, month, day, days) in known {
            #expect(CivilCalendar.days(year: year, month: month, day: day) == days, "\(year)-\(month)-\(day)")
            let civil = CivilCalendar.date(days: days)
            #expect(civil.year == year && civil.month == month && civil.day == day, "\(days)")
        }
    }

    @Test("Round trip and continuity over ±2,200 years of days")
    func roundTrip() {
        var previous = CivilCalendar.date(days: -800_001)
        for days in Int64(-800_000)...800_000 {
            let civil = CivilCalendar.date(days: days)
            if CivilCalendar.days(year: civil.year, month: civil.month, day: civil.day) != days {
                Issue.record("round trip failed at \(days)")
                return
            }
            // Each day follows the one before: same month and day+1, or the first of the next month.
            let continues =
                (civil.year == previous.year && civil.month == previous.month && civil.day == previous.day + 1)
                || (civil.day == 1
                    && ((civil.year == previous.year && civil.month == previous.month + 1)
                        || (civil.year == previous.year + 1 && civil.month == 1 && previous.month == 12
                            && previous.day == 31)))
            if !continues {
                Issue.record("discontinuity at \(days): \(previous) -> \(civil)")
                return
            }
            previous = civil
        }
    }

    @Test("Weekdays agree with Foundation's Gregorian calendar, before and after 1970")
    func weekdays() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for days in stride(from: Int64(-100_000), through: 100_000, by: 997) {
            let date = Date(timeIntervalSince1970: Double(days) * 86_400)
            // Foundation: 1 is Sunday; ISO: 7 is Sunday.
            let foundation = calendar.component(.weekday, from: date)
            #expect(CivilCalendar.weekday(days: days) == (foundation + 5) % 7 + 1, "\(days)")
        }
    }

    @Test("Month lengths, and 0 for a month that is not one")
    func monthLengths() {
        #expect(
            (1...12).map { CivilCalendar.daysInMonth(year: 2024, month: $0) } == [
                31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
            ])
        #expect(CivilCalendar.daysInMonth(year: 1900, month: 2) == 28)
        #expect(CivilCalendar.daysInMonth(year: 2000, month: 2) == 29)
        #expect(CivilCalendar.daysInMonth(year: 2026, month: 0) == 0)
        #expect(CivilCalendar.daysInMonth(year: 2026, month: 13) == 0)
    }

    @Test("Floor division rounds toward negative infinity")
    func floorDivision() {
        #expect(CivilCalendar.floorDivide(-1, 86_400) == -1)
        #expect(CivilCalendar.floorDivide(-86_400, 86_400) == -1)
        #expect(CivilCalendar.floorDivide(-86_401, 86_400) == -2)
        #expect(CivilCalendar.floorDivide(86_399, 86_400) == 0)
        #expect(CivilCalendar.floorModulo(-1, 7) == 6)
    }

    @Test("UTC readings: fields of an instant, and instants of fields with every field checked")
    func utcDateTime() {
        let time = UTCDateTime(secondsSince1970: 1_795_266_309)
        #expect(
            [Int(time.year), time.month, time.day, time.hour, time.minute, time.second] as [Int] == [
                2026, 11, 21, 13, 5, 9,
            ])
        let before = UTCDateTime(secondsSince1970: -1)
        #expect(
            [Int(before.year), before.month, before.day, before.hour, before.minute, before.second] as [Int]
                == [1969, 12, 31, 23, 59, 59])
        #expect(
            UTCDateTime.secondsSince1970(year: 2026, month: 11, day: 21, hour: 13, minute: 5, second: 9)
                == 1_795_266_309)
        #expect(UTCDateTime.secondsSince1970(year: 2026, month: 2, day: 29, hour: 0, minute: 0, second: 0) == nil)
        #expect(UTCDateTime.secondsSince1970(year: 2026, month: 13, day: 1, hour: 0, minute: 0, second: 0) == nil)
        #expect(UTCDateTime.secondsSince1970(year: 2026, month: 1, day: 1, hour: 24, minute: 0, second: 0) == nil)
        #expect(UTCDateTime.secondsSince1970(year: 2026, month: 1, day: 1, hour: 0, minute: 60, second: 0) == nil)
        #expect(UTCDateTime.secondsSince1970(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 60) == nil)
    }
}

@Suite("Timestamp text")
struct TimestampTextTests {
    @Test("Java's Date.toString in UTC, as AWS's iterator-expiry message prints instants")
    func javaDates() {
        // The instant of AWS's recorded message "The iterator was created at time Thu Jul 02 12:57:57 UTC 2015".
        #expect(JavaDateText.format(Date(timeIntervalSince1970: 1_435_841_877.5)) == "Thu Jul 02 12:57:57 UTC 2015")
        #expect(JavaDateText.format(Date(timeIntervalSince1970: 1_795_000_000)) == "Wed Nov 18 11:06:40 UTC 2026")
    }

    @Test("HTTP dates: known texts, and every 1,000,003 s round trip through format and parse")
    func httpDates() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1_795_000_000)) == "Wed, 18 Nov 2026 11:06:40 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        for seconds in stride(from: Int64(0), through: 4_000_000_000, by: 1_000_003) {
            let text = HTTPDate.format(Date(timeIntervalSince1970: Double(seconds)))
            #expect(HTTPDate.parse(text) == seconds, "\(text)")
        }
    }

    @Test(
        "HTTP date parsing: optional weekday, four zones, and everything else refused",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777 as Int64?),
            ("06 Nov 1994 08:49:37 GMT", 784_111_777), ("Sun, 6 Nov 1994 08:49:37 UTC", 784_111_777),
            ("Sun, 06 Nov 1994 08:49:37 -0000", 784_111_777), ("Sun, 06 Nov 1994 08:49:37 +0000", 784_111_777),
            ("Sun, 06 Nov 1994 08:49:37 +0100", nil), ("Sun, 06 Nov 1994 08:49:37", nil),
            ("Xyz, 06 Nov 1994 08:49:37 GMT", nil), ("Sun, 06 Foo 1994 08:49:37 GMT", nil),
            ("Sun, 31 Nov 1994 08:49:37 GMT", nil), ("Sun, 06 Nov 1994 24:00:00 GMT", nil),
            ("Sun, 06 Nov 94 08:49:37 GMT", nil), ("Sun, 06 Nov 1994 8:49:37 GMT", nil),
            ("Sun, +6 Nov 1994 08:49:37 GMT", nil), ("", nil), ("20261121T130509Z", nil),
        ])
    func httpDateParsing(text: String, seconds: Int64?) {
        #expect(HTTPDate.parse(text) == seconds)
    }

    @Test(
        "ISO 8601 basic (X-Amz-Date): exactly yyyyMMdd'T'HHmmss'Z', every field checked",
        arguments: [
            ("20261121T130509Z", 1_795_266_309 as Int64?), ("19700101T000000Z", 0), ("20240229T235959Z", 1_709_251_199),
            ("20230229T000000Z", nil), ("20261321T130509Z", nil), ("20261121T240000Z", nil), ("20261121T130509z", nil),
            ("20261121 130509Z", nil), ("2026-11-21T13:05:09Z", nil), ("20261121T13050Z", nil),
            ("+0261121T130509Z", nil),
        ])
    func iso8601Basic(text: String, seconds: Int64?) {
        #expect(ISO8601Basic.parse(text) == seconds)
    }

    @Test(
        "ISO 8601 with milliseconds, truncated, before and after 1970",
        arguments: [
            (0.0, "1970-01-01T00:00:00.000Z"), (1_795_266_309.5, "2026-11-21T13:05:09.500Z"),
            (951_782_400, "2000-02-29T00:00:00.000Z"), (951_782_400.25, "2000-02-29T00:00:00.250Z"),
            (-1, "1969-12-31T23:59:59.000Z"), (-0.5, "1969-12-31T23:59:59.500Z"),
            (-0.001, "1969-12-31T23:59:59.999Z"), (4_102_444_799.999, "2099-12-31T23:59:59.999Z"),
            (253_402_300_799, "9999-12-31T23:59:59.000Z"), (1_795_266_309.123, "2026-11-21T13:05:09.123Z"),
            (1_795_266_309.0009, "2026-11-21T13:05:09.000Z"),
        ])
    func iso8601(seconds: Double, text: String) {
        #expect(ISO8601Timestamp.format(Date(timeIntervalSince1970: seconds)) == text)
    }
}
