import FirehoseWire
import Foundation
import Testing

@testable import FirehoseSink

@Suite("The Lambda processor's contract: the event, the status model, the error record")
struct LambdaContractTests {
    static let records = [
        LambdaContract.Record(id: "r-0", approximateArrivalTimestamp: 1_700_000_000_123, data: Array("one".utf8)),
        LambdaContract.Record(id: "r-1", approximateArrivalTimestamp: 1_700_000_000_456, data: [0x00, 0xFF]),
        LambdaContract.Record(id: "r-2", approximateArrivalTimestamp: 1_700_000_000_789, data: []),
    ]

    private func outcomes(_ answer: String) -> Result<[LambdaContract.Outcome], LambdaContract.Failure> {
        LambdaContract.outcomes(of: Array(answer.utf8), for: Self.records)
    }

    private func entry(_ id: String, _ result: String, data: String? = nil, metadata: String? = nil) -> String {
        var fields = [#""recordId":"\#(id)""#, #""result":"\#(result)""#]
        if let data { fields.append(#""data":"\#(data)""#) }
        if let metadata { fields.append(#""metadata":\#(metadata)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    @Test("The event is AWS's: invocationId, deliveryStreamArn, region, records with base64 data and ms arrival")
    func event() throws {
        let bytes = LambdaContract.event(
            invocationID: "4e8f4f9e-0000-4000-8000-000000000001",
            deliveryStreamARN: "arn:aws:firehose:us-east-1:000000000000:deliverystream/clicks", region: "us-east-1",
            records: Self.records)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["invocationId"] as? String == "4e8f4f9e-0000-4000-8000-000000000001")
        #expect(
            object["deliveryStreamArn"] as? String == "arn:aws:firehose:us-east-1:000000000000:deliverystream/clicks")
        #expect(object["region"] as? String == "us-east-1")
        let records = try #require(object["records"] as? [[String: Any]])
        #expect(records.map { $0["recordId"] as? String } == ["r-0", "r-1", "r-2"])
        #expect(
            records.map { ($0["approximateArrivalTimestamp"] as? NSNumber)?.int64Value } == [
                1_700_000_000_123, 1_700_000_000_456, 1_700_000_000_789,
            ])
        #expect(records.map { $0["data"] as? String } == ["b25l", "AP8=", ""])
        #expect(bytes.count <= Self.records.reduce(60) { $0 + LambdaContract.eventBytes(of: $1) } + 120)
        // Members in the order AWS's events show them, the same every time.
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"invocationId":"4e8f4f9e-0000-4000-8000-000000000001","deliveryStreamArn":"arn:aws:firehose:us-east-1:000000000000:deliverystream/clicks","region":"us-east-1","records":[{"recordId":"r-0","approximateArrivalTimestamp":1700000000123,"data":"b25l"},{"recordId":"r-1","approximateArrivalTimestamp":1700000000456,"data":"AP8="},{"recordId":"r-2","approximateArrivalTimestamp":1700000000789,"data":""}]}"#
        )
    }

    @Test("Ok, Dropped and ProcessingFailed per record, in the order sent, whatever the answer's order")
    func statusModel() throws {
        let answer =
            #"{"records":["# + entry("r-2", "ProcessingFailed") + "," + entry("r-0", "Ok", data: "T05F")
            + "," + entry("r-1", "Dropped") + "]}"
        #expect(
            try outcomes(answer).get() == [
                .ok(data: Array("ONE".utf8), partitionKeys: [:]), .dropped, .failed(.processingFailed),
            ])
    }

