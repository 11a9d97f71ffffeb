// Member names are AWS's, so the shapes decode what every SDK sends without key strategies.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

import FirehoseWire

/// What names a stream: its name, its ARN, or both (every operation but CreateStream and
/// ListStreams takes either).
struct StreamReference: Decodable {
    var StreamName: String?
    var StreamARN: String?
}

package struct CreateStreamInput: Decodable {
    package struct ModeDetails: Decodable {
        var StreamMode: String?

        package init(StreamMode: String?) { self.StreamMode = StreamMode }
    }

    package init(StreamName: String?, ShardCount: Int?, StreamModeDetails: ModeDetails?, MaxRecordSizeInKiB: Int?) {
        self.StreamName = StreamName
        self.ShardCount = ShardCount
        self.StreamModeDetails = StreamModeDetails
        self.MaxRecordSizeInKiB = MaxRecordSizeInKiB
    }

    var StreamName: String?
    var ShardCount: Int?
    var StreamModeDetails: ModeDetails?
    var Tags: [String: String]?
    var MaxRecordSizeInKiB: Int?
    var WarmThroughputMiBps: Int?
}

struct DescribeStreamInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var Limit: Int?
    var ExclusiveStartShardId: String?
}

struct ListStreamsInput: Decodable {
    var Limit: Int?
    var ExclusiveStartStreamName: String?
    var NextToken: String?
}

struct ListShardsInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var NextToken: String?
    var ExclusiveStartShardId: String?
    var MaxResults: Int?
}

struct GetShardIteratorInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var ShardId: String?
    var ShardIteratorType: String?
    var StartingSequenceNumber: String?
    var Timestamp: Double?
}

struct GetRecordsInput: Decodable {
    var ShardIterator: String?
    var Limit: Int?
    var StreamARN: String?
}

struct RetentionPeriodInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var RetentionPeriodHours: Int?
}

struct AddTagsToStreamInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var Tags: [String: String]?
}

struct RemoveTagsFromStreamInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var TagKeys: [String]?
}

struct ListTagsForStreamInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var ExclusiveStartTagKey: String?
    var Limit: Int?
}

// MARK: Answers, members in the order firehose-local writes them

struct StreamModeDetails: Encodable {
    var StreamMode: String
}

/// The members DescribeStream's description and DescribeStreamSummary's summary share.
struct StreamSummaryMembers: Encodable {
    struct Metrics: Encodable {
        var ShardLevelMetrics: [String] = []
    }

    var StreamName: String
    var StreamARN: String
    var StreamStatus = "ACTIVE"
    var StreamModeDetails: StreamModeDetails
    var RetentionPeriodHours: Int
    var StreamCreationTimestamp: Double
    var EnhancedMonitoring = [Metrics()]
    var EncryptionType = "NONE"
}

struct ShardShape: Encodable {
    struct HashKeyRange: Encodable {
        var StartingHashKey: String
        var EndingHashKey: String
    }

    struct SequenceNumberRange: Encodable {
        var StartingSequenceNumber: String
    }

    var ShardId: String
    var HashKeyRange: HashKeyRange
    var SequenceNumberRange: SequenceNumberRange
}

struct DescribeStreamOutput: Encodable {
    struct Description: Encodable {
        enum CodingKeys: CodingKey { case Shards, HasMoreShards }

        var summary: StreamSummaryMembers
        var Shards: [ShardShape]
        var HasMoreShards: Bool

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Shards, forKey: .Shards)
            try container.encode(HasMoreShards, forKey: .HasMoreShards)
        }
    }

    var StreamDescription: Description
}

struct DescribeStreamSummaryOutput: Encodable {
    struct Summary: Encodable {
        enum CodingKeys: CodingKey { case OpenShardCount, ConsumerCount, MaxRecordSizeInKiB }

        var summary: StreamSummaryMembers
        var OpenShardCount: Int
        var ConsumerCount = 0
        var MaxRecordSizeInKiB: Int

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(OpenShardCount, forKey: .OpenShardCount)
            try container.encode(ConsumerCount, forKey: .ConsumerCount)
            try container.encode(MaxRecordSizeInKiB, forKey: .MaxRecordSizeInKiB)
        }
    }

    var StreamDescriptionSummary: Summary
}

struct ListStreamsOutput: Encodable {
    struct Summary: Encodable {
        var StreamName: String
        var StreamARN: String
        var StreamStatus = "ACTIVE"
        var StreamModeDetails: StreamModeDetails
        var StreamCreationTimestamp: Double
    }

    var StreamNames: [String]
    var HasMoreStreams: Bool
    var NextToken: String?
    var StreamSummaries: [Summary]
}

struct ListShardsOutput: Encodable {
    var Shards: [ShardShape]
    var NextToken: String?
}

struct ListTagsForStreamOutput: Encodable {
    struct Tag: Encodable {
        var Key: String
        var Value: String
    }

    var Tags: [Tag]
    var HasMoreTags: Bool
}

struct GetShardIteratorOutput: Encodable {
    var ShardIterator: String
}

struct GetRecordsOutput: Encodable {
    struct Record: Encodable {
        var SequenceNumber: String
        var ApproximateArrivalTimestamp: Double
        var Data: Base64Blob
        var PartitionKey: String
    }

    var Records: [Record]
    var NextShardIterator: String
    var MillisBehindLatest: Int
}
