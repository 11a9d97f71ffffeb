public import FirehoseClient
import FirehoseWire
public import Foundation

/// What a recorder delivers to, as far as its core needs to know: the call that sends a batch, the
/// service's limits, and the names in messages and files. Everything else — the journal, the store,
/// batching, retries, drops, events — is `Recorder`'s, the same for every service.
public protocol RecorderWire: Sendable {
    /// The service, as messages name it ("Firehose", "Kinesis").
    static var serviceName: String { get }
    /// The start of the store's and the journal's file names: each service has its own, so two
    /// recorders of different services can share a directory.
    static var fileStem: String { get }
    /// The member a request's validation message names when the stream name itself is refused (all
    /// its records would be refused alike, so the stream is stopped instead of split record by record).
    static var streamNameMember: String { get }
    /// Most bytes of a record (data and partition key) the service takes.
    static var maxRecordBytes: Int { get }
    /// Most records and bytes (data and partition keys) of one request.
    static var maxBatchRecords: Int { get }
    static var maxBatchBytes: Int { get }
    /// The batch byte limit a recorder uses unless configured otherwise.
    static var defaultBatchBytes: Int { get }

    /// Why `name` cannot be a stream's name, in the service's words; nil when it can.
    static func streamNameProblem(_ name: String) -> String?

    /// Sends one batch in one request. Per-record failures are entries of the answer, in the order
    /// of `records`; only a failure of the whole request throws.
    func put(_ records: [OutgoingRecord], streamName: String) async throws(FirehoseClientError) -> [PutOutcome]
}

/// A stored record on its way out.
public struct OutgoingRecord: Sendable {
    /// A slice of one buffer that holds the whole batch.
    public var data: ArraySlice<UInt8>
    /// Empty for services without one (Firehose).
    public var partitionKey: String
}

/// What the service did with one record of a batch.
public enum PutOutcome: Sendable, Equatable {
    case stored
    /// Not stored; sent again later (every per-record failure either service documents is transient).
    case failed(code: String)
}

/// Firehose's wire: PutRecordBatch, 500 records and 4 MiB a request, 1,000 KiB a record.
public struct PutRecordBatchWire: RecorderWire {
    public let client: FirehoseClient

    public init(client: FirehoseClient) {
        self.client = client
    }

    public static var serviceName: String { "Firehose" }
    public static var fileStem: String { "firehose-records" }
    public static var streamNameMember: String { "deliveryStreamName" }
    public static var maxRecordBytes: Int { ServiceLimits.maxRecordBytes }
    public static var maxBatchRecords: Int { ServiceLimits.maxBatchRecords }
    public static var maxBatchBytes: Int { ServiceLimits.maxBatchBytes }
    public static var defaultBatchBytes: Int { ServiceLimits.maxBatchBytes }

    public static func streamNameProblem(_ name: String) -> String? {
        FirehoseError.validationMessage(ServiceLimits.streamNameViolations(name))
    }

    public func put(_ records: [OutgoingRecord], streamName: String) async throws(FirehoseClientError)
        -> [PutOutcome]
    {
        let output = try await client.putRecordBatch(records.map(\.data), deliveryStreamName: streamName)
        return output.entries.map {
            switch $0 {
            case .success: return .stored
            case .failure(let code, _): return .failed(code: code)
            }
        }
    }
}

/// Kinesis Data Streams' wire: PutRecords, 500 records and 10 MiB a request (data and partition keys).
public struct PutRecordsWire: RecorderWire {
    public let client: KinesisClient

    public init(client: KinesisClient) {
        self.client = client
    }

    public static var serviceName: String { "Kinesis" }
    public static var fileStem: String { "kinesis-records" }
    public static var streamNameMember: String { "streamName" }
    public static var maxRecordBytes: Int { KinesisClient.Limits.maxRecordBytes }
    public static var maxBatchRecords: Int { KinesisClient.Limits.maxRecords }
    public static var maxBatchBytes: Int { KinesisClient.Limits.maxRequestBytes }
    /// 5 MiB, the PutRecords limit before AWS raised it to 10 MiB: base64 makes a request a third
    /// larger than its records, and 5 MiB of them stays under the request size every endpoint
    /// takes (firehose-local's 8 MiB among them).
    public static var defaultBatchBytes: Int { 5 * 1024 * 1024 }