    @Test("metadata.partitionKeys feed partitionKeyFromLambda; records the function made up are ignored")
    func partitionKeysAndStrangers() throws {
        let answer =
            #"{"records":["#
            + entry("r-0", "Ok", data: "", metadata: #"{"partitionKeys":{"customer":"42","year":"2026"}}"#)
            + "," + entry("made-up", "Ok", data: "eA==") + "," + entry("r-1", "Ok", data: "", metadata: "null")
            + "," + entry("r-2", "Ok", data: "", metadata: #"{"partitionKeys":{}}"#) + "]}"
        #expect(
            try outcomes(answer).get() == [
                .ok(data: [], partitionKeys: ["customer": "42", "year": "2026"]), .ok(data: [], partitionKeys: [:]),
                .ok(data: [], partitionKeys: [:]),
            ])
    }

    @Test("A record left out or given back twice fails the whole invocation, with AWS's codes and words")
    func missingAndDuplicated() {
        let missing = #"{"records":["# + entry("r-0", "Ok", data: "") + "," + entry("r-1", "Dropped") + "]}"
        #expect(outcomes(missing) == .failure(.missingRecordID))
        #expect(outcomes(#"{"records":[]}"#) == .failure(.missingRecordID))
        let duplicated =
            #"{"records":["# + entry("r-0", "Ok", data: "") + "," + entry("r-0", "Dropped") + ","
            + entry("r-1", "Dropped") + "," + entry("r-2", "Dropped") + "]}"
        #expect(outcomes(duplicated) == .failure(.duplicatedRecordID))
        #expect(LambdaContract.Failure.missingRecordID.code == "Lambda.MissingRecordId")
        #expect(LambdaContract.Failure.duplicatedRecordID.code == "Lambda.DuplicatedRecordId")
    }

    @Test(
        "An answer that is not the status model is a Lambda.JsonProcessingException naming what is wrong",
        arguments: [
            ("not json", "The response is not a JSON object."),
            ("[]", "The response is not a JSON object."),
            (#"{"recordz":[]}"#, "The response has no records array."),
            (#"{"records":[{"result":"Ok"}]}"#, "records[0] has no string recordId."),
            (
                #"{"records":[{"recordId":"r-0","result":"OK","data":""}]}"#,
                "records[0] (recordId r-0) has a result that is not Ok, Dropped or ProcessingFailed."
            ),
            (
                #"{"records":[{"recordId":"r-0","result":"Ok"}]}"#,
                "records[0] (recordId r-0) has result Ok and no string data."
            ),
            (
                #"{"records":[{"recordId":"r-0","result":"Ok","data":"not base64!"}]}"#,
                "records[0] (recordId r-0) has data that is not base64."
            ),
            (
                #"{"records":[{"recordId":"r-0","result":"Ok","data":"","metadata":{"partitionKeys":{"n":1}}}]}"#,
                "records[0] (recordId r-0): metadata.partitionKeys.n is not a string."
            ),
            (
                #"{"records":[{"recordId":"r-0","result":"Ok","data":"","metadata":{"partitionKeys":[]}}]}"#,
                "records[0] (recordId r-0): metadata.partitionKeys is not an object."
            ),
            (
                #"{"records":[{"recordId":"r-0","result":"Ok","data":"","metadata":"x"}]}"#,
                "records[0] (recordId r-0): metadata is not an object."
            ),
            (#"{"records":[7]}"#, "records[0] has no string recordId."),
            (#"{"records":[]} trailing"#, "The response is not a JSON object."),
            (#"{"records":[01]}"#, "The response is not a JSON object."),
            (#"{"records":"all of them"}"#, "The response has no records array."),
            (
                #"{"records":[],"x":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
                "The response is not a JSON object."
            ),
            (#"{"records":[], "x":"\#u{1}"}"#, "The response is not a JSON object."),
        ])
    func invalidAnswers(answer: String, detail: String) {
        guard case .failure(let failure) = outcomes(answer) else {
            Issue.record("\(answer) was accepted")
            return
        }
        #expect(failure.code == "Lambda.JsonProcessingException")
        #expect(failure.message.hasPrefix("There was an error parsing returned records from the Lambda function."))
        #expect(failure.message.hasSuffix(detail))
    }

    @Test("Read as Jackson reads it: numbers of any size, escapes, a repeated member's last value, any member order")
    func tolerantWhereJSONIs() throws {
        // Members this does not read may hold what a Double cannot (Foundation's decoder refused these).
        let answer =
            #"{"took": 1e999, "records":[{"metadata":{"partitionKeys":{"k\u00e9y":"v\/1"},"score":123456789012345678901234567890},"data":"\/\/8=","result":"Ok","recordId":"r-0","result":"Ok"},"#
            + #"{"recordId":"r\u002d1","result":"Dropped","extra":[1,{"a":null}]},{"recordId":"r-2","result":"Ok","data":"","metadata":null}],"#
            + #""records_count": -0.5E+3}"#
        #expect(
            try outcomes(answer).get() == [
                .ok(data: [0xFF, 0xFF], partitionKeys: ["kéy": "v/1"]), .dropped, .ok(data: [], partitionKeys: [:]),
            ])
        // The last `records` counts, as the last of any repeated member.
        let repeated =
            #"{"records":[], "records":["# + entry("r-0", "Dropped") + "," + entry("r-1", "Dropped") + ","
            + entry("r-2", "Dropped") + "]}"
        #expect(try outcomes(repeated).get() == [.dropped, .dropped, .dropped])
        // Text that is not UTF-8 is not JSON.
        guard
            case .failure(let failure) = LambdaContract.outcomes(
                of: Array(#"{"records":[],"x":""#.utf8) + [0xFF] + Array(#""}"#.utf8), for: [])
        else {
            Issue.record("accepted")
            return
        }
        #expect(failure.message.hasSuffix("The response is not UTF-8 text."))
    }

    @Test("A runtime's error object is a function error with its message")
    func errorObject() {
        #expect(
            outcomes(#"{"errorMessage":"it \"broke\"","errorType":"Exception","stackTrace":[]}"#)
                == .failure(.functionError("The function failed: it \"broke\"")))
    }

    @Test("An answer over 6 MB fails the invocation as a function error")
    func oversizedAnswer() {
        let answer = [UInt8](repeating: 0x20, count: LambdaContract.maxPayloadBytes + 1)
        guard case .failure(let failure) = LambdaContract.outcomes(of: answer, for: Self.records) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.code == "Lambda.FunctionError")
    }

    @Test("A failed record's error record has the members, order and lambdaARN real Firehose writes")
    func errorRecord() {
        var batch = RecordBatch()
        ErrorOutput.appendLambdaFailure(
            Array("FAIL this one\n".utf8), failure: .processingFailed,
            arrival: Date(timeIntervalSince1970: 1_789_014_240.448),
            attemptEnding: Date(timeIntervalSince1970: 1_789_014_301.529), attemptsMade: 1,
            lambdaARN: "arn:aws:lambda:us-west-2:123456789012:function:transform", to: &batch)
        #expect(
            String(decoding: batch[0], as: UTF8.self)
                == #"{"rawData":"RkFJTCB0aGlzIG9uZQo=","errorCode":"Lambda.ProcessingFailedStatus","errorMessage":"ProcessingFailed status set for record","attemptsMade":1,"arrivalTimestamp":1789014240448,"attemptEndingTimestamp":1789014301529,"lambdaARN":"arn:aws:lambda:us-west-2:123456789012:function:transform"}"#
                + "\n")
    }
}
