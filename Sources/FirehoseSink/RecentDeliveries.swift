import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The latest deliveries, numbered from 1, for the live view: a reader asks for what came after the
/// last number it saw. Only the newest `capacity` are kept; a reader that fell further behind gets
/// those and learns how many it missed.
public final class RecentDeliveries: Sendable {
    public struct Entry: Sendable, Equatable {
        public var sequence: UInt64
        public var time: Date
        public var object: DeliveredObject
    }

    public struct Page: Sendable, Equatable {
        public var entries: [Entry]
        /// Deliveries after the asked-for number that are no longer kept.
        public var missed: UInt64
        /// The number of the newest delivery: what to ask after next time.
        public var latest: UInt64
    }

    public let capacity: Int
    private struct State {
        var ring: [Entry] = []
        /// Index in `ring` of the oldest entry once it is full.
        var start = 0
        var latest: UInt64 = 0
    }
    private let state = Mutex(State())

    public init(capacity: Int = 10_000) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    func append(_ object: DeliveredObject, at time: Date) {
        state.withLock { state in
            state.latest += 1
            let entry = Entry(sequence: state.latest, time: time, object: object)
            if state.ring.count < capacity {
                state.ring.append(entry)
            } else {
                state.ring[state.start] = entry
                state.start = (state.start + 1) % capacity
            }
        }
    }

    /// The number of the newest delivery (0 before the first).
    public var latest: UInt64 { state.withLock { $0.latest } }

    /// The deliveries numbered after `sequence`, oldest first, at most `limit` of them (the newest).
    public func after(_ sequence: UInt64, limit: Int = .max) -> Page {
        state.withLock { state in
            guard state.latest > sequence else { return Page(entries: [], missed: 0, latest: state.latest) }
            let wanted = Int(min(state.latest - sequence, UInt64(Int.max)))
            let kept = min(wanted, state.ring.count)
            let taken = min(kept, max(limit, 0))
            var entries: [Entry] = []
            entries.reserveCapacity(taken)
            for offset in (state.ring.count - taken)..<state.ring.count {
                entries.append(state.ring[(state.start + offset) % state.ring.count])
            }
            return Page(entries: entries, missed: UInt64(wanted - taken), latest: state.latest)
        }
    }
}
