import AWSSigV4
import FirehoseSink
import FirehoseWire
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Firehose API and the `/_local` endpoints over a sink: authentication, operation dispatch and
/// the mapping of every failure to the AWS error a client expects. HTTP-server agnostic.
public final class FirehoseAPI: Sendable {
    public enum Authentication: Sendable {
        /// Verify SigV4 against these credentials.
        case verify([AWSCredentials])
        /// Accept any request, signed or not.
        case off
    }

    public struct Configuration: Sendable {
        public var region: String
        public var accountID: String
        public var authentication: Authentication
        /// Largest request body accepted, before and after `Content-Encoding: gzip` decoding. A full
        /// PutRecordBatch is about 5.6 MB of JSON; the margin leaves room for verbose encoders.
        public var maxBodyBytes: Int
        /// How long a stream made with CreateDeliveryStream stays CREATING. Zero by default: SDK
        /// waiters poll every 20 s, so any delay would cost a test run that much.
        public var streamActivationDelay: TimeInterval
        /// zlib level of GZIP streams created through the API.
        public var gzipLevel: Int32

        public static let defaultMaxBodyBytes = 8 * 1024 * 1024

        public init(
            region: String = "us-east-1", accountID: String = "000000000000",
            authentication: Authentication = .verify([AWSCredentials(accessKeyId: "test", secretAccessKey: "test")]),
            maxBodyBytes: Int = defaultMaxBodyBytes, streamActivationDelay: TimeInterval = 0, gzipLevel: Int32 = 6
        ) {
            self.streamActivationDelay = streamActivationDelay
            self.gzipLevel = gzipLevel
            self.region = region
            self.accountID = accountID
            self.authentication = authentication
            self.maxBodyBytes = maxBodyBytes
        }
    }

    public let configuration: Configuration
    public let sink: FirehoseSink
    public let metrics: FirehoseMetrics
    private let verifier: SigV4Verifier?
    let clock: any SinkClock
    private let logger: Logger
    private let recordIDs = RecordIDGenerator()

    public init(configuration: Configuration, sink: FirehoseSink, clock: any SinkClock = SystemClock(), logger: Logger)
    {
        self.configuration = configuration
        self.sink = sink
        self.clock = clock
        self.logger = logger
        let metrics = FirehoseMetrics()
        self.metrics = metrics
        sink.addDeliveryObserver { object, time in
            metrics.objectDelivered(object, latencySeconds: time.timeIntervalSince(object.firstArrival))
        }
        switch configuration.authentication {
        case .off:
            verifier = nil
        case .verify(let credentials):
            let byKey = Dictionary(credentials.map { ($0.accessKeyId, $0) }, uniquingKeysWith: { first, _ in first })
            verifier = SigV4Verifier(region: configuration.region, service: "firehose") { byKey[$0] }
        }
    }

    public func handle(_ request: APIRequest) async -> APIResponse {
        let requestID = UUID().uuidString.lowercased()
        if request.path.hasPrefix("/_local/") || request.path == "/_local" {
            return await LocalEndpoints(api: self).handle(request, requestID: requestID)
        }
        let started = ContinuousClock.now
        let operation = (try? FirehoseOperation(target: request.header("x-amz-target")))?.rawValue ?? "unknown"
        do {
            let response = try await handleFirehose(request, requestID: requestID)
            metrics.requestFinished(
                operation: operation, errorCode: nil, durationSeconds: Self.seconds(since: started))
            return response
        } catch {
            metrics.requestFinished(
                operation: operation, errorCode: error.code, durationSeconds: Self.seconds(since: started))
            logger.debug(
                "Request failed",
                metadata: [
                    "request_id": .string(requestID), "error_code": .string(error.code),
                    "error_message": .string(error.message),
                ])
            return Self.errorResponse(error, requestID: requestID)
        }
    }

