import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

@Suite("Buffering hints")
struct BufferingTests {
    static let mebibyte = 1_048_576

    @Test("SizeInMBs 1: the record that crosses 1 MiB closes the object; the rest stays buffered")
    func sizeHint() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 1, intervalInSeconds: 900)))
            var generator = SeededGenerator(seed: 77)
            // 300,000 × 3 = 900,000 < 1 MiB; the fourth makes 1,200,000.
            let big = (0..<4).map { _ in generator.bytes(300_000) }
            let small = [Array("after-1".utf8), Array("after-2".utf8)]
            let delivered = try await h.put(big + small)
            #expect(delivered.count == 1)
            let object = try #require(delivered.first)
            #expect(object.reason == .size)
            #expect(object.records == 4)
            #expect(object.bytes == 1_200_000)
            #expect(try h.contents(of: object) == big.flatMap { $0 })
            #expect(try await h.log.wait(count: 1) == delivered)

            // The two small records are still buffered (staged), not delivered.
            #expect(h.files(under: h.bucketPath()) == [object.key])
            #expect(h.stagedFiles.count == 1)
            let rest = try await h.sink.flush()
            #expect(rest.count == 1)
            #expect(try h.contents(of: rest[0]) == small.flatMap { $0 })
            #expect(rest[0].reason == .flush)
        }
    }

    @Test("Reaching exactly SizeInMBs delivers; one byte less does not")
    func sizeBoundary() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 1, intervalInSeconds: 900)))
            let almost = [UInt8](repeating: 0x61, count: Self.mebibyte - 1)
            #expect(try await h.put([almost]).isEmpty)
            let delivered = try await h.put([[0x62]])
            #expect(delivered.count == 1)
            #expect(delivered.first?.bytes == Self.mebibyte)
            #expect(try h.contents(of: try #require(delivered.first)) == almost + [0x62])
        }
    }

    @Test("Size counts bytes before compression, delimiters included")
    func sizeCountsUncompressed() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(
                settings(destination(sizeInMBs: 1, intervalInSeconds: 900, compression: "GZIP", delimiter: true)))
            let half = [UInt8](repeating: 0, count: Self.mebibyte / 2 - 1)  // + "\n" = exactly half
            #expect(try await h.put([half]).isEmpty)
            let delivered = try await h.put([half])
            let object = try #require(delivered.first)
            #expect(object.bytes == Self.mebibyte)
            #expect(object.storedBytes < 10_000)
            #expect(try Gzip.decompress(h.contents(of: object), limit: 2 * Self.mebibyte) == half + [10] + half + [10])
        }
    }

    @Test("One batch spanning several buffers produces several objects, in order")
    func batchSpansBuffers() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 1, intervalInSeconds: 900)))
            var generator = SeededGenerator(seed: 5)
            let records = (0..<7).map { _ in generator.bytes(400_000) }
            let delivered = try await h.put(records)
            #expect(delivered.count == 2)
            #expect(delivered.map(\.records) == [3, 3])
            #expect(delivered.allSatisfy { $0.reason == .size })
            #expect(try h.contents(of: delivered[0]) == records[0..<3].flatMap { $0 })
            #expect(try h.contents(of: delivered[1]) == records[3..<6].flatMap { $0 })
            #expect(delivered[0].key != delivered[1].key)
            #expect(try await h.log.wait(count: 2) == delivered)
            let last = try await h.sink.flush()
            #expect(try h.contents(of: try #require(last.first)) == records[6])
        }
    }

    @Test("Interval: nothing at 59 s, delivered with reason .interval at 60 s (manual clock)")
    func intervalHint() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 5, intervalInSeconds: 60)))
            #expect(try await h.put(["tick"]).isEmpty)
            try await eventually("the interval timer") { h.clock.sleeperCount == 1 }
            h.clock.advance(by: .seconds(59))
            #expect(h.clock.sleeperCount == 1)  // still waiting: the deadline was not reached
            #expect(h.log.objects.isEmpty)
            #expect(h.files(under: h.bucketPath()).isEmpty)

            h.clock.advance(by: .seconds(1))
            let objects = try await h.log.wait(count: 1)
            #expect(objects.count == 1)
            #expect(objects[0].reason == .interval)
            #expect(objects[0].key.matches(try keyPattern()))
            #expect(try h.contents(of: objects[0]) == Array("tick".utf8))
            #expect(h.stagingIsEmpty)
            #expect(try await h.sink.flush().isEmpty)
        }
    }

    @Test("The deadline counts from the buffer's first record, not the last")
    func deadlineFromFirstRecord() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 5, intervalInSeconds: 60)))
            try await h.put(["first;"])
            try await eventually("the interval timer") { h.clock.sleeperCount == 1 }
            h.clock.advance(by: .seconds(30))
            try await h.put(["second;"])
            h.clock.advance(by: .seconds(29))
            #expect(h.clock.sleeperCount == 1)  // the timer still waits: 59 s after the first record
            #expect(h.log.objects.isEmpty)
            h.clock.advance(by: .seconds(1))  // 60 s after the first record, 30 s after the second
            let objects = try await h.log.wait(count: 1)
            #expect(objects.first?.reason == .interval)
            #expect(objects.first?.records == 2)
            #expect(try h.contents(of: objects[0]) == Array("first;second;".utf8))
        }
    }

    @Test("After an interval delivery the next buffer starts its own deadline")
    func newDeadlinePerBuffer() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 5, intervalInSeconds: 60)))
            try await h.put(["one"])
            try await eventually("the first timer") { h.clock.sleeperCount == 1 }
            h.clock.advance(by: .seconds(60))
            try await h.log.wait(count: 1)

            h.clock.advance(by: .seconds(10))  // 13:06:19
            try await h.put(["two"])
            try await eventually("the second timer") { h.clock.sleeperCount == 1 }
            h.clock.advance(by: .seconds(59))
            #expect(h.clock.sleeperCount == 1)
            #expect(h.log.objects.count == 1)
            h.clock.advance(by: .seconds(1))
            let objects = try await h.log.wait(count: 2)
            #expect(objects.map(\.reason) == [.interval, .interval])
            #expect(try h.contents(of: objects[1]) == Array("two".utf8))
            #expect(objects[1].key.matches(try keyPattern(time: "2026-11-21-13-06-19")))
        }
    }

    @Test("A size delivery cancels the buffer's timer; the next buffer arms a new one")
    func sizeDeliveryCancelsTimer() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 1, intervalInSeconds: 60)))
            try await h.put(["small"])
            try await eventually("the timer") { h.clock.sleeperCount == 1 }
            let delivered = try await h.put([[UInt8](repeating: 1, count: Self.mebibyte)])
            #expect(delivered.map(\.reason) == [.size])
            try await eventually("the timer to be cancelled") { h.clock.sleeperCount == 0 }
            h.clock.advance(by: .seconds(120))  // no timer is left to fire
            #expect(h.clock.sleeperCount == 0)
            #expect(h.log.objects.count == 1)
            #expect(h.stagingIsEmpty)
        }
    }

    @Test("IntervalInSeconds 0 delivers at the end of every put, one object per request")
    func intervalZero() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 1, intervalInSeconds: 0)))
            let first = try await h.put(["a", "b", "c"])
            #expect(first.count == 1)
            #expect(first.first?.reason == .interval)
            #expect(first.first?.records == 3)
            #expect(try h.contents(of: try #require(first.first)) == Array("abc".utf8))
            let second = try await h.put(["d"])
            #expect(try h.contents(of: try #require(second.first)) == Array("d".utf8))
            #expect(h.clock.sleeperCount == 0)
            #expect(h.stagingIsEmpty)
            #expect(try await h.log.wait(count: 2).count == 2)
        }
    }
}
