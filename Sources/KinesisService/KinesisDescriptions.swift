import FirehoseWire
import KinesisStreams
import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What DescribeStream, DescribeStreamSummary, ListStreams and ListShards answer.
extension KinesisAPI {
    func describeStream(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
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

    func describeStreamSummary(
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

    func listStreams(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
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

    func listShards(
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

    func writeSummaryMembers(of stream: StoredStream, into writer: inout JSONWriter) {
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

    func writeMode(_ mode: StoredStream.Mode, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("StreamMode")
        writer.string(mode.rawValue)
        writer.endObject()
    }

    func writeShards(_ shards: Range<Int>, of stream: StoredStream, into writer: inout JSONWriter) {
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
}
