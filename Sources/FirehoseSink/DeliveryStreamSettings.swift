public import FirehoseKeyLayout
public import FirehoseWire
public import JQ

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a delivery stream does with its records: the stages it runs and their parameters. The API
/// layer makes these from a CreateDeliveryStream-shaped definition (validated, with AWS's defaults
/// filled in); the sink neither validates them nor speaks AWS's errors.
public struct DeliveryStreamSettings: Sendable {
    /// The processors that run before partitioning (`ProcessingConfiguration.Processors`).
    public enum RecordProcessing: Sendable, Equatable {
        /// `Decompression` with `CompressionFormat: GZIP`.
        case decompressGzip
        /// `CloudWatchLogProcessing` with `DataMessageExtraction: true`.
        case extractCloudWatchLogsMessages
        /// `RecordDeAggregation` with `SubRecordType: JSON`.
        case deaggregateJSON
        /// `RecordDeAggregation` with `SubRecordType: DELIMITED` and this (decoded) delimiter.
        case deaggregateDelimited([UInt8])
    }

    public enum Compression: String, Sendable, Codable {
        case uncompressed = "UNCOMPRESSED"
        case gzip = "GZIP"
        case zip = "ZIP"
        case snappy = "Snappy"
        case hadoopSnappy = "HADOOP_SNAPPY"

        /// The extension AWS appends (s3-object-name.html), except that HADOOP_SNAPPY objects get
        /// `.snappy` as real Firehose was seen to write, not the documented `.hsnappy`.
        public var defaultExtension: String {
            switch self {
            case .uncompressed: ""
            case .gzip: ".gz"
            case .zip: ".zip"
            case .snappy, .hadoopSnappy: ".snappy"
            }
        }
    }

    /// The deflate that writes GZIP objects (the configuration's `GzipImplementation`). Both write
    /// one gzip member per object at the level `gzipLevel` names (libdeflate's levels 1–9 trade speed
    /// for size as zlib's do; docs/benchmarks.md compares them).
    public enum GzipImplementation: String, Sendable, Codable, CaseIterable {
        /// zlib, compressing each request's records as they arrive, on every core.
        case zlib
        /// libdeflate, compressing each object in one call at delivery: records are staged as they
        /// are, and a delivery holds the object's content and its compressed bytes in memory.
        case libdeflate
    }

    public var name: String
    /// The S3 bucket name: the folder `<data-dir>/<bucket>/`.
    public var bucket: String
    public var keyLayout: ObjectKeyLayout
    // Read-only: the stages below are made from them once.
    public private(set) var compression: Compression
    public private(set) var gzipLevel: Int32
    public private(set) var gzipImplementation: GzipImplementation
    /// The encoding stage that writes `compression` (tests may plug in another).
    package var encoding: any ObjectEncoding
    /// `SizeInMBs` in bytes, counted before compression.
    public var bufferSizeBytes: Int
    /// `IntervalInSeconds`; 0 delivers at the end of every request.
    public var bufferIntervalSeconds: Int
    /// Whether the definition names the `AppendDelimiterToRecord` processor (applied after
    /// partitioning, to every partition but the error output's).
    public private(set) var appendsNewline: Bool
    /// The processing stage, in order (tests may plug in others).
    package var processors: [any RecordProcessor]
    /// The processors before partitioning that the definition names, in the order they run.
    public private(set) var recordProcessing: [RecordProcessing] = []
    /// The `MetadataExtractionQuery` partitioning records, when dynamic partitioning uses one.
    public private(set) var metadataExtractionQuery: String?
    /// The partitioning stage (tests may plug in another).
    package var partitioner: any RecordPartitioner
    /// The `Lambda` processor, when the definition names one: records are then staged for it first
    /// (`sourceStage`) and the stages above run on what it gives back.
    package private(set) var transformation: LambdaTransformationSettings?
    /// These are the settings of a transformed stream's source stage (`sourceStage`).
    package private(set) var isSourceStage = false
    /// The source-record backup (`S3BackupMode: Enabled`): the settings of the stage that delivers
    /// every record as it was received to the backup's own bucket and prefixes, buffered and
    /// compressed as the backup says, beside what the stages above deliver.
    package var backupStage: DeliveryStreamSettings? { backupStorage.first }
    /// At most one: an array, as a struct cannot hold an optional of itself.
    private var backupStorage: [DeliveryStreamSettings] = []
    /// These are the settings of a backup stage (`backupStage`).
    package private(set) var isBackupStage = false
    /// Where the stage's buffers go: objects of `bucket` (S3), or another destination, with
    /// `backupStage` as its S3 configuration (`deliver(to:s3:)`).
    package private(set) var destination: any StreamDestination = BucketDestination()
    /// Whether every record is backed up as received when it is put (`S3BackupMode: Enabled`, or an
    /// HTTP endpoint's `AllData`).
    package var backsUpSourceRecords: Bool { backupStage != nil && destination.backsUpEveryRecord }

