import FirehoseService
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Logging
import NIOCore
import ServerCore
import ServiceTestSupport
import Synchronization
import Testing

@testable import FirehoseServer

/// `/_local/streams`, `/_local/wait` and `/_local/metrics`, through `FirehoseAPI.handle`.
/// A `/_local` request without headers or body, as curl sends it.
func local(_ api: FirehoseAPI, _ method: String, _ target: String) async -> APIResponse {
    await api.handle(APIRequest(method: method, target: target, headers: [], body: []))
}

extension APIHarness {
    func local(_ method: String, _ target: String) async -> APIResponse {
        await FirehoseServerTests.local(api, method, target)
    }

    func put(_ records: [String], stream: String = "events") async -> APIResponse {
        await api.handle(
            request(
                operation: "PutRecordBatch", body: batchBody(stream: stream, records: records.map { Array($0.utf8) })))
    }

    /// A stream with `IntervalInSeconds: 0`: every request's records become an object at its end.
    func addInstantStream(_ name: String, newline: Bool = false) throws {
        try sink.createStream(
            DeliveryStreamSettings(
                validating: CreateDeliveryStreamInput(
                    deliveryStreamName: name,
                    extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration(
                        bucketARN: "arn:aws:s3:::instant-bucket",
                        bufferingHints: BufferingHints(sizeInMBs: 1, intervalInSeconds: 0),
                        processingConfiguration: newline
                            ? ProcessingConfiguration(
                                enabled: true, processors: [Processor(type: "AppendDelimiterToRecord")]) : nil)),
                dataDirectory: nil))
    }
}

/// One sample of a Prometheus text exposition.
struct Sample: Equatable {
    var name: String
    var labels: [String: String]
    var value: Double
}

/// Parses the text format (0.0.4): `# HELP` / `# TYPE` lines and `name{label="value",...} number`.
struct Exposition {
    var types: [String: String] = [:]
    var help: [String: String] = [:]
    var samples: [Sample] = []
    /// Family names in the order of their `# TYPE` lines.
    var typeOrder: [String] = []

    init(_ bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                try #require(parts.count == 4, "bad TYPE line \(line)")
                types[String(parts[2])] = String(parts[3])
                typeOrder.append(String(parts[2]))
            } else if line.hasPrefix("# HELP ") {
                let parts = line.split(separator: " ", maxSplits: 3)
                help[String(parts[2])] = parts.count > 3 ? String(parts[3]) : ""
            } else {
                samples.append(try Self.sample(line))
            }
        }
    }

    static func sample(_ line: Substring) throws -> Sample {
        let space = try #require(line.lastIndex(of: " "), "no value in \(line)")
        let value = try #require(Double(line[line.index(after: space)...]), "bad value in \(line)")
        let series = line[..<space]
        guard let open = series.firstIndex(of: "{") else {
            return Sample(name: String(series), labels: [:], value: value)
        }
        try #require(series.last == "}", "bad labels in \(line)")
        var labels: [String: String] = [:]
        var rest = series[series.index(after: open)..<series.index(before: series.endIndex)]
        while !rest.isEmpty {
            let equals = try #require(rest.firstIndex(of: "="))
            let name = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            try #require(rest.first == "\"")
            rest = rest.dropFirst()
            var value = ""
            while let character = rest.first, character != "\"" {
                if character == "\\" {
                    rest = rest.dropFirst()
                    let escaped = try #require(rest.first)
                    value.append(escaped == "n" ? "\n" : escaped)
                } else {
                    value.append(character)
                }
                rest = rest.dropFirst()
            }
            rest = rest.dropFirst()
            if rest.first == "," { rest = rest.dropFirst() }
            labels[name] = value
        }
        return Sample(name: String(series[..<open]), labels: labels, value: value)
    }

    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    func series(_ name: String) -> [Sample] { samples.filter { $0.name == name } }
}

