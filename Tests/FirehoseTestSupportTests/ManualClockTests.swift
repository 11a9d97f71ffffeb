import FirehoseTestSupport
import Foundation
import Testing

@Suite("ManualClock")
struct ManualClockTests {
    @Test("A sleeper resumes only once advance reaches its deadline; the date moves in step")
    func advanceResumesDueSleepers() async throws {
        let clock = ManualClock(date: Date(timeIntervalSince1970: 1_000))
        let woke = Task { try await clock.sleep(for: .seconds(10)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)
        #expect(clock.date == Date(timeIntervalSince1970: 1_009))
        clock.advance(by: .milliseconds(1_000))
        try await woke.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.date == Date(timeIntervalSince1970: 1_010))
        #expect(clock.wallClock() == clock.date)
    }

    @Test("Of two sleepers, advance wakes the one whose deadline it reaches; a past deadline does not wait")
    func onlyDueSleepersWake() async throws {
        let clock = ManualClock()
        let late = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(5))) }
        let early = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(1))) }
        while clock.sleeperCount < 2 { await Task.yield() }
        clock.advance(by: .seconds(1))
        try await early.value
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(4))
        try await late.value
        #expect(clock.sleeperCount == 0)
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        #expect(clock.sleeperCount == 0)
    }

    @Test("Cancelling a sleeping task ends its sleep with CancellationError and forgets it")
    func cancellation() async throws {
        let clock = ManualClock()
        let sleeping = Task { try await clock.sleep(for: .seconds(60)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("With advancesWhenSlept, a sleep returns at once, moves the clock and is remembered")
    func advancesWhenSlept() async throws {
        let clock = ManualClock(date: Date(timeIntervalSince1970: 0), advancesWhenSlept: true)
        try await clock.sleep(for: .milliseconds(375))
        try await clock.sleep(for: .seconds(2))
        #expect(clock.sleeps == [.milliseconds(375), .seconds(2)])
        #expect(clock.now.offset == .milliseconds(2_375))
        #expect(clock.date == Date(timeIntervalSince1970: 2.375))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }
}