    /// Starts at 1; UpdateDestination increments it and new objects carry it in their key.
    public var versionID: Int
    /// The definition as given, kept for DescribeDeliveryStream.
    public var definition: CreateDeliveryStreamInput

    /// The role this stage writes its objects as: the `RoleARN` of its S3 configuration (a backup's,
    /// or an HTTP endpoint's S3 configuration, are the definitions of their own stages).
    /// The role a stream's processing runs as (its Lambda processor is invoked with): the
    /// destination's `RoleARN`.
    package var processingRoleARN: String? {
        definition.extendedS3DestinationConfiguration?.roleARN
            ?? definition.httpEndpointDestinationConfiguration?
            .roleARN
    }

    package var deliveryRoleARN: String? {
        definition.extendedS3DestinationConfiguration?.roleARN
            ?? definition.s3DestinationConfiguration?.configuration
            .roleARN
    }

    /// Settings already validated by the layer that owns the API (`FirehoseServer` checks a
    /// CreateDeliveryStream-shaped definition and fills in AWS's defaults). The sink trusts them.
    /// - Precondition: `gzipLevel` is 1...9, `bufferSizeBytes` > 0, `bufferIntervalSeconds` >= 0.
    public init(
        name: String, bucket: String, keyLayout: ObjectKeyLayout, compression: Compression, gzipLevel: Int32 = 6,
        bufferSizeBytes: Int, bufferIntervalSeconds: Int, appendsNewline: Bool, versionID: Int = 1,
        definition: CreateDeliveryStreamInput
    ) {
        precondition((1...9).contains(gzipLevel), "gzip level \(gzipLevel) is not 1...9")
        precondition(bufferSizeBytes > 0 && bufferIntervalSeconds >= 0, "buffering hints out of range")
        self.name = name
        self.bucket = bucket
        self.keyLayout = keyLayout
        self.compression = compression
        self.gzipLevel = gzipLevel
        // zlib's until `compressGzip` chooses (the server always does, by the configuration).
        self.gzipImplementation = .zlib
        self.encoding = compression.encoding(gzipLevel: gzipLevel, implementation: .zlib)
        self.bufferSizeBytes = bufferSizeBytes
        self.bufferIntervalSeconds = bufferIntervalSeconds
        self.appendsNewline = appendsNewline
        self.processors = []
        self.partitioner = WholeStream()
        self.versionID = versionID
        self.definition = definition
    }

    /// How buffers hold their content until delivery. A partitioned stream spreads each request over
    /// many buffers, a few KB apiece: compressed as they arrive, those shares cost about three times
    /// the CPU per byte (one cold deflater per partition, docs/benchmarks.md). So its buffers are
    /// staged as they are and `encoding` runs over each whole buffer at delivery. So are a transformed
    /// stream's: what the function gives back arrives one source buffer at a time, from one task,
    /// where compressing it would hold up the next transformation; at delivery, buffers compress on
    /// every core (docs/benchmarks.md). So are the buffers of an encoding that compresses a whole
    /// object in one call (`WholeObjectEncoding`).
    var stagingEncoding: any ObjectEncoding {
        partitioner is WholeStream && transformation == nil && !(encoding is any WholeObjectEncoding)
            ? encoding : UncompressedEncoding()
    }

    /// Writes GZIP objects (this stream's and its backup's) with `implementation`; nil: the default
    /// for each one's size hint (`defaultGzipImplementation`).
    public mutating func compressGzip(with implementation: GzipImplementation?) {
        let chosen = implementation ?? Self.defaultGzipImplementation(bufferSizeBytes: bufferSizeBytes)
        gzipImplementation = chosen
        encoding = compression.encoding(gzipLevel: gzipLevel, implementation: chosen)
        for index in backupStorage.indices { backupStorage[index].compressGzip(with: implementation) }
    }

    /// The deflate of a GZIP stream whose configuration names none: libdeflate, the faster (1.46 ×
    /// zlib's throughput on a saturated server, objects 3.4 % smaller: docs/benchmarks.md), for size
    /// hints up to `libdeflateDefaultMaxBufferBytes`; zlib above it. libdeflate compresses a whole
    /// object at once, so memory holds the content and its compressed copy per core: by the sizes
    /// (not measured), up to 2 × (32 + 32) MiB with this bound, but 2 × (128 + 128) MiB at AWS's largest
    /// hint, where zlib's memory does not grow with the hint at all.
    public static func defaultGzipImplementation(bufferSizeBytes: Int) -> GzipImplementation {
        bufferSizeBytes <= libdeflateDefaultMaxBufferBytes ? .libdeflate : .zlib
    }

