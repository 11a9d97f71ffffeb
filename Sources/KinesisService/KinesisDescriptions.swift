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
        return OrderedJSONEncoder.encode(
            DescribeStreamOutput(
                StreamDescription: .init(
                    summary: summaryMembers(of: stream), Shards: shardShapes(shards, of: stream),
                    HasMoreShards: shards.upperBound < stream.shardCount)))
    }

    func describeStreamSummary(
        _ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let reference = try RequestJSON.decode(StreamReference.self, from: body)
        let name = try streamName(reference.StreamName, arn: reference.StreamARN)
        try authorize("kinesis:DescribeStreamSummary", streamARN(name))
        let stream = try existing(name)
        return OrderedJSONEncoder.encode(
            DescribeStreamSummaryOutput(
                StreamDescriptionSummary: .init(
                    summary: summaryMembers(of: stream), OpenShardCount: stream.shardCount,
                    MaxRecordSizeInKiB: stream.maxRecordSizeInKiB)))
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
        let more = page.count < remaining.count
        return OrderedJSONEncoder.encode(
            ListStreamsOutput(
                StreamNames: page.map(\.name), HasMoreStreams: more,
                NextToken: more ? page.last.map { sealToken($0.name, kind: "streams") } : nil,
                StreamSummaries: page.map {
                    .init(
                        StreamName: $0.name, StreamARN: streamARN($0.name),
                        StreamModeDetails: StreamModeDetails(StreamMode: $0.mode.rawValue),
                        StreamCreationTimestamp: Double($0.createdMilliseconds) / 1000)
                }))
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
        let more = shards.upperBound < stream.shardCount
        return OrderedJSONEncoder.encode(
            ListShardsOutput(
                Shards: shardShapes(shards, of: stream),
                NextToken: more
                    ? sealToken("\(stream.id) \(name) \(now) \(ShardID.text(shards.upperBound - 1))", kind: "shards")
                    : nil))
    }

    func summaryMembers(of stream: StoredStream) -> StreamSummaryMembers {
        StreamSummaryMembers(
            StreamName: stream.name, StreamARN: streamARN(stream.name),
            StreamModeDetails: StreamModeDetails(StreamMode: stream.mode.rawValue),
            RetentionPeriodHours: stream.retentionHours,
            StreamCreationTimestamp: Double(stream.createdMilliseconds) / 1000)
    }

    func shardShapes(_ shards: Range<Int>, of stream: StoredStream) -> [ShardShape] {
        let space = stream.keySpace
        return shards.map { shard in
            let range = space.range(ofShard: shard)
            return ShardShape(
                ShardId: ShardID.text(shard),
                HashKeyRange: .init(StartingHashKey: String(range.lowerBound), EndingHashKey: String(range.upperBound)),
                SequenceNumberRange: .init(
                    StartingSequenceNumber: SequenceNumber(stream: stream.id, shard: shard, position: 0).description))
        }
    }
}
