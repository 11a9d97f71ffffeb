import Dispatch
import Foundation
import Testing

@testable import FirehoseSink

@Suite("Blocking file-system calls")
struct BlockingIOTests {
    // Group commits park a thread in fsync for milliseconds at a time. If those threads were the
    // ones Swift runs tasks on (one per core), a few streams syncing at once would stop every request.
    // More calls than cores are parked here, and a task must still run right away. (With the
    // blocking calls on a concurrent Dispatch queue — the task threads' pool on Linux — the task ran
    // only after 1.98 s, when Dispatch added a thread; on the serial queue, at once.)
    @Test("Parked blocking calls leave Swift's task threads free")
    func blockingCallsLeaveTaskThreadsFree() async {
        let clock = ContinuousClock()
        let start = clock.now
        let parked = ProcessInfo.processInfo.activeProcessorCount + 1
        let gate = DispatchSemaphore(value: 0)
        // On a thread of its own: however the pool is doing, the parked calls end after 10 s.
        DispatchQueue(label: "blocking-io-test.watchdog").asyncAfter(deadline: .now() + 10) {
            for _ in 0..<parked { gate.signal() }
        }
        let calls = (0..<parked).map { _ in Task { await BlockingIO.run { gate.wait() } } }
        try? await Task.sleep(for: .milliseconds(200))

        let probeRanAt = await Task { clock.now - start }.value

        for _ in 0..<parked { gate.signal() }
        for call in calls { await call.value }
        #expect(probeRanAt < .seconds(1), "a task waited \(probeRanAt) for a thread while blocking calls were parked")
    }
}