    public static func streamNameProblem(_ name: String) -> String? {
        FirehoseError.validationMessage(ServiceLimits.kinesisStreamNameViolations(name, required: true))
    }

    public func put(_ records: [OutgoingRecord], streamName: String) async throws(FirehoseClientError)
        -> [PutOutcome]
    {
        let output = try await client.putRecords(
            records.map { KinesisRecord(data: $0.data, partitionKey: $0.partitionKey) }, streamName: streamName)
        return output.entries.map {
            switch $0 {
            case .success: return .stored
            case .failure(let code, _): return .failed(code: code)
            }
        }
    }
}

/// Keeps records on disk until Firehose has them (see `Recorder`).
public typealias FirehoseRecorder = Recorder<PutRecordBatchWire>

/// Keeps records on disk until Kinesis Data Streams has them (see `Recorder`).
public typealias KinesisRecorder = Recorder<PutRecordsWire>

extension Recorder where Wire == PutRecordBatchWire {
    /// Opens the store in `directory` (created if missing); see `Recorder.init(directory:wire:…)`.
    public init(
        directory: URL, client: FirehoseClient, configuration: Configuration = Configuration(),
        environment: Environment = .live
    ) throws(RecorderError) {
        try self.init(
            directory: directory, wire: PutRecordBatchWire(client: client), configuration: configuration,
            environment: environment)
    }

    public nonisolated var client: FirehoseClient { wire.client }

    /// Stores a record for the delivery stream `streamName` and returns its id once it is durable
    /// (see `Configuration.durability`).
    ///
    /// - Throws: `.recordTooLarge` for records over 1,024,000 bytes (Firehose's limit) or over
    ///   `diskByteLimit`; `.invalidStreamName`; `.storage` when the disk write fails (the record is
    ///   then not stored).
    @discardableResult
    public func saveRecord(_ data: Data, streamName: String) async throws(RecorderError) -> Int64 {
        try await save(data, streamName: streamName, partitionKey: "")
    }
}

extension Recorder where Wire == PutRecordsWire {
    /// Opens the store in `directory` (created if missing); see `Recorder.init(directory:wire:…)`.
    public init(
        directory: URL, client: KinesisClient, configuration: Configuration = Configuration(),
        environment: Environment = .live
    ) throws(RecorderError) {
        try self.init(
            directory: directory, wire: PutRecordsWire(client: client), configuration: configuration,
            environment: environment)
    }

    public nonisolated var client: KinesisClient { wire.client }

    /// Stores a record for the data stream `streamName` and returns its id once it is durable (see
    /// `Configuration.durability`). The partition key chooses the record's shard; without one, a
    /// random UUID spreads records over every shard, as `AWSKinesisRecorder` does.
    ///
    /// - Throws: `.invalidPartitionKey` unless the key has 1–256 characters; `.recordTooLarge` for
    ///   data and key over 10 MiB (the API's limit; a stream's own maximum, 1 MiB unless raised, is
    ///   the service's to check: a record over it is dropped as rejected) or over `diskByteLimit`;
    ///   `.invalidStreamName`; `.storage` when the disk write fails.
    @discardableResult
    public func saveRecord(_ data: Data, streamName: String, partitionKey: String? = nil) async throws(RecorderError)
        -> Int64
    {
        let key = partitionKey ?? UUID().uuidString
        if let problem = FirehoseError.validationMessage(
            ValidationViolation.string(
                key, path: "partitionKey", required: true, length: KinesisClient.Limits.partitionKeyLength))
        {
            throw RecorderError(kind: .invalidPartitionKey, message: problem)
        }
        return try await save(data, streamName: streamName, partitionKey: key)
    }
}
