import Dispatch
import DurableStorage
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Synchronization
import Testing

@testable import FirehoseSink

@Suite("GZIP written by libdeflate: whole objects compressed at delivery")
struct WholeObjectGzipTests {
    /// JSON events of varied sizes and fields, compressible as app events are (about 4:1 with zlib).
    static func events(_ count: Int) -> [[UInt8]] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let names = ["tap", "view", "purchase", "search", "error", "session_start"]
        let words = ["alpha", "beta", "gamma", "delta", "home", "cart", "settings", "profile", "feed"]
        return (0..<count).map { index in
            let tags = (0..<Int(next() % 12)).map { _ in words[Int(next() % 9)] }.joined(separator: ",")
            let text =
                #"{"id":"\#(next())-\#(next() % 9000)","event":"\#(names[Int(next() % 6)])","n":\#(index),"#
                + #""user":"u\#(next() % 2000)","screen":"s\#(next() % 40)","value":\#(next() % 100_000),"#
                + #""tags":"\#(tags)"}"# + "\n"
            return Array(text.utf8)
        }
    }

    @Test(
        "An object is one gzip member: zlib's header, one deflate stream, the content's CRC-32 and size",
        arguments: [0, 1, 5_000])
    func oneMember(records: Int) throws {
        let content = Self.events(records).flatMap { $0 }
        let encoding = WholeObjectGzipEncoding(level: 6)
        let object = try encoding.encodeWhole(content)
        #expect(Array(object.prefix(10)) == GzipMember.header)
        #expect(Array(object.suffix(8)) == GzipMember.checks(crc: CRC32.checksum(content[...]), length: content.count))
        #expect(try Gzip.decompress(object, limit: 1 << 26) == content)
        // Read as staged GZIP too (a stream switched to zlib across a restart reads it so).
        #expect(encoding.decodeStaged(object, limit: 1 << 26) == content)
    }

    @Test(
        "At each level the objects are within 5 % of zlib's at that level, and inflate back", arguments: [1, 5, 6, 9])
    func ratioAgainstZlib(level: Int32) throws {
        let content = Self.events(20_000).flatMap { $0 }
        let libdeflate = try WholeObjectGzipEncoding(level: level).encodeWhole(content)
        let zlib = try GzipEncoding(level: level).encodeWhole(content)
        #expect(try Gzip.decompress(libdeflate, limit: 1 << 26) == content)
        #expect(
            Double(libdeflate.count) <= Double(zlib.count) * 1.05, "\(libdeflate.count) against zlib's \(zlib.count)")
        #expect(libdeflate.count < content.count / 2)
    }

    func libdeflateSettings(_ destination: ExtendedS3DestinationConfiguration) throws -> DeliveryStreamSettings {
        var stream = try settings(destination)
        stream.compressGzip(with: .libdeflate)
        return stream
    }

    @Test("A stream delivers GZIP objects compressed at delivery, its buffers staged as they are")
    func delivery() async throws {
        try await SinkHarness.with { harness in
            let stream = try libdeflateSettings(destination(compression: "GZIP", delimiter: true))
            #expect(stream.stagingEncoding.name == "UNCOMPRESSED" && stream.encoding.name == "GZIP")
            try harness.sink.createStream(stream)
            let requests = stride(from: 0, to: 3_000, by: 500).map { Self.events(3_000)[$0..<$0 + 500].map { $0 } }
            for request in requests { try await harness.put(request) }
            // Staged as they are: the staged file holds the records plus their newlines.
            let partial = "\(harness.stagingDirectory)/\(try #require(harness.stagedFiles.first))"
            let content: [UInt8] = requests.joined().flatMap { record -> [UInt8] in record + [0x0A] }
            #expect(try harness.contents(partial) == content)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(object.key.hasSuffix(".gz") && object.records == 3_000 && object.bytes == content.count)
            let stored = try harness.contents(of: object)
            #expect(object.storedBytes == stored.count && stored.count < content.count / 3)
            #expect(try Gzip.decompress(stored, limit: 1 << 26) == content)
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("Acknowledged records are recovered after a crash, staged by either deflate and delivered by libdeflate")
    func recovery() async throws {
        for stagedBy in DeliveryStreamSettings.GzipImplementation.allCases {
            let crashed = try SinkHarness()
            defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
            var stream = try settings(destination(compression: "GZIP"))
            stream.compressGzip(with: stagedBy)
            try crashed.sink.createStream(stream)
            let records = Self.events(800)
            try await crashed.put(Array(records[..<400]))
            try await crashed.put(Array(records[400...]))

            let restarted = try restartedSink(
                over: crashed.directory, streams: [try libdeflateSettings(destination(compression: "GZIP"))])
            let report = await restarted.recoverStagedBuffers()
            let object = try #require(report.delivered.first)
            #expect(report.delivered.count == 1 && report.corrupt.isEmpty, "staged by \(stagedBy)")
            #expect(object.records == 800)
            #expect(try Gzip.decompress(crashed.contents(of: object), limit: 1 << 26) == records.flatMap { $0 })
            #expect(crashed.stagingIsEmpty)
        }
    }

    @Test("After a failed delivery, once a flush delivers again, filled buffers are delivered without the retry timer")
    func publishingResumesOnceAFlushDelivers() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try libdeflateSettings(destination(sizeInMBs: 1, compression: "GZIP")))
            try FailureTests.blockBucket(harness)
            try await harness.put(["first"])
            // Arms the retry timer, which the manual clock never fires.
            await #expect(throws: SinkError.self) { try await harness.sink.flush() }
            try FailureTests.unblockBucket(harness)
            #expect(try await harness.sink.flush().count == 1)
            let request = [[UInt8](repeating: 0x65, count: 1 << 20)]
            try await harness.put(request)
            let objects = try await harness.log.wait(count: 2, timeout: .seconds(10))
            #expect(try Gzip.decompress(harness.contents(of: objects[1]), limit: 1 << 21) == request[0])
        }
    }

    @Test("With IntervalInSeconds 0 the put returns once its object is delivered, not in the background")
    func intervalZeroDeliversWithinThePut() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(
                try libdeflateSettings(destination(intervalInSeconds: 0, compression: "GZIP", delimiter: true)))
            let delivered = try await harness.put(["now"])
            #expect(delivered.count == 1)
            #expect(
                try Gzip.decompress(harness.contents(of: try #require(delivered.first)), limit: 64)
                    == Array("now\n".utf8))
        }
    }

    @Test("Staged content changed from outside is not delivered: the delivery fails and the buffer stays staged")
    func changedStagedContentIsRefused() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try libdeflateSettings(destination(compression: "GZIP")))
            try await harness.put(Self.events(50))
            try await harness.expectChangedStagedContentRefused()
        }
    }

    @Test("Without a configured deflate, hints up to 32 MiB get libdeflate and larger ones zlib; a named one wins")
    func defaultDeflateFollowsTheSizeHint() throws {
        for (megabytes, expected) in [(1, "libdeflate"), (32, "libdeflate"), (33, "zlib"), (128, "zlib")] {
            var stream = try settings(destination(sizeInMBs: megabytes, compression: "GZIP"))
            stream.compressGzip(with: nil)
            #expect(stream.gzipImplementation.rawValue == expected, "SizeInMBs \(megabytes)")
            #expect((stream.encoding is WholeObjectGzipEncoding) == (expected == "libdeflate"))
            stream.compressGzip(with: .zlib)
            #expect(stream.gzipImplementation == .zlib && stream.encoding is GzipEncoding)
            stream.compressGzip(with: .libdeflate)
            #expect(stream.encoding is WholeObjectGzipEncoding)
        }
    }

    @Test("A backup of source records follows the stream's deflate")
    func backupFollows() throws {
        var stream = try settings(destination(compression: "GZIP"))
        var backup = try settings(destination(bucket: "backup-bucket", compression: "GZIP"))
        backup.compressGzip(with: .zlib)
        stream.backUp(with: backup)
        stream.compressGzip(with: .libdeflate)
        #expect(stream.backupStage?.encoding is WholeObjectGzipEncoding)
    }
}

