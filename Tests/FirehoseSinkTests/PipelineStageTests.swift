import DurableStorage
import FirehoseKeyLayout
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Synchronization
import Testing

/// An encoding only these tests know: the content as lowercase hex between a header and a trailer
/// that states the content's CRC-32 and length. Plugging it in shows the encoding stage is one type.
struct HexEncoding: ObjectEncoding {
    static let header = Array("HEX1\n".utf8)

    var name: String { "TEST-HEX" }

    func makeSegmentEncoder() -> any SegmentEncoder { Encoder() }

    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? {
        guard stored.starts(with: Self.header) else { return nil }
        let digits = stored.dropFirst(Self.header.count)
        guard digits.count % 2 == 0 else { return nil }
        var content: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex, content.count < limit {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            content.append(byte)
            index += 2
        }
        return content
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        Array(bytes.map { String(format: "%02x", $0) }.joined().utf8)
    }

    static func trailer(crc: UInt32, length: Int) -> [UInt8] { Array("\nEND \(crc) \(length)\n".utf8) }

    /// The whole object for `content`.
    static func object(_ content: [UInt8]) -> [UInt8] {
        header + hex(content) + trailer(crc: content.withUnsafeBytes { CRC32.checksum($0) }, length: content.count)
    }

    final class Encoder: SegmentEncoder {
        var header: [UInt8] { HexEncoding.header }

        func encode(_ run: RecordRun, inParallel: Bool) -> PlannedSegment {
            let job = SegmentJob(run: run) { run in
                run.withContent { content in
                    EncodedSegment(stored: HexEncoding.hex(content), content: content, records: run.range.count)
                }
            }
            return inParallel ? .job(job) : .ready(job.encode())
        }

        func trailer(contentCRC: UInt32, contentLength: Int, storedLength: Int) -> [UInt8] {
            HexEncoding.trailer(crc: contentCRC, length: contentLength)
        }
    }
}

/// A destination only these tests know: objects kept in memory, failing the first `failures` times.
final class MemoryBucket: ObjectDestination {
    struct Object: Equatable {
        var bucket: String
        var key: String
        var bytes: [UInt8]
    }

    private let state: Mutex<(objects: [Object], failuresLeft: Int)>

    init(failures: Int = 0) {
        state = Mutex(([], failures))
    }

    var objects: [Object] { state.withLock { $0.objects } }

    func deliver(_ staged: StagedObject, bucket: String, key: String) async throws(FileSystemError) -> String {
        let failing = state.withLock { state in
            defer { state.failuresLeft = max(0, state.failuresLeft - 1) }
            return state.failuresLeft > 0
        }
        if failing { throw FileSystemError(operation: "upload", path: key, errno: EIO) }
        let bytes = try POSIX.readFile(staged.path)
        state.withLock { $0.objects.append(Object(bucket: bucket, key: key, bytes: bytes)) }
        return "memory://\(bucket)/\(key)"
    }
}

/// A processor only these tests know: puts `tag` before every record. When `gate` is set, the first
/// call waits for the test to open it.
final class TaggingProcessor: RecordProcessor {
    let tag: [UInt8]
    let gate: ProcessingGate?

    init(_ tag: String, gate: ProcessingGate? = nil) {
        self.tag = Array(tag.utf8)
        self.gate = gate
    }

    func process(_ records: RecordBatch, context: RecordContext, outcome: inout ProcessingOutcome) -> RecordBatch {
        gate?.pass()
        return RecordBatch((0..<records.count).map { tag + records[$0] })
    }
}

/// Holds the first caller of `pass` until `open`, and tells the test when it got there. Callers run
/// on `executor`, a thread of its own, so holding one takes no thread from Swift's shared pool. The
/// waits only bound a hang: the test's outcome depends on the order of events, not their timing.
final class ProcessingGate: Sendable {
    let executor = DedicatedThreadExecutor()
    private static let bound = DispatchTimeInterval.seconds(120)
    private let reached = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)
    private let used = Mutex(false)

    func pass() {
        let first = used.withLock { used in
            let first = !used
            used = true
            return first
        }
        guard first else { return }
        reached.signal()
        _ = opened.wait(timeout: .now() + Self.bound)
    }

    func waitUntilReached() async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.reached.wait(timeout: .now() + Self.bound) == .success)
            }
        }
    }

    func open() { opened.signal() }
}