    private func handleFirehose(_ request: APIRequest, requestID: String) async throws(FirehoseError) -> APIResponse {
        guard request.body.count <= configuration.maxBodyBytes else {
            throw .requestTooLarge(limit: configuration.maxBodyBytes)
        }
        if let verifier {
            let signed = SigV4Request(
                method: request.method, path: request.path, query: request.query, headers: request.headers,
                bodySHA256: SHA256Hex.hash(request.body))
            do {
                _ = try verifier.verify(signed, now: clock.now())
            } catch {
                throw FirehoseError(code: error.code, message: error.message)
            }
        }
        guard request.method == "POST", request.path == "/" else {
            throw .unknownOperation(
                "firehose-local serves the Firehose API as POST / (got \(request.method) \(request.path)).")
        }
        guard FirehoseOperation.isAcceptedContentType(request.header("content-type")) else {
            throw .unknownOperation(
                "Unsupported Content-Type '\(request.header("content-type") ?? "")': Firehose expects \(FirehoseOperation.contentType)."
            )
        }
        let operation = try FirehoseOperation(target: request.header("x-amz-target"))
        let body = try decodedBody(request)
        switch operation {
        case .putRecord:
            let input = try PutRecordsRequest.decodePutRecord(body)
            try await put(input)
            return Self.success(PutRecordsResponse.putRecord(recordID: recordIDs.next()), requestID: requestID)
        case .putRecordBatch:
            let input = try PutRecordsRequest.decodePutRecordBatch(body)
            try await put(input)
            let ids = (0..<input.records.count).map { _ in recordIDs.next() }
            return Self.success(PutRecordsResponse.putRecordBatch(recordIDs: ids), requestID: requestID)
        default:
            let body = try await ControlPlane(api: self).handle(operation, body: body, now: clock.now())
            return Self.success(body, requestID: requestID)
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func log(_ message: Logger.Message, _ metadata: Logger.Metadata) {
        logger.info(message, metadata: metadata)
    }

    private func put(_ input: PutRecordsRequest) async throws(FirehoseError) {
        guard let record = sink.record(of: input.deliveryStreamName) else {
            throw .resourceNotFound(stream: input.deliveryStreamName, accountID: configuration.accountID)
        }
        guard record.isActive(at: clock.now()) else {
            throw FirehoseError(
                code: "ResourceNotFoundException",
                message:
                    "Firehose \(input.deliveryStreamName) under account \(configuration.accountID) is not ACTIVE yet (status CREATING); wait until DescribeDeliveryStream reports ACTIVE."
            )
        }
        if input.records.totalBytes > ServiceLimits.maxBatchBytes {
            throw .invalidArgument("Records size exceeds 4 MB limit")
        }
        do {
            try await sink.put(input.records, to: input.deliveryStreamName)
            metrics.recordsReceived(
                stream: input.deliveryStreamName, records: input.records.count, bytes: input.records.totalBytes)
        } catch {
            if let storage = error.storageError {
                logger.error(
                    "Could not store records",
                    metadata: ["stream": .string(input.deliveryStreamName), "error": .string(storage.description)])
            }
            throw error.firehoseError(accountID: configuration.accountID)
        }
    }

    /// The body the operation reads: as sent, or gunzipped for `Content-Encoding: gzip` (the AWS iOS
    /// SDK compresses PutRecord/PutRecordBatch and signs the compressed bytes).
    private func decodedBody(_ request: APIRequest) throws(FirehoseError) -> [UInt8] {
        guard let encoding = request.header("content-encoding")?.lowercased(), !encoding.isEmpty,
            encoding != "identity"
        else { return request.body }
        guard encoding == "gzip" || encoding == "x-gzip" else {
            throw .serialization("Unsupported Content-Encoding '\(encoding)': only gzip is accepted.")
        }
        do {
            return try Gzip.decompress(request.body, limit: configuration.maxBodyBytes)
        } catch .tooLarge(let limit) {
            throw .requestTooLarge(limit: limit)
        } catch {
            throw .serialization("Request body is declared gzip (Content-Encoding) but is not valid gzip data.")
        }
    }

    static let jsonContentType = FirehoseOperation.contentType

    static func success(_ body: [UInt8], requestID: String) -> APIResponse {
        APIResponse(
            status: 200,
            headers: [("Content-Type", jsonContentType), ("x-amzn-RequestId", requestID)],
            body: body)
    }

    static func errorResponse(_ error: FirehoseError, requestID: String) -> APIResponse {
        APIResponse(
            status: error.httpStatus,
            headers: [
                ("Content-Type", jsonContentType), ("x-amzn-RequestId", requestID), ("x-amzn-ErrorType", error.code),
            ],
            body: error.jsonBody)
    }
}

/// Opaque, unique record ids: a random per-process part and a counter, rendered as digits like AWS's.
final class RecordIDGenerator: Sendable {
    private let processPart: String
    private let counter = Atomic<UInt64>(0)

    init() {
        processPart = Self.digits(UInt64.random(in: 0...UInt64.max), width: 20)
    }

    func next() -> String {
        let value = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return processPart + Self.digits(value, width: 20)
    }

    private static func digits(_ value: UInt64, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
