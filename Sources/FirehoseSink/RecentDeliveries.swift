import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The latest deliveries, numbered from 1, for the live view: a reader asks for what came after the
/// last number it saw. Only the newest `capacity` are kept; a reader that fell further behind gets
/// those and learns how many it missed. Numbers start again at 1 in every process: `boot` tells one
/// process's numbers from another's.
public final class RecentDeliveries: Sendable {
    public struct Entry: Sendable, Equatable {
        public var sequence: UInt64
        public var time: Date
        public var object: DeliveredObject
    }

    public struct Page: Sendable, Equatable {
        /// The oldest kept deliveries after the asked-for number, at most the limit asked for.
        public var entries: [Entry]
        /// Deliveries after the asked-for number that are no longer kept (before `entries`).
        public var missed: UInt64
        /// The number of the newest delivery.
        public var latest: UInt64

        /// The number to ask after next time: the last one here, or the asked-for one plus the missed.
        public func next(after sequence: UInt64) -> UInt64 { entries.last?.sequence ?? sequence + missed }
    }

    public let capacity: Int
    /// This process's: random, so numbers seen before a restart are told apart.
    public let boot: String
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
        boot = String(UInt32.random(in: 0...UInt32.max), radix: 16)
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

    /// The deliveries numbered after `sequence` that are kept, oldest first, at most `limit` of them;
    /// ask again after the last one for the rest.
    public func after(_ sequence: UInt64, limit: Int = .max) -> Page {
        state.withLock { state in
            guard state.latest > sequence else { return Page(entries: [], missed: 0, latest: state.latest) }
            let wanted = Int(min(state.latest - sequence, UInt64(Int.max)))
            let kept = min(wanted, state.ring.count)
            let taken = min(kept, max(limit, 0))
            var entries: [Entry] = []
            entries.reserveCapacity(taken)
            let first = state.ring.count - kept
            for offset in first..<(first + taken) {
                entries.append(state.ring[(state.start + offset) % state.ring.count])
            }
            return Page(entries: entries, missed: UInt64(wanted - kept), latest: state.latest)
        }
    }
}
