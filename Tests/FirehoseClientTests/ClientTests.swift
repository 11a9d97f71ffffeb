import FirehoseClient
import FirehoseTestSupport
import Foundation
import Testing

func makeClient(
    _ endpoint: FakeFirehoseEndpoint, gzip: Bool = false, provider: (any CredentialsProvider)? = nil,
    timeout: Duration = .seconds(5), now: @escaping @Sendable () -> Date = { Date() }
) -> FirehoseClient {
    FirehoseClient(
        configuration: .init(
            endpoint: URL(string: "http://127.0.0.1:4573")!, region: "us-east-1",
            credentialsProvider: provider ?? StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
            transport: endpoint, gzipRequestBodies: gzip, timeout: timeout, now: now))
}

@Suite("FirehoseClient against the fake endpoint")
struct ClientTests {
    @Test("PutRecord and PutRecordBatch are signed, verified and delivered")
    func putAndBatch() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let client = makeClient(endpoint)
        let single = try await client.putRecord(Array("hello".utf8), deliveryStreamName: "events")
        #expect(!single.recordID.isEmpty)
        let batch = try await client.putRecordBatch([Array("a".utf8), Array("b".utf8)], deliveryStreamName: "events")
        #expect(batch.failedPutCount == 0)
        #expect(batch.entries.allSatisfy { $0.isSuccess })
        #expect(endpoint.delivered("events") == [Array("hello".utf8), Array("a".utf8), Array("b".utf8)])
        let request = try #require(endpoint.requests.last)
        #expect(request.operation == "PutRecordBatch")
        #expect(request.status == 200)
        let host = request.headers.first { $0.name == "Host" }?.value
        #expect(host == "127.0.0.1:4573")
        #expect(
            request.headers.contains {
                $0.name == "Authorization" && $0.value.contains("/us-east-1/firehose/aws4_request")
            })
    }

    @Test("Gzip bodies: Content-Encoding gzip, signature over the compressed bytes")
    func gzipBodies() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let client = makeClient(endpoint, gzip: true)
        let record = Array(String(repeating: "compressible text ", count: 500).utf8)
        _ = try await client.putRecordBatch([record, record], deliveryStreamName: "events")
        let request = try #require(endpoint.requests.first)
        #expect(request.gzipped)
        #expect(request.status == 200)
        let signed = request.headers.first { $0.name == "Authorization" }?.value ?? ""
        #expect(signed.contains("content-encoding"))
        #expect(endpoint.delivered("events") == [record, record])
    }

    @Test("Service errors carry code, message, HTTP status and request id")
    func serviceErrors() async throws {
        let endpoint = FakeFirehoseEndpoint(knownStreams: ["events"])
        let client = makeClient(endpoint)
        let error = await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([1], deliveryStreamName: "missing")
        }
        #expect(error?.kind == .service)
        #expect(error?.code == "ResourceNotFoundException")
        #expect(error?.message == "Firehose missing under account 000000000000 not found.")
        #expect(error?.httpStatus == 400)
        #expect(error?.requestID?.isEmpty == false)
        #expect(error?.isRetryableServiceError == false)

        endpoint.enqueue(.error(status: 503, code: "ServiceUnavailableException", message: "Slow down."))
        let unavailable = await #expect(throws: FirehoseClientError.self) {
            try await client.putRecordBatch([[1]], deliveryStreamName: "events")
        }
        #expect(unavailable?.httpStatus == 503)
        #expect(unavailable?.isRetryableServiceError == true)
        #expect(unavailable?.serviceError?.code == "ServiceUnavailableException")
    }

    @Test("Network failures are distinguishable from service errors")
    func networkErrors() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let client = makeClient(endpoint, timeout: .milliseconds(50))
        for behavior in [
            FakeFirehoseEndpoint.Behavior.refuseConnection, .dropConnection(afterDelivering: true),
            .slow(.seconds(5), then: .accept),
        ] {
            endpoint.enqueue(behavior)
            let error = await #expect(throws: FirehoseClientError.self) {
                try await client.putRecord([1], deliveryStreamName: "events")
            }
            #expect(error?.kind == .network)
            #expect(error?.isNetworkError == true)
            #expect(error?.code == nil)
            #expect(error?.underlying is FakeFirehoseEndpoint.TransportFailure)
        }
        // A slow answer within the timeout is just slow.
        endpoint.enqueue(.slow(.milliseconds(10), then: .accept))
        _ = try await client.putRecord([1], deliveryStreamName: "events")
    }

    // The default transport sends loopback http over HTTP1Transport on Linux, so both are checked.
    @Test(
        "A refused connection is a network error, with each transport",
        arguments: ["DefaultTransport", "URLSessionTransport", "HTTP1Transport"])
    func refusedConnection(transportName: String) async throws {
        let transport: any HTTPTransport =
            switch transportName {
            case "URLSessionTransport": URLSessionTransport()
            case "HTTP1Transport": HTTP1Transport()
            default: DefaultTransport()
            }
        let client = FirehoseClient(
            endpoint: URL(string: "http://127.0.0.1:1")!, region: "us-east-1",
            credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
            transport: transport)
        let error = await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([1], deliveryStreamName: "events")
        }
        #expect(error?.kind == .network)
    }

    @Test("Credentials failures send nothing and say so")
    func credentialsFailure() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let client = makeClient(endpoint, provider: EnvironmentCredentialsProvider(environment: [:]))
        let error = await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([1], deliveryStreamName: "events")
        }
        #expect(error?.kind == .credentials)
        #expect(error?.message.contains("AWS_ACCESS_KEY_ID") == true)
        #expect(endpoint.requestCount == 0)
    }

    @Test("Unknown keys are rejected by signature verification")
    func wrongKeys() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let client = makeClient(
            endpoint, provider: StaticCredentialsProvider(accessKeyId: "other", secretAccessKey: "x"))
        let error = await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([1], deliveryStreamName: "events")
        }
        #expect(error?.code == "UnrecognizedClientException")
    }

    @Test("Invalid requests are refused before sending")
    func invalidRequests() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let client = makeClient(endpoint)
        let big = await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([UInt8](repeating: 1, count: 1_024_001), deliveryStreamName: "events")
        }
        #expect(big?.kind == .invalidRequest)
        #expect(big?.message.contains("1024000") == true)
        await #expect(throws: FirehoseClientError.self) {
            try await client.putRecordBatch([[UInt8]](repeating: [1], count: 501), deliveryStreamName: "events")
        }
        await #expect(throws: FirehoseClientError.self) {
            try await client.putRecordBatch([[UInt8]](), deliveryStreamName: "events")
        }
        await #expect(throws: FirehoseClientError.self) {
            try await client.putRecordBatch(
                [[UInt8]](repeating: [UInt8](repeating: 0, count: 1_000_000), count: 5), deliveryStreamName: "events")
        }
        await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([1], deliveryStreamName: "bad name")
        }
        // Exactly at the limit is fine.
        _ = try await client.putRecord([UInt8](repeating: 1, count: 1_024_000), deliveryStreamName: "events")
        #expect(endpoint.requestCount == 1)
    }

    @Test("A 200 with an unexpected body is an invalid response")
    func invalidResponse() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.enqueue(.rawSuccess(body: "{}"))
        let error = await #expect(throws: FirehoseClientError.self) {
            try await makeClient(endpoint).putRecordBatch([[1]], deliveryStreamName: "events")
        }
        #expect(error?.kind == .invalidResponse)
    }

    @Test("A clock an hour slow is corrected from the server's Date header and the request re-signed")
    func clockSkew() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let client = makeClient(endpoint, now: { Date().addingTimeInterval(-3600) })
        _ = try await client.putRecord([1], deliveryStreamName: "events")
        #expect(endpoint.requests.map(\.status) == [400, 200])
        #expect(endpoint.requests.first?.errorCode == "InvalidSignatureException")
        #expect(abs(client.clockSkewSeconds - 3600) < 5)
        _ = try await client.putRecord([2], deliveryStreamName: "events")
        #expect(endpoint.requests.count == 3)
    }

    @Test("ExpiredTokenException invalidates the provider's cache so the next call fetches anew")
    func expiredTokenInvalidates() async throws {
        let endpoint = FakeFirehoseEndpoint(credentials: [
            AWSCredentials(accessKeyId: "test", secretAccessKey: "test", sessionToken: "t")
        ])
        let provider = TemporaryCredentialsProvider {
            AWSCredentials(accessKeyId: "test", secretAccessKey: "test", sessionToken: "t", expiration: nil)
        }
        let client = makeClient(endpoint, provider: provider)
        _ = try await client.putRecord([1], deliveryStreamName: "events")
        #expect(await provider.fetchCount == 1)
        endpoint.enqueue(
            .error(
                status: 400, code: "ExpiredTokenException",
                message: "The security token included in the request is expired"))
        await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([1], deliveryStreamName: "events")
        }
        _ = try await client.putRecord([1], deliveryStreamName: "events")
        #expect(await provider.fetchCount == 2)
        let token = endpoint.requests.last?.headers.first { $0.name == "X-Amz-Security-Token" }?.value
        #expect(token == "t")
    }

    @Test("HTTP dates parse back to the instant they were made from")
    func httpDates() {
        for seconds in [0.0, 951_782_400, 1_795_000_000, 1_795_123_456, 4_102_444_800] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = FakeFirehoseEndpoint.httpDate(date)
            #expect(FirehoseClient.parseHTTPDate(text) == date, "\(text)")
        }
        #expect(
            FakeFirehoseEndpoint.httpDate(Date(timeIntervalSince1970: 1_795_000_000)) == "Wed, 18 Nov 2026 11:06:40 GMT"
        )
    }
}
