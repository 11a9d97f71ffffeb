public import AWSSigV4
import CivilTime
public import FirehoseClient
import FirehoseWire
public import Foundation
import Synchronization

/// An in-process Firehose endpoint that plugs in as the client's `HTTPTransport`: it decodes and
/// SigV4-verifies what the client sends (with the server's own decoder and verifier), records what
/// was delivered per stream, and answers from a script — per-record failures, 5xx, 4xx, dropped or
/// refused connections, slow answers — so every failure path can be driven deterministically.
///
/// With `service: "kinesis"` it is a Kinesis Data Streams endpoint for PutRecords (AWS's answer
/// shape, the partition keys recorded), driven by the same scripts.
public final class FakeFirehoseEndpoint: HTTPTransport, Sendable {
    /// One scripted answer.
    public indirect enum Behavior: Sendable {
        /// Accept every record (subject to the persistent rules: unknown streams, rejected records).
        case accept
        /// Accept the batch but fail the records at these 0-based positions with these codes
        /// (`ServiceUnavailableException`, `InternalFailure`).
        case failRecords([Int: String])
        /// Fail every record of the batch with this per-record code.
        case failAllRecords(code: String)
        /// A whole-request AWS error.
        case error(status: Int, code: String, message: String)
        /// The connection closes without an answer. With `afterDelivering`, the records were
        /// delivered first — the case where a client cannot know the request's fate.
        case dropConnection(afterDelivering: Bool)
        /// Nothing listens: fails before anything is delivered.
        case refuseConnection
        /// Answers only after `delay`; if that is longer than the request's timeout, the client sees
        /// a timeout (after the timeout, not the delay) and nothing is delivered.
        case slow(Duration, then: Behavior)
        /// A 200 with this body.
        case rawSuccess(body: String)
    }

    public enum TransportFailure: Error, Sendable, Equatable {
        case connectionRefused, connectionDropped, timedOut
    }

    /// What the endpoint saw of one request.
    public struct ReceivedRequest: Sendable {
        public var operation: String?
        public var streamName: String?
        public var records: [[UInt8]]
        /// PutRecords' partition keys, in the order of `records`.
        public var partitionKeys: [String] = []
        public var headers: [(name: String, value: String)]
        public var gzipped: Bool
        /// The HTTP status answered, or nil for a transport failure.
        public var status: Int?
        public var errorCode: String?
        /// Whether the records (or some of them) were delivered.
        public var delivered: Bool
    }

    private struct State {
        var script: [Behavior] = []
        var defaultBehavior: Behavior = .accept
        var knownStreams: Set<String>?
        var rejectRule: (@Sendable ([UInt8]) -> Bool)?
        var requests: [ReceivedRequest] = []
        var delivered: [String: [[UInt8]]] = [:]
        var hook: (@Sendable (Int) async -> Void)?
        var nextRecordID = 0
    }

    private let state = Mutex(State())
    private let verifier: SigV4Verifier?
    public let region: String
    public let accountID = "000000000000"
    /// The `Date` the endpoint believes it is (for clock-skew tests); nil for the real time.
    private let serverNow: @Sendable () -> Date

    public init(
        credentials: [AWSCredentials] = [AWSCredentials(accessKeyId: "test", secretAccessKey: "test")],
        region: String = "us-east-1",
        verifySignatures: Bool = true,
        knownStreams: Set<String>? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        service: String = "firehose"
    ) {
        self.region = region
        self.serverNow = now
        let byKey = Dictionary(credentials.map { ($0.accessKeyId, $0) }, uniquingKeysWith: { first, _ in first })
        verifier =
            verifySignatures
            ? SigV4Verifier(region: region, service: service, requiredSignedHeaders: ["X-Amz-Target"]) { byKey[$0] }
            : nil
        state.withLock { $0.knownStreams = knownStreams }
    }

    // MARK: Scripting

    /// Answers for the next requests, one each, in order; afterwards the default behaviour applies.
    public func enqueue(_ behaviors: Behavior...) {
        state.withLock { $0.script.append(contentsOf: behaviors) }
    }

    public func enqueue(_ behaviors: [Behavior]) {
        state.withLock { $0.script.append(contentsOf: behaviors) }
    }

    public func setDefault(_ behavior: Behavior) {
        state.withLock { $0.defaultBehavior = behavior }
    }

    /// Streams that exist; others get `ResourceNotFoundException`. nil: every stream exists.
    public func setKnownStreams(_ streams: Set<String>?) {
        state.withLock { $0.knownStreams = streams }
    }

