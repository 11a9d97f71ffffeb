import AWSSigV4
import FirehoseSink
import FirehoseWire
import Foundation
import KinesisService
import ServerCore
import ServiceTestSupport
import Testing

@testable import FirehoseServer

/// The fault rules as a pure state machine: matching, triggers, order, patterns and seeds, with time
/// passed in.
@Suite("Fault rules")
struct FaultRuleTests {
    let start = Date(timeIntervalSince1970: 1_795_266_309)

    func batch(_ records: Int, stream: String? = "events", key: String? = nil) -> FaultRequest {
        FaultRequest(operation: .firehose(.putRecordBatch), stream: stream, accessKeyID: key, records: records)
    }

    func rules(_ rules: FaultRule...) throws -> FaultRuleSet {
        var set = FaultRuleSet()
        for rule in rules { try set.add(rule, now: start) }
        return set
    }

    static let unavailable = FirehoseError.serviceUnavailable("Slow down.")

    @Test func countFiresOnTheNextNMatchingRequestsThenIsSpent() throws {
        var set = try rules(FaultRule(name: "three", outcome: .error(Self.unavailable), trigger: .init(count: 3)))
        let outcomes = (0..<5).map { _ in set.decide(batch(1), now: start).outcome }
        #expect(outcomes == [.error(Self.unavailable), .error(Self.unavailable), .error(Self.unavailable), nil, nil])
        #expect(set.entries[0].isSpent)
        #expect(set.entries[0].remaining == 0)
        #expect(set.entries[0].fired == 3)
    }

    @Test func aWindowCountsFromTheRulesCreation() throws {
        var set = try rules(
            FaultRule(
                name: "window", outcome: .error(Self.unavailable), trigger: .init(afterSeconds: 10, forSeconds: 5)))
        #expect(set.decide(batch(1), now: start.addingTimeInterval(9.9)).isEmpty)
        #expect(!set.decide(batch(1), now: start.addingTimeInterval(10)).isEmpty)
        #expect(!set.decide(batch(1), now: start.addingTimeInterval(14.9)).isEmpty)
        #expect(set.decide(batch(1), now: start.addingTimeInterval(15)).isEmpty)
    }

