import AWSCredentialProviders
import FirehoseWire
public import Foundation
import HTTPTransports

/// A record for Kinesis Data Streams: its data and the partition key that chooses its shard (or an
/// explicit hash key that does).
public struct KinesisRecord: Sendable, Equatable {
    public var data: [UInt8]
    public var partitionKey: String
    public var explicitHashKey: String?

    public init(data: some Collection<UInt8>, partitionKey: String, explicitHashKey: String? = nil) {
        self.data = Array(data)
        self.partitionKey = partitionKey
        self.explicitHashKey = explicitHashKey
    }
}

/// Where Kinesis put a record.
public struct KinesisPutResult: Sendable, Equatable {
    public var shardID: String
    public var sequenceNumber: String

    public init(shardID: String, sequenceNumber: String) {
        self.shardID = shardID
        self.sequenceNumber = sequenceNumber
    }
}

/// PutRecords' answer, record by record in the order sent.
public struct KinesisPutRecordsOutput: Sendable, Equatable {
    public enum Entry: Sendable, Equatable {
        case success(KinesisPutResult)
        /// Not stored: `ProvisionedThroughputExceededException` or `InternalFailure`, to send again.
        case failure(code: String, message: String)

        public var isSuccess: Bool {
            if case .success = self { return true }
            return false
        }
    }

    public var failedRecordCount: Int
    public var entries: [Entry]
}

/// A Kinesis Data Streams data-plane client: PutRecord and PutRecords, SigV4-signed AWS JSON 1.1
/// through the same configuration, credentials providers and transports as `FirehoseClient`.
/// Works against `firehose-local` and, unchanged, against Amazon Kinesis Data Streams.
///
/// Each call makes one request (plus, at most once, a re-signed retry after a clock-skew answer);
/// retry policy is the caller's.
public struct KinesisClient: Sendable {
    public typealias Configuration = AWSClientConfiguration

    /// The limits of the API model: 500 records and 10 MiB of data and partition keys per PutRecords,
    /// a partition key of 1–256 characters, a record of at most 10 MiB (a stream's own maximum,
    /// 1 MiB unless raised, is the service's to check).
    public enum Limits {
        public static let maxRecords = 500
        public static let maxRequestBytes = 10 * 1024 * 1024
        public static let maxRecordBytes = 10 * 1024 * 1024
        public static let partitionKeyLength = 1...256
    }

    public static let targetPrefix = "Kinesis_20131202."

    /// The public AWS endpoint of a region.
    public static func awsEndpoint(region: String) -> URL {
        URL(string: "https://kinesis.\(region).amazonaws.com")!
    }

    public let configuration: Configuration
    private let exchange: SignedJSONExchange

    public init(configuration: Configuration) {
        self.configuration = configuration
        exchange = SignedJSONExchange(configuration: configuration, service: "kinesis")
    }

    public init(
        endpoint: URL, region: String, credentialsProvider: any CredentialsProvider,
        transport: any HTTPTransport = DefaultTransport()
    ) {
        self.init(
            configuration: Configuration(
                endpoint: endpoint, region: region, credentialsProvider: credentialsProvider, transport: transport))
    }

    /// The offset (server time minus local time, seconds) learnt from a clock-skew answer; 0 until then.
    public var clockSkewSeconds: Double { exchange.skew.offset }

    /// Sends one record.
    public func putRecord(_ record: KinesisRecord, streamName: String) async throws(FirehoseClientError)
        -> KinesisPutResult
    {
        try Self.check(streamName: streamName)
        try Self.check(record, path: "")
        let body = OrderedJSONEncoder.encode(
            KinesisWire.PutRecordInput(
                StreamName: streamName, Data: Base64.encode(record.data), PartitionKey: record.partitionKey,
                ExplicitHashKey: record.explicitHashKey))
        let response = try await exchange.send(target: Self.targetPrefix + "PutRecord", body: body)
        guard let shape = try? JSONDecoder().decode(KinesisWire.PutRecordOutput.self, from: Data(response.body)) else {
            throw Self.invalidResponse("PutRecord", response)
        }
        return KinesisPutResult(shardID: shape.ShardId, sequenceNumber: shape.SequenceNumber)
    }

