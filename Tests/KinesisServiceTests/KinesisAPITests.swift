import FirehoseTestSupport
import FirehoseWire
import Foundation
import KinesisStreams
import Logging
import ServerCore
import ServiceTestSupport
import Testing

@testable import KinesisService

/// Kinesis Data Streams alone, as the front door hands it a call: a stream log in a folder of its
/// own, an injected clock, no authorization.
final class KinesisHarness: KinesisCalls {
    let directory: String
    var keepDirectory = false
    let clock = ManualClock(date: Date(timeIntervalSince1970: 1_795_266_309))  // 2026-11-21T13:05:09Z
    let api: KinesisAPI

    init(directory: String? = nil, throttling: Bool = false) throws {
        let directory = try directory ?? TestDirectory("kinesis").url.path
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        api = KinesisAPI(
            log: try StreamLog(path: "\(directory)/streams.sqlite"), region: "us-east-1", accountID: "123456789012",
            logger: Logger(label: "kinesis-tests"), throttling: throttling)
    }

    deinit {
        if !keepDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func kinesis(_ name: String, _ body: String, contentType: String) async -> APIResponse {
        let now = clock.date
        do throws(FirehoseError) {
            guard let operation = KinesisOperation(rawValue: name) else {
                throw .unknownOperation("Kinesis does not serve \(name).")
            }
            let body = Array(body.utf8)
            let answer: [UInt8]
            if operation.isPut {
                let put = try api.preparePut(operation, body: body, now: now) { _, _ throws(FirehoseError) in }
                answer = try await api.store(put, now: now)
            } else {
                answer = try api.handle(operation, body: body, now: now) { _, _ throws(FirehoseError) in }
            }
            return AWSJSONProtocol.success(answer, requestID: "request-1")
        } catch {
            return AWSJSONProtocol.errorResponse(error, requestID: "request-1")
        }
    }
}

@Suite("Kinesis Data Streams: control plane")
struct KinesisControlPlaneTests {
    @Test("Create, describe (shards split the key space as AWS's), summarize, list in pages, delete")
    func lifecycle() async throws {
        let harness = try KinesisHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "orders", "ShardCount": 3}"#)
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "clicks"}"#)
        let described = try await harness.kinesisOK("DescribeStream", #"{"StreamName": "orders"}"#)
        let description = try #require(described["StreamDescription"] as? [String: Any])
        #expect(description["StreamARN"] as? String == "arn:aws:kinesis:us-east-1:123456789012:stream/orders")
        #expect(description["StreamStatus"] as? String == "ACTIVE")
        #expect(description["RetentionPeriodHours"] as? Int == 24)
        #expect(description["HasMoreShards"] as? Bool == false)
        let shards = try #require(description["Shards"] as? [[String: Any]])
        #expect(
            shards.map { $0["ShardId"] as? String } == [
                "shardId-000000000000", "shardId-000000000001", "shardId-000000000002",
            ])
        let firstRange = try #require(shards[0]["HashKeyRange"] as? [String: String])
        #expect(firstRange == ["StartingHashKey": "0", "EndingHashKey": "113427455640312821154458202477256070484"])
        let starting = try #require((shards[0]["SequenceNumberRange"] as? [String: String])?["StartingSequenceNumber"])
        #expect(starting.count == 56)

