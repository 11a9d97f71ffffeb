import FirehoseWire
import Foundation
import Testing

@Suite("CreateDeliveryStream shapes")
struct ConfigurationShapeTests {
    static let createRequest = #"""
        {
          "DeliveryStreamName": "app-events",
          "DeliveryStreamType": "DirectPut",
          "ExtendedS3DestinationConfiguration": {
            "RoleARN": "arn:aws:iam::123456789012:role/firehose",
            "BucketARN": "arn:aws:s3:::demo-bucket",
            "Prefix": "logs/!{timestamp:yyyy-MM-dd}/",
            "ErrorOutputPrefix": "errors/!{firehose:error-output-type}/",
            "BufferingHints": {"SizeInMBs": 64, "IntervalInSeconds": 60},
            "CompressionFormat": "GZIP",
            "EncryptionConfiguration": {"NoEncryptionConfig": "NoEncryption"},
            "CloudWatchLoggingOptions": {"Enabled": false},
            "ProcessingConfiguration": {
              "Enabled": true,
              "Processors": [{"Type": "AppendDelimiterToRecord", "Parameters": [{"ParameterName": "Delimiter", "ParameterValue": "\\n"}]}]
            },
            "S3BackupMode": "Disabled",
            "DynamicPartitioningConfiguration": {"Enabled": false, "RetryOptions": {"DurationInSeconds": 300}},
            "FileExtension": ".json.gz",
            "CustomTimeZone": "Asia/Tokyo"
          },
          "Tags": [{"Key": "team", "Value": "data"}]
        }
        """#

    static func decode<T: Decodable>(_ type: T.Type, _ json: String, strict: Bool = false) throws -> T {
        let decoder = JSONDecoder()
        if strict { return try decoder.decode(MemberChecked<T>.self, from: Data(json.utf8)).value }
        return try decoder.decode(T.self, from: Data(json.utf8))
    }

    @Test("A full CreateDeliveryStream request decodes member for member (strict and lenient)")
    func fullRequest() throws {
        for strict in [false, true] {
            let input = try Self.decode(CreateDeliveryStreamInput.self, Self.createRequest, strict: strict)
            #expect(input.deliveryStreamName == "app-events")
            #expect(input.deliveryStreamType == "DirectPut")
            #expect(input.s3DestinationConfiguration == nil)
            #expect(input.otherMembers.isEmpty)
            #expect(input.tags == [try Self.decode(FirehoseWire.Tag.self, #"{"Key": "team", "Value": "data"}"#)])
            #expect(input.tags?.first?.key == "team")
            let destination = try #require(input.extendedS3DestinationConfiguration)
            #expect(destination.roleARN == "arn:aws:iam::123456789012:role/firehose")
            #expect(destination.bucketARN == "arn:aws:s3:::demo-bucket")
            #expect(destination.prefix == "logs/!{timestamp:yyyy-MM-dd}/")
            #expect(destination.errorOutputPrefix == "errors/!{firehose:error-output-type}/")
            #expect(destination.bufferingHints == BufferingHints(sizeInMBs: 64, intervalInSeconds: 60))
            #expect(destination.compressionFormat == "GZIP")
            #expect(destination.encryptionConfiguration == .object(["NoEncryptionConfig": .string("NoEncryption")]))
            #expect(destination.cloudWatchLoggingOptions == .object(["Enabled": .bool(false)]))
            #expect(
                destination.processingConfiguration
                    == ProcessingConfiguration(
                        enabled: true,
                        processors: [
                            Processor(
                                type: "AppendDelimiterToRecord",
                                parameters: [ProcessorParameter(parameterName: "Delimiter", parameterValue: "\\n")])
                        ]))
            #expect(destination.s3BackupMode == "Disabled")
            #expect(destination.dynamicPartitioningConfiguration?["Enabled"] == .bool(false))
            #expect(
                destination.dynamicPartitioningConfiguration?["RetryOptions"]
                    == .object(["DurationInSeconds": .number(300)]))
            #expect(destination.fileExtension == ".json.gz")
            #expect(destination.customTimeZone == "Asia/Tokyo")
        }
    }

    @Test("Encoding and decoding again gives the same input")
    func roundTrip() throws {
        let input = try Self.decode(CreateDeliveryStreamInput.self, Self.createRequest)
        let again = try JSONDecoder().decode(CreateDeliveryStreamInput.self, from: JSONEncoder().encode(input))
        #expect(again == input)
    }

    @Test("Strict decoding names an unknown member (BufferingHint); lenient decoding ignores it")
    func unknownMember() throws {
        let json = #"""
            {"DeliveryStreamName": "s", "ExtendedS3DestinationConfiguration": {"BucketARN": "arn:aws:s3:::b", "BufferingHint": {"SizeInMBs": 1}}}
            """#
        let lenient = try Self.decode(CreateDeliveryStreamInput.self, json)
        #expect(lenient.extendedS3DestinationConfiguration?.bucketARN == "arn:aws:s3:::b")
        #expect(lenient.extendedS3DestinationConfiguration?.bufferingHints == nil)

        let error = #expect(throws: UnknownMemberError.self) {
            try Self.decode(CreateDeliveryStreamInput.self, json, strict: true)
        }
        #expect(error?.member == "BufferingHint")
        #expect(error?.codingPath == ["ExtendedS3DestinationConfiguration"])
        #expect(error?.knownMembers.contains("BufferingHints") == true)
        #expect(
            error?.description.hasPrefix("unknown member 'BufferingHint'; expected one of: RoleARN, BucketARN, ")
                == true)
    }

    @Test("Strict decoding checks nested shapes and the top level too")
    func nestedUnknownMembers() throws {
        let hints =
            #"{"DeliveryStreamName": "s", "ExtendedS3DestinationConfiguration": {"BufferingHints": {"SizeInMBs": 1, "IntervalInSecond": 60}}}"#
        let hintsError = #expect(throws: UnknownMemberError.self) {
            try Self.decode(CreateDeliveryStreamInput.self, hints, strict: true)
        }
        #expect(hintsError?.member == "IntervalInSecond")
        #expect(hintsError?.codingPath == ["ExtendedS3DestinationConfiguration", "BufferingHints"])

        let top = #"{"DeliveryStreamName": "s", "DeliveryStreamNme": "t"}"#
        #expect(try Self.decode(CreateDeliveryStreamInput.self, top).deliveryStreamName == "s")
        let topError = #expect(throws: UnknownMemberError.self) {
            try Self.decode(CreateDeliveryStreamInput.self, top, strict: true)
        }
        #expect(topError?.member == "DeliveryStreamNme")
        #expect(topError?.codingPath == [])

        let processor = #"{"Type": "AppendDelimiterToRecord", "Params": []}"#
        #expect(try Self.decode(Processor.self, processor).type == "AppendDelimiterToRecord")
        #expect(throws: UnknownMemberError.self) { try Self.decode(Processor.self, processor, strict: true) }
        #expect(throws: UnknownMemberError.self) {
            try Self.decode(FirehoseWire.Tag.self, #"{"Key": "k", "Value": "v", "Extra": 1}"#, strict: true)
        }
    }

    @Test("S3DestinationConfiguration drops extended-only members when lenient and rejects them when strict")
    func plainS3Destination() throws {
        let json = #"""
            {"DeliveryStreamName": "s", "S3DestinationConfiguration": {
              "BucketARN": "arn:aws:s3:::b", "Prefix": "p/", "CompressionFormat": "GZIP",
              "BufferingHints": {"SizeInMBs": 2, "IntervalInSeconds": 70},
              "FileExtension": ".txt", "ProcessingConfiguration": {"Enabled": true}, "CustomTimeZone": "Asia/Tokyo"}}
            """#
        let input = try Self.decode(CreateDeliveryStreamInput.self, json)
        #expect(input.extendedS3DestinationConfiguration == nil)
        let configuration = try #require(input.s3DestinationConfiguration?.configuration)
        #expect(configuration.bucketARN == "arn:aws:s3:::b")
        #expect(configuration.prefix == "p/")
        #expect(configuration.compressionFormat == "GZIP")
        #expect(configuration.bufferingHints == BufferingHints(sizeInMBs: 2, intervalInSeconds: 70))
        #expect(configuration.fileExtension == nil)
        #expect(configuration.processingConfiguration == nil)
        #expect(configuration.customTimeZone == nil)

        let strict =
            #"{"DeliveryStreamName": "s", "S3DestinationConfiguration": {"BucketARN": "arn:aws:s3:::b", "FileExtension": ".txt"}}"#
        let error = #expect(throws: UnknownMemberError.self) {
            try Self.decode(CreateDeliveryStreamInput.self, strict, strict: true)
        }
        #expect(error?.member == "FileExtension")
        #expect(error?.codingPath == ["S3DestinationConfiguration"])
        #expect(error?.knownMembers.contains("FileExtension") == false)
    }

    @Test("Unsupported destinations land in otherMembers (and are not 'unknown' when strict); a Kinesis source is read")
    func otherDestinations() throws {
        let json = #"""
            {"DeliveryStreamName": "s",
             "RedshiftDestinationConfiguration": {"ClusterJDBCURL": "jdbc:redshift://x", "CopyCommand": {"DataTableName": "t"}},
             "KinesisStreamSourceConfiguration": {"KinesisStreamARN": "arn:aws:kinesis:us-east-1:1:stream/x"}}
            """#
        for strict in [false, true] {
            let input = try Self.decode(CreateDeliveryStreamInput.self, json, strict: strict)
            #expect(Set(input.otherMembers.keys) == ["RedshiftDestinationConfiguration"])
            #expect(
                input.kinesisStreamSourceConfiguration?.kinesisStreamARN == "arn:aws:kinesis:us-east-1:1:stream/x")
            #expect(
                input.otherMembers["RedshiftDestinationConfiguration"]
                    == .object([
                        "ClusterJDBCURL": .string("jdbc:redshift://x"),
                        "CopyCommand": .object(["DataTableName": .string("t")]),
                    ]))
            #expect(input.extendedS3DestinationConfiguration == nil)
            #expect(input.s3DestinationConfiguration == nil)
        }
    }

    @Test("JSONValue keeps numbers, booleans, strings, null and nesting apart")
    func jsonValue() throws {
        let value = try Self.decode(
            JSONValue.self, #"{"n": 1, "z": 0, "f": 1.5, "t": true, "s": "x", "a": [null, false, "1"], "o": {}}"#)
        #expect(
            value
                == .object([
                    "n": .number(1), "z": .number(0), "f": .number(1.5), "t": .bool(true), "s": .string("x"),
                    "a": .array([.null, .bool(false), .string("1")]), "o": .object([:]),
                ]))
        #expect(value["t"]?.boolValue == true)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.boolValue == nil)
        #expect(JSONValue.string("TRUE").boolValue == true)
        #expect(value["missing"] == nil)
        #expect(JSONValue.array([]).self["x"] == nil)
    }

    @Test("Type mismatches in the shapes are decoding errors, not silently dropped")
    func typeMismatch() {
        #expect(throws: DecodingError.self) {
            try Self.decode(
                CreateDeliveryStreamInput.self,
                #"{"DeliveryStreamName": "s", "ExtendedS3DestinationConfiguration": {"BufferingHints": {"SizeInMBs": "5"}}}"#
            )
        }
        #expect(throws: DecodingError.self) {
            try Self.decode(CreateDeliveryStreamInput.self, #"{"DeliveryStreamName": 1}"#)
        }
    }
}
