import Synchronization

/// Work that leaves the process and may not come back in time: a function invocation, a request to
/// an HTTP endpoint. Each runs in a task of its own, so that a flush whose client went away does not
/// cancel it (a cancelled invocation would fail records the function never saw). Shutdown winds it
/// down in two steps: when it begins, failed requests are no longer retried (`stopRetries`); when its
/// time is up, everything under way is abandoned (`abandon`): each is cancelled — a command killed, a
/// request dropped — and what it carried stays staged for the next start.
final class OutgoingWork: Sendable {
    private struct State {
        var retriesStopped = false
        var abandoned = false
        var nextID: UInt64 = 0
        var running: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// True once `abandon` was called: whatever `run` returns is to be thrown away.
    var isAbandoned: Bool { state.withLock { $0.abandoned } }

    /// True once shutdown has begun (`stopRetries`): a failed request is not tried again, and a wait
    /// for the next attempt ends.
    var retriesStopped: Bool { state.withLock { $0.retriesStopped || $0.abandoned } }

    func stopRetries() {
        state.withLock { $0.retriesStopped = true }
    }

    /// Runs `operation` in a task of its own; nil when the work was abandoned before it started.
    func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T? {
        // Started under the lock, so that nothing starts once `abandon` has run.
        let started = state.withLock { state -> (id: UInt64, task: Task<T, Never>)? in
            guard !state.abandoned else { return nil }
            let task = Task { await operation() }
            state.nextID += 1
            state.running[state.nextID] = { task.cancel() }
            return (state.nextID, task)
        }
        guard let (id, task) = started else { return nil }
        let value = await task.value
        _ = state.withLock { $0.running.removeValue(forKey: id) }
        return value
    }

    /// Cancels everything running and whatever starts from now on; returns how many were running.
    @discardableResult
    func abandon() -> Int {
        let cancels = state.withLock { state -> [@Sendable () -> Void] in
            state.abandoned = true
            return Array(state.running.values)
        }
        for cancel in cancels { cancel() }
        return cancels.count
    }
}
