import AWSSigV4
import FaultInjection
import FirehoseSink
import FirehoseWire
import Foundation
import KinesisService
import ServerCore
import ServiceTestSupport
import Testing

@testable import FirehoseServer

/// Fault rules through `FirehoseAPI.handle`: what a client gets, and what is stored.
@Suite("Fault injection in the API")
struct FaultAPITests {
    func harness(_ rules: FaultRule...) throws -> APIHarness {
        try APIHarness { $0.faults = rules }
    }

    func delivered(_ harness: APIHarness) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for object in try await harness.sink.flush() {
            bytes += try Gzip.decompress(Array(try Data(contentsOf: URL(fileURLWithPath: object.path))), limit: 1 << 20)
        }
        return bytes
    }

    @Test func failedRecordsAreAnsweredAsAWSDoesAndNotStored() async throws {
        let harness = try harness(
            FaultRule(
                name: "some",
                outcome: .failRecords(
                    .positions([1...1, 3...3]), code: "InternalFailure", message: "Internal service failure.")))
        let records = (0..<5).map { Array("r\($0);".utf8) }
        let response = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(records: records)))
        #expect(response.status == 200)
        let body = try json(response)
        #expect(body["FailedPutCount"] as? Int == 2)
        let entries = try #require(body["RequestResponses"] as? [[String: String]])
        #expect(entries.count == 5)
        #expect(entries[1] == ["ErrorCode": "InternalFailure", "ErrorMessage": "Internal service failure."])
        #expect(entries[3] == entries[1])
        let stored = [0, 2, 4].allSatisfy { entries[$0].keys.sorted() == ["RecordId"] }
        #expect(stored)
        #expect(try await delivered(harness) == Array("r0;r2;r4;".utf8))
        let streams = try json(await harness.local("GET", "/_local/streams"))
        let stream = try #require((streams["streams"] as? [[String: Any]])?.first)
        #expect(stream["faults"] as? [String: Int] == ["some": 1])
        #expect(stream["recordsReceived"] as? Int == 3)
    }

    @Test func aBatchWhoseRecordsAllFailStoresNothingButStillNeedsItsStream() async throws {
        let harness = try harness(
            FaultRule(
                name: "all",
                outcome: .failRecords(.fraction(1), code: "ServiceUnavailableException", message: "Slow down.")))
        let response = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(records: [[1], [2]])))
        #expect(try json(response)["FailedPutCount"] as? Int == 2)
        #expect(try await delivered(harness).isEmpty)
        let missing = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(stream: "nope", records: [[1]])))
        _ = try expectError(missing, status: 400, code: "ResourceNotFoundException")
    }

    @Test func anErrorRuleAnswersItsErrorAndIsCounted() async throws {
        let harness = try harness(
            FaultRule(name: "outage", outcome: .error(.serviceUnavailable("Slow down.")), trigger: .init(count: 1)))
        let request = harness.request(operation: "PutRecord", body: harness.putRecordBody(data: Array("x".utf8)))
        let refused = await harness.api.handle(request)
        #expect(try expectError(refused, status: 503, code: "ServiceUnavailableException") == "Slow down.")
        #expect(await harness.api.handle(request).status == 200)
        #expect(try await delivered(harness) == Array("x".utf8))
        let metrics = String(decoding: await harness.local("GET", "/_local/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"firehose_local_faults_injected_total{rule="outage",stream="events"} 1"#))
    }

    @Test func resetsBeforeAndAfterTheRequestIsCarriedOut() async throws {
        let harness = try harness(
            FaultRule(name: "before", outcome: .resetConnection(.beforeRead), trigger: .init(count: 1)),
            FaultRule(name: "after", outcome: .resetConnection(.afterRead), trigger: .init(count: 1)))
        let before = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: Array("lost;".utf8))))
        #expect(before.resetsConnection)
        let after = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: Array("kept;".utf8))))
        #expect(after.resetsConnection)
        #expect(try await delivered(harness) == Array("kept;".utf8))
        let metrics = String(decoding: await harness.local("GET", "/_local/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"code="ConnectionReset""#))
    }

    @Test func rulesMatchTheVerifiedAccessKeyAndControlPlaneStreams() async throws {
        let harness = try harness(
            FaultRule(
                name: "describe", operations: [.firehose(.describeDeliveryStream)], streams: ["events"],
                accessKeyID: "AKIDLOCAL",
                outcome: .error(.internalFailure("boom"))))
        let describe = await harness.api.handle(
            harness.request(operation: "DescribeDeliveryStream", body: Array(#"{"DeliveryStreamName": "events"}"#.utf8))
        )
        _ = try expectError(describe, status: 500, code: "InternalFailure")
        let list = await harness.api.handle(harness.request(operation: "ListDeliveryStreams", body: Array("{}".utf8)))
        #expect(list.status == 200)
    }

    @Test func kinesisRequestsMeetTheRulesThatNameTheirOperations() async throws {
        let harness = try harness(
            FaultRule(
                name: "half", operations: [.kinesis(.putRecords)],
                outcome: .failRecords(.every(2), code: "ProvisionedThroughputExceededException", message: "")),
            FaultRule(
                name: "reads", operations: [.kinesis(.getShardIterator)], streams: ["k"],
                outcome: .error(
                    FirehoseError(code: "ProvisionedThroughputExceededException", message: "Rate exceeded")),
                trigger: .init(count: 1)),
            FaultRule(name: "lost-answer", operations: [.kinesis(.putRecord)], outcome: .resetConnection(.afterRead)))
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "k", "ShardCount": 1}"#)
        let records = (0..<4).map { index in
            #"{"Data": "\#(Data("r\(index)".utf8).base64EncodedString())", "PartitionKey": "p"}"#
        }
        let put = try await harness.kinesisOK(
            "PutRecords", #"{"StreamName": "k", "Records": [\#(records.joined(separator: ", "))]}"#)
        #expect(put["FailedRecordCount"] as? Int == 2)
        let entries = try #require(put["Records"] as? [[String: Any]])
        #expect(
            entries.map { $0["ErrorCode"] as? String } == [
                nil, "ProvisionedThroughputExceededException", nil, "ProvisionedThroughputExceededException",
            ])
        #expect(
            (entries[1]["ErrorMessage"] as? String)?.hasPrefix(
                "Rate exceeded for shard shardId-000000000000 in stream k")
                == true)
        // A single PutRecord carried out, its answer lost: the record is stored all the same.
        let single = await harness.kinesis(
            "PutRecord",
            #"{"StreamName": "k", "PartitionKey": "p", "Data": "\#(Data("lost".utf8).base64EncodedString())"}"#)
        #expect(single.resetsConnection)
        let refused = await harness.kinesis(
            "GetShardIterator",
            #"{"StreamName": "k", "ShardId": "shardId-000000000000", "ShardIteratorType": "LATEST"}"#)
        _ = try expectError(refused, status: 400, code: "ProvisionedThroughputExceededException")
        let iterator = try await harness.iterator("k", "TRIM_HORIZON")
        // The failed records were not stored; the rule on reads is spent.
        #expect(try await harness.records(iterator).data == ["r0", "r2", "lost"])
        let metrics = String(decoding: await harness.local("GET", "/_local/metrics").body, as: UTF8.self)
        #expect(
            metrics.contains(#"firehose_local_kinesis_requests_total{operation="PutRecord",code="ConnectionReset"} 1"#))
        let listed = String(decoding: await harness.local("GET", "/_local/faults").body, as: UTF8.self)
        #expect(listed.contains(#""Operations":["kinesis:PutRecords"]"#))
    }

    @Test func aHangWithoutAFreeWaitingSlotIsResetAtOnce() async throws {
        let harness = try APIHarness {
            $0.faults = [FaultRule(name: "stall", outcome: .hang(seconds: 3600))]
            $0.maxWaitingRequests = 0
        }
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1])))
        #expect(response.resetsConnection)
        #expect(harness.api.waitingSlotsTaken == 0)
        #expect(try await harness.sink.flush().isEmpty)
    }

    @Test func aFailRecordsRuleThatPicksNoRecordDoesNotFireOrSpendItsCount() async throws {
        let harness = try harness(
            FaultRule(
                name: "tail", outcome: .failRecords(.positions([400...499]), code: "InternalFailure", message: "m"),
                trigger: .init(count: 1)))
        let small = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(records: [[1], [2]])))
        #expect(try json(small)["FailedPutCount"] as? Int == 0)
        #expect(harness.api.faults.entries[0].fired == 0)
        let large = await harness.api.handle(
            harness.request(
                operation: "PutRecordBatch", body: harness.batchBody(records: (0..<450).map { [UInt8($0 % 250)] })))
        #expect(try json(large)["FailedPutCount"] as? Int == 50)
        #expect(harness.api.faults.entries[0].isSpent)
    }

    @Test func putsToAMissingStreamAreRefusedBeforeAnyRuleFires() async throws {
        let harness = try harness(
            FaultRule(name: "burst", outcome: .error(.throttled), trigger: .init(count: 1)))
        let missing = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "nope", data: [1])))
        _ = try expectError(missing, status: 400, code: "ResourceNotFoundException")
        #expect(harness.api.faults.entries[0].fired == 0)
        // Control-plane requests naming made-up streams are counted under no stream.
        let wide = try self.harness(
            FaultRule(
                name: "describe", operations: [.firehose(.describeDeliveryStream)], streams: ["ghost"],
                outcome: .error(.internalFailure("boom"))))
        let ghost = await wide.api.handle(
            wide.request(operation: "DescribeDeliveryStream", body: Array(#"{"DeliveryStreamName": "ghost"}"#.utf8)))
        _ = try expectError(ghost, status: 500, code: "InternalFailure")
        #expect(wide.api.faults.entries[0].firedByStream == ["": 1])
    }

    @Test func accessKeyOfAnUnverifiedAuthorizationHeader() {
        #expect(
            SigV4Verifier.claimedAccessKeyID(
                authorization:
                    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/firehose/aws4_request, SignedHeaders=host, Signature=x"
            )
                == "AKIDEXAMPLE")
        #expect(SigV4Verifier.claimedAccessKeyID(authorization: "AWS4-HMAC-SHA256 Credential=/x") == nil)
        #expect(SigV4Verifier.claimedAccessKeyID(authorization: "") == nil)
    }
}