    @Test func probabilityAndFractionRepeatWithTheSeedAndDifferWithout() throws {
        func run(seed: UInt64) throws -> [[Int]] {
            var set = try rules(
                FaultRule(
                    name: "coin", outcome: .failRecords(.fraction(0.3), code: "InternalFailure", message: "m"),
                    trigger: .init(probability: 0.5), seed: seed))
            return (0..<40).map { _ in
                guard case .failRecords(let positions, _, _) = set.decide(batch(100), now: start).outcome else {
                    return [-1]
                }
                return positions
            }
        }
        let first = try run(seed: 42)
        #expect(try run(seed: 42) == first)
        #expect(try run(seed: 43) != first)
        let fired = first.filter { $0 != [-1] }
        #expect((10...30).contains(fired.count), "about half of 40 requests: \(fired.count)")
        let failed = fired.map(\.count).reduce(0, +)
        #expect(Double(failed) / Double(fired.count * 100) > 0.2 && Double(failed) / Double(fired.count * 100) < 0.4)
        let ascending = fired.allSatisfy { positions in zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 } }
        #expect(ascending)
    }

    @Test func everyNthAndExplicitPositions() throws {
        var set = try rules(
            FaultRule(
                name: "every", outcome: .failRecords(.every(3), code: "c", message: "m"), trigger: .init(count: 1)),
            FaultRule(
                name: "some", outcome: .failRecords(.positions([0...2, 7...7, 400...499]), code: "c", message: "m")))
        #expect(set.decide(batch(10), now: start).outcome == .failRecords([2, 5, 8], code: "c", message: "m"))
        #expect(set.decide(batch(10), now: start).outcome == .failRecords([0, 1, 2, 7], code: "c", message: "m"))
        #expect(set.decide(batch(2), now: start).outcome == .failRecords([0, 1], code: "c", message: "m"))
    }

    @Test func latenciesAddUpAndTheFirstOutcomeDecidesLeavingLaterRulesUntouched() throws {
        var set = try rules(
            FaultRule(name: "slow", latency: .fixed(milliseconds: 100), outcome: nil),
            FaultRule(
                name: "slow-error", latency: .range(5...5), outcome: .error(Self.unavailable), trigger: .init(count: 1)),
            FaultRule(name: "reset", outcome: .resetConnection(.afterRead), trigger: .init(count: 1)))
        let first = set.decide(batch(1), now: start)
        #expect(first.latency == .milliseconds(105))
        #expect(first.outcome == .error(Self.unavailable))
        #expect(first.fired == ["slow", "slow-error"])
        #expect(set.entries[2].fired == 0)
        let second = set.decide(batch(1), now: start)
        #expect(second.outcome == .resetConnection(.afterRead))
        #expect(second.fired == ["slow", "reset"])
        let third = set.decide(batch(1), now: start)
        #expect(third == FaultDecision(latency: .milliseconds(100), outcome: nil, fired: ["slow"]))
    }

    @Test func rulesMatchOperationsStreamsAndAccessKeys() throws {
        var set = try rules(
            FaultRule(
                name: "narrow", operations: [.firehose(.putRecordBatch)], streams: ["a"], accessKeyID: "AKID",
                outcome: .hang(seconds: 5)))
        #expect(set.decide(batch(1, stream: "a", key: "AKID"), now: start).outcome == .hang(.seconds(5)))
        #expect(set.decide(batch(1, stream: "b", key: "AKID"), now: start).isEmpty)
        #expect(set.decide(batch(1, stream: nil, key: "AKID"), now: start).isEmpty)
        #expect(set.decide(batch(1, stream: "a", key: "other"), now: start).isEmpty)
        #expect(set.decide(batch(1, stream: "a", key: nil), now: start).isEmpty)
        let putRecord = FaultRequest(operation: .firehose(.putRecord), stream: "a", accessKeyID: "AKID", records: 1)
        #expect(set.decide(putRecord, now: start).isEmpty)
        #expect(set.fired(stream: "a") == ["narrow": 1])
        #expect(set.fired(stream: "b") == [:])
    }

    @Test func latencyIsCappedAndRandomNumbersCoverAnyRange() throws {
        var set = try rules(
            FaultRule(name: "a", latency: .fixed(milliseconds: 200_000), outcome: nil),
            FaultRule(name: "b", latency: .fixed(milliseconds: 200_000), outcome: nil))
        #expect(set.decide(batch(1), now: start).latency == FaultRuleSet.maxLatency)
        var random = SplitMix64(seed: 1)
        _ = random.number(in: Int.min...Int.max)
        _ = random.number(in: -1...Int.max)
        #expect(random.number(in: 5...5) == 5)
        #expect((0..<1000).allSatisfy { _ in (-3...3).contains(random.number(in: -3...3)) })
    }

    @Test func namesAreUniqueAndTheSetIsBounded() throws {
        var set = try rules(FaultRule(name: "a", outcome: .hang(seconds: 1)))
        #expect(throws: FaultRuleSet.ChangeError.nameTaken("a")) {
            try set.add(FaultRule(name: "a", outcome: .hang(seconds: 2)), now: start)
        }
        for index in 1..<FaultRuleSet.maxRules { try set.add(FaultRule(name: "r\(index)", outcome: nil), now: start) }
        #expect(throws: FaultRuleSet.ChangeError.tooManyRules) {
            try set.add(FaultRule(name: "one-more", outcome: nil), now: start)
        }
        let removed = set.remove(named: "a")
        let removedAgain = set.remove(named: "a")
        #expect(removed && !removedAgain)
        set.removeAll()
        #expect(set.isEmpty)
    }
}

@Suite("Fault rule definitions")
struct FaultRuleDefinitionTests {
    func definition(_ json: String) throws -> FaultRuleDefinition {
        let decoder = JSONDecoder()
        decoder.userInfo[.rejectUnknownMembers] = true
        return try decoder.decode(FaultRuleDefinition.self, from: Data(json.utf8))
    }

    func rule(_ json: String) throws -> FaultRule {
        try definition(json).validated(defaultName: "fault-1")
    }

    func refusal(_ json: String) throws -> FaultRuleError? {
        let parsed = try definition(json)
        do throws(FaultRuleError) {
            _ = try parsed.validated(defaultName: "fault-1")
            return nil
        } catch {
            return error
        }
    }