    /// A batch holding a record for which `rule` is true is refused whole with HTTP 400
    /// `ValidationException` naming the record's position, as AWS refuses an invalid member.
    public func rejectRecords(where rule: (@Sendable ([UInt8]) -> Bool)?) {
        state.withLock { $0.rejectRule = rule }
    }

    /// Called with the request's 0-based number while the request is "on the wire", before it is
    /// answered: lets a test act (save records, say) during a submit.
    public func onRequest(_ hook: (@Sendable (Int) async -> Void)?) {
        state.withLock { $0.hook = hook }
    }

    // MARK: Observations

    public var requests: [ReceivedRequest] { state.withLock { $0.requests } }
    public var requestCount: Int { state.withLock { $0.requests.count } }

    public func delivered(_ stream: String) -> [[UInt8]] {
        state.withLock { $0.delivered[stream] ?? [] }
    }

    public var deliveredCount: Int { state.withLock { $0.delivered.values.reduce(0) { $0 + $1.count } } }

    // MARK: HTTPTransport

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (number, behavior, hook) = state.withLock { state -> (Int, Behavior, (@Sendable (Int) async -> Void)?) in
            let behavior = state.script.isEmpty ? state.defaultBehavior : state.script.removeFirst()
            return (state.requests.count, behavior, state.hook)
        }
        var received = ReceivedRequest(
            operation: request.header("x-amz-target").map { target in
                String(target.drop { $0 != "." }.dropFirst())
            },
            streamName: nil, records: [], headers: request.headers,
            gzipped: request.header("content-encoding") == "gzip", status: nil, errorCode: nil, delivered: false)
        if let hook { await hook(number) }
        do {
            let response = try await answer(request, behavior: behavior, received: &received)
            record(received)
            return response
        } catch {
            record(received)
            throw error
        }
    }

    private func record(_ received: ReceivedRequest) {
        state.withLock { $0.requests.append(received) }
    }

    private func answer(_ request: HTTPRequest, behavior: Behavior, received: inout ReceivedRequest) async throws
        -> HTTPResponse
    {
        switch behavior {
        case .refuseConnection:
            throw TransportFailure.connectionRefused
        case .slow(let delay, let then):
            if delay > request.timeout {
                try await Task.sleep(for: request.timeout)
                throw TransportFailure.timedOut
            }
            try await Task.sleep(for: delay)
            return try await answer(request, behavior: then, received: &received)
        case .error(let status, let code, let message):
            return respond(&received, FirehoseError(code: code, message: message, httpStatus: status))
        case .rawSuccess(let body):
            received.status = 200
            return HTTPResponse(status: 200, headers: headers(), body: Array(body.utf8))
        case .accept, .failRecords, .failAllRecords, .dropConnection:
            break
        }

        // Decode and verify as the server does.
        if let verifier {
            let signed = SigV4Request(
                method: request.method, path: request.url.path.isEmpty ? "/" : request.url.path,
                query: request.url.query ?? "", headers: request.headers, bodySHA256: SHA256Hex.hash(request.body))
            do {
                _ = try verifier.verify(signed, now: serverNow())
            } catch {
                return respond(&received, FirehoseError(code: error.code, message: error.message))
            }
        }
        var body = request.body
        if received.gzipped {
            guard let inflated = try? Gzip.decompress(body, limit: 16 << 20) else {
                return respond(&received, .serialization("Body is not gzip."))
            }
            body = inflated
        }
        let streamName: String
        let records: [[UInt8]]
        var batchLimit = ServiceLimits.maxBatchBytes
        do {
            switch received.operation {
            case "PutRecord", "PutRecordBatch":
                let input =
                    try received.operation == "PutRecord"
                    ? PutRecordsRequest.decodePutRecord(body) : PutRecordsRequest.decodePutRecordBatch(body)
                streamName = input.deliveryStreamName
                records = (0..<input.records.count).map { Array(input.records[$0]) }
            case "PutRecords":
                guard let input = try? JSONDecoder().decode(KinesisWire.PutRecordsInput.self, from: Data(body)),
                    let name = input.StreamName, let entries = input.Records
                else {
                    throw FirehoseError.serialization("Not a PutRecords request.")
                }
                streamName = name
                records = try entries.map { entry in
                    var data: [UInt8] = []
                    guard let text = entry.Data, Base64.decode(Array(text.utf8), appendingTo: &data) != nil else {
                        throw FirehoseError.serialization("A record's Data is not base64.")
                    }
                    return data
                }
                received.partitionKeys = entries.map { $0.PartitionKey ?? "" }
                batchLimit = KinesisClient.Limits.maxRequestBytes
            default: return respond(&received, .unknownOperation("Unknown operation \(received.operation ?? "-")."))
            }
        } catch let error as FirehoseError {
            return respond(&received, error)
        } catch {
            return respond(&received, .serialization("\(error)"))
        }
        received.streamName = streamName
        received.records = records
        let (known, rule) = state.withLock { ($0.knownStreams, $0.rejectRule) }
        if let known, !known.contains(streamName) {
            return respond(&received, .resourceNotFound(stream: streamName, accountID: accountID))
        }
        let totalBytes = records.reduce(0) { $0 + $1.count } + received.partitionKeys.reduce(0) { $0 + $1.utf8.count }
        if totalBytes > batchLimit {
            return respond(&received, .invalidArgument("Records size exceeds \(batchLimit >> 20) MB limit"))
        }
        if let rule, let bad = records.firstIndex(where: rule) {
            return respond(
                &received,
                .validation([
                    ValidationViolation(
                        value: "rejected", path: "records.\(bad + 1).member.data",
                        constraint: "Member must be acceptable to FakeFirehoseEndpoint")
                ]))
        }

        var failures: [Int: String] = [:]
        switch behavior {
        case .failRecords(let map): failures = map
        case .failAllRecords(let code): for index in records.indices { failures[index] = code }
        default: break
        }
        let accepted = records.indices.filter { failures[$0] == nil }.map { records[$0] }
        if case .dropConnection(let afterDelivering) = behavior, !afterDelivering {
            throw TransportFailure.connectionDropped
        }
        state.withLock { $0.delivered[streamName, default: []].append(contentsOf: accepted) }
        received.delivered = !accepted.isEmpty
        if case .dropConnection = behavior {
            throw TransportFailure.connectionDropped
        }
        received.status = 200
        if received.operation == "PutRecord" {
            if let code = failures[0] {
                // PutRecord has no per-record answer: the failure is the request's.
                return respond(&received, FirehoseError(code: code, message: "Slow down.", httpStatus: 503))
            }
            return HTTPResponse(status: 200, headers: headers(), body: PutRecordsResponse.putRecord(recordID: nextID()))
        }
        if received.operation == "PutRecords" {
            return HTTPResponse(
                status: 200, headers: headers(), body: kinesisAnswer(records: records.count, failures: failures))
        }
        let answer = PutRecordsResponse.putRecordBatch(
            records: records.count,
            failures: failures.sorted { $0.key < $1.key }.map {
                .init(position: $0.key, code: $0.value, message: PutRecordsResponse.RecordFailure.message(of: $0.value))
            },
            recordID: nextID)
        return HTTPResponse(status: 200, headers: headers(), body: answer)
    }

    /// PutRecords' answer: a sequence number and shard per stored record, the code and AWS's
    /// message per failed one.
    private func kinesisAnswer(records: Int, failures: [Int: String]) -> [UInt8] {
        let entries = (0..<records).map { index -> KinesisWire.PutRecordsOutput.Entry in
            guard let code = failures[index] else {
                return .stored(sequenceNumber: nextID(), shardID: "shardId-000000000000")
            }
            return .failed(
                code: code,
                message: code == "ProvisionedThroughputExceededException"
                    ? "Rate exceeded for shard shardId-000000000000 in stream s under account \(accountID)."
                    : "Internal Service Failure")
        }
        return OrderedJSONEncoder.encode(KinesisWire.PutRecordsOutput(Records: entries))
    }

    private func respond(_ received: inout ReceivedRequest, _ error: FirehoseError) -> HTTPResponse {
        received.status = error.httpStatus
        received.errorCode = error.code
        return HTTPResponse(
            status: error.httpStatus, headers: headers() + [("x-amzn-ErrorType", error.code)], body: error.jsonBody)
    }

    private func headers() -> [(name: String, value: String)] {
        [
            ("Content-Type", FirehoseOperation.contentType),
            ("x-amzn-RequestId", UUID().uuidString.lowercased()),
            ("Date", Self.httpDate(serverNow())),
        ]
    }

    private func nextID() -> String {
        state.withLock { state in
            state.nextRecordID += 1
            return String(format: "%056d", state.nextRecordID)
        }
    }

    /// `Sat, 21 Nov 2026 13:05:09 GMT`
    public static func httpDate(_ date: Date) -> String { HTTPDate.format(date) }
}