@Suite("Stream quotas")
struct StreamQuotaTests {
    let start = Date(timeIntervalSince1970: 1_795_266_309)
    let small = StreamQuota(recordsPerSecond: 10, requestsPerSecond: 3, bytesPerSecond: 100)

    @Test func awsDefaultsByRegion() {
        #expect(
            StreamQuota.awsDefault(region: "us-east-1")
                == StreamQuota(recordsPerSecond: 500_000, requestsPerSecond: 2_000, bytesPerSecond: 5_242_880))
        #expect(StreamQuota.awsDefault(region: "eu-west-1").bytesPerSecond == 5_242_880)
        #expect(StreamQuota.awsDefault(region: "us-west-2").requestsPerSecond == 2_000)
        #expect(
            StreamQuota.awsDefault(region: "eu-central-1")
                == StreamQuota(recordsPerSecond: 100_000, requestsPerSecond: 1_000, bytesPerSecond: 1_048_576))
        #expect(QuotaSetting(requestsPerSecond: 7).quota(region: "ap-south-1").requestsPerSecond == 7)
        #expect(QuotaSetting(requestsPerSecond: 7).quota(region: "ap-south-1").recordsPerSecond == 100_000)
    }

    @Test func aBatchOverTheRecordOrByteQuotaKeepsItsPrefix() {
        var buckets = QuotaBuckets(quota: small, now: start)
        #expect(buckets.admit(sizes: Array(repeating: 1, count: 12), now: start) == 10)
        // Half a second refills half the records.
        #expect(buckets.admit(sizes: Array(repeating: 1, count: 12), now: start.addingTimeInterval(0.5)) == 5)
        var bytes = QuotaBuckets(quota: small, now: start)
        #expect(bytes.admit(sizes: [60, 30, 20, 1], now: start) == 2)
        #expect(bytes.admit(sizes: [10], now: start) == 1)
        #expect(bytes.admit(sizes: [1], now: start) == 0)
    }

    @Test func requestsOverTheQuotaAdmitNothingAndRefillWithTime() {
        var buckets = QuotaBuckets(quota: small, now: start)
        #expect((0..<3).map { _ in buckets.admit(sizes: [1], now: start) } == [1, 1, 1])
        #expect(buckets.admit(sizes: [1], now: start) == 0)
        #expect(buckets.admit(sizes: [1], now: start.addingTimeInterval(0.34)) == 1)
        // A long pause fills the buckets to one second's worth, no more.
        #expect((0..<5).map { _ in buckets.admit(sizes: [1], now: start.addingTimeInterval(60)) } == [1, 1, 1, 0, 0])
        // A clock that steps back takes nothing away.
        #expect(buckets.admit(sizes: [1], now: start) == 0)
    }

    @Test func throughTheAPIThrottledRecordsFailAtTheEndOfTheBatchAndAPutRecordIsRefused() async throws {
        let harness = try APIHarness {
            $0.quotas = QuotaSetting(recordsPerSecond: 3, requestsPerSecond: 2, bytesPerSecond: 1 << 20)
        }
        let batch = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(records: (0..<5).map { [UInt8($0)] })))
        let body = try json(batch)
        #expect(body["FailedPutCount"] as? Int == 2)
        let entries = try #require(body["RequestResponses"] as? [[String: String]])
        #expect(
            entries.map { $0["ErrorCode"] } == [
                nil, nil, nil, "ServiceUnavailableException", "ServiceUnavailableException",
            ])
        #expect(entries[4]["ErrorMessage"] == "Slow down.")
        let single = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [9])))
        // The records quota (3/s) is spent: the whole call is refused, as AWS refuses a throttled PutRecord.
        #expect(try expectError(single, status: 500, code: "ServiceUnavailableException") == "Slow down.")
        let stored = try await harness.sink.flush().map(\.records).reduce(0, +)
        #expect(stored == 3)
        let streams = try json(await harness.local("GET", "/_local/streams"))
        #expect((streams["streams"] as? [[String: Any]])?.first?["throttledRecords"] as? Int == 3)
        let metrics = String(decoding: await harness.local("GET", "/_local/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"firehose_local_throttled_records_total{stream="events"} 3"#))
    }
}