    @Test func defaults() throws {
        let failing = try rule(#"{"FailRecords": {"Fraction": 0.3}}"#)
        #expect(failing.name == "fault-1")
        #expect(failing.operations == [.firehose(.putRecordBatch)])
        #expect(
            failing.outcome == .failRecords(.fraction(0.3), code: "ServiceUnavailableException", message: "Slow down."))
        #expect(failing.seed == FaultRule.seed(fromName: "fault-1"))
        #expect(failing.trigger == FaultRule.Trigger())
        let internalFailure = try rule(#"{"FailRecords": {"Every": 2, "ErrorCode": "InternalFailure"}}"#)
        #expect(
            internalFailure.outcome
                == .failRecords(.every(2), code: "InternalFailure", message: "Internal service failure."))
        let error = try rule(#"{"Name": "e", "Error": {"Code": "ExpiredTokenException"}, "Seed": 9}"#)
        #expect(error.operations == [.firehose(.putRecord), .firehose(.putRecordBatch)])
        #expect(
            error.outcome
                == .error(
                    FirehoseError(
                        code: "ExpiredTokenException", message: "The security token included in the request is expired")
                ))
        #expect(error.seed == 9)
        let custom = try rule(#"{"Error": {"Code": "Custom.Thing"}, "Operations": ["*"]}"#)
        #expect(
            custom.outcome
                == .error(
                    FirehoseError(
                        code: "Custom.Thing",
                        message: "Custom.Thing injected by the firehose-local fault rule 'fault-1'.")))
        #expect(custom.operations == Set(FirehoseOperation.allCases.map { .firehose($0) }))
        #expect(try rule(#"{"Hang": {}}"#).outcome == .hang(seconds: 300))
        let merged = try rule(#"{"FailRecords": {"Records": "9,0-3,2-5,6"}}"#)
        #expect(
            merged.outcome
                == .failRecords(.positions([0...6, 9...9]), code: "ServiceUnavailableException", message: "Slow down."))
        // A hostile list of 20,000 positions is one range.
        let repeated = try rule(
            #"{"FailRecords": {"Records": "\#(Array(repeating: "0", count: 20_000).joined(separator: ","))"}}"#)
        #expect(
            repeated.outcome
                == .failRecords(.positions([0...0]), code: "ServiceUnavailableException", message: "Slow down."))
        #expect(try rule(#"{"Latency": {"MinMilliseconds": 5, "MaxMilliseconds": 9}}"#).latency == .range(5...9))
        #expect(
            try rule(#"{"FailRecords": {"Records": 7}}"#).outcome
                == .failRecords(.positions([7...7]), code: "ServiceUnavailableException", message: "Slow down."))
    }

    @Test func kinesisOperationsAreNamedAsIAMNamesTheirActions() throws {
        let puts = try rule(#"{"Operations": ["kinesis:PutRecords"], "FailRecords": {"Every": 2}}"#)
        #expect(puts.operations == [.kinesis(.putRecords)])
        // Kinesis's own code by default; its message (which names the shard) is filled in per record.
        #expect(puts.outcome == .failRecords(.every(2), code: "ProvisionedThroughputExceededException", message: ""))
        let everything = try rule(#"{"Operations": ["kinesis:*", "PutRecord"], "Error": {"Code": "X"}}"#)
        #expect(everything.operations.count == KinesisAPI.Operation.allCases.count + 1)
        #expect(
            everything.operations.contains(.kinesis(.getRecords))
                && everything.operations.contains(.firehose(.putRecord)))
        let refused = try #require(try refusal(#"{"Operations": ["kinesis:Nope"], "Error": {"Code": "X"}}"#))
        #expect(refused.field == "Operations[0]" && refused.message.contains("kinesis:PutRecords"))
        let wrongCode = try #require(
            try refusal(
                #"{"Operations": ["kinesis:PutRecords"], "FailRecords": {"Every": 2, "ErrorCode": "ServiceUnavailableException"}}"#
            ))
        #expect(
            wrongCode.field == "FailRecords.ErrorCode" && wrongCode.message.contains("ProvisionedThroughputExceeded"))
        let both = try #require(
            try refusal(#"{"Operations": ["kinesis:PutRecords", "PutRecordBatch"], "FailRecords": {"Every": 2}}"#))
        #expect(both.field == "Operations")
    }