@Suite struct LocalStreamsEndpointTests {
    @Test func listsEveryStreamAlphabeticallyWithBufferAndCounters() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("alpha")
        #expect(await harness.put(["one", "three"]).status == 200)

        let response = await harness.local("GET", "/_local/streams")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let streams = try #require(try json(response)["streams"] as? [[String: Any]])
        #expect(streams.map { $0["name"] as? String } == ["alpha", "events"])

        let events = streams[1]
        #expect(events["bucket"] as? String == "bucket")
        #expect(events["status"] as? String == "ACTIVE")
        #expect(events["compression"] as? String == "GZIP")
        let buffer = try #require(events["buffer"] as? [String: Any])
        #expect(buffer["records"] as? Int == 2)
        #expect(buffer["bytes"] as? Int == 8)
        #expect(buffer["sizeLimitBytes"] as? Int == 5 * 1024 * 1024)
        #expect(buffer["intervalSeconds"] as? Int == 300)
        #expect(events["recordsReceived"] as? Int == 2)
        #expect(events["bytesReceived"] as? Int == 8)
        #expect(events["objectsWritten"] as? Int == 0)
        #expect(events["lastDelivery"] is NSNull)

        let alpha = streams[0]
        #expect(alpha["compression"] as? String == "UNCOMPRESSED")
        #expect((alpha["buffer"] as? [String: Any])?["intervalSeconds"] as? Int == 0)
        #expect(alpha["recordsReceived"] as? Int == 0)
        #expect(alpha["lastDelivery"] is NSNull)
    }

    @Test func lastDeliveryAfterAFlush() async throws {
        let harness = try APIHarness()
        #expect(await harness.put(["a", "bb", "ccc"]).status == 200)
        harness.clock.advance(by: .seconds(2.25))
        let flushed = try await harness.sink.flush()
        #expect(flushed.count == 1)

        let streams = try #require(
            try json(await harness.local("GET", "/_local/streams"))["streams"] as? [[String: Any]])
        let events = streams[0]
        #expect(events["objectsWritten"] as? Int == 1)
        let buffer = try #require(events["buffer"] as? [String: Any])
        #expect(buffer["records"] as? Int == 0)
        #expect(buffer["bytes"] as? Int == 0)
        let last = try #require(events["lastDelivery"] as? [String: Any])
        #expect(last["key"] as? String == flushed[0].key)
        #expect(last["records"] as? Int == 3)
        #expect(last["bytes"] as? Int == 6)
        #expect(last["reason"] as? String == "flush")
        // Delivered at the (manual) clock's time, in UTC with milliseconds.
        #expect(last["time"] as? String == "2026-11-21T13:05:11.250Z")
        // Members in one order, the same every run; those without a value written as null.
        let text = String(decoding: await harness.local("GET", "/_local/streams").body, as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"streams":[{"name":"events","bucket":"bucket","status":"ACTIVE","compression":"GZIP","buffer":{"records":0,"bytes":0,"sizeLimitBytes":5242880,"intervalSeconds":300,"openPartitions":0,"partitions":[]},"recordsReceived":3,"bytesReceived":6,"objectsWritten":1,"recordsDropped":0,"errorRecords":{},"faults":{},"throttledRecords":0,"lastDelivery":{"key":"\#(flushed[0].key)","time":"2026-11-21T13:05:11.250Z","records":3,"bytes":6,"storedBytes":"#
            ))
        #expect(
            text.hasSuffix(
                #","reason":"flush"},"delivery":{"failing":false,"failures":0,"lastError":null},"warnings":[]}],"quarantined":[]}"#
            ))
    }

    @Test func streamStillCreatingIsShownAsCreating() async throws {
        let harness = try APIHarness()
        let now = harness.clock.date
        let settings = try DeliveryStreamSettings(
            validating: CreateDeliveryStreamInput(
                deliveryStreamName: "young",
                extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::b")),
            dataDirectory: nil)
        try harness.sink.createStream(
            settings,
            record: StreamRecord(
                definition: settings.definition, createTime: now, origin: .api, activeAt: now.addingTimeInterval(5)))
        let statuses = await harness.sink.statuses()
        func status(at time: Date) throws -> [String?] {
            let document = LocalEndpoints.streamsDocument(statuses, quarantined: [], now: time)
            let streams = try #require(
                (try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])?["streams"]
                    as? [[String: Any]])
            return streams.map { $0["status"] as? String }
        }
        #expect(try status(at: now) == ["ACTIVE", "CREATING"])
        #expect(try status(at: now.addingTimeInterval(5)) == ["ACTIVE", "ACTIVE"])
    }

    @Test func wrongMethodsAreRefusedWithAllow() async throws {
        let harness = try APIHarness()
        for (method, path, allow) in [
            ("POST", "/_local/streams", "GET"), ("POST", "/_local/wait", "GET"), ("DELETE", "/_local/metrics", "GET"),
            ("GET", "/_local/flush", "POST"),
        ] {
            let response = await harness.local(method, path)
            _ = try expectError(response, status: 405, code: "MethodNotAllowed")
            #expect(response.header("Allow") == allow)
        }
    }
}

