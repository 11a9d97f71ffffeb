import Synchronization

/// Lets at most `width` tasks at a time through, the others in arrival order, and stays closed across
/// suspension points (which an actor's method does not: it can be re-entered at every `await`). With
/// width 1 it serializes; wider, it bounds how much of something runs at once.
package final class AsyncGate: Sendable {
    private struct State {
        var inside = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    let width: Int
    private let state = Mutex(State())

    package init(width: Int = 1) {
        precondition(width > 0, "a gate lets at least one task through")
        self.width = width
    }

    /// Tasks queued behind the ones inside.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` once fewer than `width` tasks that arrived earlier are still running theirs.
    package func run<Result, Failure: Error>(_ body: () async throws(Failure) -> Result) async throws(Failure)
        -> Result
    {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { continuation in
            let entered = state.withLock { state -> Bool in
                guard state.inside < width else {
                    state.waiting.append(continuation)
                    return false
                }
                state.inside += 1
                return true
            }
            if entered { continuation.resume() }
        }
    }

    /// Hands the place to the next waiting task, or frees it.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.inside -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