        // Without ShardCount AWS makes 4 shards.
        let summary = try #require(
            try await harness.kinesisOK(
                "DescribeStreamSummary", #"{"StreamARN": "arn:aws:kinesis:us-east-1:123456789012:stream/clicks"}"#)[
                    "StreamDescriptionSummary"] as? [String: Any])
        #expect(summary["OpenShardCount"] as? Int == 4 && summary["MaxRecordSizeInKiB"] as? Int == 1024)
        #expect((summary["StreamModeDetails"] as? [String: String])?["StreamMode"] == "PROVISIONED")

        let page = try await harness.kinesisOK("ListStreams", #"{"Limit": 1}"#)
        #expect(page["StreamNames"] as? [String] == ["clicks"] && page["HasMoreStreams"] as? Bool == true)
        let token = try #require(page["NextToken"] as? String)
        let rest = try await harness.kinesisOK("ListStreams", #"{"NextToken": "\#(token)"}"#)
        #expect(rest["StreamNames"] as? [String] == ["orders"] && rest["HasMoreStreams"] as? Bool == false)

        let shardPage = try await harness.kinesisOK("ListShards", #"{"StreamName": "orders", "MaxResults": 2}"#)
        #expect((shardPage["Shards"] as? [[String: Any]])?.count == 2)
        let shardToken = try #require(shardPage["NextToken"] as? String)
        let lastShards = try await harness.kinesisOK("ListShards", #"{"NextToken": "\#(shardToken)"}"#)
        #expect(
            (lastShards["Shards"] as? [[String: Any]])?.map { $0["ShardId"] as? String } == ["shardId-000000000002"])
        #expect(lastShards["NextToken"] == nil)

        let again = await harness.kinesis("CreateStream", #"{"StreamName": "orders", "ShardCount": 1}"#)
        #expect(
            try expectError(again, status: 400, code: "ResourceInUseException")
                == "Stream orders under account 123456789012 already exists.")
        _ = try await harness.kinesisOK("DeleteStream", #"{"StreamName": "orders"}"#)
        let gone = await harness.kinesis("DescribeStream", #"{"StreamName": "orders"}"#)
        #expect(
            try expectError(gone, status: 400, code: "ResourceNotFoundException")
                == "Stream orders under account 123456789012 not found.")
    }

    @Test("Tags: given at creation, added (values replaced), listed by key in pages, removed; at most 50")
    func tags() async throws {
        let harness = try KinesisHarness()
        _ = try await harness.kinesisOK(
            "CreateStream", #"{"StreamName": "t", "ShardCount": 1, "Tags": {"team": "data", "env": "test"}}"#)
        _ = try await harness.kinesisOK(
            "AddTagsToStream", #"{"StreamName": "t", "Tags": {"env": "prod", "cost": "42"}}"#)
        func listed(_ extra: String = "") async throws -> (tags: [String], more: Bool) {
            let answer = try await harness.kinesisOK("ListTagsForStream", #"{"StreamName": "t"\#(extra)}"#)
            let tags = try #require(answer["Tags"] as? [[String: String]])
            return (tags.map { "\($0["Key"]!)=\($0["Value"]!)" }, answer["HasMoreTags"] as? Bool ?? false)
        }
        #expect(try await listed() == (["cost=42", "env=prod", "team=data"], false))
        #expect(try await listed(#", "Limit": 2"#) == (["cost=42", "env=prod"], true))
        #expect(try await listed(#", "ExclusiveStartTagKey": "env""#) == (["team=data"], false))
        _ = try await harness.kinesisOK("RemoveTagsFromStream", #"{"StreamName": "t", "TagKeys": ["env", "absent"]}"#)
        #expect(try await listed().tags == ["cost=42", "team=data"])
        let many = (0..<49).map { #""k\#($0)": "v""# }.joined(separator: ", ")
        let over = await harness.kinesis("AddTagsToStream", #"{"StreamName": "t", "Tags": {\#(many)}}"#)
        #expect(try expectError(over, status: 400, code: "InvalidArgumentException").contains("at most 50 tags"))
        #expect(try await listed().tags.count == 2)
        let missing = await harness.kinesis("ListTagsForStream", #"{"StreamName": "none"}"#)
        _ = try expectError(missing, status: 400, code: "ResourceNotFoundException")
    }

    @Test(
        "Retention: increased and decreased only in the operation's direction, 24 to 8,760 hours; reads follow at once")
    func retention() async throws {
        let harness = try KinesisHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "r", "ShardCount": 1}"#)
        func hours() async throws -> Int? {
            let answer = try await harness.kinesisOK("DescribeStreamSummary", #"{"StreamName": "r"}"#)
            return (answer["StreamDescriptionSummary"] as? [String: Any])?["RetentionPeriodHours"] as? Int
        }
        func change(_ operation: String, _ hours: Int) async -> APIResponse {
            await harness.kinesis(operation, #"{"StreamName": "r", "RetentionPeriodHours": \#(hours)}"#)
        }
        #expect(try await hours() == 24)
        _ = try await harness.kinesisOK(
            "IncreaseStreamRetentionPeriod", #"{"StreamName": "r", "RetentionPeriodHours": 48}"#)
        #expect(try await hours() == 48)
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "r", "PartitionKey": "k", "Data": "\#(b64("old"))"}"#)
        harness.clock.advance(by: .seconds(30 * 3_600))
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "r", "PartitionKey": "k", "Data": "\#(b64("new"))"}"#)
        #expect(try await harness.records(harness.iterator("r", "TRIM_HORIZON")).data == ["old", "new"])
        // Decreased, what the period leaves out is no longer read.
        _ = try await harness.kinesisOK(
            "DecreaseStreamRetentionPeriod", #"{"StreamName": "r", "RetentionPeriodHours": 24}"#)
        #expect(try await hours() == 24)
        #expect(try await harness.records(harness.iterator("r", "TRIM_HORIZON")).data == ["new"])

        #expect(
            try expectError(
                await change("IncreaseStreamRetentionPeriod", 12), status: 400, code: "InvalidArgumentException")
                == "Minimum allowed retention period is 24 hours. Requested retention period (12 hours) is too short.")
        #expect(
            try expectError(
                await change("IncreaseStreamRetentionPeriod", 8_761), status: 400, code: "InvalidArgumentException")
                == "Maximum allowed retention period is 8760 hours. Requested retention period (8761 hours) is too long."
        )
        #expect(
            try expectError(
                await change("DecreaseStreamRetentionPeriod", 30), status: 400, code: "InvalidArgumentException")
                == "Requested retention period (30 hours) for stream r can not be longer than existing retention period (24 hours). Use IncreaseRetentionPeriod API."
        )
        _ = try await harness.kinesisOK(
            "IncreaseStreamRetentionPeriod", #"{"StreamName": "r", "RetentionPeriodHours": 8760}"#)
        #expect(
            try expectError(
                await change("IncreaseStreamRetentionPeriod", 100), status: 400, code: "InvalidArgumentException")
                == "Requested retention period (100 hours) for stream r can not be shorter than existing retention period (8760 hours). Use DecreaseRetentionPeriod API."
        )
        #expect(try await hours() == 8_760)
        let missingHours = await harness.kinesis("DecreaseStreamRetentionPeriod", #"{"StreamName": "r"}"#)
        #expect(
            try expectError(missingHours, status: 400, code: "ValidationException")
                == "1 validation error detected: Value null at 'retentionPeriodHours' failed to satisfy constraint: Member must not be null"
        )
        let missingStream = await harness.kinesis(
            "IncreaseStreamRetentionPeriod", #"{"StreamName": "none", "RetentionPeriodHours": 48}"#)
        _ = try expectError(missingStream, status: 400, code: "ResourceNotFoundException")
    }

    @Test("Invalid input is refused in AWS's words; the shard quota holds")
    func validation() async throws {
        let harness = try KinesisHarness()
        let badName = await harness.kinesis("CreateStream", #"{"StreamName": "no spaces", "ShardCount": 0}"#)
        #expect(
            try expectError(badName, status: 400, code: "ValidationException")
                == "2 validation errors detected: Value 'no spaces' at 'streamName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value '0' at 'shardCount' failed to satisfy constraint: Member must have value greater than or equal to 1"
        )
        let tooMany = await harness.kinesis("CreateStream", #"{"StreamName": "big", "ShardCount": 501}"#)
        #expect(try expectError(tooMany, status: 400, code: "LimitExceededException").contains("shard limit"))
        let noStream = await harness.kinesis("DescribeStreamSummary", "{}")
        #expect(
            try expectError(noStream, status: 400, code: "InvalidArgumentException").contains("StreamName or StreamARN")
        )
    }
}

@Suite("Kinesis Data Streams: records")
struct KinesisDataPlaneTests {
    @Test("Puts route by the partition key's MD5; GetRecords reads each shard in order from every iterator type")
    func putAndRead() async throws {
        let harness = try KinesisHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "s", "ShardCount": 2}"#)
        let space = HashKeySpace(shardCount: 2)
        let keys = (0..<12).map { "key-\($0)" }
        let onShard0 = keys.filter { space.shard(for: HashKeySpace.hashKey(partitionKey: $0)) == 0 }
        #expect(!onShard0.isEmpty && onShard0.count < keys.count)

        let single = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "s", "PartitionKey": "\#(keys[0])", "Data": "\#(b64(keys[0]))"}"#)
        let expectedShard = space.shard(for: HashKeySpace.hashKey(partitionKey: keys[0]))
        #expect(single["ShardId"] as? String == "shardId-00000000000\(expectedShard)")
        let firstNumber = try #require(single["SequenceNumber"] as? String)
        #expect(firstNumber.count == 56)

        let entries = keys.dropFirst().map { #"{"PartitionKey": "\#($0)", "Data": "\#(b64($0))"}"# }
        let batch = try await harness.kinesisOK(
            "PutRecords", #"{"StreamName": "s", "Records": [\#(entries.joined(separator: ","))]}"#)
        #expect(batch["FailedRecordCount"] as? Int == 0)
        let answers = try #require(batch["Records"] as? [[String: String]])
        #expect(answers.count == 11)
        #expect(
            answers.map { $0["ShardId"] }
                == keys.dropFirst().map {
                    "shardId-00000000000\(space.shard(for: HashKeySpace.hashKey(partitionKey: $0)))"
                })

        let fromStart = try await harness.records(try await harness.iterator("s", "TRIM_HORIZON"))
        #expect(fromStart.data == onShard0 && fromStart.behind == 0)
        let nothingNew = try await harness.records(fromStart.next)
        #expect(nothingNew.data.isEmpty)

        let latest = try await harness.iterator("s", "LATEST")
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "s", "PartitionKey": "x", "ExplicitHashKey": "0", "Data": "\#(b64("late"))"}"#
        )
        #expect(try await harness.records(latest).data == ["late"])
        #expect(try await harness.records(nothingNew.next).data == ["late"])

        // AT/AFTER_SEQUENCE_NUMBER around the first record of shard 0.
        let shard0Numbers =
            [firstNumber]
            + answers.filter { $0["ShardId"] == "shardId-000000000000" }.compactMap { $0["SequenceNumber"] }
        let anchor = expectedShard == 0 ? firstNumber : shard0Numbers[1]
        let at = try await harness.iterator(
            "s", "AT_SEQUENCE_NUMBER", extra: #", "StartingSequenceNumber": "\#(anchor)""#)
        let after = try await harness.iterator(
            "s", "AFTER_SEQUENCE_NUMBER", extra: #", "StartingSequenceNumber": "\#(anchor)""#)
        let atData = try await harness.records(at).data
        #expect(try await harness.records(after).data == Array(atData.dropFirst()))
        #expect(atData.first == (expectedShard == 0 ? keys[0] : onShard0[0]))

        // Limit, and how far behind a page leaves the reader.
        harness.clock.advance(by: .seconds(2))
        let limited = try await harness.records(try await harness.iterator("s", "TRIM_HORIZON"), limit: 1)
        #expect(limited.data.count == 1 && limited.behind == 2_000)

        // AT_TIMESTAMP: only what arrived since.
        let now = harness.clock.date.timeIntervalSince1970
        let atTime = try await harness.iterator("s", "AT_TIMESTAMP", extra: #", "Timestamp": \#(now)"#)
        _ = try await harness.kinesisOK(
            "PutRecord",
            #"{"StreamName": "s", "PartitionKey": "y", "ExplicitHashKey": "1", "Data": "\#(b64("timed"))"}"#)
        #expect(try await harness.records(atTime).data == ["timed"])
    }

    @Test("Iterators expire after five minutes; damaged ones, other shards' numbers and missing shards are refused")
    func iteratorErrors() async throws {
        let harness = try KinesisHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "s", "ShardCount": 2}"#)
        let iterator = try await harness.iterator("s", "TRIM_HORIZON")
        harness.clock.advance(by: .seconds(301))
        let expired = await harness.kinesis("GetRecords", #"{"ShardIterator": "\#(iterator)"}"#)
        #expect(
            try expectError(expired, status: 400, code: "ExpiredIteratorException")
                == "Iterator expired. The iterator was created at time Sat Nov 21 13:05:09 UTC 2026 while right now it is Sat Nov 21 13:10:10 UTC 2026 which is further in the future than the tolerated delay of 300000 milliseconds."
        )
        let damaged = await harness.kinesis("GetRecords", #"{"ShardIterator": "AAAAAAAAAAEnotmine"}"#)
        #expect(try expectError(damaged, status: 400, code: "InvalidArgumentException") == "Invalid ShardIterator.")

        let put = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "s", "PartitionKey": "k", "ExplicitHashKey": "0", "Data": "AA=="}"#)
        let number = try #require(put["SequenceNumber"] as? String)
        let wrongShard = await harness.kinesis(
            "GetShardIterator",
            #"{"StreamName": "s", "ShardId": "shardId-000000000001", "ShardIteratorType": "AT_SEQUENCE_NUMBER", "StartingSequenceNumber": "\#(number)"}"#
        )
        #expect(
            try expectError(wrongShard, status: 400, code: "InvalidArgumentException").contains(
                "It encodes shardId-000000000000"))
        let noShard = await harness.kinesis(
            "GetShardIterator",
            #"{"StreamName": "s", "ShardId": "shardId-000000000009", "ShardIteratorType": "LATEST"}"#)
        #expect(
            try expectError(noShard, status: 400, code: "ResourceNotFoundException")
                == "Shard shardId-000000000009 in stream s under account 123456789012 does not exist")
        let missingNumber = await harness.kinesis(
            "GetShardIterator",
            #"{"StreamName": "s", "ShardId": "shardId-000000000000", "ShardIteratorType": "AT_SEQUENCE_NUMBER"}"#)
        #expect(
            try expectError(missingNumber, status: 400, code: "InvalidArgumentException").hasSuffix(
                "Request specified AT_SEQUENCE_NUMBER and no StartingSequenceNumber."))
    }

    @Test("Hostile paging, timestamps, sequence numbers and tokens are refused or answered empty, never a crash")
    func hostileInput() async throws {
        let harness = try KinesisHarness()
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "s", "ShardCount": 2}"#)
        let pastEnd = try await harness.kinesisOK(
            "DescribeStream", #"{"StreamName": "s", "ExclusiveStartShardId": "shardId-000000000010"}"#)
        #expect(((pastEnd["StreamDescription"] as? [String: Any])?["Shards"] as? [Any])?.isEmpty == true)
        let listed = try await harness.kinesisOK(
            "ListShards", #"{"StreamName": "s", "ExclusiveStartShardId": "shardId-999999999999"}"#)
        #expect((listed["Shards"] as? [Any])?.isEmpty == true)
        let forged = Data("shards 1 s 0 shardId-000000000000".utf8).base64EncodedString()
        let badToken = await harness.kinesis("ListShards", #"{"NextToken": "\#(forged)"}"#)
        #expect(try expectError(badToken, status: 400, code: "InvalidArgumentException") == "Invalid NextToken.")
        let page = try await harness.kinesisOK("ListShards", #"{"StreamName": "s", "MaxResults": 1}"#)
        let token = try #require(page["NextToken"] as? String)
        let both = await harness.kinesis(
            "ListShards", #"{"NextToken": "\#(token)", "ExclusiveStartShardId": "shardId-000000000000"}"#)
        _ = try expectError(both, status: 400, code: "InvalidArgumentException")
        harness.clock.advance(by: .seconds(301))
        let expired = await harness.kinesis("ListShards", #"{"NextToken": "\#(token)"}"#)
        #expect(
            try expectError(expired, status: 400, code: "ExpiredNextTokenException") == "The NextToken has expired.")

        for huge in ["1e300", "1e16"] {
            let future = await harness.kinesis(
                "GetShardIterator",
                #"{"StreamName": "s", "ShardId": "shardId-000000000000", "ShardIteratorType": "AT_TIMESTAMP", "Timestamp": \#(huge)}"#
            )
            #expect(
                try expectError(future, status: 400, code: "InvalidArgumentException").hasPrefix(
                    "The timestampInMillis parameter cannot be greater"))
        }
        _ = try await harness.iterator("s", "AT_TIMESTAMP", extra: #", "Timestamp": -1e300"#)
        // A well-formed number of this stream and shard at a position the log never reached.
        let beyond = SequenceNumber(stream: 1, shard: 0, position: .max).description
        let after = await harness.kinesis(
            "GetShardIterator",
            #"{"StreamName": "s", "ShardId": "shardId-000000000000", "ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "StartingSequenceNumber": "\#(beyond)"}"#
        )
        #expect(try expectError(after, status: 400, code: "InvalidArgumentException").hasSuffix("is invalid."))
    }

    @Test("With quotas, each shard takes 1,000 records a second: the records over it fail alone, as AWS's")
    func shardQuota() async throws {
        let harness = try KinesisHarness(throttling: true)
        _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "s", "ShardCount": 2}"#)
        let upper = String(UInt128.max)
        // Shard 1 takes its second's 1,000 records.
        for _ in 0..<2 {
            let fill = (0..<500).map { _ in #"{"PartitionKey": "k", "ExplicitHashKey": "\#(upper)", "Data": "AA=="}"# }
            let filled = try await harness.kinesisOK(
                "PutRecords", #"{"StreamName": "s", "Records": [\#(fill.joined(separator: ","))]}"#)
            #expect(filled["FailedRecordCount"] as? Int == 0)
        }
        // Shard 0's record goes in; shard 1's fail, each in its place.
        let mixed = try await harness.kinesisOK(
            "PutRecords",
            #"{"StreamName": "s", "Records": [{"PartitionKey": "k", "ExplicitHashKey": "\#(upper)", "Data": "AQ=="}, {"PartitionKey": "k", "ExplicitHashKey": "0", "Data": "Ag=="}]}"#
        )
        #expect(mixed["FailedRecordCount"] as? Int == 1)
        let entries = try #require(mixed["Records"] as? [[String: String]])
        #expect(entries[0]["ErrorCode"] == "ProvisionedThroughputExceededException")
        #expect(
            entries[0]["ErrorMessage"]
                == "Rate exceeded for shard shardId-000000000001 in stream s under account 123456789012.")
        #expect(entries[0]["SequenceNumber"] == nil && entries[1]["ShardId"] == "shardId-000000000000")
        let single = await harness.kinesis(
            "PutRecord", #"{"StreamName": "s", "PartitionKey": "k", "ExplicitHashKey": "\#(upper)", "Data": "Aw=="}"#)
        _ = try expectError(single, status: 400, code: "ProvisionedThroughputExceededException")
        harness.clock.advance(by: .seconds(1))
        _ = try await harness.kinesisOK(
            "PutRecord", #"{"StreamName": "s", "PartitionKey": "k", "ExplicitHashKey": "\#(upper)", "Data": "BA=="}"#)
        let shard1 = try await harness.records(
            try await harness.iterator("s", shard: "shardId-000000000001", "TRIM_HORIZON"))
        #expect(shard1.data.count == 1_001)
    }

    @Test("Record and request limits; a missing stream; records kept across a restart")
    func limitsAndDurability() async throws {
        let directory = try TestDirectory("kinesis").url.path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let iterator: String
        do {
            let harness = try KinesisHarness(directory: directory)
            harness.keepDirectory = true
            _ = try await harness.kinesisOK("CreateStream", #"{"StreamName": "s", "ShardCount": 1}"#)
            let big = Data(repeating: 0x61, count: 1024 * 1024).base64EncodedString()
            let tooBig = await harness.kinesis(
                "PutRecord", #"{"StreamName": "s", "PartitionKey": "k", "Data": "\#(big)"}"#)
            #expect(try expectError(tooBig, status: 400, code: "InvalidArgumentException").contains("1024 KiB"))
            let tooMany = (0..<501).map { _ in #"{"PartitionKey": "k", "Data": "AA=="}"# }.joined(separator: ",")
            let refused = await harness.kinesis("PutRecords", #"{"StreamName": "s", "Records": [\#(tooMany)]}"#)
            #expect(
                try expectError(refused, status: 400, code: "ValidationException")
                    == "1 validation error detected: Value '[501 records]' at 'records' failed to satisfy constraint: Member must have length less than or equal to 500"
            )
            let missing = await harness.kinesis(
                "PutRecord", #"{"StreamName": "nope", "PartitionKey": "k", "Data": "AA=="}"#)
            #expect(
                try expectError(missing, status: 400, code: "ResourceNotFoundException")
                    == "Stream nope under account 123456789012 not found.")
            let badKey = await harness.kinesis(
                "PutRecord",
                #"{"StreamName": "s", "PartitionKey": "k", "ExplicitHashKey": "340282366920938463463374607431768211456", "Data": "AA=="}"#
            )
            #expect(
                try expectError(badKey, status: 400, code: "InvalidArgumentException").hasPrefix(
                    "Invalid ExplicitHashKey.")
            )

            _ = try await harness.kinesisOK(
                "PutRecord", #"{"StreamName": "s", "PartitionKey": "k", "Data": "\#(b64("kept"))"}"#)
            iterator = try await harness.iterator("s", "TRIM_HORIZON")
        }
        // The first harness and its log are closed: the second opens the file as a new process would.
        let restarted = try KinesisHarness(directory: directory)
        restarted.keepDirectory = true
        #expect(try await restarted.records(iterator).data == ["kept"])

        // Past the retention of 24 hours the record is no longer read, and the server's minutely
        // trim deletes it.
        let kinesis = restarted.api
        let stream = try #require(try kinesis.log.stream(named: "s"))
        kinesis.trimExpired(now: restarted.clock.date)
        #expect(try kinesis.log.size(of: stream).records == 1)
        restarted.clock.advance(by: .seconds(24 * 3600 + 1))
        #expect(try await restarted.records(try await restarted.iterator("s", "TRIM_HORIZON")).data.isEmpty)
        kinesis.trimExpired(now: restarted.clock.date)
        #expect(try kinesis.log.size(of: stream).records == 0)
    }
}

@Suite("Kinesis Data Streams: answers as written")
struct KinesisAnswerTextTests {
    private func text(_ harness: KinesisHarness, _ operation: String, _ body: String) async -> String {
        let response = await harness.kinesis(operation, body)
        #expect(response.status == 200)
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test("Answers carry their members in one order, the same every run, without members that have no value")
    func memberOrder() async throws {
        let harness = try KinesisHarness()
        _ = try await harness.kinesisOK(
            "CreateStream", #"{"StreamName": "orders", "ShardCount": 1, "Tags": {"team": "a/b"}}"#)
        #expect(
            await text(harness, "DescribeStreamSummary", #"{"StreamName": "orders"}"#)
                == #"{"StreamDescriptionSummary":{"StreamName":"orders","StreamARN":"arn:aws:kinesis:us-east-1:123456789012:stream/orders","StreamStatus":"ACTIVE","StreamModeDetails":{"StreamMode":"PROVISIONED"},"RetentionPeriodHours":24,"StreamCreationTimestamp":1795266309,"EnhancedMonitoring":[{"ShardLevelMetrics":[]}],"EncryptionType":"NONE","OpenShardCount":1,"ConsumerCount":0,"MaxRecordSizeInKiB":1024}}"#
        )
        #expect(
            await text(harness, "ListTagsForStream", #"{"StreamName": "orders"}"#)
                == #"{"Tags":[{"Key":"team","Value":"a/b"}],"HasMoreTags":false}"#)
        #expect(
            await text(harness, "ListStreams", "{}")
                == #"{"StreamNames":["orders"],"HasMoreStreams":false,"StreamSummaries":[{"StreamName":"orders","StreamARN":"arn:aws:kinesis:us-east-1:123456789012:stream/orders","StreamStatus":"ACTIVE","StreamModeDetails":{"StreamMode":"PROVISIONED"},"StreamCreationTimestamp":1795266309}]}"#
        )

        let put = await text(harness, "PutRecord", #"{"StreamName": "orders", "PartitionKey": "k", "Data": "aGk="}"#)
        #expect(put.hasPrefix(#"{"ShardId":"shardId-000000000000","SequenceNumber":""#) && put.hasSuffix(#""}"#))
        let batch = await text(
            harness, "PutRecords", #"{"StreamName": "orders", "Records": [{"PartitionKey": "k", "Data": "aGk="}]}"#)
        #expect(
            batch.hasPrefix(#"{"FailedRecordCount":0,"Records":[{"SequenceNumber":""#)
                && batch.hasSuffix(#"","ShardId":"shardId-000000000000"}]}"#))

        let iterator = try await harness.iterator("orders", "TRIM_HORIZON")
        let read = await text(harness, "GetRecords", #"{"ShardIterator": "\#(iterator)", "Limit": 1}"#)
        #expect(read.hasPrefix(#"{"Records":[{"SequenceNumber":""#))
        #expect(
            read.contains(
                #"","ApproximateArrivalTimestamp":1795266309,"Data":"aGk=","PartitionKey":"k"}],"NextShardIterator":""#)
        )
        #expect(read.hasSuffix(#"","MillisBehindLatest":0}"#))
    }
}
