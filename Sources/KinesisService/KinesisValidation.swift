package import FirehoseWire
package import KinesisStreams
import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// AWS's checks of stream definitions, names, ARNs and tags, with its texts.
extension KinesisAPI {
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

    /// A TagMap's count (1–200) and each key's (1–128) and value's (0–256) length.
    static func tagMapViolations(_ tags: [String: String]) -> [ValidationViolation] {
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

    static func tooManyTags(_ stream: String) -> FirehoseError {
        .invalidArgument("A stream can have at most \(StreamLog.maxTags) tags: \(stream) would have more.")
    }

    static func streamARNViolations(_ arn: String?) -> [ValidationViolation] {
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

    /// The stream a request names by name, ARN or both, after the request's other violations.
    func streamName(_ name: String?, arn: String?, violations: [ValidationViolation] = [])
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
}
