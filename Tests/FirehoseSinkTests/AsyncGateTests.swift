import FirehoseTestSupport
import Synchronization
import Testing

@testable import FirehoseSink

@Suite("AsyncGate")
struct AsyncGateTests {
    /// A log of entries and exits, shared by the tasks under test.
    final class Log: Sendable {
        let events = Mutex<[String]>([])
        func add(_ event: String) { events.withLock { $0.append(event) } }
    }

    @Test("Bodies never overlap, even across suspension points, and run in arrival order")
    func oneAtATimeInOrder() async throws {
        let gate = AsyncGate()
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

    /// How many bodies are inside at once, and the most ever; `released` lets them out.
    final class Occupancy: Sendable {
        private let state = Mutex((inside: 0, most: 0, released: false))
        func enter() {
            state.withLock { state in
                state.inside += 1
                state.most = max(state.most, state.inside)
            }
        }
        func leave() { state.withLock { $0.inside -= 1 } }
        func release() { state.withLock { $0.released = true } }
        var released: Bool { state.withLock { $0.released } }
        var most: Int { state.withLock { $0.most } }
    }

    @Test("A body that throws lets the next one in, and its error reaches its caller")
    func throwingBodyOpensTheGate() async throws {
        struct Refused: Error {}
        let gate = AsyncGate()
        await #expect(throws: Refused.self) {
            try await gate.run { () async throws(Refused) in throw Refused() }
        }
        #expect(await gate.run { 42 } == 42)
    }

    @Test("A wider gate lets that many bodies in at once, never more; the rest wait their turn")
    func widthBoundsTheBodiesInside() async throws {
        let gate = AsyncGate(width: 3)
        let log = Log()
        let occupancy = Occupancy()
        var tasks: [Task<Void, Never>] = []
        for number in 0..<8 {
            tasks.append(
                Task {
                    await gate.run {
                        log.add("in \(number)")
                        occupancy.enter()
                        while !occupancy.released { try? await Task.sleep(for: .milliseconds(1)) }
                        occupancy.leave()
                    }
                })
            // The first three enter; each later one queues before the next starts.
            try await waitUntil { log.events.withLock { $0.count } + gate.waiting == number + 1 }
        }
        #expect(log.events.withLock { $0 } == ["in 0", "in 1", "in 2"])
        #expect(gate.waiting == 5)
        occupancy.release()
        for task in tasks { await task.value }
        #expect(occupancy.most == 3)
        #expect(Set(log.events.withLock { $0 }) == Set((0..<8).map { "in \($0)" }))
        #expect(gate.waiting == 0)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        try await eventually("the gate's waiters", condition)
    }
}
