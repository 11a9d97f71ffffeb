import CivilTime
import FirehoseKeyLayout
import FirehoseWire
import Foundation
import Testing

@Suite("Civil date and time")
struct CivilDateTimeTests {
    @Test("Leap years: 2000 and 2024 have Feb 29, 1900 and 2100 do not")
    func leapYears() {
        #expect(CivilCalendar.isLeapYear(2000) && CivilCalendar.isLeapYear(2024) && CivilCalendar.isLeapYear(1600))
        #expect(!CivilCalendar.isLeapYear(1900) && !CivilCalendar.isLeapYear(2100) && !CivilCalendar.isLeapYear(2026))
        for year: Int64 in [1900, 2000, 2023, 2024, 2100] {
            let feb28 = CivilCalendar.days(year: year, month: 2, day: 28)
            let next = CivilCalendar.date(days: feb28 + 1)
            #expect((next.month == 2 && next.day == 29) == CivilCalendar.isLeapYear(year), "\(year)")
            let dec31 = CivilDateTime(
                epochSeconds: CivilCalendar.days(year: year, month: 12, day: 31) * 86_400, nanosecond: 0,
                utcOffsetSeconds: 0)
            #expect(dec31.dayOfYear == (CivilCalendar.isLeapYear(year) ? 366 : 365), "\(year)")
        }
    }

    @Test("Year boundaries, and offsets that cross them")
    func yearBoundary() {
        let last = CivilDateTime(date: isoDate(2023, 12, 31, 23, 59, 59), utcOffsetSeconds: 0)
        #expect(
            [last.year, last.month, last.day, last.hour, last.minute, last.second] == [2023, 12, 31, 23, 59, 59]
                as [Int])
        #expect(last.dayOfYear == 365 && last.weekday == 7)
        let first = CivilDateTime(date: isoDate(2024, 1, 1), utcOffsetSeconds: 0)
        #expect(
            [first.year, first.month, first.day, first.hour, first.dayOfYear, first.weekday] == [2024, 1, 1, 0, 1, 1]
                as [Int])
        // 2024-01-01T02:00Z is still 2023 in New York (UTC-5) and already late morning in Kolkata.
        let newYork = CivilDateTime(date: isoDate(2024, 1, 1, 2), utcOffsetSeconds: -5 * 3600)
        #expect([newYork.year, newYork.month, newYork.day, newYork.hour] == [2023, 12, 31, 21] as [Int])
        let kolkata = CivilDateTime(date: isoDate(2023, 12, 31, 20, 15), utcOffsetSeconds: 5 * 3600 + 1800)
        #expect(
            [kolkata.year, kolkata.month, kolkata.day, kolkata.hour, kolkata.minute] == [2024, 1, 1, 1, 45] as [Int])
    }

    @Test("Dates before 1970 and fractions of a second")
    func negativeAndFractions() {
        let beforeEpoch = CivilDateTime(date: Date(timeIntervalSince1970: -0.25), utcOffsetSeconds: 0)
        #expect(
            [beforeEpoch.year, beforeEpoch.month, beforeEpoch.day, beforeEpoch.second] == [1969, 12, 31, 59] as [Int])
        #expect(beforeEpoch.nanosecond == 750_000_000)
        // 1.123 is not exact in binary; it must still read as 123 ms, not 122.999….
        let fraction = CivilDateTime(date: Date(timeIntervalSince1970: 1_795_266_309.123), utcOffsetSeconds: 0)
        #expect(fraction.nanosecond == 123_000_000)
        let built = Date(timeIntervalSinceReferenceDate: 815_000_000.001)
        #expect(CivilDateTime(date: built, utcOffsetSeconds: 0).nanosecond == 1_000_000)
    }

    @Test("Agrees with Foundation's Calendar for random instants and zones")
    func agreesWithCalendar() throws {
        var random = SeededGenerator(seed: 1_795_266_309)
        let zones = try [
            "UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", "America/St_Johns",
        ]
        .map { try #require(TimeZone(identifier: $0)) }
        // 1583 onwards: Foundation's Gregorian calendar switches to Julian before the 1582 reform.
        let start = CivilCalendar.days(year: 1583, month: 1, day: 1) * 86_400
        let end = CivilCalendar.days(year: 9999, month: 1, day: 1) * 86_400
        for index in 0..<5000 {
            let seconds = Int64.random(in: start..<end, using: &random)
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let zone = zones[index % zones.count]
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
            let ours = CivilDateTime(date: date, timeZone: zone)
            let theirs = [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!]
            let mine = [ours.year, ours.month, ours.day, ours.hour, ours.minute, ours.second]
            #expect(mine == theirs, "\(seconds) in \(zone.identifier)")
            // Calendar numbers Sunday as 1; ISO numbers Monday as 1.
            #expect(ours.weekday % 7 + 1 == parts.weekday!, "\(seconds)")
            #expect(ours.dayOfYear == calendar.ordinality(of: .day, in: .year, for: date), "\(seconds)")
            if mine != theirs { return }
        }
    }

    @Test("Modified Julian Day and epoch day")
    func epochDay() {
        let time = CivilDateTime(date: isoDate(1858, 11, 17), utcOffsetSeconds: 0)
        #expect(time.epochDay == -40_587)
        #expect(time.weekday == 3)  // a Wednesday
    }
}