@Suite struct LocalWaitEndpointTests {
    @Test func answersAtOnceWhenEnoughObjectsExist() async throws {
        let harness = try APIHarness()
        let zero = await harness.local("GET", "/_local/wait?stream=events&objects=0&timeout=0")
        #expect(zero.status == 200)
        #expect(try json(zero)["objects"] as? Int == 0)

        #expect(await harness.put(["x"]).status == 200)
        _ = try await harness.sink.flush()
        let started = ContinuousClock.now
        let one = await harness.local("GET", "/_local/wait?stream=events")
        #expect(one.status == 200)
        #expect(try json(one)["objects"] as? Int == 1)
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func returnsAsSoonAsTheStreamDelivers() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("instant")
        let started = ContinuousClock.now
        let api = harness.api
        async let waited = local(api, "GET", "/_local/wait?stream=instant&objects=2&timeout=300")
        #expect(await harness.put(["first"], stream: "instant").status == 200)
        #expect(await harness.put(["second"], stream: "instant").status == 200)
        let response = await waited
        #expect(response.status == 200)
        #expect(try json(response)["objects"] as? Int == 2)
        // Far sooner than the timeout (generous: the whole test suite shares two cooperative threads).
        #expect(ContinuousClock.now - started < .seconds(150))
    }

    @Test func withoutAStreamCountsEveryStream() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("instant")
        #expect(await harness.put(["a"], stream: "instant").status == 200)
        #expect(await harness.put(["b"]).status == 200)
        _ = try await harness.sink.flush(stream: "events")
        let response = await harness.local("GET", "/_local/wait?objects=2&timeout=1")
        #expect(response.status == 200)
        #expect(try json(response)["objects"] as? Int == 2)
        let api = harness.api
        async let more = local(api, "GET", "/_local/wait?objects=3&timeout=0.2")
        try await eventually("the wait's timer") { harness.clock.sleeperCount == 1 }
        harness.clock.advance(by: .milliseconds(200))
        #expect(await more.status == 408)
        #expect(try json(await more)["objects"] as? Int == 2)
    }

    @Test func timesOutWith408AndTheCurrentCount() async throws {
        let harness = try APIHarness()
        let api = harness.api
        async let waited = local(api, "GET", "/_local/wait?stream=events&objects=1&timeout=0.3")
        try await eventually("the wait's timer") { harness.clock.sleeperCount == 1 }
        harness.clock.advance(by: .milliseconds(290))
        // Short of the timeout on the sink's clock: the wait's timer still sleeps, so nothing answered.
        #expect(harness.clock.sleeperCount == 1)
        harness.clock.advance(by: .milliseconds(10))
        let response = await waited
        let message = try expectError(response, status: 408, code: "Timeout")
        #expect(try json(response)["objects"] as? Int == 0)
        #expect(message.contains("0.3 s"))
        #expect(message.contains("stream events"))
    }

    @Test func timeoutLongerThanASliceStillAnswersOnDelivery() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("instant")
        let api = harness.api
        async let waited = local(api, "GET", "/_local/wait?stream=instant&timeout=120")
        try await eventually("the wait's timer") { harness.clock.sleeperCount == 1 }
        harness.clock.advance(by: .milliseconds(1_200))  // past the first one-second slice
        try await eventually("the wait's timer") { harness.clock.sleeperCount == 1 }
        #expect(await harness.put(["late"], stream: "instant").status == 200)
        let response = await waited
        #expect(response.status == 200)
        #expect(try json(response)["objects"] as? Int == 1)
    }

    @Test func unknownStreamIs404() async throws {
        let harness = try APIHarness()
        let response = await harness.local("GET", "/_local/wait?stream=missing&timeout=1")
        let message = try expectError(response, status: 404, code: "ResourceNotFoundException")
        #expect(message == "Firehose missing under account 123456789012 not found.")
    }

    @Test(arguments: [
        "objects=-1", "objects=many", "objects=1.5", "timeout=301", "timeout=-1", "timeout=abc", "timeout=1e2",
        "timeout=", "object=2", "stream=events&limit=1",
    ])
    func badParametersAre400(query: String) async throws {
        let harness = try APIHarness()
        let response = await harness.local("GET", "/_local/wait?\(query)")
        let message = try expectError(response, status: 400, code: "InvalidArgumentException")
        #expect(!message.isEmpty)
    }

    @Test func parameterDefaults() throws {
        func parse(_ query: String) -> Result<LocalEndpoints.WaitParameters, LocalEndpoints.WaitParameterError> {
            LocalEndpoints.waitParameters(
                APIRequest(method: "GET", path: "/_local/wait", query: query, headers: [], body: []))
        }
        #expect(try parse("").get() == .init(stream: nil, objects: 1, timeoutSeconds: 30))
        #expect(try parse("stream=&objects=3&timeout=300").get() == .init(stream: nil, objects: 3, timeoutSeconds: 300))
        #expect(try parse("stream=a%2Eb&timeout=0.5").get() == .init(stream: "a.b", objects: 1, timeoutSeconds: 0.5))
    }
}

