import Synchronization

/// Caps the request bytes held in memory at once across all connections. Each request reserves its
/// declared body size (or the maximum when undeclared) before the body is read and returns it when
/// answered; requests beyond the budget wait their turn in arrival order. Memory under load is
/// then bounded by the budget, not by connections × maximum body size.
final class RequestMemoryBudget: Sendable {
    private struct State {
        var available: Int
        var waiters: [(bytes: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let capacity: Int
    private let state: Mutex<State>

    init(capacity: Int) {
        self.capacity = capacity
        state = Mutex(State(available: capacity))
    }

    /// Returns the amount actually reserved (never more than the capacity, so one request always fits).
    func reserve(_ bytes: Int) async -> Int {
        let amount = min(max(bytes, 0), capacity)
        let granted = state.withLock { state -> Bool in
            guard state.waiters.isEmpty, state.available >= amount else { return false }
            state.available -= amount
            return true
        }
        if granted { return amount }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.waiters.isEmpty, state.available >= amount {
                    state.available -= amount
                    return true
                }
                state.waiters.append((amount, continuation))
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return amount
    }

    func release(_ bytes: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.available += bytes
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = state.waiters.first, first.bytes <= state.available {
                state.available -= first.bytes
                state.waiters.removeFirst()
                ready.append(first.continuation)
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    var availableBytes: Int { state.withLock { $0.available } }
    var waiterCount: Int { state.withLock { $0.waiters.count } }
}
