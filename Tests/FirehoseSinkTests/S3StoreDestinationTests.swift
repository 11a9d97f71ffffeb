import AWSSigV4
import Crypto
import FirehoseTestSupport
import Foundation
import HTTPTransports
import Logging
import Testing

@testable import FirehoseSink
@testable import FirehoseWire

/// Buckets mapped to an S3-compatible store: what the store is sent, signed and checked, and what
/// stays staged while it refuses.
@Suite("Delivery to an S3-compatible store")
struct S3StoreDestinationTests {
    static let records = ["one\n", "two\n", "three\n"].map { Array($0.utf8) }
    static let credentials = AWSCredentials(accessKeyId: "AKIDSTORE", secretAccessKey: "store-secret")
    /// What a store answers a PutObject it took.
    static let stored = ScriptedEndpoint.Answer.response(HTTPResponse(status: 200, headers: [("ETag", "\"etag\"")]))

    static func store(pathStyle: Bool = true, endpoint: String = "http://127.0.0.1:9000") -> S3Store {
        S3Store(
            endpoint: URL(string: endpoint)!, region: "eu-west-1", bucket: "remote-bucket",
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
        let endpoint = ScriptedEndpoint([], then: Self.stored)
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
        let endpoint = ScriptedEndpoint([], then: Self.stored)
        try await SinkHarness.with(
            httpTransport: endpoint,
            stores: ["demo-bucket": Self.store(pathStyle: false, endpoint: "http://s3.local:9000")]
        ) {
            harness in
            try harness.sink.createStream(try settings(destination(prefix: "a b+c/")))
            try await harness.put(Self.records)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            let request = try #require(endpoint.requests.first)
            #expect(request.header("Host") == "remote-bucket.s3.local:9000")
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
            ], then: Self.stored)
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.store()]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.records)
            let refused = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(refused?.description.contains("HTTP 503 SlowDown: Please reduce your request rate.") == true)
            #expect(harness.stagedFiles.count == 1)
            let unreachable = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(unreachable?.description.contains("no answer from http://127.0.0.1:9000") == true)
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
        let endpoint = ScriptedEndpoint([], then: Self.stored)
        try await SinkHarness.with(httpTransport: endpoint, stores: ["other-bucket": Self.store()]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.records)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(endpoint.requests.isEmpty)
            #expect(try harness.contents(of: object) == Self.records.flatMap { $0 })
        }
    }

    @Test("recovered buffers a store refused at start are delivered while the server runs, at their key")
    func recoveryRetried() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        try crashed.sink.createStream(try settings(destination()))
        try await crashed.put(Self.records)
        let endpoint = ScriptedEndpoint(
            [.status(503, "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")],
            then: Self.stored)
        let clock = ManualClock(date: fixedNow.addingTimeInterval(3600))
        var configuration = FirehoseSink.Configuration(dataDirectory: crashed.directory)
        configuration.stores = ["demo-bucket": Self.store()]
        configuration.httpTransport = endpoint
        configuration.retryJitter = 1.0...1.0
        let sink = try FirehoseSink(
            configuration: configuration, clock: clock, now: clock.wallClock,
            logger: Logger(label: "restarted", factory: { _ in SwiftLogNoOpLogHandler() }))
        try sink.createStream(try settings(destination()))
        let report = await sink.recoverStagedBuffers()
        #expect(report.delivered.isEmpty && report.undelivered.count == 1)
        #expect(endpoint.requests.count == 1)
        try await eventually("the retry to wait") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(1))
        try await eventually("the retry to deliver") {
            endpoint.requests.count == 2 && crashed.files(under: crashed.stagingDirectory).isEmpty
        }
        #expect(Set(endpoint.requests.map(\.url)).count == 1)
        #expect(Set(endpoint.requests.map(\.body)) == [Self.records.flatMap { $0 }])
        await sink.shutdown()
    }

    @Test("a 200 without an ETag is not taken for a stored object; an IPv6 endpoint is addressed in brackets")
    func answersAndAddresses() async throws {
        let endpoint = ScriptedEndpoint([.status(200, "<html>captive portal</html>")], then: Self.stored)
        var store = Self.store()
        store.endpoint = URL(string: "http://[::1]:9000")!
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": store]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.records)
            let refused = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(refused?.description.contains("HTTP 200 without an ETag") == true)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            let request = try #require(endpoint.requests.last)
            #expect(request.header("Host") == "[::1]:9000")
            #expect(request.url.absoluteString == "http://[::1]:9000/remote-bucket/\(object.key)")
            #expect(try Self.verify(request) == Self.credentials)
        }
        #expect(S3Store.authority(URL(string: "https://s3.example.com")!) == "s3.example.com")
    }

    @Test("puts to a store's bucket are not held by its upload, nor retry it outside the backoff")
    func putsDoNotRetry() async throws {
        let endpoint = ScriptedEndpoint(
            [.failure(TransportFailure("connection refused", reason: "refused"))], then: Self.stored)
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.store()]) { harness in
            try harness.sink.createStream(try settings(destination(sizeInMBs: 1, intervalInSeconds: 0)))
            // Each put fills (interval 0) a buffer of its own, delivered in the background.
            #expect(try await harness.put(["record 0\n"]).isEmpty)
            try await eventually("the first upload to fail and arm the retry") {
                endpoint.requests.count == 1 && harness.clock.sleeperCount == 1
            }
            for index in 1..<3 { #expect(try await harness.put(["record \(index)\n"]).isEmpty) }
            #expect(endpoint.requests.count == 1)
            harness.clock.advance(by: .seconds(1))
            try await eventually("the retry to deliver all three") { endpoint.requests.count == 4 }
            #expect(
                endpoint.requests.dropFirst().map { String(decoding: $0.body, as: UTF8.self) } == [
                    "record 0\n", "record 1\n", "record 2\n",
                ])
        }
    }
}
