import Synchronization

/// The body timeout of every request in flight, enforced by one timer task for the whole server.
///
/// A `Task.sleep` per request is not cheap on Linux even when the request finishes first: a cancelled
/// sleep keeps its dispatch timer source and its task allocated until the deadline would have passed.
/// With a 30 s body timeout that pinned about 0.7 KB per request for 30 s — 150–200 MiB of RSS at
/// 7,000–10,000 PutRecord requests/s, which glibc then kept. Here a request costs two dictionary
/// updates under a lock; the one timer sleeps until the earliest deadline and ends when nothing is in
/// flight, so an idle server has no timer at all.
///
/// Generic over the clock it waits on, as Hummingbird's persist driver is: the server uses
/// `ContinuousClock`, tests a manual clock they move past a deadline.
final class BodyDeadlines<Success: Sendable, C: Clock>: Sendable where C.Duration == Duration {
    typealias Instant = C.Instant

    let timeout: Duration
    let clock: C

    private struct Entry {
        var deadline: Instant
        var task: Task<Success, Never>
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var timerRunning = false
        var timerSleeps = 0
        /// Set once the server shuts down: no body may take longer than this from then on.
        var cutoff: Instant?
    }

    private let state = Mutex(State())

    init(timeout: Duration, clock: C) {
        self.timeout = timeout
        self.clock = clock
    }

    /// Starts the clock for `task`, which is cancelled if it has not called `finish` within `timeout`.
    func start(_ task: Task<Success, Never>, now: Instant? = nil) -> UInt64 {
        let normal = (now ?? clock.now).advanced(by: timeout)
        let (id, startTimer) = state.withLock { state -> (UInt64, Bool) in
            let deadline = state.cutoff.map { min($0, normal) } ?? normal
            state.nextID &+= 1
            state.entries[state.nextID] = Entry(deadline: deadline, task: task)
            defer { state.timerRunning = true }
            return (state.nextID, !state.timerRunning)
        }
        if startTimer { Task { await self.runTimer() } }
        return id
    }

    /// Stops the clock; false when the deadline passed first (the task was cancelled).
    func finish(_ id: UInt64) -> Bool {
        state.withLock { $0.entries.removeValue(forKey: id) != nil }
    }

    /// At shutdown: every body still arriving gets `grace` more at most, then its reader is cancelled.
    /// Safe to call more than once; the earliest cutoff stands.
    func shutDown(grace: Duration, now: Instant? = nil) {
        let cutoff = (now ?? clock.now).advanced(by: grace)
        let shortened = state.withLock { state -> Bool in
            guard state.cutoff.map({ cutoff < $0 }) ?? true else { return false }
            state.cutoff = cutoff
            for id in state.entries.keys where state.entries[id]!.deadline > cutoff {
                state.entries[id]!.deadline = cutoff
            }
            return !state.entries.isEmpty
        }
        // The running timer may sleep past the new cutoff: one more wakes at it.
        guard shortened else { return }
        Task {
            try? await clock.sleep(until: cutoff, tolerance: nil)
            _ = cancelOverdue(now: clock.now)
        }
    }

    /// Whether `shutDown` was called: a cancelled reader was cut off by the shutdown, not its timeout.
    var isShuttingDown: Bool { state.withLock { $0.cutoff != nil } }

    /// Requests whose clock is running.
    var inFlight: Int { state.withLock { $0.entries.count } }

    var isTimerRunning: Bool { state.withLock { $0.timerRunning } }

    /// Sleeps the timer has started since this instance was made: grows with the number of deadlines
    /// that came due, not with the number of requests.
    var timerSleeps: Int { state.withLock { $0.timerSleeps } }

    private func runTimer() async {
        // Later requests have later deadlines (one timeout for all), so nothing new can come due
        // before the earliest deadline seen here.
        while let next = cancelOverdue(now: clock.now) {
            try? await clock.sleep(until: next, tolerance: nil)
        }
    }

    /// Cancels the tasks whose deadline has passed at `now`; the next deadline, or nil (and the timer
    /// stops) when nothing else is in flight.
    func cancelOverdue(now: Instant) -> Instant? {
        let (expired, next) = state.withLock { state -> ([Task<Success, Never>], Instant?) in
            var expired: [Task<Success, Never>] = []
            for (id, entry) in state.entries.filter({ $0.value.deadline <= now }) {
                expired.append(entry.task)
                state.entries[id] = nil
            }
            let next = state.entries.values.lazy.map(\.deadline).min()
            if next == nil {
                state.timerRunning = false
            } else {
                state.timerSleeps += 1
            }
            return (expired, next)
        }
        for task in expired { task.cancel() }
        return next
    }
}

extension BodyDeadlines where C == ContinuousClock {
    convenience init(timeout: Duration) {
        self.init(timeout: timeout, clock: ContinuousClock())
    }
}