    @Test func refusalsNameTheField() throws {
        let cases: [(String, String, String)] = [
            (#"{}"#, "", "says nothing to do"),
            (#"{"Error": {"Code": "X"}, "Hang": {}}"#, "", "at most one of"),
            (#"{"Name": "a b", "Hang": {}}"#, "Name", "letters, digits"),
            (#"{"Operations": [], "Hang": {}}"#, "Operations", "at least one"),
            (#"{"Operations": ["Put"], "Hang": {}}"#, "Operations[0]", "not a Firehose operation"),
            (
                #"{"Operations": ["PutRecord"], "FailRecords": {"Every": 1}}"#, "Operations",
                "PutRecordBatch or to kinesis:PutRecords"
            ),
            (#"{"FailRecords": {}}"#, "FailRecords", "one of Fraction, Every and Records"),
            (#"{"FailRecords": {"Fraction": 0.1, "Every": 2}}"#, "FailRecords", "one of Fraction"),
            (#"{"FailRecords": {"Every": 501}}"#, "FailRecords.Every", "from 1 to 500"),
            (#"{"FailRecords": {"Records": "3-1"}}"#, "FailRecords.Records", "0-9,15"),
            (#"{"FailRecords": {"Records": "0-500"}}"#, "FailRecords.Records", "from 0 to 499"),
            (#"{"FailRecords": {"Records": "1,,2"}}"#, "FailRecords.Records", "0-9,15"),
            (
                #"{"FailRecords": {"Fraction": 0.1, "ErrorCode": "Throttled"}}"#, "FailRecords.ErrorCode",
                "InternalFailure"
            ),
            (#"{"Error": {"Code": "Bad Code"}}"#, "Error.Code", "AWS error code"),
            (#"{"Error": {"Code": "X", "Status": 302}}"#, "Error.Status", "400 to 599"),
            (#"{"ResetConnection": "Later"}"#, "ResetConnection", "BeforeRead or AfterRead"),
            (#"{"Hang": {"Seconds": 0}}"#, "Hang.Seconds", "from 1 to 3600"),
            (#"{"Latency": {"Milliseconds": 300001}}"#, "Latency.Milliseconds", "from 0 to 300000"),
            (#"{"Latency": {"MinMilliseconds": 9, "MaxMilliseconds": 5}}"#, "Latency", "must not exceed"),
            (#"{"Latency": {"MinMilliseconds": 9}}"#, "Latency", "together"),
            (#"{"Hang": {}, "Count": 0}"#, "Count", "at least 1"),
            (#"{"Hang": {}, "Probability": 0}"#, "Probability", "above 0"),
            (#"{"Hang": {}, "AfterSeconds": -1}"#, "AfterSeconds", "0 or more"),
            (#"{"Hang": {}, "ForSeconds": 0}"#, "ForSeconds", "more than 0"),
            (#"{"Hang": {}, "AccessKeyId": ""}"#, "AccessKeyId", "empty"),
            (#"{"Hang": {}, "Streams": []}"#, "Streams", "at least one"),
        ]
        for (json, field, words) in cases {
            let error = try #require(try refusal(json), "accepted: \(json)")
            #expect(error.field == field, "\(json): \(error)")
            #expect(error.message.contains(words), "\(json): \(error)")
        }
        #expect(throws: UnknownMemberError.self) { try definition(#"{"Hang": {"Secs": 1}}"#) }
    }

    @Test func aListedRuleReadsAsTheRuleItWas() throws {
        let original = try rule(
            #"{"Name": "all", "Streams": ["s"], "AccessKeyId": "k", "Latency": {"Milliseconds": 3}, "FailRecords": {"Records": "0-2,9", "ErrorMessage": "busy"}, "Count": 4, "Probability": 0.25, "AfterSeconds": 1.5, "ForSeconds": 60, "Seed": 18446744073709551615}"#
        )
        var set = FaultRuleSet()
        try set.add(original, now: Date(timeIntervalSince1970: 0))
        var writer = JSONWriter()
        set.entries[0].write(to: &writer)
        var listed = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        #expect(listed["Fired"] as? Int == 0)
        #expect(listed["Remaining"] as? Int == 4)
        #expect(listed["Spent"] as? Bool == false)
        #expect(listed["Created"] as? String == "1970-01-01T00:00:00.000Z")
        for state in ["Fired", "FiredByStream", "Remaining", "Spent", "Created"] { listed[state] = nil }
        // The seed is above Int64: compare the decoded rule rather than through JSONSerialization's numbers.
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.contains(#""Seed":18446744073709551615"#))
        let reread = try JSONDecoder().decode(
            FaultRuleDefinition.self,
            from: try JSONSerialization.data(withJSONObject: listed.filter { $0.key != "Seed" }))
        var again = try reread.validated(defaultName: "x")
        again.seed = original.seed
        #expect(again == original)
    }
}

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
