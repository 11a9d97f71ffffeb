// Member names are AWS's, so the shapes decode what every SDK sends without key strategies.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

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

struct PutRecordInput: Decodable {
    var StreamName: String?
    var StreamARN: String?
    var Data: String?
    var PartitionKey: String?
    var ExplicitHashKey: String?
    var SequenceNumberForOrdering: String?
}

struct PutRecordsInput: Decodable {
    struct Entry: Decodable {
        var Data: String?
        var PartitionKey: String?
        var ExplicitHashKey: String?
    }

    var StreamName: String?
    var StreamARN: String?
    var Records: [Entry]?
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
