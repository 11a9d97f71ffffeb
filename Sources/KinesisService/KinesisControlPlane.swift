package import FirehoseWire
package import KinesisStreams
import Logging
import ServerCore

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Making, deleting and changing streams, and their tags.
extension KinesisAPI {
    func createStream(
        _ body: [UInt8], now: Int64, authorize: (String, String) throws(FirehoseError) -> Void
    ) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(CreateStreamInput.self, from: body)
        let definition = try Self.definition(input)
        try authorize("kinesis:CreateStream", streamARN(definition.name))
        try create(definition, now: now)
        return []
    }

    /// Makes the stream, within the account's shard quota.
    func create(_ definition: StreamDefinition, now: Int64) throws(FirehoseError) {
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
    package func apply(configured definitions: [StreamDefinition], now: Date) throws(FirehoseError) {
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

    func deleteStream(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
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
    func changeRetention(
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

    func addTags(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
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

    func removeTags(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
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

    func listTags(_ body: [UInt8], authorize: (String, String) throws(FirehoseError) -> Void)
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
        return OrderedJSONEncoder.encode(
            ListTagsForStreamOutput(
                Tags: page.map { .init(Key: $0.key, Value: $0.value) }, HasMoreTags: page.count < after.count))
    }

}
