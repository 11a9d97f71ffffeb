public import Foundation
import Synchronization

/// The one test clock: Swift's `Clock`, moved only by the test. Tasks sleep on it and resume when
/// `advance` reaches their deadline, so a test shows that a timer has not fired yet, then fires it,
/// without sleeping real time. The wall-clock `date` (what keys, journals and signatures are stamped
/// with) moves in step with it.
///
/// With `advancesWhenSlept`, a sleep instead returns at once after moving the clock to its deadline,
/// and is remembered in `sleeps`: for code whose waits are not under test (backoff between retries).
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "ManualClock.Instant(\(offset))" }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var sleeps: [Duration] = []
    }

    private let state = Mutex(State())
    private let start: Date
    private let advancesWhenSlept: Bool

    /// 2026-11-21T13:05:09Z unless told otherwise.
    public init(date: Date = Date(timeIntervalSince1970: 1_795_266_309), advancesWhenSlept: Bool = false) {
        self.start = date
        self.advancesWhenSlept = advancesWhenSlept
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// The wall-clock reading of `now`.
    public var date: Date { date(at: now) }

    public func date(at instant: Instant) -> Date {
        let (seconds, attoseconds) = instant.offset.components
        return start.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// `date` as the `now: () -> Date` closures of the client, the recorder and the sink take it.
    public var wallClock: @Sendable () -> Date { { [self] in date } }

    /// How many tasks are waiting on this clock: lets a test wait until a timer is armed.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Every sleep that returned at once under `advancesWhenSlept`, as the duration asked for.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Moves the clock forward and resumes every sleeper whose deadline it reaches, earliest first.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a clock does not go back")
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            return Self.takeDue(&state)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if advancesWhenSlept {
            let due = state.withLock { state -> [Sleeper] in
                state.sleeps.append(state.now.duration(to: deadline))
                if deadline > state.now { state.now = deadline }
                return Self.takeDue(&state)
            }
            for sleeper in due { sleeper.continuation.resume() }
            await Task.yield()
            try Task.checkCancellation()
            return
        }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    private static func takeDue(_ state: inout State) -> [Sleeper] {
        let now = state.now
        let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
        state.sleepers.removeAll { $0.deadline <= now }
        return due
    }
}
