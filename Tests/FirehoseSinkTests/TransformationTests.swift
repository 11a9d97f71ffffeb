import FirehoseKeyLayout
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Synchronization
import Testing

@testable import FirehoseSink

/// A transformation function run as a command (`python3 <script> <mode> <log>`): it logs every
/// invocation's event (one JSON line) to `log`, then, by `mode`:
/// - `transform`: upper-cases each record (`Ok`, with its length as partition key `len`); records
///   containing `drop` are `Dropped`, those containing `fail` `ProcessingFailed`;
/// - `fail`: exits 3 (a function error);
/// - `fail-twice`: fails its first two invocations, then transforms;
/// - `hang`: waits until a file `<log>.release` exists, then transforms.
let transformScript = #"""
    import base64, json, os, sys, time
    event = json.load(sys.stdin)
    mode, log = sys.argv[1], sys.argv[2]
    with open(log, "a") as f:
        f.write(json.dumps(event) + "\n")
    with open(log) as f:
        invocations = sum(1 for _ in f)
    if mode == "fail" or (mode == "fail-twice" and invocations <= 2):
        sys.stderr.write("the function failed\n")
        sys.exit(3)
    while mode == "hang" and not os.path.exists(log + ".release"):
        time.sleep(0.01)
    out = []
    for r in event["records"]:
        data = base64.b64decode(r["data"])
        if b"drop" in data:
            out.append({"recordId": r["recordId"], "result": "Dropped", "data": r["data"]})
        elif b"fail" in data:
            out.append({"recordId": r["recordId"], "result": "ProcessingFailed", "data": r["data"]})
        else:
            out.append({"recordId": r["recordId"], "result": "Ok",
                        "data": base64.b64encode(data.upper()).decode(),
                        "metadata": {"partitionKeys": {"len": str(len(data))}}})
    json.dump({"records": out}, sys.stdout)
    """#

/// The script and its invocation log, in a fresh folder.
struct TransformFunction {
    let folder: String
    var script: String { "\(folder)/transform.py" }
    var log: String { "\(folder)/invocations.jsonl" }

    init() throws {
        folder = try SinkHarness.makeDirectory()
        try transformScript.write(toFile: script, atomically: true, encoding: .utf8)
    }

    func function(_ mode: String) -> LambdaFunction { .command(["python3", script, mode, log]) }

    /// The events the function was invoked with, in order.
    var events: [[String: Any]] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Lets invocations of `hang` finish.
    func release() { FileManager.default.createFile(atPath: log + ".release", contents: nil) }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

let functionARN = "arn:aws:lambda:us-east-1:123456789012:function:transform"
let streamARN = "arn:aws:firehose:us-east-1:123456789012:deliverystream/demo"

func transformedSettings(
    _ function: LambdaFunction, _ destination: ExtendedS3DestinationConfiguration = destination(delimiter: true),
    retries: Int = 3, bufferSizeBytes: Int = 1_048_576, intervalSeconds: Int = 60,
    timeout: Duration = .seconds(60)
) throws -> DeliveryStreamSettings {
    var stream = try settings(destination)
    stream.transform(
        with: LambdaTransformationSettings(
            function: function, functionARN: functionARN, numberOfRetries: retries, bufferSizeBytes: bufferSizeBytes,
            bufferIntervalSeconds: intervalSeconds, deliveryStreamARN: streamARN, region: "us-east-1",
            invocationTimeout: timeout))
    return stream
}

@Suite("The Lambda processor: source records staged, transformed by the function, then delivered")
struct TransformationTests {
    @Test(
        "Ok records are delivered as the function gave them, Dropped ones counted, ProcessingFailed ones written as AWS's error records"
    )
    func transformsRecords() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try transformedSettings(function.function("transform")))
            try await harness.put(["alpha", "please drop", "beta", "will fail"])
            // Acknowledged and staged for the function, not yet transformed: nothing delivered.
            #expect(harness.stagedFiles.count == 1)
            #expect(function.events.isEmpty)
            let objects = try await harness.sink.flush()
            #expect(objects.count == 2)
            let delivered = try #require(objects.first { $0.errorOutputType == nil })
            #expect(try harness.contents(of: delivered) == Array("ALPHA\nBETA\n".utf8))
            #expect(delivered.records == 2)
            // The key's time is the first source record's arrival.
            #expect(delivered.key.matches(try keyPattern()))

            let failed = try #require(objects.first { $0.errorOutputType == "processing-failed" })
            #expect(failed.key.hasPrefix("processing-failed/2026/11/21/13/"))
            let record = try #require(try errorRecords(try harness.contents(of: failed)).first)
            #expect(record["rawData"] as? String == Data("will fail".utf8).base64EncodedString())
            #expect(record["errorCode"] as? String == "Lambda.ProcessingFailedStatus")
            #expect(record["attemptsMade"] as? Int == 1)
            #expect(record["arrivalTimestamp"] as? Int == 1_795_266_309_000)
            #expect(record["lambdaARN"] as? String == functionARN)

            // One invocation with AWS's event.
            let events = function.events
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event["deliveryStreamArn"] as? String == streamARN)
            #expect(event["region"] as? String == "us-east-1")
            #expect((event["invocationId"] as? String)?.count == 36)
            let records = try #require(event["records"] as? [[String: Any]])
            #expect(
                records.map { $0["data"] as? String }
                    == ["alpha", "please drop", "beta", "will fail"].map {
                        Data($0.utf8).base64EncodedString()
                    })
            #expect(records.allSatisfy { $0["approximateArrivalTimestamp"] as? Int == 1_795_266_309_000 })
            #expect(Set(records.compactMap { $0["recordId"] as? String }).count == 4)

            let counters = await harness.sink.status(of: "demo")?.counters
            #expect(counters?.recordsDropped == 1)
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("A put is acknowledged once its records are staged, before the function runs")
    func acknowledgesBeforeTransforming() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            // Every put fills the source buffer (1 byte): its transformation starts at once, and
            // waits to be released. Had a put waited for it, it would have returned only when the
            // invocation timed out, and the records would be in the error output.
            try harness.sink.createStream(
                try transformedSettings(
                    function.function("hang"), retries: 0, bufferSizeBytes: 1, timeout: .seconds(30)))
            try await harness.put(["one"])
            try await harness.put(["two"])
            try await eventually("the function invoked") { function.events.count >= 1 }
            #expect(harness.log.objects.isEmpty)
            function.release()
            let objects = try await harness.sink.flush()
            #expect(objects.count == 1)
            #expect(try harness.contents(of: objects[0]) == Array("ONE\nTWO\n".utf8))
            #expect(function.events.count == 2)
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test(
        "A function that does not answer in time fails with Lambda.FunctionTimedOut, its records into the error output")
    func invocationTimesOut() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(
                try transformedSettings(function.function("hang"), retries: 1, timeout: .seconds(2)))
            try await harness.put(["one", "two"])
            let objects = try await harness.sink.flush()
            #expect(objects.map(\.errorOutputType) == ["processing-failed"])
            let records = try errorRecords(try harness.contents(of: objects[0]))
            #expect(
                records.compactMap { $0["rawData"] as? String }
                    == ["one", "two"].map { Data($0.utf8).base64EncodedString() })
            #expect(records.allSatisfy { $0["errorCode"] as? String == "Lambda.FunctionTimedOut" })
            #expect(records.allSatisfy { $0["attemptsMade"] as? Int == 2 })
            #expect(function.events.count == 2)
        }
    }

    @Test("A function not mapped here fails each invocation as AWS fails one that does not exist; no record is lost")
    func functionNotMapped() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try transformedSettings(.notMapped, retries: 1))
            try await harness.put(["one", "two"])
            let objects = try await harness.sink.flush()
            #expect(objects.map(\.errorOutputType) == ["processing-failed"])
            let records = try errorRecords(try harness.contents(of: objects[0]))
            #expect(
                records.compactMap { $0["rawData"] as? String }
                    == ["one", "two"].map { Data($0.utf8).base64EncodedString() })
            #expect(records.allSatisfy { $0["errorCode"] as? String == "Lambda.ResourceNotFound" })
            #expect(
                records.allSatisfy {
                    $0["errorMessage"] as? String
                        == "The specified Lambda function does not exist. Use a different function that does exist."
                })
            #expect(records.allSatisfy { $0["lambdaARN"] as? String == functionARN })
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test(
        "A shutdown whose time is up abandons a hung function: its records stay staged, not failed, and the next start transforms them"
    )
    func shutdownAbandonsAHungFunction() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        let harness = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        try harness.sink.createStream(try transformedSettings(function.function("hang"), timeout: .seconds(600)))
        try await harness.put(["one", "two"])
        let sink = harness.sink
        let shutdown = Task { await sink.shutdown() }
        try await eventually("the function to be invoked") { function.events.count == 1 }
        // What the server's ServiceGroup does once --shutdown-timeout has passed.
        shutdown.cancel()
        // Without the abandonment this waits for the function (600 s), then retries it.
        await shutdown.value
        #expect(harness.sink.undeliveredAtShutdown.map(\.stream) == ["demo"])
        #expect(harness.sink.tracker.counters("demo").errorRecords.isEmpty)
        #expect(harness.files(under: harness.bucketPath()).isEmpty)
        #expect(!harness.stagedFiles.isEmpty)
        // The next start transforms them.
        function.release()
        let log = DeliveryLog()
        let restarted = try restartedSink(
            over: harness.directory, streams: [transformedSettings(function.function("hang"))], log: log)
        #expect(await restarted.recoverStagedBuffers().awaitingTransformation == 2)
        _ = try await restarted.flush()
        let objects = try await log.wait(count: 1)
        #expect(objects.map(\.errorOutputType) == [nil])
        #expect(try harness.contents(of: objects[0]) == Array("ONE\nTWO\n".utf8))
        await restarted.shutdown()
        await log.finish()
    }

    @Test("A shutdown cancelled before it starts delivers nothing more: every stream's records stay staged")
    func cancelledShutdownStartsNoDelivery() async throws {
        let harness = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        try harness.sink.createStream(try settings(stream: "a"))
        try harness.sink.createStream(try settings(stream: "b"))
        try await harness.put(["one"], to: "a")
        try await harness.put(["two"], to: "b")
        let sink = harness.sink
        await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await sink.shutdown()
        }.value
        #expect(harness.sink.undeliveredAtShutdown.map(\.stream).sorted() == ["a", "b"])
        #expect(harness.files(under: harness.bucketPath()).isEmpty)
        #expect(harness.stagedFiles.count == 2)
    }

    @Test(
        "A failed invocation is retried NumberOfRetries times; records of an invocation that never succeeds go to the error output"
    )
    func retriesInvocations() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try transformedSettings(function.function("fail-twice"), retries: 2))
            try await harness.put(["alpha"])
            let objects = try await harness.sink.flush()
            #expect(objects.map(\.errorOutputType) == [nil])
            #expect(try harness.contents(of: objects[0]) == Array("ALPHA\n".utf8))
            #expect(function.events.count == 3)
        }
        let failing = try TransformFunction()
        defer { failing.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try transformedSettings(failing.function("fail"), retries: 2))
            try await harness.put(["alpha", "beta"])
            let objects = try await harness.sink.flush()
            #expect(objects.map(\.errorOutputType) == ["processing-failed"])
            let records = try errorRecords(try harness.contents(of: objects[0]))
            #expect(records.count == 2)
            #expect(records.allSatisfy { $0["attemptsMade"] as? Int == 3 })
            #expect(records.allSatisfy { $0["errorCode"] as? String == "Lambda.FunctionError" })
            #expect((records.first?["errorMessage"] as? String)?.contains("exited with status 3") == true)
            #expect(failing.events.count == 3)
        }
    }

    @Test(
        "metadata.partitionKeys partition the records by !{partitionKeyFromLambda:NAME}; a record without the key goes to the error output"
    )
    func partitionsByLambdaKeys() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            var stream = try transformedSettings(
                function.function("transform"),
                destination(
                    prefix: "len=!{partitionKeyFromLambda:len}/",
                    errorOutputPrefix: "errors/!{firehose:error-output-type}/",
                    delimiter: true))
            try stream.partitionByKeys(query: nil, maxKeyBytes: 1000)
            try harness.sink.createStream(stream)
            try await harness.put(["a", "bb", "cc"])
            let objects = try await harness.sink.flush()
            let byPrefix = try Dictionary(
                uniqueKeysWithValues: objects.map { ($0.key.split(separator: "/")[0], try harness.contents(of: $0)) })
            #expect(byPrefix == ["len=1": Array("A\n".utf8), "len=2": Array("BB\nCC\n".utf8)])
        }
        try await SinkHarness.with { harness in
            var stream = try transformedSettings(
                function.function("transform"),
                destination(
                    prefix: "kind=!{partitionKeyFromLambda:kind}/",
                    errorOutputPrefix: "errors/!{firehose:error-output-type}/"))
            try stream.partitionByKeys(query: nil, maxKeyBytes: 1000)
            try harness.sink.createStream(stream)
            try await harness.put(["a"])
            let objects = try await harness.sink.flush()
            #expect(objects.map(\.errorOutputType) == ["metadata-extraction-failed"])
            let record = try #require(try errorRecords(try harness.contents(of: objects[0])).first)
            #expect(record["rawData"] as? String == Data("A".utf8).base64EncodedString())
            #expect(
                record["errorMessage"] as? String
                    == "partitionKeys values must not be null or empty (the Lambda function's metadata.partitionKeys.kind is missing)"
            )
        }
    }

    @Test("A record too large for any invocation event goes to the error output unsent; the others are transformed")
    func recordTooLargeForAnEvent() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(
                try transformedSettings(function.function("transform"), bufferSizeBytes: 16 * 1_048_576))
            let huge = [UInt8](repeating: UInt8(ascii: "h"), count: 5 * 1_048_576)
            try await harness.put([Array("small".utf8), huge])
            let objects = try await harness.sink.flush()
            let delivered = try #require(objects.first { $0.errorOutputType == nil })
            #expect(try harness.contents(of: delivered) == Array("SMALL\n".utf8))
            let failed = try #require(objects.first { $0.errorOutputType == "processing-failed" })
            let record = try #require(try errorRecords(try harness.contents(of: failed)).first)
            #expect(record["errorCode"] as? String == "Lambda.RequestTooLarge")
            #expect(record["attemptsMade"] as? Int == 0)
            #expect((record["rawData"] as? String).flatMap { Data(base64Encoded: $0) }?.count == huge.count)
            #expect(function.events.map { ($0["records"] as? [Any])?.count } == [1])
        }
    }

    @Test("A stream deleted while its function runs stages and delivers nothing of it, and asks the function no more")
    func deletedDuringTransformation() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(
                try transformedSettings(function.function("hang"), bufferSizeBytes: 1, timeout: .seconds(30)))
            try await harness.put(["one"])
            try await eventually("the function invoked") { function.events.count == 1 }
            let source = try #require(harness.sink.streams.withLock { $0["demo"]?.source })
            try await eventually("the publishing to wait for the function") {
                await source.isPublishing
            }
            try await harness.sink.deleteStream("demo")
            function.release()
            // The invocation under way answers and the publishing that awaited it ends; nothing of it
            // may reach the bucket or the staging folder.
            try await eventually("the publishing to end") { await !source.isPublishing }
            #expect(harness.stagingIsEmpty)
            #expect(harness.files(under: harness.bucketPath()).isEmpty)
            #expect(function.events.count == 1)
            await #expect(throws: SinkError.unknownStream("demo")) { try await harness.put(["late"]) }
        }
    }

    @Test(
        "UpdateDestination adds and removes the processor: each record goes the way its stream was set up when it arrived"
    )
    func updateAddsAndRemovesTheProcessor() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try settings(destination(delimiter: true)))
            try await harness.put(["plain"])
            var transformed = try transformedSettings(function.function("transform"))
            transformed.versionID = 2
            try await harness.sink.updateStream(transformed, record: try #require(harness.sink.record(of: "demo")))
            try await harness.put(["shouted"])
            var plain = try settings(destination(delimiter: true))
            plain.versionID = 3
            // Each update delivers what was buffered under the settings it replaces.
            try await harness.sink.updateStream(plain, record: try #require(harness.sink.record(of: "demo")))
            try await harness.put(["plain again"])
            _ = try await harness.sink.flush()
            let objects = try await harness.log.wait(count: 3)
            let contents = try objects.map { String(decoding: try harness.contents(of: $0), as: UTF8.self) }
            #expect(contents == ["plain\n", "SHOUTED\n", "plain again\n"])
            #expect(function.events.count == 1)
        }
    }

    @Test("Buffers queued behind a slow function hold no descriptors, and all are transformed once it answers")
    func backlogHoldsNoDescriptors() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        func openDescriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(
                try transformedSettings(function.function("hang"), bufferSizeBytes: 1, timeout: .seconds(60)))
            try await harness.put(["first"])
            try await eventually("the function invoked") { function.events.count == 1 }
            let before = openDescriptors()
            // Each put fills a buffer of its own, queued behind the invocation under way.
            for index in 0..<60 { try await harness.put(["record \(index)"]) }
            let held = openDescriptors() - before
            #expect(held < 20, "60 queued buffers hold \(held) descriptors")
            // The next buffer's invocation runs beside the one under way, and no more than that.
            // Every buffer is staged whole before its put returns, so each could start its invocation:
            // the two that did are all the stream holds.
            try await eventually("the next buffer's invocation") { function.events.count == 2 }
            let source = try #require(harness.sink.streams.withLock { $0["demo"]?.source })
            #expect(await source.buffersConsuming == 2)
            function.release()
            let objects = try await harness.sink.flush()
            let delivered = try objects.map { String(decoding: try harness.contents(of: $0), as: UTF8.self) }.joined()
            #expect(delivered == "FIRST\n" + (0..<60).map { "RECORD \($0)\n" }.joined())
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("Source records are batched so that no invocation exceeds Lambda's 6 MB payload")
    func batchesUnderThePayloadLimit() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            try harness.sink.createStream(
                try transformedSettings(function.function("transform"), bufferSizeBytes: 16 * 1_048_576))
            let record = [UInt8](repeating: UInt8(ascii: "x"), count: 1_000_000)
            try await harness.put(Array(repeating: record, count: 8))
            let objects = try await harness.sink.flush()
            #expect(objects.count == 1)
            #expect(objects.first?.records == 8)
            let counts = function.events.map { ($0["records"] as? [Any])?.count ?? 0 }
            #expect(counts.count >= 2 && counts.reduce(0, +) == 8)
            let sizes = try function.events.map { try JSONSerialization.data(withJSONObject: $0).count }
            #expect(sizes.allSatisfy { $0 <= LambdaContract.maxPayloadBytes })
        }
    }

    @Test("Source records staged when the process stopped are staged again at start and transformed once it runs")
    func recoversSourceRecords() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        let stream = try transformedSettings(function.function("transform"))
        try crashed.sink.createStream(stream)
        try await crashed.put(["alpha", "beta"])
        crashed.clock.advance(by: .seconds(5))
        try await crashed.put(["gamma"])
        #expect(crashed.stagedFiles.count == 1)

        // Recovered an hour later, the records are past both intervals: they may be delivered before
        // the flush, so the deliveries are watched rather than the flush's answer.
        let log = DeliveryLog()
        let restarted = try restartedSink(over: crashed.directory, streams: [stream], log: log)
        let report = await restarted.recoverStagedBuffers()
        #expect(report.awaitingTransformation == 3)
        #expect(report.delivered.isEmpty && report.orphaned.isEmpty && report.corrupt.isEmpty)
        _ = try await restarted.flush()
        let objects = try await log.wait(count: 1)
        #expect(objects.count == 1)
        #expect(try crashed.contents(of: objects[0]) == Array("ALPHA\nBETA\nGAMMA\n".utf8))
        // Each record keeps its own arrival, and the object the first one's time.
        let arrivals = function.events.flatMap { ($0["records"] as? [[String: Any]]) ?? [] }.compactMap {
            $0["approximateArrivalTimestamp"] as? Int
        }
        #expect(arrivals == [1_795_266_309_000, 1_795_266_309_000, 1_795_266_314_000])
        #expect(objects[0].key.matches(try keyPattern()))
        #expect(crashed.stagingIsEmpty)
    }

    @Test("Source records recovered for a stream that no longer has a Lambda processor are delivered as they were sent")
    func recoversSourceRecordsWithoutTheProcessor() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        try crashed.sink.createStream(try transformedSettings(function.function("transform")))
        try await crashed.put(["alpha", "beta"])

        let log = DeliveryLog()
        let restarted = try restartedSink(
            over: crashed.directory, streams: [try settings(destination(delimiter: true))], log: log)
        let report = await restarted.recoverStagedBuffers()
        #expect(report.awaitingTransformation == 2)
        _ = try await restarted.flush()
        let objects = try await log.wait(count: 1)
        #expect(objects.count == 1)
        #expect(try crashed.contents(of: objects[0]) == Array("alpha\nbeta\n".utf8))
        #expect(function.events.isEmpty)
    }

    @Test("Source frames give back each record, its arrival and its bounds; anything else is refused")
    func sourceFrames() {
        var storage: [UInt8] = []
        SourceRecordFrame.append(Array("ab".utf8), arrivalMilliseconds: 7, to: &storage)
        SourceRecordFrame.append([], arrivalMilliseconds: -1, to: &storage)
        let frames = SourceRecordFrame.parse(storage)
        #expect(frames?.map(\.arrivalMilliseconds) == [7, -1])
        #expect(frames.map { $0.map { Array(storage[$0.record]) } } == [Array("ab".utf8), []])
        #expect(SourceRecordFrame.parse(Array(storage.dropLast())) == nil)
        #expect(SourceRecordFrame.parse(storage + [0]) == nil)
        #expect(SourceRecordFrame.parse([])?.isEmpty == true)
    }
}

extension DeliveryStream {
    /// Whether a publisher's turn is under way.
    var isPublishing: Bool { publishQueue.publisherActive }
    /// Buffers whose consumer's first half (a function's invocation) is started or kept.
    var buffersConsuming: Int { consuming.count }
}
