/// The operations of Kinesis Data Streams' `Kinesis_20131202` target prefix that firehose-local serves.
package enum KinesisOperation: String, CaseIterable, Sendable {
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

    /// PutRecord or PutRecords: the calls that carry records (prepared and stored in two steps,
    /// `KinesisAPI.preparePut` and `store`, so faults and quotas apply in between).
    package var isPut: Bool { self == .putRecord || self == .putRecords }

    /// Whether it changes the log (and so syncs it).
    package var writes: Bool {
        switch self {
        case .createStream, .deleteStream, .putRecord, .putRecords, .addTagsToStream, .removeTagsFromStream,
            .increaseStreamRetentionPeriod, .decreaseStreamRetentionPeriod:
            true
        default: false
        }
    }

    package static let targetPrefix = "Kinesis_20131202."

    /// The per-record codes PutRecords documents.
    package static let recordFailureCodes = ["ProvisionedThroughputExceededException", "InternalFailure"]
}
