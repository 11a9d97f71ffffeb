import Testing

@testable import FirehoseSink

/// The publishing protocol alone: buffers are numbered, objects are strings, waiters are numbers.
@Suite("PublishQueue")
struct PublishQueueTests {
    struct Buffer: Identifiable, Equatable { var id: Int }
    typealias Queue = PublishQueue<Buffer, String, String, Int>

    @Test("One publisher at a time: others leave the work to it, or (a flush) wait for its turn")
    func onePublisherAtATime() {
        var queue = Queue()
        #expect(queue.requestTurn(waitingForOthers: false) == .nothingToPublish)
        queue.retire(Buffer(id: 1), reason: "size")
        #expect(queue.requestTurn(waitingForOthers: false) == .publish)
        #expect(queue.requestTurn(waitingForOthers: false) == .leftToOtherPublisher)
        #expect(queue.requestTurn(waitingForOthers: true) == .waitForOtherPublisher)
        queue.waitForTurn(7)
        queue.published(Buffer(id: 1), as: "object-1")
        #expect(queue.endTurn() == [7])
        // Woken, the flush asks again: nothing is left.
        #expect(queue.requestTurn(waitingForOthers: true) == .nothingToPublish)
    }

    @Test("Buffers leave the queue in the order they were retired")
    func inOrder() {
        var queue = Queue()
        for id in 1...3 { queue.retire(Buffer(id: id), reason: "r\(id)") }
        var order: [Int] = []
        while let next = queue.next {
            order.append(next.buffer.id)
            queue.published(next.buffer, as: "o\(next.buffer.id)")
        }
        #expect(order == [1, 2, 3])
    }

    @Test("A publish that fails arms one timer, succeeds on retry, and a flush arriving meanwhile gets it")
    func failThenRetryWithFlushArriving() {
        var queue = Queue()
        let buffer = Buffer(id: 1)
        queue.retire(buffer, reason: "interval")
        #expect(queue.requestTurn(waitingForOthers: false) == .publish)
        // The publish fails: the buffer stays queued, a 1 s timer is armed.
        #expect(queue.nextRetryDelay == 1)
        #expect(queue.failed() == .arm(afterSeconds: 1))
        #expect(queue.awaitsRetry)
        #expect(queue.endTurn().isEmpty)
        #expect(queue.next?.buffer == buffer)
        // Another request fails again before the timer fires: no second timer, but a longer wait next.
        #expect(queue.requestTurn(waitingForOthers: false) == .publish)
        #expect(queue.failed() == .alreadyArmed)
        #expect(queue.endTurn().isEmpty)
        #expect(queue.consecutiveFailures == 2)
        // The timer fires and its retry takes the publisher's turn.
        queue.retryFired()
        #expect(!queue.retryArmed)
        #expect(queue.requestTurn(waitingForOthers: false) == .publish)
        // A flush arrives during that publish: it awaits the queued buffer and waits for the turn.
        let awaited = queue.beginFlush()
        #expect(awaited == [1])
        #expect(queue.requestTurn(waitingForOthers: true) == .waitForOtherPublisher)
        queue.waitForTurn(42)
        // The retry succeeds: failures reset, the flush is woken, finds nothing left to publish,
        // and reports the object the retry published.
        queue.published(buffer, as: "object-1")
        #expect(queue.consecutiveFailures == 0)
        #expect(queue.endTurn() == [42])
        #expect(queue.requestTurn(waitingForOthers: true) == .nothingToPublish)
        #expect(queue.endFlush(awaited: awaited, own: []) == ["object-1"])
        // The next failure starts the backoff from the beginning.
        #expect(queue.nextRetryDelay == 1)
        // A failure arms a timer; a flush then publishes: requests publish again, the timer still armed.
        queue.retire(Buffer(id: 2), reason: "size")
        #expect(queue.failed() == .arm(afterSeconds: 1))
        #expect(queue.awaitsRetry)
        queue.published(Buffer(id: 2), as: "object-2")
        #expect(queue.retryArmed && !queue.awaitsRetry)
    }

    @Test("A flush reports the buffers it awaited and those it published itself, each once")
    func flushReporting() {
        var queue = Queue()
        queue.retire(Buffer(id: 1), reason: "size")
        let awaited = queue.beginFlush()
        queue.retire(Buffer(id: 2), reason: "flush")
        queue.published(Buffer(id: 1), as: "o1")
        queue.published(Buffer(id: 2), as: "o2")
        let objects = queue.endFlush(awaited: awaited, own: [(id: 1, object: "o1"), (id: 2, object: "o2")])
        #expect(objects == ["o1", "o2"])
        // Nothing is kept once no flush waits.
        queue.retire(Buffer(id: 3), reason: "size")
        queue.published(Buffer(id: 3), as: "o3")
        let later = queue.beginFlush()
        #expect(queue.endFlush(awaited: later, own: []).isEmpty)
    }

    @Test("Backoff doubles from 1 s up to a minute; discarding disarms the retry and empties the queue")
    func backoffAndDiscard() {
        #expect((1...9).map { DeliveryBackoff.seconds(after: $0) } == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        var queue = Queue()
        queue.retire(Buffer(id: 1), reason: "size")
        queue.retire(Buffer(id: 2), reason: "size")
        _ = queue.failed()
        #expect(queue.retryArmed)
        #expect(queue.discardAll().map(\.id) == [1, 2])
        #expect(!queue.retryArmed)
        #expect(queue.isEmpty)
    }

    @Test("One background publisher at a time, none while the retry timer has the work, one again after a success")
    func backgroundPublisher() {
        var queue = Queue()
        let whenEmpty = queue.startBackgroundPublisher()
        queue.retire(Buffer(id: 1), reason: "size")
        let first = queue.startBackgroundPublisher()
        let second = queue.startBackgroundPublisher()
        #expect(!whenEmpty && first && !second)
        // It fails: the timer is armed, and requests meanwhile leave the work to it.
        #expect(queue.failed() == .arm(afterSeconds: 1))
        queue.backgroundPublisherEnded()
        let duringRetry = queue.startBackgroundPublisher()
        #expect(!duringRetry)
        // A flush publishes before the timer fires: requests publish again.
        queue.published(Buffer(id: 1), as: "object-1")
        queue.retire(Buffer(id: 2), reason: "size")
        let afterSuccess = queue.startBackgroundPublisher()
        #expect(afterSuccess)
    }
}