final class Flag: Sendable {
    let value = Atomic(false)
}

/// GZIP by libdeflate, each object held until the test lets it go (on the encoding's own thread).
struct HeldGzipEncoding: WholeObjectEncoding {
    final class Hold: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let started = Atomic(0)
    }

    let hold: Hold
    var name: String { "GZIP" }

    func makeSegmentEncoder() -> any SegmentEncoder { GzipSegmentEncoder(level: 1) }

    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? { try? Gzip.decompressPrefix(stored, limit: limit) }

    func encodeObject(_ content: [UInt8], contentCRC: UInt32) throws(FileSystemError) -> [UInt8] {
        hold.started.add(1, ordering: .relaxed)
        hold.semaphore.wait()
        return try WholeObjectGzipEncoding(level: 1).encodeObject(content, contentCRC: contentCRC)
    }
}

@Suite("Intake waits for the encodings at delivery to catch up", .serialized)
struct EncodingBacklogTests {
    /// A stream of 1 MiB buffers encoded by `HeldGzipEncoding`, its backlog limit two buffers (the
    /// configured bytes are 1): the first put's buffer is published in the background, its encoding held;
    /// two more fit in the backlog (2 then 3 MiB waiting), and a fourth is started. Returns the
    /// first and fourth puts, the hold, and the request (one 1 MiB record, which fills a buffer).
    func fillBacklog(_ harness: SinkHarness, byte: UInt8) async throws -> (
        publisher: Task<[DeliveredObject], any Error>, fourth: Task<[DeliveredObject], any Error>,
        hold: HeldGzipEncoding.Hold, request: [[UInt8]]
    ) {
        var stream = try settings(destination(sizeInMBs: 1, compression: "GZIP"))
        let hold = HeldGzipEncoding.Hold()
        stream.encoding = HeldGzipEncoding(hold: hold)
        try harness.sink.createStream(stream)
        let request = [[UInt8](repeating: byte, count: 1 << 20)]
        let publisher = Task { try await harness.put(request) }
        try await eventually("the first encoding to start") { hold.started.load(ordering: .relaxed) == 1 }
        try await harness.put(request)
        try await harness.put(request)
        let fourth = Task { try await harness.put(request) }
        let delivery = try #require(harness.sink.streams.withLock { $0["demo"]?.actor })
        try await eventually("the fourth put to wait for room") { await delivery.requestsWaitingForEncodingRoom == 1 }
        return (publisher, fourth, hold, request)
    }

