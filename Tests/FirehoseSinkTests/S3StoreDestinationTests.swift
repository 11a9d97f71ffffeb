import AWSSigV4
import Crypto
import FirehoseTestSupport
import Foundation
import HTTPTransports
import Logging
import Synchronization
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
            #expect(refused?.description.contains("upload s3://remote-bucket/") == true)
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

    @Test(
        "recovered buffers a store refused at start are delivered while the server runs, at their key; the store is tried once at start",
        arguments: [1, 2])
    func recoveryRetried(streams: Int) async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        let names = ["demo", "other"].prefix(streams)
        for name in names {
            try crashed.sink.createStream(try settings(stream: name, destination()))
            try await crashed.put(Self.records, to: name)
        }
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
        for name in names { try sink.createStream(try settings(stream: name, destination())) }
        let report = await sink.recoverStagedBuffers()
        #expect(report.delivered.isEmpty && report.undelivered.count == streams)
        // The store failed the first: the bucket's other buffers are not tried at this start.
        #expect(endpoint.requests.count == 1)
        try await eventually("the retry to wait") { clock.sleeperCount >= 1 }
        clock.advance(by: .seconds(1))
        try await eventually("the retry to deliver") {
            endpoint.requests.count == 1 + streams && crashed.files(under: crashed.stagingDirectory).isEmpty
        }
        #expect(Set(endpoint.requests.map(\.url)).count == streams)
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

    /// A store that takes multipart uploads of `parts` parts: CreateMultipartUpload's answer (with an
    /// upload id that needs encoding), each part's ETag, then `completion`.
    static func multipart(parts: Int, completion: ScriptedEndpoint.Answer) -> [ScriptedEndpoint.Answer] {
        let initiated = HTTPResponse(
            status: 200,
            body: Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\
                <Bucket>remote-bucket</Bucket><Key>k</Key><UploadId>up/load+id=1&amp;2</UploadId>\
                </InitiateMultipartUploadResult>
                """.utf8))
        return [.response(initiated)]
            + (1...parts).map { .response(HTTPResponse(status: 200, headers: [("ETag", "\"part-\($0)\"")])) }
            + [completion]
    }

    static let completed = ScriptedEndpoint.Answer.response(
        HTTPResponse(
            status: 200,
            body: Array(
                "<CompleteMultipartUploadResult><ETag>\"whole-3\"</ETag></CompleteMultipartUploadResult>".utf8)))

    /// A store whose objects of 64 bytes or more go up in parts of 40.
    static func smallParts() -> S3Store {
        var store = store()
        store.multipartThreshold = 64
        store.partSize = 40
        return store
    }

    static let longRecords = (0..<3).map { Array("record \($0) \(String(repeating: "x", count: 40))\n".utf8) }

    @Test("an object over the threshold goes up in parts read from its file, each signed with its MD5, then completed")
    func multipartUpload() async throws {
        let endpoint = ScriptedEndpoint(Self.multipart(parts: 4, completion: Self.completed), then: Self.stored)
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.smallParts()]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.longRecords)
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            let requests = endpoint.requests
            let content = Self.longRecords.flatMap { $0 }
            #expect(content.count == 150)
            #expect(requests.map(\.method) == ["POST", "PUT", "PUT", "PUT", "PUT", "POST"])
            let objectURL = "http://127.0.0.1:9000/remote-bucket/\(object.key)"
            let upload = "uploadId=up%2Fload%2Bid%3D1%262"
            #expect(
                requests.map(\.url.absoluteString) == [
                    "\(objectURL)?uploads=", "\(objectURL)?partNumber=1&\(upload)",
                    "\(objectURL)?partNumber=2&\(upload)",
                    "\(objectURL)?partNumber=3&\(upload)", "\(objectURL)?partNumber=4&\(upload)",
                    "\(objectURL)?\(upload)",
                ])
            let parts = requests[1...4].map(\.body)
            #expect(parts.map(\.count) == [40, 40, 40, 30])
            #expect(parts.flatMap { $0 } == content)
            for request in requests {
                #expect(try Self.verify(request) == Self.credentials)
                #expect(request.header("x-amz-content-sha256") == SHA256Hex.hash(request.body))
                #expect(
                    request.header("Content-MD5")
                        == (request.body.isEmpty ? nil : Base64.encode(Array(Insecure.MD5.hash(data: request.body)))))
            }
            #expect(
                String(decoding: requests[5].body, as: UTF8.self)
                    == """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">\
                    <Part><PartNumber>1</PartNumber><ETag>&quot;part-1&quot;</ETag></Part>\
                    <Part><PartNumber>2</PartNumber><ETag>&quot;part-2&quot;</ETag></Part>\
                    <Part><PartNumber>3</PartNumber><ETag>&quot;part-3&quot;</ETag></Part>\
                    <Part><PartNumber>4</PartNumber><ETag>&quot;part-4&quot;</ETag></Part>\
                    </CompleteMultipartUpload>
                    """)
            #expect(object.path == objectURL)
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test(
        "a part refused, or a completion that fails inside its 200, aborts the upload; the object stays staged and goes up whole again"
    )
    func multipartFailures() async throws {
        let errorIn200 = ScriptedEndpoint.Answer.response(
            HTTPResponse(
                status: 200,
                body: Array(
                    "<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>".utf8
                )))
        let endpoint = ScriptedEndpoint(
            Self.multipart(parts: 1, completion: .status(500, "<Error><Code>SlowDown</Code></Error>"))
                + [.status(204, "")]  // the abort
                + Self.multipart(parts: 4, completion: errorIn200) + [.status(404, "")]  // already gone
                + Self.multipart(parts: 4, completion: Self.completed))
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.smallParts()]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.longRecords)
            let refused = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(refused?.description.contains("HTTP 500 SlowDown") == true)
            #expect(endpoint.requests.map(\.method) == ["POST", "PUT", "PUT", "DELETE"])
            #expect(endpoint.requests[3].url.query == "uploadId=up%2Fload%2Bid%3D1%262")
            #expect(try Self.verify(endpoint.requests[3]) == Self.credentials)
            #expect(harness.stagedFiles.count == 1)
            let failedInside = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(
                failedInside?.description.contains("HTTP 200 InternalError: We encountered an internal error.") == true)
            #expect(endpoint.requests.count == 11 && endpoint.requests.last?.method == "DELETE")
            let object = try #require(try await harness.sink.flush(stream: "demo").first)
            #expect(endpoint.requests.count == 17)
            #expect(endpoint.requests[12...15].flatMap(\.body) == Self.longRecords.flatMap { $0 })
            #expect(object.path.hasSuffix(object.key))
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test(
        "answers without an UploadId, or a completion without an ETag, are refused; parts grow where 10,000 would not hold the object"
    )
    func multipartBounds() async throws {
        let portal = ScriptedEndpoint.Answer.status(200, "<html>captive portal</html>")
        let endpoint = ScriptedEndpoint(
            [portal] + Self.multipart(parts: 4, completion: portal) + [.status(204, "")]
                + Self.multipart(parts: 4, completion: Self.completed))
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.smallParts()]) { harness in
            try harness.sink.createStream(try settings(destination()))
            try await harness.put(Self.longRecords)
            let refused = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(refused?.description.contains("HTTP 200 without an UploadId") == true)
            #expect(endpoint.requests.count == 1)
            let notCompleted = await #expect(throws: SinkError.self) { try await harness.sink.flush(stream: "demo") }
            #expect(notCompleted?.description.contains("without an ETag") == true)
            #expect(endpoint.requests.count == 8 && endpoint.requests.last?.method == "DELETE")
            #expect(try await harness.sink.flush(stream: "demo").count == 1)
        }
        #expect(S3StoreUpload.partSize(for: 10_000 * (8 << 20), preferred: 8 << 20) == 8 << 20)
        #expect(S3StoreUpload.partSize(for: 10_000 * (8 << 20) + 1, preferred: 8 << 20) == (8 << 20) + 1)
        #expect(S3StoreUpload.partSize(for: 1 << 40, preferred: 8 << 20) * 10_000 >= 1 << 40)
    }

    /// A store that holds every upload (to `host`, when given) until released, counting how many it
    /// holds at once; it answers the others at once.
    final class HeldStore: HTTPTransport {
        private let state = Mutex<(held: Int, most: Int, waiting: [CheckedContinuation<Void, Never>])>((0, 0, []))
        private let host: String?

        init(host: String? = nil) {
            self.host = host
        }

        var held: Int { state.withLock { $0.held } }
        var most: Int { state.withLock { $0.most } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if let host, request.header("Host") != host {
                return HTTPResponse(status: 200, headers: [("ETag", "\"etag\"")])
            }
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    state.held += 1
                    state.most = max(state.most, state.held)
                    state.waiting.append(continuation)
                }
            }
            return HTTPResponse(status: 200, headers: [("ETag", "\"etag\"")])
        }

        func releaseAll() {
            let waiting = state.withLock { state in
                defer {
                    state.held -= state.waiting.count
                    state.waiting = []
                }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    @Test("at most four uploads run at once for a mapped bucket")
    func boundedUploads() async throws {
        let store = HeldStore()
        try await SinkHarness.with(httpTransport: store, stores: ["demo-bucket": Self.store()]) { harness in
            let streams = (0..<7).map { "stream-\($0)" }
            for stream in streams {
                try harness.sink.createStream(try settings(stream: stream, destination()))
                try await harness.put(Self.records, to: stream)
            }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for stream in streams { group.addTask { try await harness.sink.flush(stream: stream).count } }
                // Four in the store and the other three queued behind them, where none can pass.
                let destination = try #require(harness.sink.destination as? S3StoreDestination)
                try await eventually("four uploads in the store and three queued at the bucket's gate") {
                    store.held == 4 && destination.uploadsWaiting(for: "demo-bucket") == 3
                }
                #expect(store.held == S3StoreDestination.concurrentUploads)
                try await eventually("every upload to be let through and answered") {
                    store.releaseAll()
                    return harness.stagingIsEmpty
                }
                var delivered = 0
                for try await count in group { delivered += count }
                #expect(delivered == 7)
            }
            #expect(store.most == 4)
        }
    }

    /// Descriptors this process holds open on files under `directory`.
    static func descriptors(under directory: String) -> Int {
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return open.filter {
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) ?? "")
                .hasPrefix(directory)
        }.count
    }

    @Test("buffers waiting for a store hold no descriptors; their objects are whole when it is back")
    func waitingBuffersHoldNoDescriptors() async throws {
        let endpoint = ScriptedEndpoint(
            [.failure(TransportFailure("connection refused", reason: "refused"))], then: Self.stored)
        try await SinkHarness.with(httpTransport: endpoint, stores: ["demo-bucket": Self.store()]) { harness in
            try harness.sink.createStream(
                try settings(destination(sizeInMBs: 1, intervalInSeconds: 0, compression: "GZIP")))
            try await harness.put(["record 0\n"])
            try await eventually("the first upload to fail and arm the retry") {
                endpoint.requests.count == 1 && harness.clock.sleeperCount == 1
            }
            for index in 1..<20 { try await harness.put(["record \(index)\n"]) }
            #expect(harness.stagedFiles.count == 20)
            #expect(Self.descriptors(under: harness.stagingDirectory) == 0)
            harness.clock.advance(by: .seconds(1))
            try await eventually("the retry to deliver all of them") { endpoint.requests.count == 21 }
            let delivered = try endpoint.requests.dropFirst().map {
                String(decoding: try Gzip.decompress($0.body, limit: 1 << 20), as: UTF8.self)
            }
            #expect(delivered == (0..<20).map { "record \($0)\n" })
            try await eventually("staging to empty") { harness.stagingIsEmpty }
        }
    }

    // Were the gate shared, the free bucket's flush would wait for ever: the limit ends it.
    @Test("a store that does not answer holds up only its own buckets' uploads", .timeLimit(.minutes(1)))
    func gatePerBucket() async throws {
        let store = HeldStore(host: "127.0.0.1:9000")
        let stores = ["demo-bucket": Self.store(), "other-bucket": Self.store(endpoint: "http://127.0.0.1:9001")]
        try await SinkHarness.with(httpTransport: store, stores: stores) { harness in
            let held = (0..<5).map { "held-\($0)" }
            for stream in held {
                try harness.sink.createStream(try settings(stream: stream, destination()))
                try await harness.put(Self.records, to: stream)
            }
            try harness.sink.createStream(try settings(stream: "free", destination(bucket: "other-bucket")))
            try await harness.put(Self.records, to: "free")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for stream in held { group.addTask { _ = try await harness.sink.flush(stream: stream) } }
                try await eventually("four uploads to be held") { store.held == 4 }
                // Every gate of the held store is taken; the other store's bucket is still delivered.
                #expect(try await harness.sink.flush(stream: "free").count == 1)
                try await eventually("the held uploads to be let through and answered") {
                    store.releaseAll()
                    return harness.stagingIsEmpty
                }
                try await group.waitForAll()
            }
        }
    }
}
