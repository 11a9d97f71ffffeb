import FirehoseClient
import FirehoseWire
import Foundation
import Testing

@Suite("Client request encoding and response decoding")
struct WireCodingTests {
    @Test("PutRecordBatch body round-trips through the server's decoder, binary-safe")
    func batchRoundTrip() throws {
        let records: [[UInt8]] = [Array(0...255), [], [0x0A], Array("héllo \"quoted\"\n".utf8), [1, 2]]
        let body = ClientRequestEncoding.putRecordBatch(deliveryStreamName: "s.1-x_y", records: records)
        let decoded = try PutRecordsRequest.decodePutRecordBatch(body)
        #expect(decoded.deliveryStreamName == "s.1-x_y")
        #expect((0..<decoded.records.count).map { Array(decoded.records[$0]) } == records)
    }

    @Test("PutRecord body and base64 match Foundation's encoder")
    func putRecordBody() throws {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let body = ClientRequestEncoding.putRecord(deliveryStreamName: "s", record: bytes)
            let expected =
                #"{"DeliveryStreamName":"s","Record":{"Data":""# + Data(bytes).base64EncodedString() + #""}}"#
            #expect(String(decoding: body, as: UTF8.self) == expected)
            let decoded = try PutRecordsRequest.decodePutRecord(body)
            #expect(Array(decoded.records[0]) == bytes)
        }
    }

    @Test("PutRecordBatch response with per-record failures")
    func batchResponse() throws {
        let body = Array(
            #"{"FailedPutCount": 2, "Encrypted": false, "RequestResponses": [{"RecordId": "a"}, {"ErrorCode": "ServiceUnavailableException", "ErrorMessage": "Slow down."}, {"ErrorCode": "InternalFailure", "ErrorMessage": "x"}]}"#
                .utf8)
        let output = try ClientResponseDecoding.putRecordBatch(body, expectedCount: 3)
        #expect(output.failedPutCount == 2)
        #expect(
            output.entries == [
                .success(recordID: "a"), .failure(code: "ServiceUnavailableException", message: "Slow down."),
                .failure(code: "InternalFailure", message: "x"),
            ])
        #expect(throws: ClientResponseDecoding.Malformed.self) {
            try ClientResponseDecoding.putRecordBatch(body, expectedCount: 4)
        }
        #expect(throws: ClientResponseDecoding.Malformed.self) {
            try ClientResponseDecoding.putRecordBatch(Array("<html>".utf8), expectedCount: 1)
        }
    }

    @Test("Error codes: header wins, namespaces and URI suffixes removed, Message in either case")
    func errorDecoding() {
        let namespaced = ClientResponseDecoding.error(
            status: 400, errorTypeHeader: nil,
            body: Array(#"{"__type":"com.amazonaws.firehose#ResourceNotFoundException","Message":"gone"}"#.utf8))
        #expect(namespaced.code == "ResourceNotFoundException")
        #expect(namespaced.message == "gone")
        let header = ClientResponseDecoding.error(
            status: 400, errorTypeHeader: "AccessDeniedException:http://internal.amazon.com/",
            body: Array(#"{"message":"no"}"#.utf8))
        #expect(header.code == "AccessDeniedException")
        #expect(header.message == "no")
        let html = ClientResponseDecoding.error(
            status: 502, errorTypeHeader: nil, body: Array("<html>Bad gateway</html>".utf8))
        #expect(html.code == "InternalFailure")
        #expect(html.message.contains("Bad gateway"))
        #expect(ClientResponseDecoding.error(status: 429, errorTypeHeader: nil, body: []).code == "ThrottlingException")
    }
}
