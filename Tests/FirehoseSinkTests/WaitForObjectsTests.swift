import FirehoseSink
import FirehoseTestSupport
import Testing

@Suite("Waiting for objects (/_local/wait)")
struct WaitForObjectsTests {
    @Test("A wait times out on the sink's clock: still waiting 1 s short of it, false once it passes")
    func timesOutOnTheSinkClock() async throws {
        try await SinkHarness.with { h in
            let waited = try await Self.waitForOneObject(h, timeout: .seconds(60))
            h.clock.advance(by: .seconds(59))
            #expect(h.clock.sleeperCount == 1)
            h.clock.advance(by: .seconds(1))
            #expect(try await waited.value == false)
        }
    }

    @Test("A wait answers true as soon as the object is written, long before its timeout")
    func answersOnDelivery() async throws {
        try await SinkHarness.with { h in
            let waited = try await Self.waitForOneObject(h, timeout: .seconds(300))
            try await h.put(["x"])
            _ = try await h.sink.flush()
            #expect(try await waited.value == true)
            try await eventually("the wait's timer to be cancelled") { h.clock.sleeperCount == 0 }
        }
    }

    @Test("A cancelled wait (the client went away) answers false at once, without the clock moving")
    func cancelledWaitAnswersAtOnce() async throws {
        try await SinkHarness.with { h in
            let waited = try await Self.waitForOneObject(h, timeout: .seconds(300))
            waited.cancel()
            #expect(try await waited.value == false)
            try await eventually("the wait's timer to be cancelled") { h.clock.sleeperCount == 0 }
        }
    }

    /// A stream `demo` and a task waiting for its first object, once the wait's timer is armed.
    private static func waitForOneObject(_ h: SinkHarness, timeout: Duration) async throws -> Task<Bool, any Error> {
        try h.sink.createStream(settings())
        let sink = h.sink
        let waited = Task { try await sink.waitForObjects(1, stream: "demo", timeout: timeout) }
        try await eventually("the wait's timer") { h.clock.sleeperCount == 1 }
        return waited
    }
}
