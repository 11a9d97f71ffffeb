import Synchronization
import Testing

@testable import FirehoseSink

@Suite("AsyncSerialGate")
struct AsyncSerialGateTests {
    /// A log of entries and exits, shared by the tasks under test.
    final class Log: Sendable {
        let events = Mutex<[String]>([])
        func add(_ event: String) { events.withLock { $0.append(event) } }
    }

    @Test("Bodies never overlap, even across suspension points, and run in arrival order")
    func oneAtATimeInOrder() async throws {
        let gate = AsyncSerialGate()
        let log = Log()
        // The first body holds the gate while the others arrive, one after another.
        let (held, holding) = AsyncStream<Void>.makeStream()
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let first = Task {
            await gate.run {
                log.add("in 0")
                holding.yield()
                for await _ in release { break }
                log.add("out 0")
            }
        }
        for await _ in held { break }
        var others: [Task<Void, Never>] = []
        for number in 1...20 {
            others.append(
                Task {
                    await gate.run {
                        log.add("in \(number)")
                        await Task.yield()
                        try? await Task.sleep(for: .milliseconds(1))
                        log.add("out \(number)")
                    }
                })
            // Each task is queued at the gate before the next one starts.
            try await waitUntil { gate.waiting == number }
        }
        releasing.yield()
        await first.value
        for task in others { await task.value }
        #expect(log.events.withLock { $0 } == (0...20).flatMap { ["in \($0)", "out \($0)"] })
        #expect(gate.waiting == 0)
    }

    @Test("A body that throws lets the next one in, and its error reaches its caller")
    func throwingBodyOpensTheGate() async throws {
        struct Refused: Error {}
        let gate = AsyncSerialGate()
        await #expect(throws: Refused.self) {
            try await gate.run { () async throws(Refused) in throw Refused() }
        }
        #expect(await gate.run { 42 } == 42)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<1_000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition())
    }
}
