import FirehoseTestSupport
import FirehoseWire
import Foundation
import Logging
import Synchronization
import Testing

@testable import FirehoseSink
@testable import HTTPTransports

@Suite("HTTP endpoint delivery: requests, retries on the clock, and the records no attempt got accepted")
struct HTTPEndpointDeliveryTests {
    static let arrival: Int64 = 1_795_266_309_000

    func delivery(_ endpoint: ScriptedEndpoint, clock: ManualClock) -> HTTPEndpointDelivery {
        HTTPEndpointDelivery(
            transport: endpoint, clock: clock, now: clock.wallClock,
            logger: Logger(label: "http-endpoint-tests", factory: { _ in SwiftLogNoOpLogHandler() }),
            jitter: { 1 })
    }

    func settings(retrySeconds: Int = 300) -> HTTPEndpointSettings {
        HTTPEndpointSettings(
            url: URL(string: "http://127.0.0.1:9/ingest")!, retryDuration: .seconds(retrySeconds),
            deliveryStreamARN: "arn:aws:firehose:us-east-1:000000000000:deliverystream/web")
    }

    func records(_ count: Int) -> [(data: ArraySlice<UInt8>, arrival: Int64)] {
        (0..<count).map { (Array("record-\($0)".utf8)[...], Self.arrival + Int64($0)) }
    }