    /// `SizeInMBs: 32`.
    public static let libdeflateDefaultMaxBufferBytes = 32 * 1_048_576

    /// Runs `steps` on every request's records, in order, before partitioning.
    public mutating func processRecords(_ steps: [RecordProcessing]) {
        recordProcessing = steps
        processors = steps.map { step -> any RecordProcessor in
            switch step {
            case .decompressGzip: GzipDecompression()
            case .extractCloudWatchLogsMessages: CloudWatchLogsMessageExtraction()
            case .deaggregateJSON: RecordDeAggregation(subRecordType: .json)
            case .deaggregateDelimited(let delimiter): RecordDeAggregation(subRecordType: .delimited(delimiter))
            }
        }
    }

    /// Delivers to `destination` instead of the bucket, with `s3` (its `S3Configuration`), when
    /// given, for what it could not deliver and for the backup.
    package mutating func deliver(to destination: any StreamDestination, s3: DeliveryStreamSettings?) {
        self.destination = destination
        if let s3 { backUp(with: s3) }
    }

    /// Backs every record up, as received, with `backup` (a plain S3 destination's settings).
    package mutating func backUp(with backup: DeliveryStreamSettings) {
        var stage = backup
        stage.isBackupStage = true
        stage.backupStorage = []
        stage.destination = BucketDestination()
        backupStorage = [stage]
    }

    /// Runs the `Lambda` processor after the processors of `processRecords` and before partitioning.
    package mutating func transform(with transformation: LambdaTransformationSettings) {
        self.transformation = transformation
    }

    /// What the stream was created with that cannot work here, said at its creation, in
    /// `/_local/streams` and in the live view.
    package var warnings: [String] {
        guard let transformation, transformation.function == .notMapped else { return [] }
        let name = LambdaFunctionDirectory.functionName(inARN: transformation.functionARN) ?? transformation.functionARN
        return [
            "No function runs here for the Lambda processor's \(transformation.functionARN): every invocation fails with Lambda.ResourceNotFound and its records go to the processing-failed error output. Map it (or its name, \(name)) to a command or an Invoke API endpoint under LambdaFunctions in the configuration file, or start the server with --lambda-endpoint URL."
        ]
    }

    /// The settings of a transformed stream's first stage, which stages source records until the
    /// function has transformed them: the processors before the function, then each record framed
    /// with its arrival (`SourceRecordFrame`), in one partition, buffered by the processor's hints,
    /// staged as they are.
    var sourceStage: DeliveryStreamSettings {
        guard let transformation else { preconditionFailure("a source stage is made for a transformed stream") }
        var stage = self
        stage.isSourceStage = true
        stage.backupStorage = []
        stage.destination = BucketDestination()
        stage.processors = processors
        stage.partitioner = WholeStream()
        stage.appendsNewline = false
        stage.compression = .uncompressed
        stage.encoding = UncompressedEncoding()
        stage.bufferSizeBytes = transformation.bufferSizeBytes
        stage.bufferIntervalSeconds = transformation.bufferIntervalSeconds
        return stage
    }

    /// Partitions records by the `!{partitionKeyFromQuery:NAME}` and `!{partitionKeyFromLambda:NAME}`
    /// keys of the prefix: the former from `query` (`MetadataExtraction`, jq 1.6), the latter from
    /// the `Lambda` processor's `metadata.partitionKeys`.
    /// - Parameter maxKeyBytes: the longest object key that fits the local path limit; partitions
    ///   whose keys could be longer get error records instead.
    public mutating func partitionByKeys(query: String?, maxKeyBytes: Int) throws(JQQuery.CompileError) {
        let keys = keyLayout.prefix?.partitionKeys ?? []
        partitioner = DynamicPartitioner(
            queries: try query.map { query throws(JQQuery.CompileError) in
                try .init(query, count: ProcessInfo.processInfo.activeProcessorCount)
            },
            keyNames: keys.filter { $0.source == .query }.map(\.name),
            lambdaKeyNames: keys.filter { $0.source == .lambda }.map(\.name), layout: keyLayout,
            maxKeyBytes: maxKeyBytes)
        metadataExtractionQuery = query
    }

    /// The key of an object of `partition`'s records.
    func objectKey(
        for partition: PartitionKey, versionID: Int, firstArrival: Date, randomSource: inout some RandomNumberGenerator
    ) -> String {
        if let type = partition.errorOutputType {
            return keyLayout.errorObjectKey(
                errorOutputType: type, versionId: versionID, firstArrival: firstArrival, objectID: UUID(),
                randomSource: &randomSource)
        }
        return keyLayout.objectKey(
            versionId: versionID, firstArrival: firstArrival, partition: partition.values, objectID: UUID(),
            randomSource: &randomSource)
    }
}
