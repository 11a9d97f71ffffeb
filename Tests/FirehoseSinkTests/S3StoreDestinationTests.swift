import AWSSigV4
import Crypto
import Foundation
import HTTPTransports
import Testing

@testable import FirehoseSink
@testable import FirehoseWire

/// Buckets mapped to an S3-compatible store: what the store is sent, signed and checked, and what
/// stays staged while it refuses.
@Suite("Delivery to an S3-compatible store")
struct S3StoreDestinationTests {
    static let records = ["one\n", "two\n", "three\n"].map { Array($0.utf8) }
    static let credentials = AWSCredentials(accessKeyId: "AKIDSTORE", secretAccessKey: "store-secret")

    static func store(pathStyle: Bool = true) -> S3Store {
        S3Store(
            endpoint: URL(string: "http://127.0.0.1:9000")!, region: "eu-west-1", bucket: "remote-bucket",
            credentials: credentials, pathStyle: pathStyle)
    }

    /// The request as the store's own verifier checks it, at the time it was signed.
    static func verify(_ request: HTTPRequest) throws -> AWSCredentials {
        let verifier = SigV4Verifier(region: "eu-west-1", service: "s3", dialect: .s3) { _ in credentials }
        var path = request.url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        let signed = SigV4Request(
            method: request.method, path: path, query: request.url.query(percentEncoded: true) ?? "",
            headers: request.headers, bodySHA256: SHA256Hex.hash(request.body))
        return try verifier.verify(signed, now: Date())
    }

    @Test("a mapped bucket's object is PUT to the store at the same key, signed, with its MD5; nothing stays")
    func upload() async throws {
        let endpoint = ScriptedEndpoint([], then: .status(200, ""))
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.store()]) { harness in
            try harness.sink.createStream(try settings(destination(prefix: "logs/", compression: "GZIP")))
            try await harness.put(Self.records)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            let request = try #require(endpoint.requests.first)
            #expect(endpoint.requests.count == 1)
            #expect(request.method == "PUT")
            #expect(request.url.absoluteString == "http://127.0.0.1:9000/remote-bucket/\(object.key)")
            #expect(object.key.hasPrefix("logs/") && object.key.hasSuffix(".gz"))
            #expect(request.header("Host") == "127.0.0.1:9000")
            #expect(try Self.verify(request) == Self.credentials)
            #expect(request.header("x-amz-content-sha256") == SHA256Hex.hash(request.body))
            #expect(request.header("Content-MD5") == Base64.encode(Array(Insecure.MD5.hash(data: request.body))))
            #expect(try Gzip.decompress(request.body, limit: 1 << 20) == Self.records.flatMap { $0 })
            #expect(object.path == "http://127.0.0.1:9000/remote-bucket/\(object.key)")
            #expect(!FileManager.default.fileExists(atPath: harness.bucketPath()))
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("virtual-hosted addressing names the bucket in the Host; keys are encoded once")
    func virtualHosted() async throws {
        let endpoint = ScriptedEndpoint([], then: .status(200, ""))
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.store(pathStyle: false)]) {
            harness in
            try harness.sink.createStream(try settings(destination(prefix: "a b+c/")))
            try await harness.put(Self.records)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            let request = try #require(endpoint.requests.first)
            #expect(request.header("Host") == "remote-bucket.127.0.0.1:9000")
            #expect(request.url.path(percentEncoded: true) == "/a%20b%2Bc/\(object.key.dropFirst("a b+c/".count))")
            #expect(try Self.verify(request) == Self.credentials)
        }
    }

    @Test(
        "a store that refuses or cannot be reached keeps the object staged, says why, and gets it again at the same key"
    )
    func refusedThenDelivered() async throws {
        let endpoint = ScriptedEndpoint(
            [
                .status(503, "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"),
                .failure(TransportFailure("connection refused", reason: "refused")),
            ], then: .status(200, ""))
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.store()]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.records)
            let refused = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(refused?.description.contains("HTTP 503 SlowDown: Please reduce your request rate.") == true)
            #expect(harness.stagedFiles.count == 1)
            let unreachable = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(unreachable?.description.contains("unreachable") == true)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(endpoint.requests.count == 3)
            #expect(Set(endpoint.requests.map(\.url)).count == 1)
            #expect(Set(endpoint.requests.map(\.body)) == [Self.records.flatMap { $0 }])
            #expect(endpoint.requests.last?.url.path(percentEncoded: false) == "/remote-bucket/\(object.key)")
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("buckets not mapped to a store stay folders")
    func unmapped() async throws {
        let endpoint = ScriptedEndpoint([], then: .status(200, ""))
        try await SinkHarness.with(httpTransport: endpoint, stores: ["other-bucket": Self.store()]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.records)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(endpoint.requests.isEmpty)
            #expect(try harness.contents(of: object) == Self.records.flatMap { $0 })
        }
    }
}