    /// Sends up to 500 records (10 MiB of data and partition keys). Per-record failures come back as
    /// `.failure` entries in the order of `records`; only whole-request failures throw.
    public func putRecords(_ records: [KinesisRecord], streamName: String) async throws(FirehoseClientError)
        -> KinesisPutRecordsOutput
    {
        try Self.check(streamName: streamName)
        if let violation = ValidationViolation.length(
            of: records.count, path: "records", noun: "records", range: 1...Limits.maxRecords, empty: "[]")
        {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "ValidationException",
                message: FirehoseError.validation([violation]).message)
        }
        var total = 0
        for (index, record) in records.enumerated() {
            try Self.check(record, path: "records.\(index + 1).member.")
            total += record.data.count + record.partitionKey.utf8.count
        }
        guard total <= Limits.maxRequestBytes else {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "InvalidArgumentException",
                message: "Records size exceeds 10 MB limit (\(total) bytes; at most \(Limits.maxRequestBytes)).")
        }
        let input = KinesisWire.PutRecordsInput(
            StreamName: streamName,
            Records: records.map {
                .init(Data: Base64.encode($0.data), PartitionKey: $0.partitionKey, ExplicitHashKey: $0.explicitHashKey)
            })
        let body = OrderedJSONEncoder.encode(input, reservingCapacity: total * 4 / 3 + 64 * records.count + 64)
        let response = try await exchange.send(target: Self.targetPrefix + "PutRecords", body: body)
        guard let shape = try? JSONDecoder().decode(KinesisWire.PutRecordsOutput.self, from: Data(response.body)),
            shape.Records.count == records.count
        else {
            throw Self.invalidResponse("PutRecords", response)
        }
        var entries: [KinesisPutRecordsOutput.Entry] = []
        entries.reserveCapacity(records.count)
        for entry in shape.Records {
            if let shard = entry.ShardId, let number = entry.SequenceNumber, entry.ErrorCode == nil {
                entries.append(.success(KinesisPutResult(shardID: shard, sequenceNumber: number)))
            } else {
                entries.append(.failure(code: entry.ErrorCode ?? "InternalFailure", message: entry.ErrorMessage ?? ""))
            }
        }
        let failed = entries.filter { !$0.isSuccess }.count
        guard (shape.FailedRecordCount ?? failed) == failed else { throw Self.invalidResponse("PutRecords", response) }
        return KinesisPutRecordsOutput(failedRecordCount: failed, entries: entries)
    }

    /// Sends a raw JSON body to any Kinesis operation (`CreateStream`, `GetRecords`…) and returns
    /// the 2xx answer; non-2xx answers throw as service errors.
    public func send(operation: String, body: [UInt8]) async throws(FirehoseClientError) -> HTTPResponse {
        try await exchange.send(target: Self.targetPrefix + operation, body: body)
    }

    // MARK: Checks and shapes

    private static func check(streamName: String) throws(FirehoseClientError) {
        let violations = ServiceLimits.kinesisStreamNameViolations(streamName, required: true)
        guard violations.isEmpty else {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "ValidationException",
                message: FirehoseError.validation(violations).message)
        }
    }

    private static func check(_ record: KinesisRecord, path: String) throws(FirehoseClientError) {
        var violations = ValidationViolation.string(
            record.partitionKey, path: path + "partitionKey", required: true, length: Limits.partitionKeyLength)
        if record.data.count > Limits.maxRecordBytes {
            violations.append(
                ValidationViolation(
                    value: "\(record.data.count) bytes", path: path + "data",
                    constraint: "Member must have length less than or equal to \(Limits.maxRecordBytes)"))
        }
        guard violations.isEmpty else {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "ValidationException",
                message: FirehoseError.validation(violations).message)
        }
    }

    private static func invalidResponse(_ operation: String, _ response: HTTPResponse) -> FirehoseClientError {
        FirehoseClientError(
            kind: .invalidResponse, message: "The \(operation) answer is not what Kinesis sends.",
            httpStatus: response.status, requestID: response.header("x-amzn-RequestId"))
    }
}
