import FirehoseClient
import FirehoseTestSupport
import Foundation
import Testing

@testable import FirehoseRecorder

@Suite("Submitting: batching and outcome classification")
struct SubmitTests {
    @Test("Everything is delivered in order and deleted; the summary says so")
    func deliversAll() async throws {
        let harness = try Harness()
        defer { harness.directory.remove() }
        let a = try await harness.save(5, prefix: "a", stream: "alpha")
        let b = try await harness.save(3, prefix: "b", stream: "beta")
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.sentRecords == 8)
        #expect(summary.sentBytes == (a + b).reduce(0) { $0 + $1.count })
        #expect(summary.requests == 2)
        #expect(summary.remainingRecords == 0)
        #expect(harness.delivered("alpha") == a)
        #expect(harness.delivered("beta") == b)
        #expect(try await harness.recorder.diskBytesUsed == 0)
        await harness.events.waitForSubmits(1)
        // Nothing left: another submit sends nothing.
        let again = await harness.recorder.submitAllRecords()
        #expect(again.requests == 0)
    }

    // The batching tests send one request at a time so that the requests' order is the records'.
    @Test("Batches hold at most 500 records")
    func batchCount() async throws {
        let harness = try Harness(.init(diskByteLimit: 50_000_000, maxConcurrentRequests: 1))
        defer { harness.directory.remove() }
        try await harness.save(1_201)
        let summary = await harness.recorder.submitAllRecords()
        #expect(harness.endpoint.requests.map(\.records.count) == [500, 500, 201])
        #expect(summary.sentRecords == 1_201)
    }

    @Test("Batches hold at most 4 MiB of record data, checked before adding")
    func batchBytes() async throws {
        let harness = try Harness(.init(diskByteLimit: 50_000_000, maxConcurrentRequests: 1))
        defer { harness.directory.remove() }
        try await harness.save(100, size: 100_000)
        _ = await harness.recorder.submitAllRecords()
        let sizes = harness.endpoint.requests.map { $0.records.reduce(0) { $0 + $1.count } }
        #expect(harness.endpoint.requests.map(\.records.count) == [41, 41, 18])
        #expect(sizes.allSatisfy { $0 <= 4 * 1024 * 1024 })
        #expect(harness.endpoint.deliveredCount == 100)
    }

    @Test("batchRecordsByteLimit is respected; a record bigger than it travels alone")
    func batchByteLimit() async throws {
        let harness = try Harness(.init(batchRecordsByteLimit: 1_000, maxConcurrentRequests: 1))
        defer { harness.directory.remove() }
        try await harness.save(7, size: 300)
        try await harness.recorder.saveRecord(Data(count: 1_500), streamName: "events")
        try await harness.save(2, size: 300)
        _ = await harness.recorder.submitAllRecords()
        #expect(harness.endpoint.requests.map(\.records.count) == [3, 3, 1, 1, 2])
        #expect(
            harness.endpoint.requests.map { $0.records.reduce(0) { $0 + $1.count } } == [900, 900, 300, 1_500, 600])
    }

    @Test("Per-record ServiceUnavailableException / InternalFailure: kept, attempt counted, retried after backoff")
    func perRecordFailures() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.enqueue(.failRecords([1: "ServiceUnavailableException", 3: "InternalFailure"]))
        let harness = try Harness(endpoint: endpoint)
        defer { harness.directory.remove() }
        let saved = try await harness.save(5)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.sentRecords == 5)
        #expect(summary.failedAttempts == 2)
        #expect(summary.requests == 2)
        #expect(endpoint.requests.map(\.records.count) == [5, 2])
        #expect(endpoint.requests[1].records.map { Data($0) } == [saved[1], saved[3]])
        #expect(Set(harness.delivered()) == Set(saved))
        #expect(harness.delivered().count == 5)
        #expect(harness.clock.sleeps == [.milliseconds(375)])  // 500 ms, equal jitter at 0.5
    }

    @Test(
        "5xx and throttling: kept, attempts counted, exponential backoff, then left for a later submit",
        arguments: [
            FakeFirehoseEndpoint.Behavior.error(status: 500, code: "InternalFailure", message: "boom"),
            .error(status: 503, code: "ServiceUnavailableException", message: "Slow down."),
            .error(status: 400, code: "ThrottlingException", message: "Rate exceeded"),
            .error(status: 429, code: "TooManyRequestsException", message: "slow"),
            .error(status: 502, code: "", message: "<html>bad gateway</html>"),
            .failAllRecords(code: "ServiceUnavailableException"),
        ])
    func retryableWholeRequest(_ behavior: FakeFirehoseEndpoint.Behavior) async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(behavior)
        let harness = try Harness(
            .init(maxAttempts: 10, maxRetriesPerSubmit: 3, retryBaseDelay: .seconds(1), retryMaxDelay: .seconds(3)),
            endpoint: endpoint)
        defer { harness.directory.remove() }
        let saved = try await harness.save(3)
        try await harness.save(2, stream: "other")
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "streamsStopped")
        #expect(summary.stoppedStreams["events"]?.reason == .retryLater)
        #expect(summary.stoppedStreams["other"]?.reason == .retryLater)
        #expect(summary.requests == 8)  // 1 + 3 retries per stream
        #expect(summary.droppedCount == 0)
        // Exponential, capped, with jitter (0.5 → 75 % of the step).
        #expect(
            harness.clock.sleeps == [.milliseconds(750), .milliseconds(1500), .milliseconds(2250)] + [
                .milliseconds(750), .milliseconds(1500), .milliseconds(2250),
            ])
        let stored = try await harness.recorder.storedRecords()
        #expect(stored.count == 5)
        #expect(stored.allSatisfy { $0.attempts == 4 })
        #expect(stored.prefix(3).map(\.data) == saved)
    }

    @Test("Records that fail maxAttempts times are dropped and reported")
    func maxAttemptsDrops() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.failRecords([0: "ServiceUnavailableException"]))
        let harness = try Harness(.init(maxAttempts: 3, maxRetriesPerSubmit: 10), endpoint: endpoint)
        defer { harness.directory.remove() }
        let saved = try await harness.save(4)
        let summary = await harness.recorder.submitAllRecords()
        // Each round the first record of the batch fails: record 0 three times (dropped), then 1 …
        #expect(summary.droppedCount >= 1)
        let drop = try #require(summary.dropped.first)
        #expect(drop.reason == .maxAttemptsExceeded(lastErrorCode: "ServiceUnavailableException"))
        #expect(drop.recordIDs == [1])
        #expect(!harness.delivered().contains(saved[0]))
        await harness.events.wait { _ in !harness.events.drops.isEmpty }
        #expect(harness.events.drops.first?.recordIDs == [1])
        // Nothing vanished unreported: delivered + dropped + stored = saved.
        let stored = try await harness.recorder.storedRecords().count
        #expect(harness.delivered().count + summary.droppedCount + stored == 4)
    }

    @Test(
        "Network failures: kept, attempt not counted, submit stops at once and reports offline",
        arguments: [
            FakeFirehoseEndpoint.Behavior.refuseConnection, .dropConnection(afterDelivering: false),
            .dropConnection(afterDelivering: true), .slow(.seconds(10), then: .accept),
        ])
    func offline(_ behavior: FakeFirehoseEndpoint.Behavior) async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.enqueue(behavior)
        let harness = try Harness(.init(batchRecordsCountLimit: 2), endpoint: endpoint, timeout: .milliseconds(30))
        defer { harness.directory.remove() }
        let saved = try await harness.save(4)
        try await harness.save(2, stream: "other")
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.isOffline)
        #expect(summary.requests == 1)
        #expect(summary.failedAttempts == 0)
        #expect(harness.clock.sleeps.isEmpty)
        let stored = try await harness.recorder.storedRecords()
        #expect(stored.count == 6)
        #expect(stored.allSatisfy { $0.attempts == 0 })
        // Back online: everything goes (a dropped-after-delivery batch twice: its fate was unknown).
        let again = await harness.recorder.submitAllRecords()
        #expect(again.status.name == "completed")
        #expect(Set(harness.delivered()) == Set(saved))
    }

    @Test("Credentials failures: kept, nothing sent, submit reports offline")
    func credentialsOffline() async throws {
        let harness = try Harness(provider: EnvironmentCredentialsProvider(environment: [:]))
        defer { harness.directory.remove() }
        try await harness.save(3)
        let summary = await harness.recorder.submitAllRecords()
        guard case .offline(let error) = summary.status else {
            Issue.record("expected offline, got \(summary.status)")
            return
        }
        #expect(error.kind == .credentials)
        #expect(harness.endpoint.requestCount == 0)
        #expect(try await harness.recorder.storedRecords().allSatisfy { $0.attempts == 0 })
    }

    @Test("Credentials that stay expired after a refresh count as a credentials failure, not a reason to drop")
    func expiredToken() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(
            .error(
                status: 400, code: "ExpiredTokenException",
                message: "The security token included in the request is expired"))
        let harness = try Harness(endpoint: endpoint)
        defer { harness.directory.remove() }
        try await harness.save(2)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.isOffline)
        #expect(summary.requests == 2)
        #expect(summary.credentialRefreshes == 1)
        #expect(summary.failedAttempts == 0)
        #expect(try await harness.recorder.storedRecords().allSatisfy { $0.attempts == 0 })
        #expect(try await harness.recorder.recordCount == 2)
    }

    @Test("Credentials expiring in the middle of a submit: sent again at once with fresh ones, each record once")
    func expiredTokenMidSubmit() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.enqueue(
            .accept,
            .error(
                status: 400, code: "ExpiredTokenException",
                message: "The security token included in the request is expired"))
        let harness = try Harness(.init(batchRecordsCountLimit: 3), endpoint: endpoint)
        defer { harness.directory.remove() }
        let saved = try await harness.save(9)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.requests == 4)
        #expect(summary.credentialRefreshes == 1)
        #expect(summary.failedAttempts == 0)
        #expect(harness.delivered("events") == saved)
    }

    @Test("ResourceNotFoundException stops that stream only, and says why")
    func streamNotFound() async throws {
        let endpoint = FakeFirehoseEndpoint(knownStreams: ["good"])
        let harness = try Harness(.init(batchRecordsCountLimit: 2), endpoint: endpoint)
        defer { harness.directory.remove() }
        try await harness.save(5, stream: "missing")
        let good = try await harness.save(3, stream: "good")
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "streamsStopped")
        let stop = try #require(summary.stoppedStreams["missing"])
        #expect(stop.reason == .streamNotFound)
        #expect(stop.error.code == "ResourceNotFoundException")
        #expect(stop.error.message.contains("missing"))
        #expect(harness.delivered("good") == good)
        #expect(summary.requests == 3)  // one for the missing stream, two for the good one
        let stored = try await harness.recorder.storedRecords()
        #expect(stored.count == 5)
        #expect(stored.allSatisfy { $0.attempts == 0 && $0.streamName == "missing" })
    }

    @Test(
        "Authorization failures stop the stream and keep its records",
        arguments: ["AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException"])
    func notAuthorized(_ code: String) async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.enqueue(.error(status: 400, code: code, message: "no"))
        let harness = try Harness(endpoint: endpoint)
        defer { harness.directory.remove() }
        try await harness.save(2)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.stoppedStreams["events"]?.reason == .notAuthorized)
        #expect(try await harness.recorder.recordCount == 2)
    }

    @Test("A batch rejected as invalid is split until the bad records are found; only they are dropped")
    func bisect() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.rejectRecords { $0.starts(with: Array("bad".utf8)) }
        let harness = try Harness(endpoint: endpoint)
        defer { harness.directory.remove() }
        var expected: [Data] = []
        for index in 0..<100 {
            let data = Data((index == 37 || index == 80 ? "bad-\(index)" : "ok-\(index)").utf8)
            try await harness.recorder.saveRecord(data, streamName: "events")
            if index != 37 && index != 80 { expected.append(data) }
        }
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.sentRecords == 98)
        #expect(harness.delivered() == expected)
        #expect(summary.dropped.count == 2)
        #expect(summary.dropped.map(\.recordIDs) == [[38], [81]])
        if case .rejected(let code, let message) = summary.dropped.first?.reason {
            #expect(code == "ValidationException")
            #expect(message.contains("records.1.member.data"))
        } else {
            Issue.record("expected a rejection, got \(String(describing: summary.dropped.first?.reason))")
        }
        #expect(summary.requests <= 2 * 2 * 7 + 1)
        #expect(harness.clock.sleeps.isEmpty)
        #expect(try await harness.recorder.recordCount == 0)
    }

    @Test("A stream-level validation error stops the stream instead of dropping records one by one")
    func streamLevelValidation() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(
            .error(
                status: 400, code: "ValidationException",
                message: "1 validation error detected: Value 'x' at 'deliveryStreamName' failed to satisfy constraint"))
        let harness = try Harness(endpoint: endpoint)
        defer { harness.directory.remove() }
        try await harness.save(4)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.stoppedStreams["events"]?.reason == .refused)
        #expect(summary.droppedCount == 0)
        #expect(try await harness.recorder.recordCount == 4)
    }

    @Test("A 200 with a body that is not Firehose's is retried, not trusted")
    func invalidResponseRetried() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.enqueue(.rawSuccess(body: "<html>captive portal</html>"))
        let harness = try Harness(endpoint: endpoint)
        defer { harness.directory.remove() }
        let saved = try await harness.save(2)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.failedAttempts == 2)
        #expect(harness.delivered() == saved)
    }

    @Test("Every submit terminates: an endpoint failing forever ends in a summary after bounded backoff")
    func terminates() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.error(status: 503, code: "ServiceUnavailableException", message: "Slow down."))
        let harness = try Harness(.init(maxAttempts: 1_000, maxRetriesPerSubmit: 5), endpoint: endpoint)
        defer { harness.directory.remove() }
        try await harness.save(1_000)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.requests == 6)
        #expect(harness.clock.sleeps.count == 5)
        #expect(harness.clock.sleeps.allSatisfy { $0 > .zero })
        #expect(summary.remainingRecords == 1_000)
    }

    @Test("A cancelled submit stops at the next pause and keeps the rest")
    func cancellation() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.error(status: 503, code: "ServiceUnavailableException", message: "Slow down."))
        let directory = try TestDirectory("cancel")
        defer { directory.remove() }
        let client = FirehoseClient(
            configuration: .init(
                endpoint: URL(string: "http://127.0.0.1:4573")!, region: "us-east-1",
                credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
                transport: endpoint))
        // A clock that moves only when told: the submit's backoff waits on it until cancelled.
        let clock = ManualClock()
        let recorder = try FirehoseRecorder(
            directory: directory.url, client: client,
            configuration: .init(retryBaseDelay: .seconds(30), retryMaxDelay: .seconds(30)),
            environment: .init(now: clock.wallClock, clock: clock))
        try await recorder.saveRecord(Data([1]), streamName: "events")
        let task = Task { await recorder.submitAllRecords() }
        while clock.sleeperCount == 0 { await Task.yield() }
        task.cancel()
        let summary = await task.value
        #expect(summary.status.name == "cancelled")
        #expect(try await recorder.recordCount == 1)
    }

    @Test("Classification of service errors")
    func classification() {
        func error(_ code: String, _ status: Int, _ message: String = "m") -> FirehoseClientError {
            FirehoseClientError(kind: .service, code: code, message: message, httpStatus: status)
        }
        #expect(FirehoseRecorder.classify(error("ServiceUnavailableException", 503)) == .retryable)
        #expect(FirehoseRecorder.classify(error("InternalFailure", 500)) == .retryable)
        #expect(FirehoseRecorder.classify(error("ThrottlingException", 400)) == .retryable)
        #expect(FirehoseRecorder.classify(error("Whatever", 504)) == .retryable)
        #expect(FirehoseRecorder.classify(error("ResourceNotFoundException", 400)) == .stopStream(.streamNotFound))
        #expect(FirehoseRecorder.classify(error("AccessDeniedException", 400)) == .stopStream(.notAuthorized))
        #expect(
            FirehoseRecorder.classify(error("MissingAuthenticationTokenException", 400)) == .stopStream(.notAuthorized))
        #expect(FirehoseRecorder.classify(error("ExpiredTokenException", 400)) == .refreshCredentials)
        #expect(FirehoseRecorder.classify(error("ValidationException", 400)) == .invalidBatch)
        #expect(FirehoseRecorder.classify(error("InvalidArgumentException", 400)) == .invalidBatch)
        #expect(FirehoseRecorder.classify(error("SerializationException", 400)) == .invalidBatch)
        #expect(FirehoseRecorder.classify(error("SomethingNew", 400)) == .stopStream(.refused))
        #expect(FirehoseRecorder.classify(FirehoseClientError(kind: .network, message: "x")) == .offline)
        #expect(FirehoseRecorder.classify(FirehoseClientError(kind: .credentials, message: "x")) == .offline)
        #expect(FirehoseRecorder.classify(FirehoseClientError(kind: .invalidResponse, message: "x")) == .retryable)
    }
}
