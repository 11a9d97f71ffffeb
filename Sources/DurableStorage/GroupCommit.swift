/// Group commit as a state machine: writes are numbered as they are made; a writer that needs its
/// write on stable storage waits for a sync that began after the write, and one sync serves every
/// write made before it began. No I/O and no clock: the owner performs the actions it returns (start
/// a sync, resume or fail waiters) and reports what happened (`syncSucceeded`, `syncFailed`).
///
/// `Waiter` is whatever the owner resumes: a continuation, or a plain value in tests.
package struct GroupCommit<Waiter> {
    /// The highest sequence number written so far.
    package private(set) var written: UInt64 = 0
    /// Every write up to this one is on stable storage.
    package private(set) var durable: UInt64 = 0
    /// The sequence the sync under way covers, if one is.
    package private(set) var syncing: UInt64?
    private var waiting: [(sequence: UInt64, waiter: Waiter)] = []

    package init() {}

    /// Waiters not yet resumed or failed.
    package var waiterCount: Int { waiting.count }

    /// A write finished (its bytes are in the file): it is covered by any sync that begins from now on.
    package mutating func wrote(_ sequence: UInt64) {
        written = max(written, sequence)
    }

    package enum WaitAction {
        /// The write is on stable storage already: resume the waiter now.
        case resume(Waiter)
        /// The waiter is kept until a sync covers its write.
        case wait
        /// The waiter is kept; start a sync covering writes up to `through` and report its outcome.
        case startSync(through: UInt64)
    }

    /// `waiter` needs write `sequence` on stable storage.
    package mutating func wait(for sequence: UInt64, _ waiter: Waiter) -> WaitAction {
        if sequence <= durable { return .resume(waiter) }
        waiting.append((sequence, waiter))
        guard syncing == nil else { return .wait }
        syncing = written
        return .startSync(through: written)
    }

    package struct SyncOutcome {
        /// Their writes are on stable storage.
        package var resume: [Waiter] = []
        /// Their writes may be lost.
        package var fail: [Waiter] = []
        /// Waiters remain whose writes the finished sync did not cover: start one covering these.
        package var startSync: UInt64?
    }

    /// The sync started for `through` finished.
    package mutating func syncSucceeded() -> SyncOutcome {
        guard let target = syncing else { preconditionFailure("syncSucceeded without a sync under way") }
        syncing = nil
        durable = max(durable, target)
        var outcome = SyncOutcome()
        let durable = durable
        outcome.resume = take { $0 <= durable }
        outcome.startSync = startNextIfWaiting()
        return outcome
    }

    /// The sync failed. After a failed fsync the system may have dropped any page written so far,
    /// whether or not this sync was meant to cover it, so every waiter fails, and the next sync is
    /// started by the next waiter.
    package mutating func syncFailed() -> SyncOutcome {
        precondition(syncing != nil, "syncFailed without a sync under way")
        syncing = nil
        return SyncOutcome(fail: take { _ in true })
    }

    /// Writes up to `sequence` reached stable storage another way (the owner synced them itself).
    package mutating func madeDurable(through sequence: UInt64) -> [Waiter] {
        durable = max(durable, sequence)
        let durable = durable
        return take { $0 <= durable }
    }

    private mutating func startNextIfWaiting() -> UInt64? {
        guard !waiting.isEmpty else { return nil }
        syncing = written
        return written
    }

    private mutating func take(where condition: (UInt64) -> Bool) -> [Waiter] {
        var taken: [Waiter] = []
        var kept: [(sequence: UInt64, waiter: Waiter)] = []
        for entry in waiting {
            if condition(entry.sequence) { taken.append(entry.waiter) } else { kept.append(entry) }
        }
        waiting = kept
        return taken
    }
}
