import CivilTime
import FirehoseWire
import KinesisStreams
import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Puts, shard iterators and reads: each record checked, hashed to its shard and admitted by its
/// shard's quota.
extension KinesisAPI {
    struct Entry {
        var partitionKey: String
        var data: [UInt8]
        var explicitHashKey: String?
    }

    func preparePutRecord(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> PreparedPut {
        let input = try RequestJSON.decode(KinesisWire.PutRecordInput.self, from: body)
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

    func preparePutRecords(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> PreparedPut {
        let input = try RequestJSON.decode(KinesisWire.PutRecordsInput.self, from: body)
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

    func getShardIterator(
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
        return OrderedJSONEncoder.encode(GetShardIteratorOutput(ShardIterator: token.encoded(by: log.seal)))
    }

    func getRecords(
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
        let records = page.records.map { record in
            GetRecordsOutput.Record(
                SequenceNumber: SequenceNumber(stream: stream.id, shard: token.shard, position: record.position)
                    .description,
                ApproximateArrivalTimestamp: Double(record.arrivalMilliseconds) / 1000, Data: Base64Blob(record.data),
                PartitionKey: record.partitionKey)
        }
        let output = GetRecordsOutput(
            Records: records,
            NextShardIterator: ShardIteratorToken(
                stream: stream.id, shard: token.shard, position: page.nextPosition, issuedMilliseconds: now
            ).encoded(by: log.seal),
            MillisBehindLatest: Int(max(0, page.oldestUnreadArrival.map { now - $0 } ?? 0)))
        let dataBytes = page.records.reduce(0) { $0 + $1.data.count }
        return OrderedJSONEncoder.encode(output, reservingCapacity: dataBytes / 3 * 4 + 160 * records.count + 256)
    }

    static func entry(
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

    func shard(of entry: Entry, in stream: StoredStream) throws(FirehoseError) -> Int {
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
    func admit(_ entry: Entry, shard: Int, of stream: StoredStream, now: Int64) -> Bool {
        guard let shardQuotas else { return true }
        return shardQuotas.admit(
            stream: "\(stream.id)/\(shard)", sizes: [entry.data.count + entry.partitionKey.utf8.count],
            now: Date(timeIntervalSince1970: Double(now) / 1000)) == 1
    }

    /// AWS's text for a record over its shard's quota.
    func throttledMessage(shard: Int, of stream: StoredStream) -> String {
        "Rate exceeded for shard \(ShardID.text(shard)) in stream \(stream.name) under account \(accountID)."
    }

    /// The record-size limit of the stream (1 MiB unless created larger), partition key included.
    func checkSize(_ entry: Entry, of stream: StoredStream) throws(FirehoseError) {
        let size = entry.data.count + entry.partitionKey.utf8.count
        let limit = stream.maxRecordSizeInKiB * 1024
        guard size <= limit else {
            throw .invalidArgument(
                "Record size \(size) bytes (data and partition key) exceeds the maximum record size of stream \(stream.name), \(stream.maxRecordSizeInKiB) KiB."
            )
        }
    }
}