/// A partitioner only these tests know: a record's first byte names its partition.
struct FirstBytePartitioner: RecordPartitioner {
    func partition(
        _ records: RecordBatch, lambdaKeys: [[String: String]]?, context: RecordContext,
        outcome: inout ProcessingOutcome
    ) -> [RecordPartition] {
        var partitions: [RecordPartition] = []
        for index in 0..<records.count {
            let key = PartitionKey(
                PartitionValues(fromQuery: ["first": String(decoding: records[index].prefix(1), as: UTF8.self)]))
            if let position = partitions.firstIndex(where: { $0.key == key }) {
                partitions[position].records.append(records[index])
            } else {
                partitions.append(RecordPartition(key: key, records: RecordBatch([Array(records[index])])))
            }
        }
        return partitions
    }
}

/// Runs jobs on a serial queue's thread, outside Swift's shared pool, so a test may block it.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Immutable after init; DispatchQueue is thread-safe.
    private let queue = DispatchQueue(label: "firehose-sink-tests.dedicated-thread")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A stream over `destination` whose records are partitioned by `FirstBytePartitioner`.
func createPartitionedStream(in harness: SinkHarness, _ destination: ExtendedS3DestinationConfiguration) throws {
    var stream = try settings(destination)
    stream.partitioner = FirstBytePartitioner()
    try harness.sink.createStream(stream)
}

@Suite("Pipeline stages: a new processor, partitioner, encoding or destination is one type")
struct PipelineStageTests {
    /// Records that cross the 64 KiB line, so segments are encoded both on the stream's actor and as
    /// jobs off it.
    static let records: [[UInt8]] = [
        Array("small\n".utf8), Array(repeating: UInt8(ascii: "a"), count: 70 * 1024), [0, 255, 10],
    ]

    @Test("Test-only processors run in order before buffering; the delimiter is appended after them")
    func pluggedProcessors() async throws {
        try await SinkHarness.with { harness in
            var stream = try settings(destination(delimiter: true))
            stream.processors += [TaggingProcessor("b:"), TaggingProcessor("a:")]
            try harness.sink.createStream(stream)
            try await harness.put(["one", "two"])
            try await harness.put(["three"])
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(object.records == 3)
            #expect(try harness.contents(of: object) == Array("a:b:one\na:b:two\na:b:three\n".utf8))
            #expect(object.bytes == "a:b:one\na:b:two\na:b:three\n".utf8.count)
        }
    }

    @Test("A request processed just before an update lands in a buffer of the new settings processed by them")
    func requestProcessedBeforeAnUpdate() async throws {
        try await SinkHarness.with { harness in
            let gate = ProcessingGate()
            var old = try settings(destination())
            old.processors = [TaggingProcessor("old:", gate: gate)]
            try harness.sink.createStream(old)
            let put = Task(executorPreference: gate.executor) { try await harness.put(["late"]) }
            #expect(await gate.waitUntilReached())
            var new = try settings(destination())
            new.versionID = 2
            new.processors = [TaggingProcessor("new:")]
            let record = try #require(harness.sink.record(of: "demo"))
            try await harness.sink.updateStream(new, record: record)
            gate.open()
            try await put.value
            try await harness.put(["after"])
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(try harness.contents(of: object) == Array("new:latenew:after".utf8))
        }
    }

