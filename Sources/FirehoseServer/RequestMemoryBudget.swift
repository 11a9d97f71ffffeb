import FirehoseWire
import Synchronization

/// Caps the request bytes held in memory at once across all connections. Bytes are charged as they
/// arrive (and as a gzip body decodes) and returned when the request is answered; a request that
/// would go over the cap is shed with 503 (SDKs retry it) instead of waiting, so slow or stalled
/// uploads hold only what they sent and never make well-behaved clients queue behind them.
final class RequestMemoryBudget: Sendable {
    let capacity: Int
    private let used = Mutex(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Charges `bytes` if they fit; false (nothing charged) otherwise.
    func tryReserve(_ bytes: Int) -> Bool {
        used.withLock { used in
            guard used + bytes <= capacity else { return false }
            used += bytes
            return true
        }
    }

    func release(_ bytes: Int) {
        used.withLock { $0 -= bytes }
    }

    var availableBytes: Int { capacity - used.withLock { $0 } }

    /// What one request charged, from its body's first byte to its answer, returned in one go.
    final class Account: Sendable {
        let budget: RequestMemoryBudget
        private let charged = Mutex(0)

        init(_ budget: RequestMemoryBudget) {
            self.budget = budget
        }

        func tryReserve(_ bytes: Int) -> Bool {
            guard budget.tryReserve(bytes) else { return false }
            charged.withLock { $0 += bytes }
            return true
        }

        func releaseAll() {
            budget.release(
                charged.withLock { charged in
                    defer { charged = 0 }
                    return charged
                })
        }
    }
}
