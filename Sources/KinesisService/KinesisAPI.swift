import Dispatch
package import FirehoseWire
package import KinesisStreams
package import Logging
import ServerCore
import Synchronization

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Kinesis Data Streams (`X-Amz-Target: Kinesis_20131202.*`, AWS JSON 1.1) over the stream log:
/// the control plane a test needs and the whole data plane, with AWS's validation, errors and
/// shapes. Streams are ACTIVE as soon as CreateStream answers.
package final class KinesisAPI: Sendable {
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

    package let log: StreamLog
    /// Puts' records, written by group commit on `StreamLog.writeQueue`.
    let appends: GroupedAppends
    let region: String
    let accountID: String
    let logger: Logger
    /// Each shard's write quota, when enforced: buckets by `<stream id>/<shard>`.
    let shardQuotas: StreamQuotas?
    /// When expired records were last deleted.
    let lastTrim = Mutex<Int64?>(nil)

    /// - Parameter throttling: enforce each shard's write quota (`Quotas` in the configuration file).
    package init(log: StreamLog, region: String, accountID: String, logger: Logger, throttling: Bool = false) {
        self.log = log
        appends = GroupedAppends(log: log, queue: StreamLog.writeQueue)
        self.region = region
        self.accountID = accountID
        self.logger = logger
        shardQuotas = throttling ? StreamQuotas(quota: Limits.shardWriteQuota) : nil
    }

    /// PutRecord and PutRecords, checked, hashed and admitted on the caller's thread (CPU work and a
    /// lookup of the stream): what `store` appends. Fault rules see the put between the two.
    package func preparePut(
        _ operation: KinesisOperation, body: [UInt8], now: Date,
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
    package func store(_ put: PreparedPut, failing: [Int: RecordFailure] = [:], now: Date) async throws(FirehoseError)
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
        func sequenceNumber(_ append: RecordToAppend, _ position: Int64) -> String {
            SequenceNumber(stream: put.stream.id, shard: append.shard, position: position).description
        }
        if put.single {
            guard let (append, position) = stored.next() else { throw .throttled }
            return OrderedJSONEncoder.encode(
                KinesisWire.PutRecordOutput(
                    ShardId: ShardID.text(append.shard), SequenceNumber: sequenceNumber(append, position)))
        }
        let entries = outcomes.map { outcome -> KinesisWire.PutRecordsOutput.Entry in
            switch outcome {
            case .failure(let failure):
                return .failed(code: failure.code, message: failure.message)
            case .success:
                guard let (append, position) = stored.next() else { return .init() }
                return .stored(sequenceNumber: sequenceNumber(append, position), shardID: ShardID.text(append.shard))
            }
        }
        return OrderedJSONEncoder.encode(
            KinesisWire.PutRecordsOutput(Records: entries), reservingCapacity: 64 * entries.count + 64)
    }

    /// Why one record of a PutRecords was not stored.
    package struct RecordFailure: Error, Sendable {
        package var code: String
        package var message: String

        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// A put, checked: each record's shard, or why it failed (its shard's quota), in order.
    package struct PreparedPut {
        package var stream: StoredStream
        package var records: [Result<RecordToAppend, RecordFailure>]
        /// PutRecord: one record, answered with its shard and sequence number, failing as a whole.
        var single: Bool
    }

    /// Runs one operation but the puts; `authorize` is asked for the IAM action on the stream's ARN
    /// once the stream the request names is known. Blocking (SQLite, fsync): call it off the task
    /// threads.
    package func handle(
        _ operation: KinesisOperation, body: [UInt8], now: Date,
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
            preconditionFailure("puts go through preparePut(_:body:now:authorize:) and store(_:failing:now:)")
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

    /// Deletes every stream's records past retention (reads skip them already), at most once a
    /// minute, and gives their space back. Blocking: run it with the writes.
    package func trimExpired(now: Date) {
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

    func existing(_ name: String) throws(FirehoseError) -> StoredStream {
        let found = try storage { () throws(StreamLogError) in try log.stream(named: name) }
        guard let found else { throw Self.streamNotFound(name, accountID: accountID) }
        return found
    }

    static func streamNotFound(_ name: String, accountID: String) -> FirehoseError {
        FirehoseError(
            code: "ResourceNotFoundException", message: "Stream \(name) under account \(accountID) not found.")
    }

    func storage<Value>(_ body: () throws(StreamLogError) -> Value) throws(FirehoseError) -> Value {
        do {
            return try body()
        } catch {
            throw firehoseError(error)
        }
    }

    /// A log failure as Kinesis answers it.
    func firehoseError(_ error: StreamLogError) -> FirehoseError {
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

    func sealToken(_ text: String, kind: String) -> String {
        log.seal.seal(Array("\(kind) \(text)".utf8))
    }

    func openToken(_ token: String, kind: String) -> String? {
        guard let bytes = log.seal.open(token, maxLength: 1_048_576),
            let text = String(validating: bytes, as: UTF8.self), text.hasPrefix(kind + " ")
        else { return nil }
        return String(text.dropFirst(kind.count + 1))
    }

    /// Whether a token issued at `issued` is within its five minutes (and not from the future).
    static func isFresh(issued: Int64, now: Int64) -> Bool {
        issued <= now &+ 1_000 && issued >= now &- Limits.iteratorLifetimeMilliseconds
    }

    /// The shards after `exclusiveStart` (all when nil), at most `size` of them.
    static func page(after exclusiveStart: String?, of stream: StoredStream, size: Int) -> Range<Int> {
        let first = min(exclusiveStart.flatMap(ShardID.index).map { $0 + 1 } ?? 0, stream.shardCount)
        return first..<min(stream.shardCount, first + size)
    }
}