    @Test("A request processed again after an update, and refused memory then, fails whole; nothing is lost")
    func reprocessingRefusedMemory() async throws {
        try await SinkHarness.with { harness in
            let gate = ProcessingGate()
            var old = try settings(destination())
            old.processors = [TaggingProcessor("", gate: gate)]
            try harness.sink.createStream(old)
            let record = try settings(destination(compression: "GZIP")).encoding.encodeWhole(Array("inflated".utf8))
            // Nothing is charged under the old settings; decompressing under the new ones is refused.
            let put = Task(executorPreference: gate.executor) {
                try await harness.sink.put(RecordBatch([record]), to: "demo") { _ in false }
            }
            #expect(await gate.waitUntilReached())
            var new = try settings(destination())
            new.versionID = 2
            new.processRecords([.decompressGzip])
            try await harness.sink.updateStream(new, record: try #require(harness.sink.record(of: "demo")))
            gate.open()
            await #expect(throws: SinkError.memorySpent) { try await put.value }
            #expect(try await harness.sink.flush(stream: "demo").isEmpty)
        }
    }

    @Test("With a test-only partitioner each partition has its own buffer and object, records in order")
    func pluggedPartitioner() async throws {
        try await SinkHarness.with { harness in
            try createPartitionedStream(in: harness, destination(delimiter: true))
            try await harness.put(["b1", "a1", "b2"])
            try await harness.put(["a2", "c1"])
            #expect(harness.stagedFiles.count == 3)
            let objects = try await harness.sink.flush(stream: "demo")
            #expect(
                try objects.map { String(decoding: try harness.contents(of: $0), as: UTF8.self) } == [
                    "b1\nb2\n", "a1\na2\n", "c1\n",
                ])
            #expect(objects.map(\.records) == [2, 2, 1])
            #expect(Set(objects.map(\.key)).count == 3)
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("A partition that reaches its size hint is delivered alone; the others keep buffering")
    func partitionsFillAlone() async throws {
        try await SinkHarness.with { harness in
            try createPartitionedStream(in: harness, destination(sizeInMBs: 1))
            try await harness.put(["b-small"])
            let delivered = try await harness.put([Array("a".utf8) + [UInt8](repeating: 0x61, count: 1 << 20)])
            #expect(delivered.map(\.records) == [1])
            #expect(delivered.first?.bytes == (1 << 20) + 1)
            #expect(harness.stagedFiles.count == 1)
            let rest = try await harness.sink.flush(stream: "demo")
            #expect(try rest.map { try harness.contents(of: $0) } == [Array("b-small".utf8)])
        }
    }

    @Test("Each partition's interval runs from its own first record")
    func partitionIntervals() async throws {
        try await SinkHarness.with { harness in
            try createPartitionedStream(in: harness, destination(intervalInSeconds: 60))
            try await harness.put(["a-first"])
            // Each timer waits on the clock before it moves on (under load a timer's task can start late).
            try await eventually("the first partition's timer") { harness.clock.sleeperCount == 1 }
            harness.clock.advance(by: .seconds(30))
            try await harness.put(["b-later", "a-second"])
            try await eventually("the second partition's timer") { harness.clock.sleeperCount == 2 }
            harness.clock.advance(by: .seconds(30))
            let first = try await harness.log.wait(count: 1)
            #expect(try harness.contents(of: first[0]) == Array("a-firsta-second".utf8))
            #expect(first[0].reason == .interval)
            #expect(harness.stagedFiles.count == 1)
            harness.clock.advance(by: .seconds(30))
            let both = try await harness.log.wait(count: 2)
            #expect(try harness.contents(of: both[1]) == Array("b-later".utf8))
            #expect(both[1].reason == .interval)
        }
    }

    @Test("A stream with a test-only encoding delivers header, segments and trailer as one object")
    func pluggedEncoding() async throws {
        try await SinkHarness.with { harness in
            var stream = try settings(destination(delimiter: true))
            stream.encoding = HexEncoding()
            try harness.sink.createStream(stream)
            try await harness.put([Self.records[0]])
            try await harness.put([Self.records[1], Self.records[2]])
            try await harness.put([Self.records[0]])
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            let content: [UInt8] = (Self.records + [Self.records[0]]).flatMap { $0 + [10] }
            #expect(object.records == 4)
            #expect(object.bytes == content.count)
            #expect(try harness.contents(of: object) == HexEncoding.object(content))
            #expect(object.storedBytes == HexEncoding.object(content).count)
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("Records a test-only encoding staged before a crash are decoded by it and delivered at the next start")
    func pluggedEncodingRecovers() async throws {
        let crashed = try SinkHarness()
        var stream = try settings(destination())
        stream.encoding = HexEncoding()
        try crashed.sink.createStream(stream)
        try await crashed.put(Self.records)
        #expect(crashed.stagedFiles.count == 1)

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(report.orphaned.isEmpty && report.corrupt.isEmpty)
        #expect(object.records == 3)
        #expect(try crashed.contents(of: object) == HexEncoding.object(Self.records.flatMap { $0 }))
        #expect(crashed.stagingIsEmpty)
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test("A stream delivers into a test-only destination; nothing lands in the data directory")
    func pluggedDestination() async throws {
        let bucket = MemoryBucket()
        try await SinkHarness.with(destination: bucket) { harness in
            try harness.sink.createStream(try settings(destination(compression: "GZIP")))
            try await harness.put(Self.records)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            let stored = try #require(bucket.objects.first)
            #expect(bucket.objects.count == 1)
            #expect(stored.bucket == "demo-bucket" && stored.key == object.key)
            #expect(object.path == "memory://demo-bucket/\(object.key)")
            #expect(try Gzip.decompress(stored.bytes, limit: 1 << 20) == Self.records.flatMap { $0 })
            #expect(!FileManager.default.fileExists(atPath: harness.bucketPath()))
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("A destination that fails keeps the object staged; the next flush delivers it once, whole")
    func failingDestinationIsRetried() async throws {
        let bucket = MemoryBucket(failures: 1)
        try await SinkHarness.with(destination: bucket) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.records)
            await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(bucket.objects.isEmpty)
            #expect(harness.stagedFiles.count == 1)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(bucket.objects.map(\.bytes) == [Self.records.flatMap { $0 }])
            #expect(object.records == 3)
            #expect(harness.stagingIsEmpty)
        }
    }
}