    @Test("The put that fills a buffer returns before its object is encoded; the object is delivered after")
    func fillingPutDoesNotWaitForTheEncoding() async throws {
        try await SinkHarness.with { harness in
            var stream = try settings(destination(sizeInMBs: 1, compression: "GZIP"))
            let hold = HeldGzipEncoding.Hold()
            stream.encoding = HeldGzipEncoding(hold: hold)
            try harness.sink.createStream(stream)
            let request = [[UInt8](repeating: 0x64, count: 1 << 20)]
            let returned = Flag()
            let put = Task {
                let objects = try await harness.put(request)
                returned.value.store(true, ordering: .relaxed)
                return objects
            }
            try await eventually("the encoding to start") { hold.started.load(ordering: .relaxed) == 1 }
            let returnedWhileHeld =
                (try? await eventually(timeout: .seconds(10), "the put to return") {
                    returned.value.load(ordering: .relaxed)
                }) != nil
            hold.semaphore.signal()
            #expect(returnedWhileHeld, "the put waited for its object's encoding")
            #expect(try await put.value.isEmpty)
            let object = try #require(try await harness.log.wait(count: 1).first)
            #expect(try Gzip.decompress(harness.contents(of: object), limit: 1 << 21) == request[0])
        }
    }

    @Test("Past twice the size hint of content waiting to be encoded, a put waits until objects are delivered")
    func putWaitsForTheBacklog() async throws {
        try await SinkHarness.with(encodingBacklogBytes: 1) { harness in
            let (publisher, fourth, hold, request) = try await fillBacklog(harness, byte: 0x61)
            #expect(
                harness.stagedFiles.count == 3, "the fourth put staged nothing while the backlog was over its limit")
            for _ in 0..<8 { hold.semaphore.signal() }
            _ = try await publisher.value
            _ = try await fourth.value
            let delivered = try await harness.sink.flush(stream: "demo")
            let objects = try await harness.log.wait(count: 4)
            #expect(objects.count == 4 && objects.allSatisfy { $0.records == 1 }, "\(delivered)")
            for object in objects {
                #expect(try Gzip.decompress(harness.contents(of: object), limit: 1 << 21) == request[0])
            }
        }
    }

    @Test("A put waiting for room when its stream is deleted fails as an unknown stream and stages nothing")
    func deletedWhileWaiting() async throws {
        try await SinkHarness.with(encodingBacklogBytes: 1) { harness in
            let (publisher, fourth, hold, _) = try await fillBacklog(harness, byte: 0x63)
            try await harness.sink.deleteStream("demo")
            await #expect(throws: SinkError.unknownStream("demo")) { try await fourth.value }
            for _ in 0..<8 { hold.semaphore.signal() }
            _ = try? await publisher.value
            try await eventually("the staging folder to be empty") { harness.stagingIsEmpty }
            #expect(harness.files(under: harness.bucketPath()).isEmpty)
        }
    }

    @Test("Past the limit of content being encoded across streams, a put to another stream waits too")
    func putWaitsForEveryStreamsEncodings() async throws {
        try await SinkHarness.with(encodingBacklogBytes: 1) { harness in
            let hold = HeldGzipEncoding.Hold()
            for name in ["a", "b", "c", "d"] {
                var stream = try settings(stream: name, destination(sizeInMBs: 1, compression: "GZIP"))
                stream.encoding = HeldGzipEncoding(hold: hold)
                try harness.sink.createStream(stream)
            }
            let request = [[UInt8](repeating: 0x62, count: 1 << 20)]
            // Three objects to encode (two held on the encoding threads, one queued for a place): 3 MiB
            // under way across the streams, 1 MiB in each stream's own backlog.
            let publishers = ["a", "b", "c"].map { name in Task { try await harness.put(request, to: name) } }
            try await eventually("two encodings held") { hold.started.load(ordering: .relaxed) == 2 }
            let waiting = Task { try await harness.put(request, to: "d") }
            try await eventually("the put to d to wait for the encodings") {
                DeliveryEncoding.requestsWaitingForRoom == 1
            }
            #expect(harness.stagedFiles.count == 3, "the put to d staged nothing while 3 MiB were being encoded")
            for _ in 0..<8 { hold.semaphore.signal() }
            for publisher in publishers { _ = try await publisher.value }
            _ = try await waiting.value
            #expect(try await harness.log.wait(count: 4).count == 4)
        }
    }
}
