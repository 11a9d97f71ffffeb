import FirehoseClient
import Foundation
import Synchronization
import Testing

/// Answers every request with one canned response and keeps the requests.
private final class CannedTransport: HTTPTransport, Sendable {
    let response: HTTPResponse
    private let sent = Mutex<[HTTPRequest]>([])

    init(status: Int = 200, body: String, headers: [(name: String, value: String)] = []) {
        response = HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    var requests: [HTTPRequest] { sent.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.withLock { $0.append(request) }
        return response
    }
}

private func kinesisClient(_ transport: CannedTransport) -> KinesisClient {
    KinesisClient(
        endpoint: URL(string: "http://127.0.0.1:4573")!, region: "eu-west-1",
        credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
        transport: transport)
}

@Suite("KinesisClient")
struct KinesisClientTests {
    @Test("PutRecords is signed for kinesis, sends AWS's shape, and maps each record's outcome in order")
    func putRecords() async throws {
        let transport = CannedTransport(
            body: #"""
                {"FailedRecordCount": 1, "Records": [
                  {"SequenceNumber": "49500000000000000000000000000000000000000000000000000001", "ShardId": "shardId-000000000000"},
                  {"ErrorCode": "ProvisionedThroughputExceededException", "ErrorMessage": "Rate exceeded for shard shardId-000000000001 in stream s under account 000000000000."}]}
                """#)
        let output = try await kinesisClient(transport).putRecords(
            [
                KinesisRecord(data: Array("a".utf8), partitionKey: "k1"),
                KinesisRecord(data: Array("b".utf8), partitionKey: "k2", explicitHashKey: "0"),
            ], streamName: "s")
        #expect(output.failedRecordCount == 1)
        #expect(
            output.entries == [
                .success(
                    KinesisPutResult(
                        shardID: "shardId-000000000000",
                        sequenceNumber: "49500000000000000000000000000000000000000000000000000001")),
                .failure(
                    code: "ProvisionedThroughputExceededException",
                    message: "Rate exceeded for shard shardId-000000000001 in stream s under account 000000000000."),
            ])
        let request = try #require(transport.requests.first)
        #expect(request.headers.contains { $0.name == "X-Amz-Target" && $0.value == "Kinesis_20131202.PutRecords" })
        #expect(
            request.headers.contains {
                $0.name == "Authorization" && $0.value.contains("/eu-west-1/kinesis/aws4_request")
            })
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(body["StreamName"] as? String == "s")
        let records = try #require(body["Records"] as? [[String: String]])
        #expect(
            records == [
                ["Data": "YQ==", "PartitionKey": "k1"], ["Data": "Yg==", "PartitionKey": "k2", "ExplicitHashKey": "0"],
            ])
    }

    @Test("Invalid requests are refused before sending; service errors carry AWS's code")
    func errors() async throws {
        let transport = CannedTransport(
            status: 400,
            body:
                #"{"__type": "ResourceNotFoundException", "message": "Stream s under account 000000000000 not found."}"#
        )
        let client = kinesisClient(transport)
        for records in [[], Array(repeating: KinesisRecord(data: [1], partitionKey: "k"), count: 501)] {
            await #expect(throws: FirehoseClientError.self) { try await client.putRecords(records, streamName: "s") }
        }
        do {
            _ = try await client.putRecord(KinesisRecord(data: [1], partitionKey: ""), streamName: "s")
            Issue.record("an empty partition key was sent")
        } catch {
            #expect(error.kind == .invalidRequest && error.code == "ValidationException")
        }
        do {
            _ = try await client.putRecord(KinesisRecord(data: [1], partitionKey: "k"), streamName: "bad name")
            Issue.record("an invalid stream name was sent")
        } catch {
            #expect(error.kind == .invalidRequest)
        }
        #expect(transport.requests.isEmpty)
        do {
            _ = try await client.putRecord(KinesisRecord(data: [1], partitionKey: "k"), streamName: "s")
            Issue.record("the refusal was not thrown")
        } catch {
            #expect(error.kind == .service && error.code == "ResourceNotFoundException" && error.httpStatus == 400)
        }
        #expect(
            KinesisClient.awsEndpoint(region: "eu-west-1").absoluteString == "https://kinesis.eu-west-1.amazonaws.com")
    }
}
