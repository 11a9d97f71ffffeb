import AWSSigV4
import FirehoseWire
import Foundation
import ServerCore
import Testing

@testable import FaultInjection

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
        try JSONDecoder().decode(MemberChecked<FaultRuleDefinition>.self, from: Data(json.utf8)).value
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
        #expect(everything.operations.count == KinesisOperation.allCases.count + 1)
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
        let bytes = OrderedJSONEncoder.encode(set.entries[0].listing)
        var listed = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(listed["Fired"] as? Int == 0)
        #expect(listed["Remaining"] as? Int == 4)
        #expect(listed["Spent"] as? Bool == false)
        #expect(listed["Created"] as? String == "1970-01-01T00:00:00.000Z")
        for state in ["Fired", "FiredByStream", "Remaining", "Spent", "Created"] { listed[state] = nil }
        // The seed is above Int64: compare the decoded rule rather than through JSONSerialization's numbers.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""Seed":18446744073709551615"#))
        // The definition's members in its order, then the state.
        #expect(
            text
                == #"{"Name":"all","Operations":["PutRecordBatch"],"Streams":["s"],"AccessKeyId":"k","Latency":{"Milliseconds":3},"FailRecords":{"Records":"0-2,9","ErrorCode":"ServiceUnavailableException","ErrorMessage":"busy"},"Count":4,"Probability":0.25,"AfterSeconds":1.5,"ForSeconds":60,"Seed":18446744073709551615,"Fired":0,"FiredByStream":{},"Remaining":4,"Spent":false,"Created":"1970-01-01T00:00:00.000Z"}"#
        )
        let reread = try JSONDecoder().decode(
            FaultRuleDefinition.self,
            from: try JSONSerialization.data(withJSONObject: listed.filter { $0.key != "Seed" }))
        var again = try reread.validated(defaultName: "x")
        again.seed = original.seed
        #expect(again == original)
    }
}
