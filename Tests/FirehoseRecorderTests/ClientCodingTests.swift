import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

@testable import FirehoseClient

/// The client's fast PutRecordBatch body writer and answer reader against FirehoseWire's reference
/// coding: same bytes out, same output in (or a fallback to the reference).
@Suite("PutRecordBatch coding: fast paths against the reference")
struct ClientCodingTests {
    @Test("Bodies are byte for byte what ClientRequestEncoding writes")
    func bodies() {
        var generator = SeededBytes(seed: 77)
        for round in 0..<200 {
            let count = 1 + Int(generator.next() % 40)
            let records = (0..<count).map { index -> [UInt8] in
                // Every length modulo 3, empty records, and now and then a large one.
                let size = round % 20 == 0 && index == 0 ? 100_000 : Int(generator.next() % 700)
                return generator.bytes(size)
            }
            let name = ["events", "a", "Stream_1.2-x", String(repeating: "z", count: 64)][round % 4]
            #expect(
                BatchBody.encode(deliveryStreamName: name, records: records)
                    == ClientRequestEncoding.putRecordBatch(deliveryStreamName: name, records: records))
            let slices = records.map { ArraySlice($0) }
            #expect(
                BatchBody.encode(deliveryStreamName: name, records: slices)
                    == ClientRequestEncoding.putRecordBatch(deliveryStreamName: name, records: records))
        }
        // A name that would need escaping goes to the reference writer.
        let odd = "na\"me"
        #expect(
            BatchBody.encode(deliveryStreamName: odd, records: [[1, 2, 3]])
                == ClientRequestEncoding.putRecordBatch(deliveryStreamName: odd, records: [[1, 2, 3]]))
    }

    private func reference(_ text: String, _ count: Int) -> PutRecordBatchOutput? {
        try? ClientResponseDecoding.putRecordBatch(Array(text.utf8), expectedCount: count)
    }

    private func fast(_ text: String, _ count: Int) -> PutRecordBatchOutput? {
        BatchResponse.decode(Array(text.utf8), expectedCount: count)
    }

    @Test("Answers the scanner reads decode exactly as the reference decodes them")
    func answersRead() {
        let answers: [(String, Int)] = [
            (#"{"Encrypted":false,"FailedPutCount":0,"RequestResponses":[{"RecordId":"a1"},{"RecordId":"b2"}]}"#, 2),
            (
                #"{"FailedPutCount":1,"RequestResponses":[{"RecordId":"x"},"#
                    + #"{"ErrorCode":"ServiceUnavailableException","ErrorMessage":"Slow down."}],"Encrypted":true}"#,
                2
            ),
            (" {\n \"RequestResponses\" : [ { \"RecordId\" : \"r\" } ] ,\t\"FailedPutCount\" : 0 } \n", 1),
            (#"{"RequestResponses":[{"ErrorCode":"InternalFailure"}]}"#, 1),
            (#"{"RequestResponses":[{}],"FailedPutCount":0}"#, 1),
            (#"{"RequestResponses":[{"ErrorCode":"","RecordId":"id"}]}"#, 1),
            (#"{"RequestResponses":[{"RecordId":"id","Extra":12,"Flag":true}],"Other":"x","N":-3}"#, 1),
            (#"{"FailedPutCount":5,"RequestResponses":[{"RecordId":"1"}]}"#, 1),
            (#"{"RequestResponses":[]}"#, 0),
        ]
        for (text, count) in answers {
            let fast = fast(text, count)
            #expect(fast != nil, "the scanner refused \(text)")
            #expect(fast == reference(text, count), "\(text)")
        }
    }

    @Test("Anything unusual is left to the reference decoder")
    func answersLeft() {
        let answers: [(String, Int)] = [
            (#"{"RequestResponses":[{"RecordId":"a\"b"}]}"#, 1),
            (#"{"RequestResponses":[{"RecordId":"caf\#u{e9}"}]}"#, 1),
            (#"{"RequestResponses":[{"RecordId":null}]}"#, 1),
            (#"{"RequestResponses":[{"RecordId":"a","RecordId":"b"}]}"#, 1),
            (#"{"FailedPutCount":1.0,"RequestResponses":[{"RecordId":"a"}]}"#, 1),
            (#"{"FailedPutCount":01,"RequestResponses":[{"RecordId":"a"}]}"#, 1),
            (#"{"Nested":{"a":1},"RequestResponses":[{"RecordId":"a"}]}"#, 1),
            (#"{"RequestResponses":[{"RecordId":"a"}]}"#, 2),
            (#"{"FailedPutCount":0}"#, 0),
            (#"{"RequestResponses":[{"RecordId":"a"}]} trailing"#, 1),
            (#"<html>captive portal</html>"#, 1),
            ("", 1),
            (#"{"RequestResponses":[{"RecordId":"a"}"#, 1),
            (#"{"FailedPutCount":99999999999999999999999,"RequestResponses":[]}"#, 0),
        ]
        for (text, count) in answers {
            #expect(fast(text, count) == nil, "the scanner accepted \(text)")
        }
    }

    @Test("Random answers: whatever the scanner accepts, the reference decodes the same way")
    func randomAnswers() {
        var generator = SeededBytes(seed: 5)
        let pieces = [
            #"{"RecordId":"abc"}"#, #"{"ErrorCode":"InternalFailure","ErrorMessage":"m"}"#, "{}",
            #"{"ErrorCode":"ServiceUnavailableException"}"#, #"{"RecordId":"q","ErrorMessage":"ignored"}"#,
        ]
        for _ in 0..<300 {
            let count = Int(generator.next() % 6)
            let entries = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }
            var fields = [#""RequestResponses":[\#(entries.joined(separator: ","))]"#]
            if generator.next() % 2 == 0 { fields.append(#""FailedPutCount":\#(generator.next() % 4)"#) }
            if generator.next() % 2 == 0 { fields.append(#""Encrypted":\#(generator.next() % 2 == 0)"#) }
            fields.shuffle(using: &generator)
            let text = "{" + fields.joined(separator: ",") + "}"
            let expected = Int(generator.next() % 3) == 0 ? count + 1 : count
            let fast = fast(text, expected)
            #expect(fast == reference(text, expected), "\(text)")
        }
    }
}

extension SeededBytes: RandomNumberGenerator {}