    func sentData(_ request: HTTPRequest) throws -> [String] {
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        return try #require(body["records"] as? [[String: String]]).map {
            String(decoding: Data(base64Encoded: $0["data"]!)!, as: UTF8.self)
        }
    }

    @Test("Records go in requests of at most 10,000, in order, each with its own request id")
    func batches() async throws {
        let endpoint = ScriptedEndpoint([])
        let clock = ManualClock(advancesWhenSlept: true)
        let outcome = await delivery(endpoint, clock: clock).deliver(records(12_001), settings: settings())
        #expect(outcome.accepted == 2 && outcome.attempts == 2 && outcome.failed.isEmpty && !outcome.interrupted)
        let requests = endpoint.requests
        #expect(try requests.map { try sentData($0).count } == [10_000, 2_001])
        #expect(try sentData(requests[1]).last == "record-12000")
        #expect(Set(requests.map { $0.header("X-Amz-Firehose-Request-Id") }).count == 2)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("A failed request is sent again with the same id after 1 s, then 2 s, until accepted")
    func retriesUntilAccepted() async throws {
        let endpoint = ScriptedEndpoint([
            .status(503, "busy"), .failure(TransportFailure("refused", reason: "Connection refused")),
        ])
        let clock = ManualClock(advancesWhenSlept: true)
        let outcome = await delivery(endpoint, clock: clock).deliver(records(3), settings: settings())
        #expect(outcome.accepted == 1 && outcome.attempts == 3 && outcome.failed.isEmpty)
        #expect(Set(endpoint.requests.map { $0.header("X-Amz-Firehose-Request-Id") }).count == 1)
        #expect(clock.sleeps == [.seconds(1), .seconds(1), .seconds(1)])  // 1 s, then 2 s in slices of 1 s
    }

    @Test("A request waiting for its retry goes out under settings updated meanwhile, with the same id")
    func retriesUseUpdatedSettings() async throws {
        let endpoint = ScriptedEndpoint([.status(503, "busy")])
        let clock = ManualClock(advancesWhenSlept: true)
        var updated = settings()
        updated.url = URL(string: "http://127.0.0.1:9/fixed")!
        updated.accessKey = "new-key"
        updated.commonAttributes = [.init(name: "env", value: "fixed")]
        updated.contentEncoding = .gzip
        let fixed = updated
        let attempts = Atomic<Int>(0)
        var delivery = delivery(endpoint, clock: clock)
        // The update lands after the first attempt.
        delivery.currentSettings = { staged in attempts.add(1, ordering: .relaxed).oldValue == 0 ? staged : fixed }
        let outcome = await delivery.deliver(records(2), settings: settings())
        #expect(outcome.accepted == 1 && outcome.attempts == 2)
        let requests = endpoint.requests
        #expect(requests.map(\.url.path) == ["/ingest", "/fixed"])
        #expect(requests[1].header("X-Amz-Firehose-Access-Key") == "new-key")
        #expect(requests[1].header("X-Amz-Firehose-Common-Attributes") == #"{"commonAttributes":{"env":"fixed"}}"#)
        #expect(requests[0].header("Content-Encoding") == nil && requests[1].header("Content-Encoding") == "gzip")
        #expect(Set(requests.map { $0.header("X-Amz-Firehose-Request-Id") }).count == 1)
        #expect(try sentData(requests[0]) == ["record-0", "record-1"])
    }

    @Test("When RetryOptions runs out, each record of the request becomes AWS's error record")
    func retriesSpent() async throws {
        let endpoint = ScriptedEndpoint([], then: .status(500, #"{"errorMessage":"broken"}"#))
        let clock = ManualClock(advancesWhenSlept: true)
        let outcome = await delivery(endpoint, clock: clock).deliver(records(2), settings: settings(retrySeconds: 3))
        #expect(outcome.accepted == 0 && outcome.attempts == 3)
        #expect(clock.sleeps == [.seconds(1), .seconds(1), .seconds(1)])
        #expect(outcome.failed.count == 2)
        for index in 0..<2 {
            let record = try #require(
                try JSONSerialization.jsonObject(with: Data(outcome.failed[index])) as? [String: Any])
            #expect(record["attemptsMade"] as? Int == 3)
            #expect(record["errorCode"] as? String == "HttpEndpoint.DestinationException")
            #expect((record["errorMessage"] as? String)?.hasSuffix(#"500: {"errorMessage":"broken"}"#) == true)
            #expect(record["arrivalTimestamp"] as? Int == Int(Self.arrival) + index)
            #expect(record["rawData"] as? String == Data("record-\(index)".utf8).base64EncodedString())
            #expect((record["dataId"] as? String)?.hasSuffix(".0") == true)
        }
    }

    @Test("A timeout and a refused connection are told apart; 413 and a loop are not retried")
    func failureKinds() async throws {
        var timedOut = TransportFailure("timed out", reason: "timed out")
        timedOut.timedOut = true
        for (answer, code, attempts) in [
            (ScriptedEndpoint.Answer.failure(timedOut), "HttpEndpoint.RequestTimeout", 2),
            (.failure(TransportFailure("connect", reason: "Connection refused")), "HttpEndpoint.ConnectionFailed", 2),
            (.status(413, "too big"), "HttpEndpoint.DestinationException", 1),
            // /_local's answer to a delivery sent to it is a loop; another receiver's 508 is retried.
            (.status(508, #"{"__type":"LoopDetected","message":"m"}"#), "HttpEndpoint.DestinationException", 1),
            (.status(508, "proxy loop"), "HttpEndpoint.DestinationException", 2),
        ] {
            let endpoint = ScriptedEndpoint([], then: answer)
            let clock = ManualClock(advancesWhenSlept: true)
            let outcome = await delivery(endpoint, clock: clock).deliver(
                records(1), settings: settings(retrySeconds: 1))
            let record = try #require(try JSONSerialization.jsonObject(with: Data(outcome.failed[0])) as? [String: Any])
            #expect(record["errorCode"] as? String == code)
            #expect(outcome.attempts == attempts, "\(code)")
        }
        // The error record names the timeout that ran out, not Firehose's 180 s.
        let endpoint = ScriptedEndpoint([], then: .failure(timedOut))
        let clock = ManualClock(advancesWhenSlept: true)
        var shortened = delivery(endpoint, clock: clock)
        shortened.responseTimeout = .milliseconds(2500)
        let outcome = await shortened.deliver(records(1), settings: settings(retrySeconds: 0))
        let record = try #require(try JSONSerialization.jsonObject(with: Data(outcome.failed[0])) as? [String: Any])
        #expect(
            record["errorMessage"] as? String
                == "The endpoint did not answer within 2.5 seconds (the server's --endpoint-response-timeout; Firehose waits 180 seconds)."
        )
        #expect(
            HTTPEndpointContract.Failure.timedOut(after: .seconds(180)).message
                == "The endpoint did not answer within 180 seconds (Firehose's timeout for an HTTP endpoint).")
    }

    @Test("At shutdown a failed request is not retried: nothing is reported failed, the records stay staged")
    func shutdownStopsRetries() async throws {
        let endpoint = ScriptedEndpoint([], then: .status(503, "busy"))
        let clock = ManualClock(advancesWhenSlept: true)
        let delivery = delivery(endpoint, clock: clock)
        delivery.outgoing.stopRetries()
        let outcome = await delivery.deliver(records(1), settings: settings())
        #expect(outcome.interrupted && outcome.failed.isEmpty)
        #expect(endpoint.requests.count == 1 && clock.sleeps.isEmpty)
    }

    @Test("Delivery that stops (the stream deleted) reports nothing failed: the records stay staged")
    func stopped() async throws {
        let endpoint = ScriptedEndpoint([], then: .status(503, "busy"))
        let clock = ManualClock(advancesWhenSlept: true)
        let stop = Atomic<Bool>(false)
        let outcome = await delivery(endpoint, clock: clock).deliver(
            records(1), settings: settings(),
            isStopped: {
                // Running when the first request goes out, stopped after.
                stop.exchange(true, ordering: .relaxed)
            })
        #expect(outcome.interrupted && outcome.failed.isEmpty)
    }
}

/// A stream delivering to `endpoint`'s URL, with `http-failures` as its S3 configuration.
func endpointSettings(retrySeconds: Int, backupMode: HTTPEndpointSettings.BackupMode = .failedDataOnly) throws
    -> DeliveryStreamSettings
{
    let s3 = try settings(destination(bucket: "http-failures", sizeInMBs: 1, intervalInSeconds: 300))
    var stream = try settings(destination(bucket: "http-failures", sizeInMBs: 1, intervalInSeconds: 60))
    stream.deliver(
        to: HTTPEndpointDestination(
            HTTPEndpointSettings(
                url: URL(string: "http://127.0.0.1:9/ingest")!, retryDuration: .seconds(retrySeconds),
                backupMode: backupMode,
                deliveryStreamARN: "arn:aws:firehose:us-east-1:000000000000:deliverystream/demo")),
        s3: s3)
    return stream
}

@Suite("An HTTP endpoint stream's counters: requests count as deliveries, failures as error records")
struct HTTPEndpointCounterTests {
    @Test("An accepted request is a delivery (/_local/wait counts it); a failed attempt marks the stream failing")
    func acceptedRequests() async throws {
        let endpoint = ScriptedEndpoint([.status(503, "busy")])
        try await SinkHarness.with(httpTransport: endpoint) { harness in
            try harness.sink.createStream(try endpointSettings(retrySeconds: 300))
            try await harness.put(["one", "two"])
            let sink = harness.sink
            let waited = Task { try await sink.waitForObjects(1, stream: "demo", timeout: .seconds(900)) }
            let flushed = Task { try await sink.flush(stream: "demo") }
            try await eventually("the first attempt to fail") {
                harness.sink.tracker.counters("demo").deliveryFailing
            }
            var counters = harness.sink.tracker.counters("demo")
            #expect(counters.endpoint == EndpointCounters(attemptsFailed: 1))
            #expect(counters.lastDeliveryError?.hasPrefix("HttpEndpoint.DestinationException: ") == true)
            // The retry waits about a second on the clock, in slices.
            try await eventually("the retry to be accepted") {
                harness.clock.advance(by: .milliseconds(500))
                return endpoint.requests.count == 2
            }
            #expect(try await flushed.value.isEmpty)
            #expect(try await waited.value)
            counters = harness.sink.tracker.counters("demo")
            #expect(counters.endpoint == EndpointCounters(requestsAccepted: 1, recordsDelivered: 2, attemptsFailed: 1))
            #expect(!counters.deliveryFailing && counters.objectsWritten == 0 && counters.deliveries == 1)
            #expect(endpoint.requests.count == 2)
        }
    }

    @Test("An endpoint stage's journal names its destination, so a restart stages its records for an endpoint again")
    func journalNamesTheEndpoint() async throws {
        try await SinkHarness.with(httpTransport: ScriptedEndpoint([])) { harness in
            try harness.sink.createStream(try endpointSettings(retrySeconds: 300))
            try await harness.put(["one"])
            let journals = try FileManager.default.contentsOfDirectory(atPath: harness.stagingDirectory)
                .filter { $0.hasSuffix(".journal") }
            #expect(journals.count == 1)
            let journal = try String(contentsOfFile: "\(harness.stagingDirectory)/\(journals[0])", encoding: .utf8)
            let header = try #require(StagingJournal.parse(Array(journal.utf8))?.header)
            #expect(header.destination == "HttpEndpoint" && header.awaitsEndpoint == nil)
            #expect(!journal.contains("awaitsEndpoint"))
        }
    }

    @Test("A shutdown whose time is up abandons a request the endpoint does not answer: the records stay staged")
    func shutdownAbandonsAHungRequest() async throws {
        let endpoint = ScriptedEndpoint([.hang])
        let harness = try SinkHarness(httpTransport: endpoint)
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        try harness.sink.createStream(try endpointSettings(retrySeconds: 300))
        try await harness.put(["one"])
        let sink = harness.sink
        let shutdown = Task { await sink.shutdown() }
        try await eventually("the request to be sent") { endpoint.requests.count == 1 }
        // What the server's ServiceGroup does once --shutdown-timeout has passed; without the
        // abandonment the request waits for its answer (180 s), then is retried.
        shutdown.cancel()
        await shutdown.value
        #expect(harness.sink.undeliveredAtShutdown.map(\.stream) == ["demo"])
        let counters = harness.sink.tracker.counters("demo")
        #expect(counters.endpoint == EndpointCounters() && counters.errorRecords.isEmpty)
        #expect(!harness.stagedFiles.isEmpty && endpoint.requests.count == 1)
    }

    @Test("Error objects of the S3 configuration leave delivery.failing set while the endpoint fails")
    func backupErrorObjectsDoNotClearFailing() {
        let tracker = DeliveryTracker()
        tracker.endpoint(
            .attemptFailed(code: "HttpEndpoint.DestinationException", message: "503"), stream: "web", at: fixedNow)
        let processingFailed = DeliveredObject(
            stream: "web", bucket: "fails", key: "processing-failed/x", path: "/tmp/x", records: 1, bytes: 10,
            storedBytes: 10, reason: .flush, firstArrival: fixedNow, errorOutputType: "processing-failed",
            isBackup: true)
        tracker.delivered(processingFailed, at: fixedNow)
        let counters = tracker.counters("web")
        #expect(counters.deliveryFailing && counters.errorRecords == ["processing-failed": 1])
        #expect(counters.objectsWritten == 1 && counters.deliveries == 1)
    }

    @Test("Records no attempt got accepted are error records of the stream, not a source-record backup")
    func failedRecords() async throws {
        let endpoint = ScriptedEndpoint([], then: .status(500, "broken"))
        try await SinkHarness.with(httpTransport: endpoint) { harness in
            try harness.sink.createStream(try endpointSettings(retrySeconds: 0))
            try await harness.put(["one", "two"])
            let objects = try await harness.sink.flush(stream: "demo")
            let failed = try #require(objects.first)
            #expect(objects.count == 1 && failed.errorOutputType == "http-endpoint-failed")
            #expect(failed.isBackup && !failed.isSourceBackup)
            let counters = harness.sink.tracker.counters("demo")
            #expect(counters.endpoint == EndpointCounters(attemptsFailed: 1, recordsFailed: 2))
            #expect(counters.errorRecords == ["http-endpoint-failed": 2])
            #expect(counters.objectsWritten == 1 && counters.backupObjectsWritten == 0)
            #expect(!counters.deliveryFailing)
        }
    }
}
