import FirehoseClient
import FirehoseTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirehoseRecorder

/// Counts the requests on the wire at once, before handing each to the fake endpoint.
final class GaugingTransport: HTTPTransport, Sendable {
    private struct State {
        var current = 0
        var peak = 0
        /// Requests on the wire when each one started, in the order they started.
        var atStart: [Int] = []
    }
    private let state = Mutex(State())
    let inner: FakeFirehoseEndpoint
    /// When set, a request that starts alone (after the first) waits up to this long for another to
    /// start beside it, so a pipelining sender shows its overlap however slowly a loaded machine runs
    /// it; a sender that never overlaps still shows a peak of 1.
    let waitForCompany: Duration?

    init(_ inner: FakeFirehoseEndpoint, waitForCompany: Duration? = nil) {
        self.inner = inner
        self.waitForCompany = waitForCompany
    }

    var peak: Int { state.withLock { $0.peak } }
    var atStart: [Int] { state.withLock { $0.atStart } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let isFirst = state.withLock {
            $0.current += 1
            $0.peak = max($0.peak, $0.current)
            $0.atStart.append($0.current)
            return $0.atStart.count == 1
        }
        defer { state.withLock { $0.current -= 1 } }
        if let waitForCompany, !isFirst {
            let deadline = ContinuousClock.now + waitForCompany
            while state.withLock({ $0.peak < 2 && $0.current < 2 }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        return try await inner.send(request)
    }
}

@Suite("Submitting: several requests on the wire")
struct PipelineTests {
    private func recorder(_ configuration: FirehoseRecorder.Configuration, transport: any HTTPTransport)
        throws -> (FirehoseRecorder, TestDirectory)
    {
        let directory = try TestDirectory("pipeline")
        let client = FirehoseClient(
            configuration: .init(
                endpoint: URL(string: "http://127.0.0.1:4573")!, region: "us-east-1",
                credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
                transport: transport))
        let recorder = try FirehoseRecorder(
            directory: directory.url, client: client, configuration: configuration,
            environment: .init(clock: ManualClock(advancesWhenSlept: true), random: { 0.5 }))
        return (recorder, directory)
    }

    private func save(_ count: Int, to recorder: FirehoseRecorder, stream: String = "events") async throws -> [Data] {
        var saved: [Data] = []
        for index in 0..<count {
            let data = Data("\(stream)-\(index)".utf8)
            try await recorder.saveRecord(data, streamName: stream)
            saved.append(data)
        }
        return saved
    }

    @Test("One request first; once it is delivered, up to maxConcurrentRequests; every record once")
    func window() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.slow(.milliseconds(20), then: .accept))
        let gauge = GaugingTransport(endpoint, waitForCompany: .seconds(5))
        let (recorder, directory) = try recorder(
            .init(batchRecordsCountLimit: 10, maxConcurrentRequests: 3), transport: gauge)
        defer { directory.remove() }
        let saved = try await save(200, to: recorder)
        let summary = await recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.requests == 20)
        #expect(summary.sentRecords == 200)
        #expect(gauge.atStart.first == 1)
        // Never more than the window; on a loaded machine a request may finish before the third starts.
        #expect((2...3).contains(gauge.peak))
        let delivered = endpoint.delivered("events").map { Data($0) }
        #expect(delivered.count == 200)
        #expect(Set(delivered) == Set(saved))
        #expect(endpoint.requests.allSatisfy { $0.records.count == 10 })
        #expect(try await recorder.recordCount == 0)
    }

    @Test("maxConcurrentRequests 1 sends strictly one after the other, in saving order")
    func serial() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.slow(.milliseconds(2), then: .accept))
        let gauge = GaugingTransport(endpoint)
        let (recorder, directory) = try recorder(
            .init(batchRecordsCountLimit: 7, maxConcurrentRequests: 1), transport: gauge)
        defer { directory.remove() }
        let saved = try await save(100, to: recorder)
        _ = await recorder.submitAllRecords()
        #expect(gauge.peak == 1)
        #expect(endpoint.delivered("events").map { Data($0) } == saved)
    }

    @Test("Going offline with requests on the wire: they finish, no more start, nothing is counted or lost")
    func offlineWhilePipelined() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.slow(.milliseconds(5), then: .accept))
        endpoint.enqueue(.accept, .accept, .refuseConnection)
        let gauge = GaugingTransport(endpoint)
        let (recorder, directory) = try recorder(
            .init(batchRecordsCountLimit: 10, maxConcurrentRequests: 4), transport: gauge)
        defer { directory.remove() }
        let saved = try await save(300, to: recorder)
        let first = await recorder.submitAllRecords()
        #expect(first.isOffline)
        #expect(first.failedAttempts == 0)
        // The refused request stopped the submit: what was on the wire beside it, and nothing more.
        #expect(first.requests <= 2 + 4)
        #expect(first.sentRecords + first.remainingRecords == 300)
        #expect(try await recorder.storedRecords().allSatisfy { $0.attempts == 0 })
        let second = await recorder.submitAllRecords()
        #expect(second.status.name == "completed")
        let delivered = endpoint.delivered("events").map { Data($0) }
        #expect(delivered.count == 300)
        #expect(Set(delivered) == Set(saved))
    }

    @Test("Failures while pipelined: retried one at a time, each record delivered once")
    func failuresWhilePipelined() async throws {
        let endpoint = FakeFirehoseEndpoint()
        var script: [FakeFirehoseEndpoint.Behavior] = [.accept]
        for index in 0..<30 {
            switch index % 3 {
            case 0: script.append(.failRecords([1: "ServiceUnavailableException"]))
            case 1: script.append(.error(status: 503, code: "ServiceUnavailableException", message: "Slow down."))
            default: script.append(.slow(.milliseconds(3), then: .accept))
            }
        }
        endpoint.enqueue(script)
        let gauge = GaugingTransport(endpoint)
        let (recorder, directory) = try recorder(
            .init(batchRecordsCountLimit: 10, maxAttempts: 100, maxRetriesPerSubmit: 100, maxConcurrentRequests: 4),
            transport: gauge)
        defer { directory.remove() }
        let saved = try await save(400, to: recorder)
        let summary = await recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.failedAttempts > 0)
        #expect(summary.sentRecords == 400)
        let delivered = endpoint.delivered("events").map { Data($0) }
        #expect(delivered.count == 400)
        #expect(Set(delivered) == Set(saved))
    }

    @Test("Streams go one after the other, each starting with one request; a stopped stream stops only itself")
    func streams() async throws {
        let endpoint = FakeFirehoseEndpoint(knownStreams: ["a", "c"])
        endpoint.setDefault(.slow(.milliseconds(2), then: .accept))
        let gauge = GaugingTransport(endpoint)
        let (recorder, directory) = try recorder(
            .init(batchRecordsCountLimit: 10, maxConcurrentRequests: 4), transport: gauge)
        defer { directory.remove() }
        let a = try await save(95, to: recorder, stream: "a")
        _ = try await save(30, to: recorder, stream: "b")
        let c = try await save(41, to: recorder, stream: "c")
        let summary = await recorder.submitAllRecords()
        #expect(summary.status.name == "streamsStopped")
        #expect(summary.stoppedStreams["b"]?.reason == .streamNotFound)
        // a: 10 batches; b: its first request only; c: 5 batches.
        #expect(summary.requests == 10 + 1 + 5)
        #expect(Set(endpoint.delivered("a").map { Data($0) }) == Set(a))
        #expect(Set(endpoint.delivered("c").map { Data($0) }) == Set(c))
        #expect(endpoint.delivered("a").count == 95 && endpoint.delivered("c").count == 41)
        #expect(try await recorder.recordCount == 30)
    }
}
