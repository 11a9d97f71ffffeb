// Kinesis Data Streams' put shapes, the one set the client, the server and the test endpoint read
// and write. Member names are AWS's, so they decode what every SDK sends without key strategies;
// members are declared in the order firehose-local writes them.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

/// Kinesis's wire shapes that more than one module reads or writes.
package enum KinesisWire {
    /// PutRecord's input. `Data` is the record's base64 text, checked by the service.
    package struct PutRecordInput: Codable, Sendable {
        package var StreamName: String?
        package var StreamARN: String?
        package var Data: String?
        package var PartitionKey: String?
        package var ExplicitHashKey: String?
        package var SequenceNumberForOrdering: String?

        package init(
            StreamName: String? = nil, StreamARN: String? = nil, Data: String?, PartitionKey: String?,
            ExplicitHashKey: String? = nil, SequenceNumberForOrdering: String? = nil
        ) {
            self.StreamName = StreamName
            self.StreamARN = StreamARN
            self.Data = Data
            self.PartitionKey = PartitionKey
            self.ExplicitHashKey = ExplicitHashKey
            self.SequenceNumberForOrdering = SequenceNumberForOrdering
        }
    }

    /// PutRecords' input.
    package struct PutRecordsInput: Codable, Sendable {
        package struct Entry: Codable, Sendable {
            package var Data: String?
            package var PartitionKey: String?
            package var ExplicitHashKey: String?

            package init(Data: String?, PartitionKey: String?, ExplicitHashKey: String? = nil) {
                self.Data = Data
                self.PartitionKey = PartitionKey
                self.ExplicitHashKey = ExplicitHashKey
            }
        }

        package var StreamName: String?
        package var StreamARN: String?
        package var Records: [Entry]?

        package init(StreamName: String? = nil, StreamARN: String? = nil, Records: [Entry]?) {
            self.StreamName = StreamName
            self.StreamARN = StreamARN
            self.Records = Records
        }
    }

    /// PutRecord's answer: where the record went.
    package struct PutRecordOutput: Codable, Sendable, Equatable {
        package var ShardId: String
        package var SequenceNumber: String

        package init(ShardId: String, SequenceNumber: String) {
            self.ShardId = ShardId
            self.SequenceNumber = SequenceNumber
        }
    }

    /// PutRecords' answer, record by record in the order sent: a stored record's sequence number
    /// and shard, a failed one's code and message.
    package struct PutRecordsOutput: Codable, Sendable, Equatable {
        package struct Entry: Codable, Sendable, Equatable {
            package var SequenceNumber: String?
            package var ShardId: String?
            package var ErrorCode: String?
            package var ErrorMessage: String?

            package init(
                SequenceNumber: String? = nil, ShardId: String? = nil, ErrorCode: String? = nil,
                ErrorMessage: String? = nil
            ) {
                self.SequenceNumber = SequenceNumber
                self.ShardId = ShardId
                self.ErrorCode = ErrorCode
                self.ErrorMessage = ErrorMessage
            }

            package static func stored(sequenceNumber: String, shardID: String) -> Entry {
                Entry(SequenceNumber: sequenceNumber, ShardId: shardID)
            }

            package static func failed(code: String, message: String) -> Entry {
                Entry(ErrorCode: code, ErrorMessage: message)
            }
        }

        /// Optional as read: the client checks it when a service sends it.
        package var FailedRecordCount: Int?
        package var Records: [Entry]

        package init(Records: [Entry]) {
            FailedRecordCount = Records.filter { $0.ErrorCode != nil }.count
            self.Records = Records
        }
    }
}
