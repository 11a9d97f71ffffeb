import FirehoseWire
import Foundation
import Synchronization
import Testing

@testable import FirehoseSink

private let context = RecordContext(arrival: fixedNow, now: fixedNow)

private func run(_ processor: any RecordProcessor, _ records: [[UInt8]]) -> (
    records: [String], outcome: ProcessingOutcome
) {
    var outcome = ProcessingOutcome()
    let output = processor.process(RecordBatch(records), context: context, outcome: &outcome)
    return ((0..<output.count).map { String(decoding: output[$0], as: UTF8.self) }, outcome)
}

private func errorMessages(_ outcome: ProcessingOutcome, type: String) throws -> [String] {
    let batch = try #require(outcome.errors.first { $0.type == type }?.records)
    return try (0..<batch.count).map { index in
        let entry = try #require(JSONSerialization.jsonObject(with: Data(batch[index].dropLast())) as? [String: Any])
        return try #require(entry["errorMessage"] as? String)
    }
}

/// A CloudWatch Logs subscription message, gzipped as CloudWatch Logs sends it to Firehose.
func cloudWatchLogsRecord(_ type: String = "DATA_MESSAGE", messages: [String]) throws -> [UInt8] {
    let events = messages.enumerated().map {
        ["id": "\($0.offset)", "timestamp": 1_700_000_000_000, "message": $0.element]
    }
    let message: [String: Any] = [
        "messageType": type, "owner": "111111111111", "logGroup": "/app/api", "logStream": "i-1",
        "subscriptionFilters": ["to-firehose"], "logEvents": events,
    ]
    return try GzipEncoding(level: 6).encodeWhole(Array(JSONSerialization.data(withJSONObject: message)))
}

