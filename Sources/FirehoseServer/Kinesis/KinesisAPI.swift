import CivilTime
import Dispatch
import FirehoseSink
import FirehoseWire
import KinesisStreams
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Kinesis Data Streams (`X-Amz-Target: Kinesis_20131202.*`, AWS JSON 1.1) over the stream log:
/// the control plane a test needs and the whole data plane, with AWS's validation, errors and
/// shapes. Streams are ACTIVE as soon as CreateStream answers.
package final class KinesisAPI: Sendable {
    static let targetPrefix = "Kinesis_20131202."

    package enum Operation: String, CaseIterable, Sendable {
        case createStream = "CreateStream"
        case deleteStream = "DeleteStream"
        case describeStream = "DescribeStream"
        case describeStreamSummary = "DescribeStreamSummary"
        case listStreams = "ListStreams"
        case listShards = "ListShards"
        case putRecord = "PutRecord"
        case putRecords = "PutRecords"
        case getShardIterator = "GetShardIterator"
        case getRecords = "GetRecords"
        case addTagsToStream = "AddTagsToStream"
        case removeTagsFromStream = "RemoveTagsFromStream"
        case listTagsForStream = "ListTagsForStream"
        case increaseStreamRetentionPeriod = "IncreaseStreamRetentionPeriod"
        case decreaseStreamRetentionPeriod = "DecreaseStreamRetentionPeriod"

        /// Whether it changes the log (and so syncs it).
        var writes: Bool {
            switch self {
            case .createStream, .deleteStream, .putRecord, .putRecords, .addTagsToStream, .removeTagsFromStream,
                .increaseStreamRetentionPeriod, .decreaseStreamRetentionPeriod:
                true
            default: false
            }
        }
    }

    /// Kinesis's quotas, as AWS documents them.
    package enum Limits {
        /// The default shard quota of us-east-1, us-west-2 and eu-west-1 (200 elsewhere).
        package static let shardsPerAccount = 500
        /// A stream's retention period: from a day to a year.
        static let minRetentionHours = 24
        static let maxRetentionHours = 8_760
        /// On-demand streams start with capacity for 4 MB/s, which AWS shows as 4 shards.
        static let onDemandShards = 4
        static let maxPutRecords = 500
        /// A PutRecords request's data and partition keys (the model's documentation).
        static let maxPutRecordsBytes = 10 * 1024 * 1024
        /// The largest blob the model allows, whatever the stream's MaxRecordSizeInKiB.
        static let maxDataBytes = 10 * 1024 * 1024
        static let maxGetRecords = 10_000
        static let maxGetRecordsBytes = 10 * 1024 * 1024
        static let iteratorLifetimeMilliseconds: Int64 = 300_000
        /// A shard takes 1,000 records and 1 MiB a second (data and partition keys); requests are not
        /// counted (the service quotas page).
        static let shardWriteQuota = StreamQuota(
            recordsPerSecond: 1_000, requestsPerSecond: 1 << 40, bytesPerSecond: 1 << 20)
        /// How often expired records are deleted (reads skip them at once).
        static let trimIntervalMilliseconds: Int64 = 60_000
    }

    let log: StreamLog
    /// Puts' records, written by group commit on `writeQueue`.
    private let appends: GroupedAppends
    /// Where puts and stream changes run: their own thread, so a put's fsync neither waits behind
    /// Firehose's group commits nor holds them up (SQLite has one writer anyway).
    static let writeQueue = DispatchQueue(label: "firehose-local.kinesis-writes")
    private let region: String
    private let accountID: String
    private let logger: Logger
    /// Each shard's write quota, when enforced: buckets by `<stream id>/<shard>`.
    private let shardQuotas: StreamQuotas?
    /// When expired records were last deleted.
    private let lastTrim = Mutex<Int64?>(nil)

    /// - Parameter throttling: enforce each shard's write quota (`Quotas` in the configuration file).
    init(log: StreamLog, region: String, accountID: String, logger: Logger, throttling: Bool = false) {
        self.log = log
        appends = GroupedAppends(log: log, queue: Self.writeQueue)
        self.region = region
        self.accountID = accountID
        self.logger = logger
        shardQuotas = throttling ? StreamQuotas(quota: Limits.shardWriteQuota) : nil
    }

    /// PutRecord and PutRecords, checked, hashed and admitted on the caller's thread (CPU work and a
    /// lookup of the stream): what `store` appends. Fault rules see the put between the two.
    func preparePut(
        _ operation: Operation, body: [UInt8], now: Date,
        authorize: (_ action: String, _ resource: String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> PreparedPut {
        let milliseconds = now.epochMilliseconds
        return operation == .putRecord
            ? try preparePutRecord(body, now: milliseconds, authorize: authorize)
            : try preparePutRecords(body, now: milliseconds, authorize: authorize)
    }

    /// Stores a prepared put by group commit with the puts that arrive meanwhile, and answers once
    /// it is durable. The records at the positions of `failing` (a fault rule's) are not stored and
    /// are answered failed; an empty message stands for the service's own text.
    func store(_ put: PreparedPut, failing: [Int: RecordFailure] = [:], now: Date) async throws(FirehoseError)
        -> [UInt8]
    {
        var outcomes = put.records
        for (index, failure) in failing where outcomes.indices.contains(index) {
            guard case .success(let append) = outcomes[index] else { continue }
            var failure = failure
            if failure.message.isEmpty {
                failure.message =
                    failure.code == "InternalFailure"
                    ? "Internal Service Failure" : throttledMessage(shard: append.shard, of: put.stream)
            }
            outcomes[index] = .failure(failure)
        }
        let appends = outcomes.compactMap { try? $0.get() }
        var positions: [Int64] = []
        if !appends.isEmpty {
            do throws(StreamLogError) {
                positions = try await self.appends.append(
                    AppendGroup(records: appends, stream: put.stream, nowMilliseconds: now.epochMilliseconds))
            } catch {
                throw firehoseError(error)
            }
        }
        var stored = zip(appends, positions).makeIterator()
        var writer = JSONWriter()
        writer.beginObject()
        if put.single {
            guard let (append, position) = stored.next() else { throw .throttled }
            writer.key("ShardId")
            writer.string(ShardID.text(append.shard))
            writer.key("SequenceNumber")
            writer.string(SequenceNumber(stream: put.stream.id, shard: append.shard, position: position).description)
            writer.endObject()
            return writer.bytes
        }
        writer.key("FailedRecordCount")
        writer.integer(outcomes.count - appends.count)
        writer.key("Records")
        writer.beginArray()
        for outcome in outcomes {
            writer.beginObject()
            switch outcome {
            case .failure(let failure):
                writer.key("ErrorCode")
                writer.string(failure.code)
                writer.key("ErrorMessage")
                writer.string(failure.message)
            case .success:
                guard let (append, position) = stored.next() else { break }
                writer.key("SequenceNumber")
                writer.string(
                    SequenceNumber(stream: put.stream.id, shard: append.shard, position: position).description)
                writer.key("ShardId")
                writer.string(ShardID.text(append.shard))
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Why one record of a PutRecords was not stored.
    package struct RecordFailure: Error, Sendable {
        package var code: String
        package var message: String
    }

    /// The per-record codes PutRecords documents.
    static let recordFailureCodes = ["ProvisionedThroughputExceededException", "InternalFailure"]

    /// A put, checked: each record's shard, or why it failed (its shard's quota), in order.
    struct PreparedPut {
        var stream: StoredStream
        var records: [Result<RecordToAppend, RecordFailure>]
        /// PutRecord: one record, answered with its shard and sequence number, failing as a whole.
        var single: Bool
    }

    /// Runs one operation but the puts; `authorize` is asked for the IAM action on the stream's ARN
    /// once the stream the request names is known. Blocking (SQLite, fsync): call it off the task
    /// threads.
    func handle(
        _ operation: Operation, body: [UInt8], now: Date,
        authorize: (_ action: String, _ resource: String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let milliseconds = now.epochMilliseconds
        switch operation {
        case .createStream: return try createStream(body, now: milliseconds, authorize: authorize)
        case .deleteStream: return try deleteStream(body, authorize: authorize)
        case .describeStream: return try describeStream(body, authorize: authorize)
        case .describeStreamSummary: return try describeStreamSummary(body, authorize: authorize)
        case .listStreams: return try listStreams(body, authorize: authorize)
        case .listShards: return try listShards(body, now: milliseconds, authorize: authorize)
        case .putRecord, .putRecords:
            preconditionFailure("puts go through put(_:body:now:authorize:)")
        case .getShardIterator: return try getShardIterator(body, now: milliseconds, authorize: authorize)
        case .getRecords: return try getRecords(body, now: milliseconds, authorize: authorize)
        case .addTagsToStream: return try addTags(body, authorize: authorize)
        case .removeTagsFromStream: return try removeTags(body, authorize: authorize)
        case .listTagsForStream: return try listTags(body, authorize: authorize)
        case .increaseStreamRetentionPeriod: return try changeRetention(body, increase: true, authorize: authorize)
        case .decreaseStreamRetentionPeriod: return try changeRetention(body, increase: false, authorize: authorize)
        }
    }

    func streamARN(_ name: String) -> String {
        "arn:aws:kinesis:\(region):\(accountID):stream/\(name)"
    }

    // MARK: Control plane

    private func createStream(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(CreateStreamInput.self, from: body)
        let definition = try Self.definition(input)
        try authorize("kinesis:CreateStream", streamARN(definition.name))
        try create(definition, now: now)
        return []
    }

    /// What a CreateStream request (or a configuration file's stream) makes, after AWS's checks.
    package static func definition(_ input: CreateStreamInput) throws(FirehoseError) -> StreamDefinition {
        var violations = ServiceLimits.kinesisStreamNameViolations(input.StreamName, required: true)
        if let count = input.ShardCount,
            let violation = ValidationViolation.outOfRange(count, path: "shardCount", range: 1...Int(Int32.max))
        {
            violations.append(violation)
        }
        if let size = input.MaxRecordSizeInKiB,
            let violation = ValidationViolation.outOfRange(size, path: "maxRecordSizeInKiB", range: 1024...10240)
        {
            violations.append(violation)
        }
        if let tags = input.Tags { violations += tagMapViolations(tags) }
        if let details = input.StreamModeDetails, details.StreamMode == nil {
            violations.append(.missing("streamModeDetails.streamMode"))
        }
        if !violations.isEmpty { throw .validation(violations) }
        let mode: StoredStream.Mode
        switch input.StreamModeDetails?.StreamMode {
        case nil, "PROVISIONED": mode = .provisioned
        case "ON_DEMAND": mode = .onDemand
        case let other?:
            throw .validation([
                ValidationViolation(
                    value: other, path: "streamModeDetails.streamMode",
                    constraint: "Member must satisfy enum value set: [PROVISIONED, ON_DEMAND]")
            ])
        }
        // AWS made 4 shards for a CreateStream without ShardCount, and an on-demand stream shows 4.
        let shards = mode == .onDemand ? Limits.onDemandShards : (input.ShardCount ?? Limits.onDemandShards)
        if let tags = input.Tags, tags.count > StreamLog.maxTags { throw tooManyTags(input.StreamName!) }
        return StreamDefinition(
            name: input.StreamName!, shardCount: shards, mode: mode,
            maxRecordSizeInKiB: input.MaxRecordSizeInKiB ?? 1024, tags: input.Tags ?? [:])
    }

    /// Makes the stream, within the account's shard quota.
    private func create(_ definition: StreamDefinition, now: Int64) throws(FirehoseError) {
        let shards = definition.shardCount
        let inUse = try storage { () throws(StreamLogError) in try log.streams().reduce(0) { $0 + $1.shardCount } }
        guard inUse + shards <= Limits.shardsPerAccount else {
            throw FirehoseError(
                code: "LimitExceededException",
                message:
                    "This request would exceed the shard limit for the account \(accountID) in \(region). Current shard limit for the account is \(Limits.shardsPerAccount), \(inUse) shards are in use and \(shards) were requested."
            )
        }
        try storage { () throws(StreamLogError) in _ = try log.create(definition, nowMilliseconds: now) }
        logger.info(
            "Kinesis stream created",
            metadata: [
                "stream": .string(definition.name), "shards": .stringConvertible(shards),
                "mode": .string(definition.mode.rawValue),
            ])
    }

    /// Makes the streams of the configuration file that do not exist yet; one that exists keeps its
    /// shards and records (a warning says when they differ from the file's).
    func apply(configured definitions: [StreamDefinition], now: Date) throws(FirehoseError) {
        let milliseconds = now.epochMilliseconds
        for definition in definitions {
            let existing = try storage { () throws(StreamLogError) in try log.stream(named: definition.name) }
            guard let existing else {
                try create(definition, now: milliseconds)
                continue
            }
            if existing.shardCount != definition.shardCount || existing.mode != definition.mode {
                logger.warning(
                    "A Kinesis stream of the configuration file exists with other settings; it is kept as it is, with its records (DeleteStream it to make it anew)",
                    metadata: [
                        "stream": .string(definition.name), "shards": .stringConvertible(existing.shardCount),
                        "configured_shards": .stringConvertible(definition.shardCount),
                    ])
            }
        }
    }

    private func deleteStream(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
        throws(FirehoseError) -> [UInt8]
    {
        let reference = try RequestJSON.decode(StreamReference.self, from: body)
        let name = try streamName(reference.StreamName, arn: reference.StreamARN)
        try authorize("kinesis:DeleteStream", streamARN(name))
        try storage { () throws(StreamLogError) in try log.delete(name: name) }
        logger.info("Kinesis stream deleted", metadata: ["stream": .string(name)])
        return []
    }

    /// Increase/DecreaseStreamRetentionPeriod: 24 to 8,760 hours, only in the direction the operation
    /// names, with AWS's texts. Reads skip what the new period leaves out at once; the maintenance
    /// deletes it.
    private func changeRetention(
        _ body: [UInt8], increase: Bool, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(RetentionPeriodInput.self, from: body)
        let violations = input.RetentionPeriodHours == nil ? [ValidationViolation.missing("retentionPeriodHours")] : []
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        let operation = increase ? "IncreaseStreamRetentionPeriod" : "DecreaseStreamRetentionPeriod"
        try authorize("kinesis:" + operation, streamARN(name))
        let hours = input.RetentionPeriodHours!
        guard hours >= Limits.minRetentionHours else {
            throw .invalidArgument(
                "Minimum allowed retention period is \(Limits.minRetentionHours) hours. Requested retention period (\(hours) hours) is too short."
            )
        }
        guard hours <= Limits.maxRetentionHours else {
            throw .invalidArgument(
                "Maximum allowed retention period is \(Limits.maxRetentionHours) hours. Requested retention period (\(hours) hours) is too long."
            )
        }
        let stream = try existing(name)
        if increase, hours < stream.retentionHours {
            throw .invalidArgument(
                "Requested retention period (\(hours) hours) for stream \(name) can not be shorter than existing retention period (\(stream.retentionHours) hours). Use DecreaseRetentionPeriod API."
            )
        }
        if !increase, hours > stream.retentionHours {
            throw .invalidArgument(
                "Requested retention period (\(hours) hours) for stream \(name) can not be longer than existing retention period (\(stream.retentionHours) hours). Use IncreaseRetentionPeriod API."
            )
        }
        try storage { () throws(StreamLogError) in try log.setRetention(hours: hours, of: stream) }
        logger.info(
            "Kinesis stream retention changed",
            metadata: [
                "stream": .string(name), "hours": .stringConvertible(hours),
                "from": .stringConvertible(stream.retentionHours),
            ])
        return []
    }

    private func describeStream(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
        throws(FirehoseError) -> [UInt8]
    {
        let input = try RequestJSON.decode(DescribeStreamInput.self, from: body)
        var violations: [ValidationViolation] = []
        if let limit = input.Limit,
            let violation = ValidationViolation.outOfRange(limit, path: "limit", range: 1...10_000)
        {
            violations.append(violation)
        }
        violations += ServiceLimits.kinesisStreamNameViolations(
            input.ExclusiveStartShardId, path: "exclusiveStartShardId")
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        try authorize("kinesis:DescribeStream", streamARN(name))
        let stream = try existing(name)
        // At most 100 shards per page, as AWS answers.
        let shards = Self.page(after: input.ExclusiveStartShardId, of: stream, size: min(input.Limit ?? 100, 100))
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("StreamDescription")
        writer.beginObject()
        writeSummaryMembers(of: stream, into: &writer)
        writer.key("Shards")
        writeShards(shards, of: stream, into: &writer)
        writer.key("HasMoreShards")
        writer.bool(shards.upperBound < stream.shardCount)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private func describeStreamSummary(
        _ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let reference = try RequestJSON.decode(StreamReference.self, from: body)
        let name = try streamName(reference.StreamName, arn: reference.StreamARN)
        try authorize("kinesis:DescribeStreamSummary", streamARN(name))
        let stream = try existing(name)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("StreamDescriptionSummary")
        writer.beginObject()
        writeSummaryMembers(of: stream, into: &writer)
        writer.key("OpenShardCount")
        writer.integer(stream.shardCount)
        writer.key("ConsumerCount")
        writer.integer(0)
        writer.key("MaxRecordSizeInKiB")
        writer.integer(stream.maxRecordSizeInKiB)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private func listStreams(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
        throws(FirehoseError) -> [UInt8]
    {
        let input = try RequestJSON.decode(ListStreamsInput.self, from: body)
        var violations = ServiceLimits.kinesisStreamNameViolations(
            input.ExclusiveStartStreamName, path: "exclusiveStartStreamName")
        violations += ValidationViolation.string(input.NextToken, path: "nextToken", length: 1...1_048_576)
        if let limit = input.Limit,
            let violation = ValidationViolation.outOfRange(limit, path: "limit", range: 1...10_000)
        {
            violations.append(violation)
        }
        if !violations.isEmpty { throw .validation(violations) }
        try authorize("kinesis:ListStreams", "*")
        // A NextToken is the name the previous page ended at.
        var after = input.ExclusiveStartStreamName
        if let token = input.NextToken {
            guard let name = openToken(token, kind: "streams"), ServiceLimits.kinesisStreamNameViolations(name).isEmpty
            else {
                throw .invalidArgument("Invalid NextToken.")
            }
            after = name
        }
        let all = try storage { () throws(StreamLogError) in try log.streams() }
        let remaining = all.filter { after == nil || $0.name > after! }
        let page = remaining.prefix(min(input.Limit ?? 100, 100))
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("StreamNames")
        writer.beginArray()
        for stream in page { writer.string(stream.name) }
        writer.endArray()
        writer.key("HasMoreStreams")
        writer.bool(page.count < remaining.count)
        if page.count < remaining.count, let last = page.last {
            writer.key("NextToken")
            writer.string(sealToken(last.name, kind: "streams"))
        }
        writer.key("StreamSummaries")
        writer.beginArray()
        for stream in page {
            writer.beginObject()
            writer.key("StreamName")
            writer.string(stream.name)
            writer.key("StreamARN")
            writer.string(streamARN(stream.name))
            writer.key("StreamStatus")
            writer.string("ACTIVE")
            writer.key("StreamModeDetails")
            writeMode(stream.mode, into: &writer)
            writer.key("StreamCreationTimestamp")
            writer.number(Double(stream.createdMilliseconds) / 1000)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private func listShards(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(ListShardsInput.self, from: body)
        var violations = ServiceLimits.kinesisStreamNameViolations(
            input.ExclusiveStartShardId, path: "exclusiveStartShardId")
        if let limit = input.MaxResults,
            let violation = ValidationViolation.outOfRange(limit, path: "maxResults", range: 1...10_000)
        {
            violations.append(violation)
        }
        violations += ValidationViolation.string(input.NextToken, path: "nextToken", length: 1...1_048_576)
        if !violations.isEmpty { throw .validation(violations) }
        let name: String
        var after = input.ExclusiveStartShardId
        var tokenStream: Int64?
        if let token = input.NextToken {
            guard input.StreamName == nil, input.StreamARN == nil, input.ExclusiveStartShardId == nil else {
                throw .invalidArgument(
                    "NextToken cannot be provided together with StreamName, StreamARN or ExclusiveStartShardId.")
            }
            // "<stream id> <stream name> <issued ms> <last shard id>", sealed by the log.
            let fields = openToken(token, kind: "shards")?.split(separator: " ") ?? []
            guard fields.count == 4, let id = Int64(fields[0]), let issued = Int64(fields[2]) else {
                throw .invalidArgument("Invalid NextToken.")
            }
            guard Self.isFresh(issued: issued, now: now) else {
                throw FirehoseError(code: "ExpiredNextTokenException", message: "The NextToken has expired.")
            }
            name = String(fields[1])
            after = String(fields[3])
            tokenStream = id
        } else {
            name = try streamName(input.StreamName, arn: input.StreamARN)
        }
        try authorize("kinesis:ListShards", streamARN(name))
        let stream = try existing(name)
        // A token of a stream since deleted (and perhaps re-created) names nothing.
        if let tokenStream, tokenStream != stream.id { throw Self.streamNotFound(name, accountID: accountID) }
        let shards = Self.page(after: after, of: stream, size: min(input.MaxResults ?? 1000, 1000))
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("Shards")
        writeShards(shards, of: stream, into: &writer)
        if shards.upperBound < stream.shardCount {
            writer.key("NextToken")
            writer.string(
                sealToken("\(stream.id) \(name) \(now) \(ShardID.text(shards.upperBound - 1))", kind: "shards"))
        }
        writer.endObject()
        return writer.bytes
    }

    // MARK: Tags

    private func addTags(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
        throws(FirehoseError) -> [UInt8]
    {
        let input = try RequestJSON.decode(AddTagsToStreamInput.self, from: body)
        let violations = input.Tags.map(Self.tagMapViolations) ?? [.missing("tags")]
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        try authorize("kinesis:AddTagsToStream", streamARN(name))
        let stream = try existing(name)
        try storage { () throws(StreamLogError) in try log.addTags(input.Tags!, to: stream) }
        return []
    }

    private func removeTags(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
        throws(FirehoseError) -> [UInt8]
    {
        let input = try RequestJSON.decode(RemoveTagsFromStreamInput.self, from: body)
        var violations: [ValidationViolation] = []
        if let keys = input.TagKeys {
            if let violation = ValidationViolation.length(of: keys.count, path: "tagKeys", noun: "keys", range: 1...50)
            {
                violations.append(violation)
            }
            for (index, key) in keys.enumerated() {
                violations += ValidationViolation.string(key, path: "tagKeys.\(index + 1).member", length: 1...128)
            }
        } else {
            violations.append(.missing("tagKeys"))
        }
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        try authorize("kinesis:RemoveTagsFromStream", streamARN(name))
        let stream = try existing(name)
        try storage { () throws(StreamLogError) in try log.removeTags(input.TagKeys!, from: stream) }
        return []
    }

    private func listTags(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
        throws(FirehoseError) -> [UInt8]
    {
        let input = try RequestJSON.decode(ListTagsForStreamInput.self, from: body)
        var violations = ValidationViolation.string(
            input.ExclusiveStartTagKey, path: "exclusiveStartTagKey", length: 1...128)
        if let limit = input.Limit, let violation = ValidationViolation.outOfRange(limit, path: "limit", range: 1...50)
        {
            violations.append(violation)
        }
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        try authorize("kinesis:ListTagsForStream", streamARN(name))
        let stream = try existing(name)
        let all = try storage { () throws(StreamLogError) in try log.tags(of: stream) }
        let after = all.filter { input.ExclusiveStartTagKey == nil || $0.key > input.ExclusiveStartTagKey! }
        // AWS answers 10 tags a page unless asked for more (kinesalite, checked against AWS).
        let page = after.prefix(input.Limit ?? 10)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("Tags")
        writer.beginArray()
        for tag in page {
            writer.beginObject()
            writer.key("Key")
            writer.string(tag.key)
            writer.key("Value")
            writer.string(tag.value)
            writer.endObject()
        }
        writer.endArray()
        writer.key("HasMoreTags")
        writer.bool(page.count < after.count)
        writer.endObject()
        return writer.bytes
    }

    /// A TagMap's count (1–200) and each key's (1–128) and value's (0–256) length.
    private static func tagMapViolations(_ tags: [String: String]) -> [ValidationViolation] {
        var violations: [ValidationViolation] = []
        if tags.isEmpty || tags.count > 200 {
            violations.append(
                ValidationViolation(
                    value: "{\(tags.count) tags}", path: "tags",
                    constraint: tags.isEmpty
                        ? "Member must have length greater than or equal to 1"
                        : "Member must have length less than or equal to 200"))
        }
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
            violations += ValidationViolation.string(key, path: "tags.key", length: 1...128)
            violations += ValidationViolation.string(value, path: "tags.value", length: 0...256)
        }
        return violations
    }

    private static func tooManyTags(_ stream: String) -> FirehoseError {
        .invalidArgument("A stream can have at most \(StreamLog.maxTags) tags: \(stream) would have more.")
    }

    // MARK: Data plane

    private struct Entry {
        var partitionKey: String
        var data: [UInt8]
        var explicitHashKey: String?
    }

    private func preparePutRecord(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> PreparedPut {
        let input = try RequestJSON.decode(PutRecordInput.self, from: body)
        var violations: [ValidationViolation] = []
        let entry = try Self.entry(
            data: input.Data, partitionKey: input.PartitionKey, explicitHashKey: input.ExplicitHashKey, path: "",
            violations: &violations)
        if let ordering = input.SequenceNumberForOrdering, !SequenceNumber.isModelText(ordering) {
            violations.append(
                ValidationViolation(
                    value: ordering, path: "sequenceNumberForOrdering",
                    constraint: "Member must satisfy regular expression pattern: 0|([1-9]\\d{0,128})"))
        }
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        try authorize("kinesis:PutRecord", streamARN(name))
        let stream = try existing(name)
        let shard = try shard(of: entry, in: stream)
        try checkSize(entry, of: stream)
        if !admit(entry, shard: shard, of: stream, now: now) {
            throw FirehoseError(
                code: "ProvisionedThroughputExceededException", message: throttledMessage(shard: shard, of: stream))
        }
        return PreparedPut(
            stream: stream,
            records: [.success(RecordToAppend(shard: shard, partitionKey: entry.partitionKey, data: entry.data))],
            single: true)
    }

    private func preparePutRecords(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> PreparedPut {
        let input = try RequestJSON.decode(PutRecordsInput.self, from: body)
        var violations: [ValidationViolation] = []
        var entries: [Entry] = []
        if let records = input.Records {
            if let violation = ValidationViolation.length(
                of: records.count, path: "records", noun: "records", range: 1...Limits.maxPutRecords, empty: "[]")
            {
                violations.append(violation)
            } else {
                for (index, record) in records.enumerated() {
                    entries.append(
                        try Self.entry(
                            data: record.Data, partitionKey: record.PartitionKey,
                            explicitHashKey: record.ExplicitHashKey, path: "records.\(index + 1).member.",
                            violations: &violations))
                }
            }
        } else {
            violations.append(.missing("records"))
        }
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        try authorize("kinesis:PutRecords", streamARN(name))
        let stream = try existing(name)
        let total = entries.reduce(0) { $0 + $1.data.count + $1.partitionKey.utf8.count }
        guard total <= Limits.maxPutRecordsBytes else {
            throw .invalidArgument("Records size exceeds 10 MB limit")
        }
        var records: [Result<RecordToAppend, RecordFailure>] = []
        records.reserveCapacity(entries.count)
        // Each record is admitted by its shard's quota or fails alone, as AWS fails them.
        for entry in entries {
            try checkSize(entry, of: stream)
            let shard = try shard(of: entry, in: stream)
            guard admit(entry, shard: shard, of: stream, now: now) else {
                records.append(
                    .failure(
                        RecordFailure(
                            code: "ProvisionedThroughputExceededException",
                            message: throttledMessage(shard: shard, of: stream))))
                continue
            }
            records.append(.success(RecordToAppend(shard: shard, partitionKey: entry.partitionKey, data: entry.data)))
        }
        return PreparedPut(stream: stream, records: records, single: false)
    }

    private func getShardIterator(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(GetShardIteratorInput.self, from: body)
        var violations = ServiceLimits.kinesisStreamNameViolations(input.ShardId, path: "shardId", required: true)
        let types = ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER", "TRIM_HORIZON", "LATEST", "AT_TIMESTAMP"]
        if let violation = ValidationViolation.enumValue(
            input.ShardIteratorType, path: "shardIteratorType", allowed: types)
        {
            violations.append(violation)
        }
        if let number = input.StartingSequenceNumber, !SequenceNumber.isModelText(number) {
            violations.append(
                ValidationViolation(
                    value: number, path: "startingSequenceNumber",
                    constraint: "Member must satisfy regular expression pattern: 0|([1-9]\\d{0,128})"))
        }
        let name = try streamName(input.StreamName, arn: input.StreamARN, violations: violations)
        try authorize("kinesis:GetShardIterator", streamARN(name))
        let stream = try existing(name)
        let shardID = input.ShardId!
        guard let shard = ShardID.index(shardID), shard < stream.shardCount else {
            throw FirehoseError(
                code: "ResourceNotFoundException",
                message: "Shard \(shardID) in stream \(name) under account \(accountID) does not exist")
        }
        let type = input.ShardIteratorType!
        let usesNumber = type == "AT_SEQUENCE_NUMBER" || type == "AFTER_SEQUENCE_NUMBER"
        let hasNumber = input.StartingSequenceNumber != nil
        if type == "AT_TIMESTAMP", input.Timestamp == nil {
            throw .invalidArgument(
                "Must specify timestampInMillis parameter for iterator of type AT_TIMESTAMP. Current request has no timestamp parameter."
            )
        }
        if type != "AT_TIMESTAMP", input.Timestamp != nil {
            throw .invalidArgument(
                "The timestampInMillis parameter is only for iterators of type AT_TIMESTAMP. Request specified \(type) and also a timestamp."
            )
        }
        if usesNumber != hasNumber {
            throw .invalidArgument(
                "Must either specify (1) AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER and StartingSequenceNumber or (2) TRIM_HORIZON or LATEST and no StartingSequenceNumber. Request specified \(type) and \(hasNumber ? "also a" : "no") StartingSequenceNumber."
            )
        }
        let cutoff = stream.retentionCutoff(nowMilliseconds: now)
        let position: Int64
        switch type {
        case "TRIM_HORIZON":
            position = 0
        case "LATEST":
            position = try storage { () throws(StreamLogError) in try log.endPosition() }
        case "AT_TIMESTAMP":
            // Checked as a double first: any JSON number arrives here, and only those up to now fit.
            let seconds = input.Timestamp!
            guard seconds.isFinite, seconds * 1000 <= Double(now) else {
                throw .invalidArgument(
                    "The timestampInMillis parameter cannot be greater than the currentTimestampInMillis. timestampInMillis: \(seconds.isFinite ? "\((seconds * 1000).rounded(.down))" : "\(seconds)"), currentTimestampInMillis: \(now)"
                )
            }
            let requested =
                seconds * 1000 < Double(Int64.min / 2) ? Int64.min / 2 : Int64((seconds * 1000).rounded(.down))
            position = try storage { () throws(StreamLogError) in
                try log.position(stream: stream, shard: shard, arrivedAtOrAfter: requested, cutoffMilliseconds: cutoff)
            }
        default:
            let text = input.StartingSequenceNumber!
            let end = try storage { () throws(StreamLogError) in try log.endPosition() }
            // A number this stream's shards never gave out (a later position included) is refused,
            // so that an iterator cannot skip records put after it.
            guard let number = SequenceNumber(text), number.stream == stream.id, number.position < end else {
                throw .invalidArgument(
                    "StartingSequenceNumber \(text) used in GetShardIterator on shard \(shardID) in stream \(name) under account \(accountID) is invalid."
                )
            }
            guard number.shard == shard else {
                throw .invalidArgument(
                    "Invalid StartingSequenceNumber. It encodes \(ShardID.text(number.shard)), while it was used in a call to a shard with \(shardID)"
                )
            }
            position = type == "AT_SEQUENCE_NUMBER" ? number.position : number.position + 1
        }
        let token = ShardIteratorToken(stream: stream.id, shard: shard, position: position, issuedMilliseconds: now)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("ShardIterator")
        writer.string(token.encoded(by: log.seal))
        writer.endObject()
        return writer.bytes
    }

    private func getRecords(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(GetRecordsInput.self, from: body)
        var violations = ValidationViolation.string(
            input.ShardIterator, path: "shardIterator", required: true, length: 1...512)
        if let limit = input.Limit,
            let violation = ValidationViolation.outOfRange(limit, path: "limit", range: 1...10_000)
        {
            violations.append(violation)
        }
        violations += Self.streamARNViolations(input.StreamARN)
        if !violations.isEmpty { throw .validation(violations) }
        guard let token = ShardIteratorToken(decoding: input.ShardIterator!, by: log.seal) else {
            throw .invalidArgument("Invalid ShardIterator.")
        }
        if !Self.isFresh(issued: token.issuedMilliseconds, now: now) {
            let issued = Date(timeIntervalSince1970: Double(token.issuedMilliseconds) / 1000)
            let current = Date(timeIntervalSince1970: Double(now) / 1000)
            throw FirehoseError(
                code: "ExpiredIteratorException",
                message:
                    "Iterator expired. The iterator was created at time \(JavaDateText.format(issued)) while right now it is \(JavaDateText.format(current)) which is further in the future than the tolerated delay of \(Limits.iteratorLifetimeMilliseconds) milliseconds."
            )
        }
        let found = try storage { () throws(StreamLogError) in try log.stream(id: token.stream) }
        guard let stream = found, token.shard < stream.shardCount else {
            throw FirehoseError(
                code: "ResourceNotFoundException",
                message:
                    "Shard \(ShardID.text(token.shard)) of this iterator's stream under account \(accountID) does not exist: the stream was deleted."
            )
        }
        if let arn = input.StreamARN, arn != streamARN(stream.name) {
            throw .invalidArgument("StreamARN \(arn) is not the stream of this shard iterator.")
        }
        try authorize("kinesis:GetRecords", streamARN(stream.name))
        let page = try storage { () throws(StreamLogError) in
            try log.read(
                stream: stream, shard: token.shard, from: token.position, limit: input.Limit ?? Limits.maxGetRecords,
                maxBytes: Limits.maxGetRecordsBytes, cutoffMilliseconds: stream.retentionCutoff(nowMilliseconds: now))
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("Records")
        writer.beginArray()
        for record in page.records {
            writer.beginObject()
            writer.key("SequenceNumber")
            writer.string(SequenceNumber(stream: stream.id, shard: token.shard, position: record.position).description)
            writer.key("ApproximateArrivalTimestamp")
            writer.number(Double(record.arrivalMilliseconds) / 1000)
            writer.key("Data")
            writer.base64(record.data)
            writer.key("PartitionKey")
            writer.string(record.partitionKey)
            writer.endObject()
        }
        writer.endArray()
        writer.key("NextShardIterator")
        writer.string(
            ShardIteratorToken(
                stream: stream.id, shard: token.shard, position: page.nextPosition, issuedMilliseconds: now
            ).encoded(by: log.seal))
        writer.key("MillisBehindLatest")
        writer.integer(Int(max(0, page.oldestUnreadArrival.map { now - $0 } ?? 0)))
        writer.endObject()
        return writer.bytes
    }

    // MARK: Shared

    private static func entry(
        data: String?, partitionKey: String?, explicitHashKey: String?, path: String,
        violations: inout [ValidationViolation]
    ) throws(FirehoseError) -> Entry {
        violations += ValidationViolation.string(
            partitionKey, path: path + "partitionKey", required: true, length: 1...256)
        if let key = explicitHashKey, !HashKeySpace.isHashKeyText(key) {
            violations.append(
                ValidationViolation(
                    value: key, path: path + "explicitHashKey",
                    constraint: "Member must satisfy regular expression pattern: 0|([1-9]\\d{0,38})"))
        }
        var bytes: [UInt8] = []
        if let data {
            guard Base64.decode(Array(data.utf8), appendingTo: &bytes) != nil else {
                throw .serialization("Value at '\(path)data' is not valid base64.")
            }
            if bytes.count > Limits.maxDataBytes {
                violations.append(
                    ValidationViolation(
                        value: "java.nio.HeapByteBuffer[pos=0 lim=\(bytes.count) cap=\(bytes.count)]",
                        path: path + "data",
                        constraint: "Member must have length less than or equal to \(Limits.maxDataBytes)"))
            }
        } else {
            violations.append(.missing(path + "data"))
        }
        return Entry(partitionKey: partitionKey ?? "", data: bytes, explicitHashKey: explicitHashKey)
    }

    private func shard(of entry: Entry, in stream: StoredStream) throws(FirehoseError) -> Int {
        let key: UInt128
        if let text = entry.explicitHashKey {
            guard let explicit = HashKeySpace.parse(explicitHashKey: text) else {
                throw .invalidArgument(
                    "Invalid ExplicitHashKey. ExplicitHashKey must be in the range: [0, 2^128-1]. Specified value was \(text)"
                )
            }
            key = explicit
        } else {
            key = HashKeySpace.hashKey(partitionKey: entry.partitionKey)
        }
        return stream.keySpace.shard(for: key)
    }

    /// Whether the record fits its shard's write quota now (always, when none is enforced).
    private func admit(_ entry: Entry, shard: Int, of stream: StoredStream, now: Int64) -> Bool {
        guard let shardQuotas else { return true }
        return shardQuotas.admit(
            stream: "\(stream.id)/\(shard)", sizes: [entry.data.count + entry.partitionKey.utf8.count],
            now: Date(timeIntervalSince1970: Double(now) / 1000)) == 1
    }

    /// AWS's text for a record over its shard's quota.
    private func throttledMessage(shard: Int, of stream: StoredStream) -> String {
        "Rate exceeded for shard \(ShardID.text(shard)) in stream \(stream.name) under account \(accountID)."
    }

    /// The record-size limit of the stream (1 MiB unless created larger), partition key included.
    private func checkSize(_ entry: Entry, of stream: StoredStream) throws(FirehoseError) {
        let size = entry.data.count + entry.partitionKey.utf8.count
        let limit = stream.maxRecordSizeInKiB * 1024
        guard size <= limit else {
            throw .invalidArgument(
                "Record size \(size) bytes (data and partition key) exceeds the maximum record size of stream \(stream.name), \(stream.maxRecordSizeInKiB) KiB."
            )
        }
    }

    /// Deletes every stream's records past retention (reads skip them already), at most once a
    /// minute, and gives their space back. Blocking: run it with the writes.
    func trimExpired(now: Date) {
        let milliseconds = now.epochMilliseconds
        let due = lastTrim.withLock { last in
            if let last, milliseconds &- last < Limits.trimIntervalMilliseconds { return false }
            last = milliseconds
            return true
        }
        guard due else { return }
        do {
            let deleted = try log.trimAll(nowMilliseconds: milliseconds)
            if deleted > 0 {
                logger.info(
                    "Kinesis records past retention deleted", metadata: ["records": .stringConvertible(deleted)])
            }
        } catch {
            logger.warning(
                "Kinesis records past retention could not be deleted; they are not read, and deleting is tried again in a minute",
                metadata: ["cause": .string("\(error)")])
        }
    }

    private func writeSummaryMembers(of stream: StoredStream, into writer: inout JSONWriter) {
        writer.key("StreamName")
        writer.string(stream.name)
        writer.key("StreamARN")
        writer.string(streamARN(stream.name))
        writer.key("StreamStatus")
        writer.string("ACTIVE")
        writer.key("StreamModeDetails")
        writeMode(stream.mode, into: &writer)
        writer.key("RetentionPeriodHours")
        writer.integer(stream.retentionHours)
        writer.key("StreamCreationTimestamp")
        writer.number(Double(stream.createdMilliseconds) / 1000)
        writer.key("EnhancedMonitoring")
        writer.beginArray()
        writer.beginObject()
        writer.key("ShardLevelMetrics")
        writer.beginArray()
        writer.endArray()
        writer.endObject()
        writer.endArray()
        writer.key("EncryptionType")
        writer.string("NONE")
    }

    private func writeMode(_ mode: StoredStream.Mode, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("StreamMode")
        writer.string(mode.rawValue)
        writer.endObject()
    }

    private func writeShards(_ shards: Range<Int>, of stream: StoredStream, into writer: inout JSONWriter) {
        let space = stream.keySpace
        writer.beginArray()
        for shard in shards {
            let range = space.range(ofShard: shard)
            writer.beginObject()
            writer.key("ShardId")
            writer.string(ShardID.text(shard))
            writer.key("HashKeyRange")
            writer.beginObject()
            writer.key("StartingHashKey")
            writer.string(String(range.lowerBound))
            writer.key("EndingHashKey")
            writer.string(String(range.upperBound))
            writer.endObject()
            writer.key("SequenceNumberRange")
            writer.beginObject()
            writer.key("StartingSequenceNumber")
            writer.string(SequenceNumber(stream: stream.id, shard: shard, position: 0).description)
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
    }

    /// The stream a request names by name, ARN or both, after the request's other violations.
    private func streamName(_ name: String?, arn: String?, violations: [ValidationViolation] = [])
        throws(FirehoseError) -> String
    {
        let all = violations + ServiceLimits.kinesisStreamNameViolations(name) + Self.streamARNViolations(arn)
        if !all.isEmpty { throw .validation(all) }
        if let arn {
            guard let fromARN = ServiceLimits.kinesisStreamARNParts(arn)?.name, arn == streamARN(fromARN) else {
                throw FirehoseError(
                    code: "ResourceNotFoundException", message: "Stream \(arn) under account \(accountID) not found.")
            }
            if let name, name != fromARN {
                throw .invalidArgument("StreamARN \(arn) does not name stream \(name).")
            }
            return fromARN
        }
        guard let name else { throw .invalidArgument("Either StreamName or StreamARN must be provided.") }
        return name
    }

    private func existing(_ name: String) throws(FirehoseError) -> StoredStream {
        let found = try storage { () throws(StreamLogError) in try log.stream(named: name) }
        guard let found else { throw Self.streamNotFound(name, accountID: accountID) }
        return found
    }

    private static func streamNotFound(_ name: String, accountID: String) -> FirehoseError {
        FirehoseError(
            code: "ResourceNotFoundException", message: "Stream \(name) under account \(accountID) not found.")
    }

    private func storage<Value>(_ body: () throws(StreamLogError) -> Value) throws(FirehoseError) -> Value {
        do {
            return try body()
        } catch {
            throw firehoseError(error)
        }
    }

    /// A log failure as Kinesis answers it.
    private func firehoseError(_ error: StreamLogError) -> FirehoseError {
        switch error {
        case .streamNotFound(let name): return Self.streamNotFound(name, accountID: accountID)
        case .streamExists(let name):
            return FirehoseError(
                code: "ResourceInUseException", message: "Stream \(name) under account \(accountID) already exists.")
        case .tooManyTags(let stream, _):
            return Self.tooManyTags(stream)
        case .tooManyStreams(let limit):
            return FirehoseError(
                code: "LimitExceededException",
                message: "This account already has \(limit) streams, the most firehose-local keeps.")
        case .storage(let detail):
            var failure = FirehoseError(
                code: "InternalFailureException", message: "Internal service failure.", httpStatus: 500)
            failure.logDetail = "Kinesis stream log: \(detail)"
            return failure
        }
    }

    private static func streamARNViolations(_ arn: String?) -> [ValidationViolation] {
        ValidationViolation.string(
            arn, path: "streamARN", length: 1...2048, pattern: "arn:aws.*:kinesis:.*:\\d{12}:stream/\\S+",
            matches: { text in
                guard text.hasPrefix("arn:aws"), ModelPattern.isSingleLine(text),
                    let stream = text.firstRange(of: ":stream/")
                else { return false }
                let fields = text[..<stream.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
                let name = text[stream.upperBound...]
                return fields.count >= 5 && fields.contains("kinesis") && fields.last!.utf8.count == 12
                    && fields.last!.utf8.allSatisfy({ (0x30...0x39).contains($0) }) && !name.isEmpty
                    && !name.unicodeScalars.contains(where: {
                        [" ", "\t", "\n", "\u{0B}", "\u{0C}", "\r"].contains($0)
                    })
            })
    }

    private func sealToken(_ text: String, kind: String) -> String {
        log.seal.seal(Array("\(kind) \(text)".utf8))
    }

    private func openToken(_ token: String, kind: String) -> String? {
        guard let bytes = log.seal.open(token, maxLength: 1_048_576),
            let text = String(validating: bytes, as: UTF8.self), text.hasPrefix(kind + " ")
        else { return nil }
        return String(text.dropFirst(kind.count + 1))
    }

    /// Whether a token issued at `issued` is within its five minutes (and not from the future).
    private static func isFresh(issued: Int64, now: Int64) -> Bool {
        issued <= now &+ 1_000 && issued >= now &- Limits.iteratorLifetimeMilliseconds
    }

    /// The shards after `exclusiveStart` (all when nil), at most `size` of them.
    private static func page(after exclusiveStart: String?, of stream: StoredStream, size: Int) -> Range<Int> {
        let first = min(exclusiveStart.flatMap(ShardID.index).map { $0 + 1 } ?? 0, stream.shardCount)
        return first..<min(stream.shardCount, first + size)
    }
}