@Suite struct MetricsTests {
    @Test func exposesRequestsRecordsBuffersFlushesLatencyAndObjects() async throws {
        let harness = try APIHarness()
        #expect(await harness.put(["one", "two"]).status == 200)
        #expect(await harness.put(["three"]).status == 200)
        let missing = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "missing", data: [1])))
        #expect(missing.status == 400)
        let unsigned = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]), sign: false))
        #expect(unsigned.status == 400)

        var response = await harness.local("GET", "/_local/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        var metrics = try Exposition(response.body)
        #expect(metrics.types["firehose_local_requests_total"] == "counter")
        #expect(metrics.types["firehose_local_request_duration_seconds"] == "histogram")
        #expect(metrics.types["firehose_local_records_received_total"] == "counter")
        #expect(metrics.types["firehose_local_bytes_received_total"] == "counter")
        #expect(metrics.types["firehose_local_buffer_bytes"] == "gauge")
        #expect(metrics.types["firehose_local_buffer_records"] == "gauge")
        #expect(metrics.types["firehose_local_objects_written_total"] == "counter")
        #expect(metrics.types["firehose_local_delivery_latency_seconds"] == "histogram")
        #expect(metrics.help["firehose_local_requests_total"]?.isEmpty == false)

        #expect(metrics.value("firehose_local_requests_total", ["operation": "PutRecordBatch", "code": "OK"]) == 2)
        #expect(
            metrics.value(
                "firehose_local_requests_total", ["operation": "PutRecord", "code": "ResourceNotFoundException"]) == 1)
        #expect(
            metrics.value(
                "firehose_local_requests_total",
                ["operation": "PutRecord", "code": "MissingAuthenticationTokenException"]) == 1)
        #expect(metrics.series("firehose_local_requests_total").count == 3)
        #expect(metrics.value("firehose_local_request_duration_seconds_count", ["operation": "PutRecordBatch"]) == 2)
        #expect(metrics.value("firehose_local_request_duration_seconds_count", ["operation": "PutRecord"]) == 2)
        #expect(
            metrics.value("firehose_local_request_duration_seconds_bucket", ["operation": "PutRecord", "le": "+Inf"])
                == 2)
        #expect(metrics.value("firehose_local_records_received_total", ["stream": "events"]) == 3)
        #expect(metrics.value("firehose_local_bytes_received_total", ["stream": "events"]) == 11)
        #expect(metrics.value("firehose_local_buffer_bytes", ["stream": "events"]) == 11)
        #expect(metrics.value("firehose_local_buffer_records", ["stream": "events"]) == 3)
        #expect(metrics.value("firehose_local_objects_written_total", ["stream": "events"]) == 0)
        #expect(metrics.series("firehose_local_flushes_total").isEmpty)

        harness.clock.advance(by: .seconds(4))
        #expect(await harness.local("POST", "/_local/flush").status == 200)
        response = await harness.local("GET", "/_local/metrics")
        metrics = try Exposition(response.body)
        #expect(metrics.value("firehose_local_buffer_bytes", ["stream": "events"]) == 0)
        #expect(metrics.value("firehose_local_buffer_records", ["stream": "events"]) == 0)
        #expect(metrics.value("firehose_local_flushes_total", ["stream": "events", "reason": "flush"]) == 1)
        #expect(metrics.value("firehose_local_objects_written_total", ["stream": "events"]) == 1)
        // Latency: first record's arrival to delivery, on the sink's clock.
        #expect(metrics.value("firehose_local_delivery_latency_seconds_count", ["stream": "events"]) == 1)
        #expect(metrics.value("firehose_local_delivery_latency_seconds_sum", ["stream": "events"]) == 4)
        #expect(
            metrics.value("firehose_local_delivery_latency_seconds_bucket", ["stream": "events", "le": "2.5"]) == 0)
        #expect(
            metrics.value("firehose_local_delivery_latency_seconds_bucket", ["stream": "events", "le": "5.0"]) == 1)
        // Local endpoints are not API requests.
        #expect(metrics.series("firehose_local_requests_total").count == 3)
    }

    @Test func flushReasonsAreLabelled() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("instant")
        #expect(await harness.put(["a"], stream: "instant").status == 200)
        #expect(await harness.put(["b"], stream: "instant").status == 200)
        #expect(await harness.put(["c"]).status == 200)
        await harness.sink.shutdown()
        let metrics = try Exposition(await harness.local("GET", "/_local/metrics").body)
        #expect(metrics.value("firehose_local_flushes_total", ["stream": "instant", "reason": "interval"]) == 2)
        #expect(metrics.value("firehose_local_flushes_total", ["stream": "events", "reason": "shutdown"]) == 1)
        #expect(metrics.value("firehose_local_objects_written_total", ["stream": "instant"]) == 2)
        #expect(metrics.value("firehose_local_objects_written_total", ["stream": "events"]) == 1)
    }

    @Test func everyStreamAppearsAtZeroAndDeletedStreamsLoseTheirGauges() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("quiet")
        var metrics = try Exposition(await harness.local("GET", "/_local/metrics").body)
        for stream in ["events", "quiet"] {
            #expect(metrics.value("firehose_local_records_received_total", ["stream": stream]) == 0)
            #expect(metrics.value("firehose_local_objects_written_total", ["stream": stream]) == 0)
            #expect(metrics.value("firehose_local_buffer_bytes", ["stream": stream]) == 0)
        }
        try await harness.sink.deleteStream("quiet")
        metrics = try Exposition(await harness.local("GET", "/_local/metrics").body)
        #expect(metrics.value("firehose_local_buffer_bytes", ["stream": "quiet"]) == nil)
        #expect(metrics.value("firehose_local_buffer_records", ["stream": "quiet"]) == nil)
        #expect(metrics.value("firehose_local_buffer_bytes", ["stream": "events"]) == 0)
    }

    @Test func aStreamDeletedBeforeTheFirstScrapeKeepsItsObjects() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("brief")
        #expect(await harness.put(["a"], stream: "brief").status == 200)
        #expect(await harness.put(["b"], stream: "brief").status == 200)
        #expect(try await harness.sink.waitForObjects(2, stream: "brief", timeout: .seconds(60)))
        try await harness.sink.deleteStream("brief")
        let metrics = try Exposition(await harness.local("GET", "/_local/metrics").body)
        #expect(metrics.value("firehose_local_objects_written_total", ["stream": "brief"]) == 2)
        #expect(metrics.value("firehose_local_flushes_total", ["stream": "brief", "reason": "interval"]) == 2)
    }

    @Test func objectsDeliveredBeforeTheAPIExistedAreCounted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logger = Logger(label: "test")
        let sink = try FirehoseSink(configuration: .init(dataDirectory: directory), logger: logger)
        try sink.createStream(
            DeliveryStreamSettings(
                validating: CreateDeliveryStreamInput(
                    deliveryStreamName: "early",
                    extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::b")),
                dataDirectory: directory))
        try await sink.put(RecordBatch([Array("x".utf8)]), to: "early")
        _ = try await sink.flush()
        let api = try FirehoseAPI(configuration: .init(authentication: .off), sink: sink, logger: logger)
        let first = try Exposition(api.metrics.render(streams: await sink.statuses()))
        #expect(first.value("firehose_local_objects_written_total", ["stream": "early"]) == 1)
        // Scraping again does not count them twice; a new delivery adds one.
        try await sink.put(RecordBatch([Array("y".utf8)]), to: "early")
        _ = try await sink.flush()
        let second = try Exposition(api.metrics.render(streams: await sink.statuses()))
        #expect(second.value("firehose_local_objects_written_total", ["stream": "early"]) == 2)
        #expect(second.value("firehose_local_flushes_total", ["stream": "early", "reason": "flush"]) == 1)
    }

    @Test func twoAPIsInOneProcessKeepSeparateMetrics() async throws {
        let first = try APIHarness()
        let second = try APIHarness()
        #expect(await first.put(["a", "b"]).status == 200)
        let one = try Exposition(await first.local("GET", "/_local/metrics").body)
        let two = try Exposition(await second.local("GET", "/_local/metrics").body)
        #expect(one.value("firehose_local_records_received_total", ["stream": "events"]) == 2)
        #expect(two.value("firehose_local_records_received_total", ["stream": "events"]) == 0)
        #expect(two.series("firehose_local_requests_total").isEmpty)
    }

    @Test func familiesAreSortedAndHistogramBucketsStayInOrder() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("b-stream")
        try harness.addInstantStream("a-stream")
        #expect(await harness.put(["x"], stream: "b-stream").status == 200)
        #expect(await harness.put(["x"], stream: "a-stream").status == 200)
        let metrics = try Exposition(await harness.local("GET", "/_local/metrics").body)
        #expect(metrics.typeOrder == metrics.typeOrder.sorted())
        let latency = metrics.samples.filter { $0.name.hasPrefix("firehose_local_delivery_latency_seconds") }
        #expect(
            latency.map { $0.labels["stream"] }
                == latency.map { $0.labels["stream"] }.sorted { ($0 ?? "") < ($1 ?? "") })
        let buckets = latency.filter { $0.name.hasSuffix("_bucket") && $0.labels["stream"] == "a-stream" }
        let bounds = buckets.compactMap { $0.labels["le"] }.map { $0 == "+Inf" ? Double.infinity : Double($0)! }
        #expect(bounds == bounds.sorted())
        #expect(bounds.last == .infinity)
        #expect(buckets.map(\.value) == buckets.map(\.value).sorted())
        #expect(metrics.value("firehose_local_delivery_latency_seconds_count", ["stream": "a-stream"]) == 1)
    }
}

