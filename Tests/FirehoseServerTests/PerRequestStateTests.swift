import Foundation
import Testing

@testable import FirehoseServer

/// What the server keeps per request must go when the request does: under PutRecord load a timer per
/// request once pinned ~0.7 KB for the whole body timeout (RSS 155 MiB instead of 80).
@Suite("Per-request state")
struct PerRequestStateTests {
    @Test func finishedRequestsLeaveNoEntryAndShareOneTimer() async {
        let deadlines = BodyDeadlines<Int>(timeout: .seconds(30))
        for index in 0..<10_000 {
            let task = Task { index }
            let clock = deadlines.start(task)
            _ = await task.value
            #expect(deadlines.finish(clock))
        }
        #expect(deadlines.inFlight == 0)
        // One sleep until the first deadline, whatever the number of requests.
        #expect(deadlines.timerSleeps <= 1)
    }

    /// Stands for a body read that waits on a silent client: only cancellation ends it.
    private static func untilCancelled() async -> Bool {
        try? await Task.sleep(for: .seconds(600))
        return Task.isCancelled
    }

    @Test func aRequestPastItsDeadlineIsCancelledByTheTimer() async throws {
        let deadlines = BodyDeadlines<Bool>(timeout: .milliseconds(50))
        let stuck = Task { await Self.untilCancelled() }
        let clock = deadlines.start(stuck)
        #expect(await stuck.value)
        #expect(!deadlines.finish(clock))
        #expect(deadlines.inFlight == 0)
        try await eventually("the timer stops once nothing is in flight") { !deadlines.isTimerRunning }
    }

    @Test func onlyOverdueRequestsAreCancelled() async {
        let deadlines = BodyDeadlines<Bool>(timeout: .seconds(30))
        let now = ContinuousClock.now
        let early = Task { await Self.untilCancelled() }
        let late = Task { await Self.untilCancelled() }
        let earlyClock = deadlines.start(early, now: now)
        let lateClock = deadlines.start(late, now: now.advanced(by: .seconds(1)))
        #expect(deadlines.cancelOverdue(now: now.advanced(by: .seconds(30))) == now.advanced(by: .seconds(31)))
        #expect(await early.value)
        #expect(!deadlines.finish(earlyClock))
        #expect(!late.isCancelled)
        #expect(deadlines.finish(lateClock))
        late.cancel()
    }
}
