import FirehoseTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import FirehoseServer

/// What the server keeps per request must go when the request does: under PutRecord load a timer per
/// request once pinned ~0.7 KB for the whole body timeout (RSS 155 MiB instead of 80).
@Suite("Per-request state")
struct PerRequestStateTests {
    @Test func finishedRequestsLeaveNoEntryAndShareOneTimer() async {
        // The timeout outlasts the test however slow the machine: a deadline coming due is the only
        // thing that may start a second sleep (a loaded CI run once took 40 s against a 30 s timeout).
        let deadlines = BodyDeadlines<Int, ContinuousClock>(timeout: .seconds(3_600))
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
        let clock = ManualClock()
        let deadlines = BodyDeadlines<Bool, ManualClock>(timeout: .seconds(30), clock: clock)
        let stuck = Task { await Self.untilCancelled() }
        let id = deadlines.start(stuck)
        try await eventually("the timer") { clock.sleeperCount == 1 }
        clock.advance(by: .milliseconds(29_999))
        #expect(clock.sleeperCount == 1)  // short of the deadline: the request still runs
        #expect(!stuck.isCancelled)
        clock.advance(by: .milliseconds(1))
        #expect(await stuck.value)
        #expect(!deadlines.finish(id))
        #expect(deadlines.inFlight == 0)
        try await eventually("the timer stops once nothing is in flight") { !deadlines.isTimerRunning }
    }

    @Test func onlyOverdueRequestsAreCancelled() async {
        let deadlines = BodyDeadlines<Bool, ContinuousClock>(timeout: .seconds(30))
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

    @Test func shutdownCutsEveryBodyToTheGraceAndLaterOnesStartWithIt() async throws {
        let deadlines = BodyDeadlines<Bool, ContinuousClock>(timeout: .seconds(30))
        let now = ContinuousClock.now
        let slow = Task { await Self.untilCancelled() }
        let slowClock = deadlines.start(slow, now: now)
        #expect(!deadlines.isShuttingDown)
        deadlines.shutDown(grace: .seconds(2), now: now)
        #expect(deadlines.isShuttingDown)
        // Due at the cutoff, not 30 s after it started; a later, longer grace changes nothing.
        deadlines.shutDown(grace: .seconds(10), now: now)
        #expect(deadlines.cancelOverdue(now: now.advanced(by: .milliseconds(1_999))) == now.advanced(by: .seconds(2)))
        let late = Task { await Self.untilCancelled() }
        let lateClock = deadlines.start(late, now: now.advanced(by: .seconds(1)))
        #expect(deadlines.cancelOverdue(now: now.advanced(by: .seconds(2))) == nil)
        let slowCancelled = await slow.value
        let lateCancelled = await late.value
        #expect(slowCancelled && lateCancelled)
        #expect(!deadlines.finish(slowClock) && !deadlines.finish(lateClock))
    }

    @Test func theShutdownCutoffWakesTheTimerItself() async throws {
        let deadlines = BodyDeadlines<Bool, ContinuousClock>(timeout: .seconds(3_600))
        let stuck = Task { await Self.untilCancelled() }
        let id = deadlines.start(stuck)
        deadlines.shutDown(grace: .milliseconds(50))
        #expect(await stuck.value)  // long before the hour the timer sleeps toward
        #expect(!deadlines.finish(id))
    }

    @Test func requestIDsAreLowercaseVersion4UUIDsAndUnique() {
        let generator = RequestIDGenerator()
        let ids = (0..<50_000).map { _ in generator.next() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(1_000) {
            #expect(id.count == 36)
            #expect(id == id.lowercased())
            #expect(UUID(uuidString: id)?.uuidString.lowercased() == id)
            let characters = Array(id)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
        }
    }

    @Test func requestIDsDifferBetweenGenerators() {
        #expect(RequestIDGenerator().next() != RequestIDGenerator().next())
    }

    final class CapturedLines: TextOutputStream, Sendable {
        let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
        /// The lines without their timestamps.
        var lines: [Substring] {
            text.withLock { $0 }.split(separator: "\n").map { $0.drop { $0 != " " } }
        }
    }

    @Test func deferredMetadataPrintsTheSameLinesAsTheStreamHandler() {
        let plain = CapturedLines()
        let deferred = CapturedLines()
        var base = Logger(label: "firehose-local") { StreamLogHandler(label: $0, stream: plain) }
        base[metadataKey: "z"] = "base"
        var wrapped = Logger(label: "firehose-local") { StreamLogHandler(label: $0, stream: deferred) }
        wrapped[metadataKey: "z"] = "base"
        wrapped.handler = DeferredMetadataLogHandler(wrapping: wrapped.handler)
        for var logger in [base, wrapped] {
            logger.info("no request metadata")
            logger[metadataKey: "hb.request.id"] = "0123abcd"
            logger.info("with request metadata")
            logger.warning("and explicit", metadata: ["a": "explicit", "hb.request.id": "overridden"])
            logger.debug("below the level")
            #expect(logger[metadataKey: "hb.request.id"] == "0123abcd")
            #expect(logger[metadataKey: "z"] == "base")
        }
        #expect(deferred.lines == plain.lines)
        #expect(plain.lines.count == 3)
        #expect(plain.lines.last?.contains("a=explicit hb.request.id=overridden z=base") == true)
    }
}