@Suite("Who may use /_local")
struct LocalEndpointAccessTests {
    private func remote(_ harness: APIHarness, _ method: String, _ target: String) async -> APIResponse {
        var request = APIRequest(method: method, target: target, headers: [], body: [])
        request.fromLoopback = false
        return await harness.api.handle(request)
    }

    @Test func otherHostsGet403ExceptForHealth() async throws {
        let harness = try APIHarness()
        for (method, target) in [
            ("POST", "/_local/flush"), ("GET", "/_local/streams"), ("GET", "/_local/metrics"),
            ("GET", "/_local/wait?timeout=0"), ("GET", "/_local/nope"),
        ] {
            let response = await remote(harness, method, target)
            #expect(response.status == 403, "\(target)")
            #expect(response.header("x-amzn-ErrorType") == "AccessDeniedException")
        }
        #expect(await remote(harness, "GET", "/_local/health").status == 200)
        #expect(await harness.local("GET", "/_local/streams").status == 200)
    }

    @Test func openLetsOtherHostsIn() async throws {
        let harness = try APIHarness(configure: { $0.localEndpointsOpen = true })
        #expect(await remote(harness, "GET", "/_local/streams").status == 200)
    }

    @Test func waitsBeyondTheShareAreRefusedAtOnce() async throws {
        let harness = try APIHarness(configure: { $0.maxWaitingRequests = 1 })
        let api = harness.api
        let first = Task { await local(api, "GET", "/_local/wait?stream=events&objects=1&timeout=60") }
        try await eventually("the first wait to take the only slot") {
            harness.api.waitingSlotsTaken == 1
        }
        let second = await harness.local("GET", "/_local/wait?stream=events&objects=1&timeout=60")
        #expect(second.status == 503)
        #expect(second.header("x-amzn-ErrorType") == "ServiceUnavailableException")
        #expect(await harness.put(["x"]).status == 200)
        _ = try await harness.sink.flush()
        #expect(await first.value.status == 200)
        #expect(harness.api.waitingSlotsTaken == 0)
    }

    @Test(
        "Loopback hosts and peers",
        arguments: [
            ("127.0.0.1", true), ("127.8.9.10", true), ("localhost", true), ("::1", true), ("0.0.0.0", false),
            ("::", false), ("192.0.2.2", false), ("example.com", false),
        ])
    func loopbackHosts(host: String, loopback: Bool) {
        #expect(FirehoseHTTPServer.isLoopback(host: host) == loopback)
    }

    @Test func loopbackPeers() throws {
        #expect(FirehoseHTTPServer.isLoopback(peer: try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(FirehoseHTTPServer.isLoopback(peer: try SocketAddress(ipAddress: "::1", port: 1)))
        #expect(FirehoseHTTPServer.isLoopback(peer: try SocketAddress(ipAddress: "::ffff:127.0.0.1", port: 1)))
        #expect(!FirehoseHTTPServer.isLoopback(peer: try SocketAddress(ipAddress: "192.0.2.2", port: 1)))
        #expect(!FirehoseHTTPServer.isLoopback(peer: try SocketAddress(ipAddress: "::ffff:10.0.0.1", port: 1)))
        #expect(!FirehoseHTTPServer.isLoopback(peer: nil))
    }
}
