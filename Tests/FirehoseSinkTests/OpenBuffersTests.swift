import FirehoseKeyLayout
import FirehoseTestSupport
import Testing

@testable import FirehoseSink

/// The buffers stage alone: buffers are plain objects with a partition, timers are tasks that wait
/// until cancelled.
@Suite("OpenBuffers")
struct OpenBuffersTests {
    final class Buffer: PartitionBuffer {
        let id: Int
        let partition: PartitionKey

        init(_ id: Int, _ partition: PartitionKey) {
            self.id = id
            self.partition = partition
        }
    }

    static func key(_ value: String) -> PartitionKey { PartitionKey(PartitionValues(fromQuery: ["k": value])) }

    /// A timer that waits on a clock nobody moves, until it is cancelled.
    static func timer() -> Task<Void, Never> {
        let clock = ManualClock()
        return Task { try? await clock.sleep(for: .seconds(3600)) }
    }

    @Test("One open buffer per partition, found by partition and by id, listed oldest first")
    func onePerPartition() {
        var buffers = OpenBuffers<Buffer>()
        let (a, b, errors) = (Buffer(1, Self.key("a")), Buffer(2, Self.key("b")), Buffer(3, .errorOutput("x")))
        buffers.open(b, timer: nil)
        buffers.open(a, timer: nil)
        buffers.open(errors, timer: nil)
        #expect(buffers.all.map(\.id) == [2, 1, 3])
        #expect(buffers[Self.key("a")] === a && buffers[.errorOutput("x")] === errors)
        #expect(buffers[Self.key("c")] == nil && buffers[.whole] == nil)
        #expect(buffers.buffer(withID: 2) === b && buffers.buffer(withID: 9) == nil)
    }

    @Test("A closed partition's next buffer is the newest; closing another buffer of the partition changes nothing")
    func closeAndReopen() {
        var buffers = OpenBuffers<Buffer>()
        let first = Buffer(1, Self.key("a"))
        buffers.open(first, timer: nil)
        buffers.open(Buffer(2, Self.key("b")), timer: nil)
        let closed = buffers.close(first)
        let closedTwice = buffers.close(first)
        #expect(closed && !closedTwice)
        #expect(buffers[Self.key("a")] == nil && buffers.all.map(\.id) == [2])
        let second = Buffer(3, Self.key("a"))
        buffers.open(second, timer: nil)
        #expect(buffers.all.map(\.id) == [2, 3])
        // The first buffer of the partition is long closed: the open one stays.
        let closedLongAgo = buffers.close(first)
        #expect(!closedLongAgo)
        #expect(buffers[Self.key("a")] === second && buffers.all.map(\.id) == [2, 3])
    }

    @Test("Closing cancels the buffer's timer, unless the timer is what closes it")
    func timers() {
        var buffers = OpenBuffers<Buffer>()
        let (byHand, byTimer) = (Buffer(1, Self.key("a")), Buffer(2, Self.key("b")))
        let (handTimer, ownTimer) = (Self.timer(), Self.timer())
        buffers.open(byHand, timer: handTimer)
        buffers.open(byTimer, timer: ownTimer)
        buffers.close(byTimer, byItsTimer: true)
        buffers.close(byHand)
        #expect(handTimer.isCancelled && !ownTimer.isCancelled)
        ownTimer.cancel()
    }

    @Test("closeAll closes every buffer, oldest first, and cancels every timer")
    func closeAll() {
        var buffers = OpenBuffers<Buffer>()
        let timers = [Self.timer(), Self.timer()]
        buffers.open(Buffer(1, Self.key("b")), timer: timers[0])
        buffers.open(Buffer(2, Self.key("a")), timer: nil)
        buffers.open(Buffer(3, Self.key("c")), timer: timers[1])
        let closed = buffers.closeAll()
        #expect(closed.map(\.id) == [1, 2, 3])
        #expect(buffers.all.isEmpty && buffers[Self.key("a")] == nil)
        #expect(timers.allSatisfy { $0.isCancelled })
    }
}