@Suite("Processors: Decompression, CloudWatchLogProcessing, RecordDeAggregation")
struct SourceProcessorTests {
    @Test("Decompression gunzips each record; one that does not gunzip goes to decompression-failed as it came")
    func decompression() throws {
        let good = try GzipEncoding(level: 6).encodeWhole(Array("hello".utf8))
        let bomb = try GzipEncoding(level: 6).encodeWhole(
            [UInt8](repeating: 0, count: GzipDecompression.maxRecordBytes + 1))
        let (records, outcome) = run(GzipDecompression(), [good, Array("plain".utf8), bomb, good])
        #expect(records == ["hello", "hello"])
        #expect(
            try errorMessages(outcome, type: "decompression-failed") == [
                "Decompression failed: the record is not valid GZIP data.",
                "Decompression failed: the record decompresses to more than 8388608 bytes.",
            ])
        let batch = try #require(outcome.errors.first?.records)
        let entry = try #require(JSONSerialization.jsonObject(with: Data(batch[0])) as? [String: Any])
        #expect(entry["errorCode"] as? String == "Decompression.Failed")
        #expect(entry["rawData"] as? String == Data("plain".utf8).base64EncodedString())
    }

    @Test("Message extraction: each log event's message becomes a record; control messages are dropped")
    func messageExtraction() throws {
        let decompressed = run(
            GzipDecompression(),
            [
                try cloudWatchLogsRecord(messages: ["GET /a 200", "GET /b 404"]),
                try cloudWatchLogsRecord("CONTROL_MESSAGE", messages: ["CWL CONTROL MESSAGE: Checking health"]),
                try cloudWatchLogsRecord(messages: ["{\"level\":\"warn\"}"]),
                try GzipEncoding(level: 6).encodeWhole(Array("[1,2]".utf8)),
            ]
        ).records.map { Array($0.utf8) }
        let (records, outcome) = run(CloudWatchLogsMessageExtraction(), decompressed)
        #expect(records == ["GET /a 200", "GET /b 404", "{\"level\":\"warn\"}"])
        #expect(outcome.dropped == 1)
        #expect(
            try errorMessages(outcome, type: "processing-failed") == [
                "CloudWatch Logs message extraction failed: the record is not a CloudWatch Logs subscription message (JSON with messageType and logEvents)."
            ])
    }

    @Test("JSON de-aggregation splits concatenated and newline-separated objects; an array is invalid")
    func jsonDeaggregation() throws {
        let (records, outcome) = run(
            RecordDeAggregation(subRecordType: .json),
            [
                Array(#"{"a":1}{"b":"}{"}"#.utf8), Array("{\"c\":[1,{\"d\":2}]}\n{\"e\":3}\n".utf8),
                Array(#"[{"a":1},{"a":2}]"#.utf8), Array(#"{"a":1} 5"#.utf8), Array(#"{"a":"#.utf8),
            ])
        #expect(records == [#"{"a":1}"#, #"{"b":"}{"}"#, #"{"c":[1,{"d":2}]}"#, #"{"e":3}"#])
        #expect(try errorMessages(outcome, type: "processing-failed").count == 3)
    }

    @Test("A record of more than 500 JSON objects passes whole; empty results are counted as dropped")
    func deaggregationBounds() throws {
        let many = Array(String(repeating: "{}", count: 100_000).utf8)
        let (records, outcome) = run(RecordDeAggregation(subRecordType: .json), [many])
        #expect(records.count == 1 && records[0].utf8.count == many.count)
        #expect(outcome.errors.isEmpty)
        let empty = run(RecordDeAggregation(subRecordType: .delimited(Array("##".utf8))), [[]])
        #expect(empty.records.isEmpty && empty.outcome.dropped == 1)
        let noEvents = run(
            CloudWatchLogsMessageExtraction(), [Array(#"{"messageType":"DATA_MESSAGE","logEvents":[]}"#.utf8)])
        #expect(noEvents.records.isEmpty && noEvents.outcome.dropped == 1)
    }

    @Test("Delimited de-aggregation splits on the delimiter; beyond 500 parts the record passes whole")
    func delimitedDeaggregation() throws {
        let many = Array(String(repeating: "x##", count: 501).utf8)
        let (records, outcome) = run(
            RecordDeAggregation(subRecordType: .delimited(Array("##".utf8))),
            [Array("a##b##c".utf8), Array("d##".utf8), many])
        #expect(records == ["a", "b", "c", "d", String(repeating: "x##", count: 501)])
        #expect(outcome.errors.isEmpty)
    }

    @Test(
        "Decompressed records are charged to the request's memory budget; when it is spent the put fails, storing nothing"
    )
    func memoryBudget() async throws {
        try await SinkHarness.with { harness in
            var stream = try settings(destination())
            stream.processRecords([.decompressGzip])
            try harness.sink.createStream(stream)
            let record = try GzipEncoding(level: 6).encodeWhole([UInt8](repeating: 0x61, count: 1 << 20))
            final class Charged: Sendable {
                let bytes = Mutex(0)
            }
            let charged = Charged()
            // What one record charges (its output, twice), measured with an unlimited budget.
            _ = try await harness.sink.put(RecordBatch([record]), to: "demo") { bytes in
                charged.bytes.withLock { $0 += bytes }
                return true
            }
            let one = charged.bytes.withLock { $0 }
            #expect(one >= 2 << 20)
            charged.bytes.withLock { $0 = 0 }
            // A budget that holds one record's output but not two.
            let budget = one * 3 / 2
            let reserve: @Sendable (Int) -> Bool = { bytes in
                charged.bytes.withLock { total in
                    guard total + bytes <= budget else { return false }
                    total += bytes
                    return true
                }
            }
            await #expect(throws: SinkError.memorySpent) {
                try await harness.sink.put(RecordBatch([record, record]), to: "demo", reserveMemory: reserve)
            }
            let objects = try await harness.sink.flush(stream: "demo")
            #expect(objects.map(\.records) == [1])
        }
    }

    @Test("A stream decompressing CloudWatch Logs records delivers their messages, delimited, and counts drops")
    func pipeline() async throws {
        try await SinkHarness.with { harness in
            var stream = try settings(destination(delimiter: true))
            stream.processRecords([.decompressGzip, .extractCloudWatchLogsMessages])
            try harness.sink.createStream(stream)
            try await harness.put([
                try cloudWatchLogsRecord(messages: ["one", "two"]),
                try cloudWatchLogsRecord("CONTROL_MESSAGE", messages: ["health"]),
                Array("not gzip".utf8),
            ])
            let objects = try await harness.sink.flush(stream: "demo")
            let data = try #require(objects.first { $0.errorOutputType == nil })
            #expect(try harness.contents(of: data) == Array("one\ntwo\n".utf8))
            #expect(data.records == 2)
            #expect(objects.first { $0.errorOutputType != nil }?.errorOutputType == "decompression-failed")
            #expect(await harness.sink.status(of: "demo")?.counters.recordsDropped == 1)
        }
    }
}
