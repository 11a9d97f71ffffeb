/// The buffers of one stream that are closed to new records and wait to be published, oldest first,
/// and the protocol around publishing them: one publisher at a time, in order; after a failure, one
/// retry timer with exponential backoff; flushes that report what was published while they waited,
/// whoever published it. No I/O and no clock: the stream's actor publishes, arms timers and wakes
/// waiters as told.
struct PublishQueue<Buffer: Identifiable, Reason, Object, Waiter> {
    /// Closed buffers not yet in the bucket, oldest first. The first is published once it no longer
    /// waits for reserved segments; a buffer being published stays here until it is done.
    private(set) var retired: [(buffer: Buffer, reason: Reason)] = []
    private(set) var publisherActive = false
    private var turnWaiters: [Waiter] = []
    /// Failed publishing attempts since the last success.
    private(set) var consecutiveFailures = 0
    /// A retry timer is armed.
    private(set) var retryArmed = false
    /// A publisher started by a request runs in the background (`startBackgroundPublisher`).
    private(set) var backgroundPublisherRunning = false
    private var flushesWaiting = 0
    private var publishedDuringFlush: [Buffer.ID: Object] = [:]

    var isEmpty: Bool { retired.isEmpty }
    var next: (buffer: Buffer, reason: Reason)? { retired.first }

    /// `buffer` takes no more records: it is published after every buffer retired before it.
    mutating func retire(_ buffer: Buffer, reason: Reason) {
        retired.append((buffer, reason))
    }

    enum Turn: Equatable {
        /// Nothing is waiting to be published.
        case nothingToPublish
        /// Another publisher is under way and will publish whatever becomes ready meanwhile.
        case leftToOtherPublisher
        /// Another publisher is under way: wait (`waitForTurn`) and ask again when woken.
        case waitForOtherPublisher
        /// The caller is the publisher until it calls `endTurn`.
        case publish
    }

    /// A caller wants what is ready published; `waitingForOthers` (a flush) means it must see the
    /// publishing done rather than leave it to a publisher under way.
    mutating func requestTurn(waitingForOthers: Bool) -> Turn {
        guard !retired.isEmpty else { return .nothingToPublish }
        if publisherActive { return waitingForOthers ? .waitForOtherPublisher : .leftToOtherPublisher }
        publisherActive = true
        return .publish
    }

    /// After `.waitForOtherPublisher`: `waiter` is woken when the publisher ends its turn.
    mutating func waitForTurn(_ waiter: Waiter) {
        turnWaiters.append(waiter)
    }

    /// The publisher is done; returns the waiters to wake.
    mutating func endTurn() -> [Waiter] {
        publisherActive = false
        defer { turnWaiters.removeAll() }
        return turnWaiters
    }

    /// `buffer` is in the bucket as `object`.
    mutating func published(_ buffer: Buffer, as object: Object) {
        remove(buffer)
        consecutiveFailures = 0
        if flushesWaiting > 0 { publishedDuringFlush[buffer.id] = object }
    }

    /// `buffer` can never be published (its files are gone): forget it.
    mutating func remove(_ buffer: Buffer) {
        retired.removeAll { $0.buffer.id == buffer.id }
    }

    enum RetryAction: Equatable {
        /// A retry timer is armed already; it retries this failure too.
        case alreadyArmed
        /// Arm a timer; when it fires, call `retryFired` and publish again.
        case arm(afterSeconds: Int)
    }

    /// Publishing failed: the failed buffer and those after it stay queued.
    mutating func failed() -> RetryAction {
        consecutiveFailures += 1
        guard !retryArmed else { return .alreadyArmed }
        retryArmed = true
        return .arm(afterSeconds: DeliveryBackoff.seconds(after: consecutiveFailures))
    }

    /// Publishing failed and the retry timer, not the next request, publishes next. Not once a
    /// publishing succeeded (a flush's, an interval's) though the timer is still armed: it may be a
    /// minute away.
    var awaitsRetry: Bool { retryArmed && consecutiveFailures > 0 }

    /// Whether a request starts a publisher in the background now (`DeliveryStream.publishAfterRequest`,
    /// for a receiver that may be away): something waits, no background publisher runs, and no
    /// retry timer has the work. After a failure the timer publishes, with backoff, so a request does
    /// not run a function or send to a store again for every put meanwhile.
    mutating func startBackgroundPublisher() -> Bool {
        guard !retired.isEmpty, !backgroundPublisherRunning, !awaitsRetry else { return false }
        backgroundPublisherRunning = true
        return true
    }

    /// The background publisher has published what it could (or failed, arming the timer).
    mutating func backgroundPublisherEnded() {
        backgroundPublisherRunning = false
    }

    /// The delay the next failure would wait, for logging it before it happens.
    var nextRetryDelay: Int { DeliveryBackoff.seconds(after: consecutiveFailures + 1) }

    mutating func retryFired() {
        retryArmed = false
    }

    /// Drops every queued buffer (DeleteDeliveryStream) and disarms the retry; returns the buffers,
    /// for their files to be removed.
    mutating func discardAll() -> [Buffer] {
        retryArmed = false
        defer { retired.removeAll() }
        return retired.map(\.buffer)
    }

    /// A flush begins: it reports the buffers queued now, whoever publishes them.
    mutating func beginFlush() -> [Buffer.ID] {
        flushesWaiting += 1
        return retired.map(\.buffer.id)
    }

    /// The flush that awaited `awaited` ends, having itself published `own`: what it reports is every
    /// awaited buffer published meanwhile (by it or by others), then its own of later buffers.
    mutating func endFlush(awaited: [Buffer.ID], own: [(id: Buffer.ID, object: Object)]) -> [Object] {
        let awaitedIDs = Set(awaited)
        let objects =
            awaited.compactMap { publishedDuringFlush[$0] } + own.filter { !awaitedIDs.contains($0.id) }.map(\.object)
        flushesWaiting -= 1
        if flushesWaiting == 0 { publishedDuringFlush.removeAll() }
        return objects
    }
}

/// How long a failed delivery waits before the next attempt.
enum DeliveryBackoff {
    /// 1 s, 2 s, 4 s … doubling up to a minute.
    static func seconds(after failures: Int) -> Int { min(60, 1 << min(max(failures, 1) - 1, 6)) }

    /// `seconds` times a factor drawn from `jitter`, so deliveries that failed together (a store
    /// that was down) do not all come back at once.
    static func delay(seconds: Int, jitter: ClosedRange<Double>) -> Duration {
        .milliseconds(Int(Double(seconds * 1000) * Double.random(in: jitter)))
    }
}
