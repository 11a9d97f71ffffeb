import Synchronization

/// Lets one task at a time through, the others in arrival order, and stays closed across suspension
/// points (which an actor's method does not: it can be re-entered at every `await`).
final class AsyncSerialGate: Sendable {
    private struct State {
        var occupied = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Tasks queued behind the one inside.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` once every task that arrived earlier has finished its own.
    func run<Result, Failure: Error>(_ body: () async throws(Failure) -> Result) async throws(Failure) -> Result {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { continuation in
            let entered = state.withLock { state -> Bool in
                guard !state.occupied else {
                    state.waiting.append(continuation)
                    return false
                }
                state.occupied = true
                return true
            }
            if entered { continuation.resume() }
        }
    }

    /// Hands the gate to the next waiting task, still occupied, or opens it.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.occupied = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
