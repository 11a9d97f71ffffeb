import DurableStorage
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Synchronization
import Testing

/// A destination only these tests know, of the kind that consumes records (as an HTTP endpoint
/// does): keeps each record of a buffer in memory, and the error records processors made apart (an
/// endpoint sends those to its S3 configuration), refusing the first `failures` buffers. Plugging it
/// in (`DeliveryStreamSettings.deliver(to:s3:)`) shows a destination is one type.
final class MemoryRecordDestination: StreamDestination {
    private struct State {
        var records: [[UInt8]] = []
        /// Error-output type and error record (a JSON line).
        var errors: [(type: String, line: String)] = []
        var arrivals: [Int64] = []
        var buffers = 0
        var failuresLeft: Int
    }

    private let state: Mutex<State>

    init(failures: Int = 0) {
        state = Mutex(State(failuresLeft: failures))
    }

    var records: [String] { state.withLock { $0.records.map { String(decoding: $0, as: UTF8.self) } } }
    var arrivals: [Int64] { state.withLock { $0.arrivals } }
    var errors: [(type: String, line: String)] { state.withLock { $0.errors } }
    /// Buffers taken (the refused ones not counted).
    var buffers: Int { state.withLock { $0.buffers } }

    var name: String { "TEST-MEMORY" }
    var consumesRecords: Bool { true }

    func consumer(in context: DestinationContext) -> StagedBufferConsumer? {
        StagedBufferConsumer(ahead: 1) { [self] staged, _ in
            let refused = state.withLock { state in
                defer { state.failuresLeft = max(0, state.failuresLeft - 1) }
                return state.failuresLeft > 0
            }
            if refused { return .failure(FileSystemError(operation: "send to", path: "memory", errno: EIO)) }
            if let type = staged.partition.errorOutputType {
                return await staged.content().map { content in
                    let lines = String(decoding: content, as: UTF8.self).split(separator: "\n").map(String.init)
                    return {
                        self.state.withLock { $0.errors += lines.map { (type, $0) } }
                        return .success([])
                    }
                }
            }
            return await staged.framedRecords().map { records in
                let taken = records.map { (Array($0.data), $0.arrival) }
                return {
                    self.state.withLock { state in
                        state.records += taken.map(\.0)
                        state.arrivals += taken.map(\.1)
                        state.buffers += 1
                    }
                    return .success([])
                }
            }
        }
    }
}

/// A stream that delivers to `memory` instead of its bucket.
func memoryStream(_ memory: MemoryRecordDestination) throws -> DeliveryStreamSettings {
    var stream = try settings(destination())
    stream.deliver(to: memory, s3: nil)
    return stream
}

@Suite("Destination stage: a new destination is one type")
struct DestinationStageTests {
    @Test("A test-only destination takes every record as it was put, in order, framed apart; no object is written")
    func pluggedDestination() async throws {
        let memory = MemoryRecordDestination()
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try memoryStream(memory))
            try await harness.put(["one", "two"])
            try await harness.put(["", "three\nlines\n"])
            #expect(harness.stagedFiles.count == 1)
            #expect(try await harness.sink.flush(stream: "demo").isEmpty)
            #expect(memory.records == ["one", "two", "", "three\nlines\n"])
            #expect(memory.arrivals.allSatisfy { $0 == fixedNow.epochMilliseconds })
            #expect(memory.buffers == 1)
            #expect(!FileManager.default.fileExists(atPath: harness.bucketPath()))
            #expect(harness.stagingIsEmpty)
            #expect(await harness.sink.status(of: "demo")?.counters.recordsReceived == 4)
        }
    }

    @Test("Error records a processor made reach the destination as error records, never as records")
    func errorRecordsStayApart() async throws {
        let memory = MemoryRecordDestination()
        try await SinkHarness.with { harness in
            var stream = try memoryStream(memory)
            stream.processRecords([.decompressGzip])
            try harness.sink.createStream(stream)
            let gzipped = try settings(destination(compression: "GZIP")).encoding.encodeWhole(Array("inflated".utf8))
            try await harness.put([gzipped, Array("not gzip".utf8)])
            #expect(try await harness.sink.flush(stream: "demo").isEmpty)
            #expect(memory.records == ["inflated"])
            let errors = memory.errors
            #expect(errors.map(\.type) == ["decompression-failed"])
            let error = try JSONSerialization.jsonObject(with: Data(try #require(errors.first?.line).utf8))
            #expect((error as? [String: Any])?["errorCode"] as? String == "Decompression.Failed")
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("A buffer the destination refuses stays staged; the next flush gives it every record once")
    func refusedBufferIsRetried() async throws {
        // A first half that failed is started once more at once (the failure may have passed): a
        // flush fails when both attempts do.
        let memory = MemoryRecordDestination(failures: 2)
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try memoryStream(memory))
            try await harness.put(["one", "two"])
            await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(memory.records.isEmpty && harness.stagedFiles.count == 1)
            #expect(await harness.sink.status(of: "demo")?.bufferedRecords == 2)
            #expect(try await harness.sink.flush(stream: "demo").isEmpty)
            #expect(memory.records == ["one", "two"] && memory.buffers == 1)
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("Records staged for it before a crash go to it at the next start, never into the bucket as an object")
    func stagedRecordsRecover() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        try crashed.sink.createStream(try memoryStream(MemoryRecordDestination()))
        try await crashed.put(["one", "two"])
        try await crashed.put(["three"])
        let journals = try FileManager.default.contentsOfDirectory(atPath: crashed.stagingDirectory)
            .filter { $0.hasSuffix(".journal") }
        #expect(journals.count == 1)
        let journal = try String(contentsOfFile: "\(crashed.stagingDirectory)/\(journals[0])", encoding: .utf8)
        #expect(journal.contains(#""destination":"TEST-MEMORY""#))

        // A stream of that name that now writes objects does not take them: they stay staged.
        let asObjects = try restartedSink(over: crashed.directory, streams: [try settings(destination())])
        let refused = await asObjects.recoverStagedBuffers()
        #expect(refused.delivered.isEmpty && refused.orphaned.count == 1 && refused.awaitingDelivery == 0)
        #expect(!FileManager.default.fileExists(atPath: crashed.bucketPath()))

        let memory = MemoryRecordDestination()
        let restarted = try restartedSink(over: crashed.directory, streams: [try memoryStream(memory)])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.delivered.isEmpty && report.orphaned.isEmpty && report.corrupt.isEmpty)
        #expect(report.awaitingDelivery == 3)
        #expect(try await restarted.flush(stream: "demo").isEmpty)
        #expect(memory.records == ["one", "two", "three"])
        #expect(crashed.stagingIsEmpty)
        await restarted.shutdown()
        await asObjects.shutdown()
    }
}
