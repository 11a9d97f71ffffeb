import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import KinesisService
import KinesisStreams
import ServerCore
import ServiceTestSupport
import Testing

@testable import FirehoseServer

extension APIHarness: KinesisCalls {
    func kinesis(_ operation: String, _ body: String, contentType: String) async -> APIResponse {
        await api.handle(
            request(
                operation: operation, body: Array(body.utf8), contentType: contentType, service: "kinesis",
                targetPrefix: KinesisOperation.targetPrefix))
    }
}

@Suite("Kinesis Data Streams through the front door")
struct KinesisFrontDoorTests {
    @Test("CBOR, which the Java SDK and the KCL send by default, is refused with what to set instead")
    func cborIsRefused() async throws {
        let harness = try APIHarness()
        let cbor = await harness.kinesis("ListStreams", "", contentType: "application/x-amz-cbor-1.1")
        #expect(try expectError(cbor, status: 404, code: "UnknownOperationException").contains("CBOR_ENABLED=false"))
    }
}

@Suite("KinesisStreamAsSource delivery streams")
struct KinesisSourceTests {
    static func createSourced(_ harness: APIHarness, name: String, dataStream: String) async -> APIResponse {
        await harness.api.handle(
            harness.request(
                operation: "CreateDeliveryStream",
                body: Array(
                    #"""
                    {"DeliveryStreamName": "\#(name)", "DeliveryStreamType": "KinesisStreamAsSource",
                     "KinesisStreamSourceConfiguration": {"KinesisStreamARN": "arn:aws:kinesis:us-east-1:123456789012:stream/\#(dataStream)", "RoleARN": "arn:aws:iam::123456789012:role/firehose"},
                     "ExtendedS3DestinationConfiguration": {"RoleARN": "arn:aws:iam::123456789012:role/firehose", "BucketARN": "arn:aws:s3:::sourced",
                       "BufferingHints": {"IntervalInSeconds": 900, "SizeInMBs": 128}}}
                    """#.utf8)))
    }

    static func flush(_ harness: APIHarness) async throws -> [String] {
        let flushed = await harness.api.handle(
            APIRequest(method: "POST", target: "/_local/flush", headers: [], body: []))
        #expect(flushed.status == 200)
        let objects = try #require(try json(flushed)["objects"] as? [[String: Any]])
        return try objects.flatMap { object in
            let key = try #require(object["key"] as? String)
            let text = try String(contentsOfFile: "\(harness.directory)/sourced/\(key)", encoding: .utf8)
            return text.split(separator: "\n").map(String.init)
        }
    }

    @Test("StartDeliveryStreamEncryption on a Kinesis-sourced stream is refused and changes nothing")
    func encryptionOfAKinesisSourcedStreamIsRefused() async throws {
        let harness = try APIHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "orders", "ShardCount": 1}"#)
        #expect(await Self.createSourced(harness, name: "from-kinesis", dataStream: "orders").status == 200)
        let start = await harness.call(
            "StartDeliveryStreamEncryption",
            #"{"DeliveryStreamName": "from-kinesis", "DeliveryStreamEncryptionConfigurationInput": {"KeyType": "AWS_OWNED_CMK"}}"#
        )
        #expect(try expectError(start, status: 400, code: "InvalidArgumentException").contains("DirectPut"))
        let described = try json(
            await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "from-kinesis"}"#))
        let description = try #require(described["DeliveryStreamDescription"] as? [String: Any])
        #expect(description["DeliveryStreamEncryptionConfiguration"] == nil)
    }

    @Test(
        "Records put to the data stream after the delivery stream's creation are delivered once; puts to it are refused"
    )
    func deliversTheDataStream() async throws {
        let harness = try APIHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "orders", "ShardCount": 2}"#)
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "orders", "PartitionKey": "k", "Data": "\#(b64("before\n"))"}"#)
        harness.clock.advance(by: .seconds(1))
        #expect(await Self.createSourced(harness, name: "from-kinesis", dataStream: "orders").status == 200)
        let sent = (0..<20).map { "order \($0)" }
        let entries = sent.map { #"{"PartitionKey": "\#($0)", "Data": "\#(b64($0 + "\n"))"}"# }
        _ = try await harness.kinesisOK(
            "PutRecords", #"{"StreamName": "orders", "Records": [\#(entries.joined(separator: ","))]}"#)
        #expect(try await Self.flush(harness).sorted() == sent.sorted())
        // Read once: the checkpoints moved past them.
        #expect(try await Self.flush(harness).isEmpty)
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "orders", "PartitionKey": "k", "Data": "\#(b64("after\n"))"}"#)
        #expect(try await Self.flush(harness) == ["after"])

        let put = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "from-kinesis", data: [1])))
        #expect(
            try expectError(put, status: 400, code: "InvalidArgumentException")
                == "This operation is not permitted on KinesisStreamAsSource delivery stream type.")
        let described = try json(
            await harness.api.handle(
                harness.request(
                    operation: "DescribeDeliveryStream", body: Array(#"{"DeliveryStreamName": "from-kinesis"}"#.utf8))))
        let description = try #require(described["DeliveryStreamDescription"] as? [String: Any])
        #expect(description["DeliveryStreamType"] as? String == "KinesisStreamAsSource")
        let source = try #require(
            (description["Source"] as? [String: Any])?["KinesisStreamSourceDescription"] as? [String: Any])
        #expect(source["KinesisStreamARN"] as? String == "arn:aws:kinesis:us-east-1:123456789012:stream/orders")
        #expect(source["DeliveryStartTimestamp"] as? Double == harness.clock.date.timeIntervalSince1970)
        let listed = try json(
            await harness.api.handle(
                harness.request(
                    operation: "ListDeliveryStreams",
                    body: Array(#"{"DeliveryStreamType": "KinesisStreamAsSource"}"#.utf8))))
        #expect(listed["DeliveryStreamNames"] as? [String] == ["from-kinesis"])

        // Deleting the delivery stream forgets its positions.
        let consumer = "from-kinesis"
        let stream = try #require(try harness.api.kinesis!.log.stream(named: "orders"))
        #expect(try harness.api.kinesis!.log.checkpoint(consumer: consumer, stream: stream, shard: 0) != nil)
        let deleted = await harness.api.handle(
            harness.request(
                operation: "DeleteDeliveryStream", body: Array(#"{"DeliveryStreamName": "from-kinesis"}"#.utf8)))
        #expect(deleted.status == 200)
        #expect(try harness.api.kinesis!.log.checkpoint(consumer: consumer, stream: stream, shard: 0) == nil)
    }

    @Test("A delivery stream deleted and made again under its name starts afresh, from its new creation")
    func madeAgain() async throws {
        let harness = try APIHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "orders", "ShardCount": 1}"#)
        #expect(await Self.createSourced(harness, name: "x", dataStream: "orders").status == 200)
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "orders", "PartitionKey": "k", "Data": "\#(b64("one\n"))"}"#)
        #expect(try await Self.flush(harness) == ["one"])
        let deleted = await harness.api.handle(
            harness.request(operation: "DeleteDeliveryStream", body: Array(#"{"DeliveryStreamName": "x"}"#.utf8)))
        #expect(deleted.status == 200)
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "orders", "PartitionKey": "k", "Data": "\#(b64("between\n"))"}"#)
        harness.clock.advance(by: .seconds(1))
        #expect(await Self.createSourced(harness, name: "x", dataStream: "orders").status == 200)
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "orders", "PartitionKey": "k", "Data": "\#(b64("two\n"))"}"#)
        #expect(try await Self.flush(harness) == ["two"])
    }

    @Test("A delivery stream made before its data stream waits for it, then reads it")
    func waitsForTheDataStream() async throws {
        let harness = try APIHarness()
        #expect(await Self.createSourced(harness, name: "early", dataStream: "later").status == 200)
        #expect(try await Self.flush(harness).isEmpty)
        harness.clock.advance(by: .seconds(1))
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "later", "ShardCount": 1}"#)
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "later", "PartitionKey": "k", "Data": "\#(b64("arrived\n"))"}"#)
        #expect(try await Self.flush(harness) == ["arrived"])
    }
}
