import FirehoseTestSupport
import FirehoseWire
import Foundation
import HTTPTransports
import Testing

@testable import FirehoseSink

@Suite("HTTP endpoint delivery: AWS's request and response specification, and RetryOptions")
struct HTTPEndpointContractTests {
    static let settings = HTTPEndpointSettings(
        url: URL(string: "http://127.0.0.1:8080/ingest?team=a")!, accessKey: "secret-key",
        commonAttributes: [.init(name: "env", value: "ci"), .init(name: "team \"a\"", value: "x")],
        deliveryStreamARN: "arn:aws:firehose:us-east-1:000000000000:deliverystream/web")
    static let sent = Date(timeIntervalSince1970: 1_795_266_309.123)

    func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("The request carries every header of the specification and the records, base64, in order")
    func request() throws {
        let records: [ArraySlice<UInt8>] = [Array("one".utf8)[...], [0, 255, 10][...], [][...]]
        let request = HTTPEndpointContract.request(
            id: "0b6f2f59-5bf4-4b35-9c5c-4c5d5e9e1c11", timestamp: Self.sent, records: records,
            settings: Self.settings)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/ingest?team=a")
        #expect(request.timeout == .seconds(180))
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("X-Amz-Firehose-Protocol-Version") == "1.0")
        #expect(request.header("User-Agent") == "Amazon Kinesis Data Firehose Agent/1.0")
        #expect(request.header("X-Amz-Firehose-Request-Id") == "0b6f2f59-5bf4-4b35-9c5c-4c5d5e9e1c11")
        #expect(request.header("X-Amz-Firehose-Source-Arn") == Self.settings.deliveryStreamARN)
        #expect(request.header("X-Amz-Firehose-Access-Key") == "secret-key")
        #expect(request.header("Content-Encoding") == nil)
        let attributes = try json(Array(try #require(request.header("X-Amz-Firehose-Common-Attributes")).utf8))
        #expect(attributes as NSDictionary == ["commonAttributes": ["env": "ci", "team \"a\"": "x"]] as NSDictionary)
        let body = try json(request.body)
        #expect(body["requestId"] as? String == "0b6f2f59-5bf4-4b35-9c5c-4c5d5e9e1c11")
        #expect(body["timestamp"] as? Int == 1_795_266_309_123)
        let data = try #require(body["records"] as? [[String: String]]).map { Data(base64Encoded: $0["data"]!)! }
        #expect(data == [Data("one".utf8), Data([0, 255, 10]), Data()])
        // Members in the specification's order; attributes in the configuration's.
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"requestId":"0b6f2f59-5bf4-4b35-9c5c-4c5d5e9e1c11","timestamp":1795266309123,"records":[{"data":"b25l"},{"data":"AP8K"},{"data":""}]}"#
        )
        #expect(
            request.header("X-Amz-Firehose-Common-Attributes") == #"{"commonAttributes":{"env":"ci","team \"a\"":"x"}}"#
        )
    }

    @Test("GZIP compresses the body and says so; no key and no attributes leave their headers out")
    func gzipAndOptionalHeaders() throws {
        var settings = Self.settings
        settings.contentEncoding = .gzip
        settings.accessKey = nil
        settings.commonAttributes = []
        let request = HTTPEndpointContract.request(
            id: "id", timestamp: Self.sent, records: [Array("x".utf8)[...]], settings: settings)
        #expect(request.header("Content-Encoding") == "gzip")
        #expect(request.header("X-Amz-Firehose-Access-Key") == nil)
        #expect(request.header("X-Amz-Firehose-Common-Attributes") == nil)
        let body = try json(try Gzip.decompress(request.body, limit: 1 << 20))
        #expect(body["requestId"] as? String == "id")
    }

    static func response(
        _ status: Int, _ body: String, contentType: String? = "application/json",
        encoding: String? = nil
    ) -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("content-type", contentType)) }
        if let encoding { headers.append(("Content-Encoding", encoding)) }
        return HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    @Test("An answer as the specification says acknowledges the request")
    func acknowledged() {
        for answer in [
            #"{"requestId": "r-1", "timestamp": 1795266309123}"#,
            #"{"requestId":"r-1","timestamp":1.5e12,"errorMessage":""}"#,
            #" {"timestamp": 0, "requestId": "r\u002d1"} "#,
        ] {
            #expect(HTTPEndpointContract.check(Self.response(200, answer), requestID: "r-1") == nil, "\(answer)")
        }
        #expect(
            HTTPEndpointContract.check(
                Self.response(
                    200, #"{"requestId":"r-1","timestamp":1}"#, contentType: "application/json; charset=utf-8"),
                requestID: "r-1") == nil)
    }

    @Test(
        "Every other answer fails the attempt, with the code AWS writes for it",
        arguments: [
            (
                500, #"{"requestId":"r-1","timestamp":1,"errorMessage":"down"}"#, "application/json", nil,
                "HttpEndpoint.DestinationException", "500: {\"requestId\""
            ),
            (
                201, #"{"requestId":"r-1","timestamp":1}"#, "application/json", nil,
                "HttpEndpoint.DestinationException", "201:"
            ),
            (
                200, #"{"requestId":"r-2","timestamp":1}"#, "application/json", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "requestId 'r-2' is not the request's"
            ),
            (
                200, #"{"timestamp":1}"#, "application/json", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "requestId is missing"
            ),
            (
                200, #"{"requestId":"r-1"}"#, "application/json", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "timestamp is missing"
            ),
            (
                200, #"{"requestId":"r-1","timestamp":"1"}"#, "application/json", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "timestamp is not a number"
            ),
            (
                200, #"{"requestId":"r-1","timestamp":1,"status":"ok"}"#, "application/json", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "unexpected member 'status'"
            ),
            (
                200, "OK", "application/json", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "the body is not a JSON object"
            ),
            (
                200, "", "application/json", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "the body is not a JSON object"
            ),
            (
                200, #"{"requestId":"r-1","timestamp":1}"#, "text/plain", nil,
                "HttpEndpoint.InvalidResponseFromDestination", "Content-Type is 'text/plain'"
            ),
            (
                200, #"{"requestId":"r-1","timestamp":1}"#, nil, nil,
                "HttpEndpoint.InvalidResponseFromDestination", "Content-Type is missing"
            ),
            (
                200, #"{"requestId":"r-1","timestamp":1}"#, "application/json", "gzip",
                "HttpEndpoint.InvalidResponseFromDestination", "Content-Encoding 'gzip' is not allowed"
            ),
        ] as [(Int, String, String?, String?, String, String)])
    func refused(
        status: Int, body: String, contentType: String?, encoding: String?, code: String, detail: String
    ) throws {
        let failure = try #require(
            HTTPEndpointContract.check(
                Self.response(status, body, contentType: contentType, encoding: encoding), requestID: "r-1"))
        #expect(failure.code == code)
        #expect(failure.message.contains(detail), "\(failure.message)")
        #expect(!failure.isPermanent)
    }

    @Test("What a hostile endpoint echoes is cut: the message goes into every error record of the request")
    func hostileAnswersAreCut() throws {
        let long = String(repeating: "é", count: 300_000)
        for response in [
            Self.response(200, #"{"requestId":"\#(long)","timestamp":1}"#),
            Self.response(200, #"{"\#(long)":1,"requestId":"r","timestamp":1}"#),
            Self.response(200, "{}", contentType: long),
            Self.response(500, long),
        ] {
            let failure = try #require(HTTPEndpointContract.check(response, requestID: "r"))
            #expect(failure.message.utf8.count <= HTTPEndpointContract.Failure.maxMessageBytes)
            #expect(failure.message.utf8.count < 1400, "\(failure.message.utf8.count)")
        }
    }

    @Test("413 is permanent; an answer over 1 MiB is too large")
    func permanentAndTooLarge() throws {
        let tooLarge = try #require(HTTPEndpointContract.check(Self.response(413, "too big"), requestID: "r"))
        #expect(tooLarge.isPermanent && tooLarge.code == "HttpEndpoint.DestinationException")
        let huge = HTTPResponse(
            status: 200, headers: [("Content-Type", "application/json")],
            body: [UInt8](repeating: 0x20, count: 1_048_577))
        #expect(HTTPEndpointContract.check(huge, requestID: "r") == .responseTooLarge)
    }

    @Test("Retries wait 1 s, doubling to at most 120 s, while the waits fit DurationInSeconds")
    func retries() {
        let failure = HTTPEndpointContract.Failure.timedOut(after: .seconds(180))
        var retry = HTTPEndpointRetry(duration: .seconds(300))
        var waits: [Duration] = []
        while case .retry(let delay) = retry.attemptFailed(failure, jitter: 1) { waits.append(delay) }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 120, 53].map { .seconds($0) })
        #expect(retry.failedAttempts == 10 && retry.waited == .seconds(300))

        var jittered = HTTPEndpointRetry(duration: .seconds(300))
        #expect(jittered.attemptFailed(failure, jitter: 1.15) == .retry(after: .milliseconds(1150)))
        #expect(jittered.attemptFailed(failure, jitter: 0.5) == .retry(after: .milliseconds(1700)))

        var none = HTTPEndpointRetry(duration: .zero)
        #expect(none.attemptFailed(failure, jitter: 1) == .giveUp)
        #expect(none.failedAttempts == 1)

        var permanent = HTTPEndpointRetry(duration: .seconds(300))
        #expect(permanent.attemptFailed(.destination(status: 413, body: ""), jitter: 1) == .giveUp)
    }

    @Test("A record the endpoint never accepted becomes AWS's HTTP endpoint error record")
    func errorRecord() throws {
        var batch = RecordBatch()
        ErrorOutput.appendHTTPEndpointFailure(
            [0, 1, 2], failure: .destination(status: 503, body: "busy"), arrival: Self.sent,
            attemptEnding: Self.sent.addingTimeInterval(2), attemptsMade: 4, dataID: "49000000000000000000001.0",
            to: &batch)
        let line = String(decoding: batch[0], as: UTF8.self)
        #expect(line.hasSuffix("\n"))
        #expect(
            line.hasPrefix(
                #"{"attemptsMade":4,"arrivalTimestamp":1795266309123,"errorCode":"HttpEndpoint.DestinationException","errorMessage":"The following response was received from the endpoint destination. 503: busy","attemptEndingTimestamp":1795266311123,"rawData":"AAEC","subsequenceNumber":0,"dataId":"49000000000000000000001.0"}"#
            ))
    }
}
