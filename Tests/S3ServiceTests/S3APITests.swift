import AWSSigV4
import Crypto
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Logging
import ServerCore
import ServiceTestSupport
import Testing

@testable import S3Service

/// S3 alone over a sink's data directory, as the front door hands it a request: no authentication.
final class S3Harness {
    let directory: String
    let clock = ManualClock(date: Date(timeIntervalSince1970: 1_795_266_309))  // 2026-11-21T13:05:09Z
    let sink: FirehoseSink
    let api: S3API

    init() throws {
        directory = try TestDirectory("s3").url.path
        let logger = Logger(label: "s3-tests")
        sink = try FirehoseSink(
            configuration: .init(dataDirectory: directory), clock: clock, now: clock.wallClock, logger: logger)
        api = S3API(region: "us-east-1", sink: sink, logger: logger, lookup: nil)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func handle(_ request: APIRequest) async -> APIResponse {
        #expect(S3API.isS3Request(method: request.method, path: request.path, hasTarget: false))
        return await api.handle(request, requestID: "request-1").response
    }
}

@Suite("S3 listing pages")
struct S3ListingPageTests {
    static func objects(_ keys: [String]) -> [BucketFolders.Object] {
        keys.map { key in
            BucketFolders.Object(
                key: key, size: key.utf8.count, modified: Date(timeIntervalSince1970: 0),
                identity: .init(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
        }
    }

    @Test("keys in UTF-8 byte order, not Swift's String order")
    func byteOrder() {
        // U+00E9 precomposed sorts after "f" in bytes (0xC3); `e` + U+0301 (decomposed) right after "e".
        let keys = ["f", "\u{E9}", "e\u{301}", "Z", "a/b", "a-c"]
        let page = S3ListingPage(Self.objects(keys), prefix: "", delimiter: nil, after: nil, maxKeys: 1000)
        #expect(
            page.objects.map(\.key).map { Array($0.utf8) }
                == keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(!page.isTruncated)
    }

    @Test("common prefixes count toward max-keys, once each, and a page after one skips its keys")
    func rollups() {
        let all = Self.objects(["a/1", "a/2", "b", "c/1", "c/2", "d"])
        let first = S3ListingPage(all, prefix: "", delimiter: "/", after: nil, maxKeys: 2)
        #expect(first.commonPrefixes == ["a/"])
        #expect(first.objects.map(\.key) == ["b"])
        #expect(first.isTruncated && first.last == "b")
        let second = S3ListingPage(all, prefix: "", delimiter: "/", after: "b", maxKeys: 1)
        #expect(second.commonPrefixes == ["c/"] && second.isTruncated && second.last == "c/")
        let third = S3ListingPage(all, prefix: "", delimiter: "/", after: "c/", maxKeys: 1)
        #expect(third.objects.map(\.key) == ["d"] && third.commonPrefixes.isEmpty && !third.isTruncated)
    }

    @Test("start-after inside a common prefix still lists the prefix for the keys after it")
    func startAfterInsidePrefix() {
        let page = S3ListingPage(
            Self.objects(["a/1", "a/2", "b"]), prefix: "", delimiter: "/", after: "a/1", maxKeys: 10)
        #expect(page.commonPrefixes == ["a/"] && page.objects.map(\.key) == ["b"])
    }

    @Test("a prefix filters, and the delimiter applies to what follows it; a delimiter of several bytes")
    func prefixAndDelimiter() {
        let all = Self.objects(["logs/x::1", "logs/x::2", "logs/y", "other"])
        let page = S3ListingPage(all, prefix: "logs/", delimiter: "::", after: nil, maxKeys: 10)
        #expect(page.commonPrefixes == ["logs/x::"] && page.objects.map(\.key) == ["logs/y"])
    }

    @Test("an NFC and an NFD spelling are two keys and two common prefixes, as their bytes differ")
    func canonicalEquivalence() {
        let all = Self.objects(["e\u{301}/1", "\u{E9}/2"])
        let page = S3ListingPage(all, prefix: "", delimiter: "/", after: nil, maxKeys: 10)
        #expect(page.commonPrefixes.map { Array($0.utf8) } == [Array("e\u{301}/".utf8), Array("\u{E9}/".utf8)])
        let next = S3ListingPage(all, prefix: "", delimiter: "/", after: "e\u{301}/", maxKeys: 10)
        #expect(next.commonPrefixes.map { Array($0.utf8) } == [Array("\u{E9}/".utf8)])
    }

    @Test("max-keys 0 lists nothing and is not truncated")
    func zero() {
        let page = S3ListingPage(Self.objects(["a"]), prefix: "", delimiter: nil, after: nil, maxKeys: 0)
        #expect(page == S3ListingPage(Self.objects([]), prefix: "", delimiter: nil, after: nil, maxKeys: 0))
        #expect(page.objects.isEmpty && !page.isTruncated)
    }
}

@Suite("S3 ranges and preconditions")
struct S3ObjectConditionTests {
    @Test(
        "Range headers",
        arguments: [
            ("bytes=0-9", 100, S3ByteRange.part(0...9)),
            ("bytes=90-", 100, .part(90...99)),
            ("bytes=-10", 100, .part(90...99)),
            ("bytes=-1000", 100, .part(0...99)),
            ("bytes=50-5000", 100, .part(50...99)),
            ("bytes=100-", 100, .unsatisfiable),
            ("bytes=-0", 100, .unsatisfiable),
            ("bytes=0-0", 0, .unsatisfiable),
            ("bytes=9-1", 100, .whole),
            ("bytes=0-1,5-6", 100, .whole),
            ("items=0-1", 100, .whole),
            ("bytes=a-b", 100, .whole),
            ("bytes=+1-2", 100, .whole),
            ("bytes=99999999999999999999-", 100, .whole),
        ] as [(String, Int, S3ByteRange)])
    func ranges(header: String, size: Int, expected: S3ByteRange) {
        #expect(S3ByteRange(header: header, size: size) == expected)
    }

    static func decide(
        ifMatch: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: Int64? = nil,
        ifUnmodifiedSince: Int64? = nil
    ) -> S3Preconditions {
        S3Preconditions(
            ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince.map(String.init),
            ifUnmodifiedSince: ifUnmodifiedSince.map(String.init), etag: "\"abc\"", modified: 1000,
            parseDate: { Int64($0) })
    }

    @Test("If-Match and If-Unmodified-Since fail with 412; If-None-Match and If-Modified-Since answer 304")
    func preconditions() {
        #expect(Self.decide() == .proceed)
        #expect(Self.decide(ifMatch: "\"abc\"") == .proceed)
        #expect(Self.decide(ifMatch: "abc") == .proceed)
        #expect(Self.decide(ifMatch: "\"x\", \"abc\"") == .proceed)
        #expect(Self.decide(ifMatch: "*") == .proceed)
        #expect(Self.decide(ifMatch: "\"x\"") == .failed(condition: "If-Match"))
        #expect(Self.decide(ifMatch: "W/\"abc\"") == .failed(condition: "If-Match"))  // strong comparison
        #expect(Self.decide(ifUnmodifiedSince: 999) == .failed(condition: "If-Unmodified-Since"))
        #expect(Self.decide(ifUnmodifiedSince: 1000) == .proceed)
        #expect(Self.decide(ifNoneMatch: "W/\"abc\"") == .notModified)
        #expect(Self.decide(ifNoneMatch: "\"x\"") == .proceed)
        #expect(Self.decide(ifModifiedSince: 1000) == .notModified)
        #expect(Self.decide(ifModifiedSince: 999) == .proceed)
    }

    @Test(
        "S3's pairings: a matching If-Match overrides If-Unmodified-Since, a non-matching If-None-Match overrides If-Modified-Since"
    )
    func pairings() {
        #expect(Self.decide(ifMatch: "\"abc\"", ifUnmodifiedSince: 1) == .proceed)
        #expect(Self.decide(ifNoneMatch: "\"x\"", ifModifiedSince: 5000) == .proceed)
        #expect(Self.decide(ifModifiedSince: nil) == .proceed)
    }
}

@Suite("S3 requests")
struct S3RequestTests {
    static func request(_ target: String, method: String = "GET", host: String = "127.0.0.1:4573") -> APIRequest {
        APIRequest(method: method, target: target, headers: [("host", host)], body: [])
    }

    @Test("path-style and virtual-hosted addresses, keys decoded as paths (a + stays a +)")
    func addresses() throws {
        #expect(try S3Address(Self.request("/")) == S3Address(bucket: nil, key: nil))
        #expect(try S3Address(Self.request("/b")) == S3Address(bucket: "b", key: nil))
        #expect(try S3Address(Self.request("/b/")) == S3Address(bucket: "b", key: nil))
        #expect(try S3Address(Self.request("/b/a%20b+c/d%2Fe")) == S3Address(bucket: "b", key: "a b+c/d/e"))
        #expect(
            try S3Address(Self.request("/k.txt", host: "my.bucket.localhost:4573"))
                == S3Address(bucket: "my.bucket", key: "k.txt"))
        #expect(try S3Address(Self.request("/", host: "b.LOCALHOST")) == S3Address(bucket: "b", key: nil))
        #expect(try S3Address(Self.request("/b/k", host: "localhost:4573")) == S3Address(bucket: "b", key: "k"))
        #expect(throws: S3Error.self) { try S3Address(Self.request("/b/%FF")) }
    }

    @Test("routes, decided before authentication")
    func routes() throws {
        func operation(_ method: String, _ target: String) throws -> String {
            let request = Self.request(target, method: method)
            return S3Route(method: method, address: try S3Address(request), query: S3Query(request.query)).operation
        }
        #expect(try operation("GET", "/") == "ListBuckets")
        #expect(try operation("GET", "/b?location") == "GetBucketLocation")
        #expect(try operation("GET", "/b?list-type=2&x-id=ListObjectsV2") == "ListObjectsV2")
        #expect(try operation("GET", "/b?prefix=x") == "ListObjects")
        #expect(try operation("HEAD", "/b") == "HeadBucket")
        #expect(try operation("GET", "/b/k?x-id=GetObject") == "GetObject")
        #expect(try operation("HEAD", "/b/k") == "HeadObject")
        #expect(try operation("GET", "/b?versioning") == "Unsupported")
        #expect(try operation("GET", "/b/k?tagging") == "Unsupported")
        #expect(try operation("POST", "/b/k?uploads") == "CreateMultipartUpload")
        #expect(try operation("PUT", "/b/k?partNumber=2&uploadId=u") == "UploadPart")
        #expect(try operation("POST", "/b/k?uploadId=u") == "CompleteMultipartUpload")
        #expect(try operation("DELETE", "/b/k?uploadId=u") == "AbortMultipartUpload")
        // ListParts and ListMultipartUploads are not served; neither is UploadPart without a part.
        #expect(try operation("GET", "/b/k?uploadId=u") == "Unsupported")
        #expect(try operation("GET", "/b?uploads") == "Unsupported")
        #expect(try operation("PUT", "/b/k?uploadId=u") == "Unsupported")
        #expect(try operation("PUT", "/b/k?partNumber=1") == "Unsupported")
        #expect(try operation("GET", "/b/k?partNumber=1") == "Unsupported")
        #expect(try operation("HEAD", "/b/k?partNumber=1") == "Unsupported")
        // Subresources of S3's newer operations, and any parameter without a value, are never taken
        // for an overwrite, a listing or a bucket's creation.
        for (method, target) in [
            ("PUT", "/b/k?renameObject"), ("PUT", "/b/k?encryption"), ("GET", "/b?abac"),
            ("GET", "/b?metadataConfiguration"), ("PUT", "/b?abac"), ("PUT", "/b?delete"), ("GET", "/b/k?someday"),
            ("PUT", "/b/k?someday"), ("DELETE", "/b/k?someday"), ("GET", "/b?someday"), ("PUT", "/b?someday"),
            ("PUT", "/b/k?uploads"),
        ] {
            #expect(try operation(method, target) == "Unsupported", "\(method) \(target)")
        }
        // Parameters with values are a served operation's own, or ignored as S3 ignores them.
        #expect(try operation("PUT", "/b/k?x-id=PutObject") == "PutObject")
        #expect(try operation("GET", "/b?list-type=2&prefix=&delimiter=%2F") == "ListObjectsV2")
        #expect(try operation("GET", "/b/k?response-content-type=text%2Fplain") == "GetObject")
    }

    static func isS3(_ request: APIRequest) -> Bool {
        S3API.isS3Request(
            method: request.method, path: request.path, hasTarget: request.header("x-amz-target") != nil)
    }

    @Test("which requests are S3's: no X-Amz-Target, and not POST /")
    func routing() {
        #expect(Self.isS3(Self.request("/")))
        #expect(Self.isS3(Self.request("/b/k", method: "PUT")))
        #expect(Self.isS3(Self.request("/b?delete", method: "POST")))
        #expect(!Self.isS3(Self.request("/", method: "POST")))
        var firehose = Self.request("/", method: "POST")
        firehose.headers.append(("X-Amz-Target", "Firehose_20150804.PutRecord"))
        #expect(!Self.isS3(firehose))
    }

    @Test("XML text escapes markup and control characters; url encoding escapes all but unreserved and /")
    func escaping() {
        var xml = S3XML(root: "R", namespaced: false)
        xml.element("K", "a<b>&\"'\t\n\r\u{1}\u{7F}é")
        #expect(
            String(decoding: xml.finish(), as: UTF8.self)
                == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<R><K>a&lt;b&gt;&amp;&quot;&apos;\t\n&#13;&#1;&#127;é</K></R>"
        )
        #expect(SigV4URI.encodePath("a b+c/%é~") == "a%20b%2Bc/%25%C3%A9~")
    }

    @Test("continuation tokens round-trip any key, and garbage is refused")
    func tokens() {
        for key in ["a", "ünï/cödé", "x\u{1}y"] {
            #expect(S3API.decodeToken(S3API.encodeToken(key)) == key)
        }
        #expect(S3API.decodeToken("%%%") == nil)
        #expect(S3API.decodeToken("") == nil)
    }
}

@Suite("S3 API over the data directory")
struct S3APITests {
    let harness: S3Harness

    init() throws {
        harness = try S3Harness()
        let bucket = "\(harness.directory)/bucket"
        try FileManager.default.createDirectory(atPath: "\(bucket)/dir", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: "\(bucket)/dir/object.txt"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: "\(harness.directory)/secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: "\(bucket)/link.txt", withDestinationPath: "\(harness.directory)/secret.txt")
    }

    func get(_ target: String, headers: [(name: String, value: String)] = []) async -> APIResponse {
        await harness.handle(
            APIRequest(method: "GET", target: target, headers: [("host", "127.0.0.1")] + headers, body: []))
    }

    func code(_ response: APIResponse) -> String? {
        let text = String(decoding: response.body, as: UTF8.self)
        guard let start = text.range(of: "<Code>"), let end = text.range(of: "</Code>") else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test("an object is read whole, with its MD5 as ETag")
    func object() async throws {
        let response = await get("/bucket/dir/object.txt")
        #expect(response.status == 200)
        #expect(response.header("ETag") == "\"335cf4508dd597be4bfc9caa3e08b901\"")  // md5("inside")
        #expect(response.header("Content-Length") == "6")
        let streamed = try #require(response.streamedBody)
        #expect(try streamed.object.read(at: streamed.offset, count: streamed.count) == Array("inside".utf8))
    }

    @Test(
        "no key leaves its bucket: dot segments, encoded slashes, empty segments, symbolic links",
        arguments: [
            "/bucket/../secret.txt", "/bucket/%2E%2E/secret.txt", "/bucket/dir/..%2F..%2Fsecret.txt",
            "/bucket//dir/object.txt", "/bucket/./dir/object.txt", "/bucket/link.txt", "/bucket/dir/",
        ])
    func traversal(target: String) async {
        let response = await get(target)
        #expect(response.status == 404)
        #expect(code(response) == "NoSuchKey")
    }

    @Test(
        "the private folder and names that are no bucket are no buckets",
        arguments: ["/.firehose-local/", "/../", "/./x"])
    func privateFolder(target: String) async {
        let response = await get(target)
        #expect(response.status == 404)
        #expect(code(response) == "NoSuchBucket")
    }

    @Test("a write to a bucket that does not exist names the bucket, as S3 does")
    func writeToMissingBucket() async {
        let body = Array("<Delete><Object><Key>k</Key></Object></Delete>".utf8)
        let md5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
        let response = await harness.handle(
            APIRequest(
                method: "POST", target: "/missing-bucket?delete",
                headers: [("host", "127.0.0.1"), ("Content-MD5", md5)],
                body: body))
        #expect(response.status == 404)
        #expect(code(response) == "NoSuchBucket")
        #expect(String(decoding: response.body, as: UTF8.self).contains("<BucketName>missing-bucket</BucketName>"))
    }

    @Test("an empty object is read, headed and refused a range without a body")
    func emptyObject() async throws {
        try Data().write(to: URL(fileURLWithPath: "\(harness.directory)/bucket/empty"))
        let whole = await get("/bucket/empty")
        #expect(whole.status == 200 && whole.header("Content-Length") == "0" && whole.streamedBody == nil)
        #expect(whole.header("ETag") == "\"d41d8cd98f00b204e9800998ecf8427e\"")
        let head = await harness.handle(
            APIRequest(method: "HEAD", target: "/bucket/empty", headers: [("host", "h")], body: []))
        #expect(head.status == 200 && head.header("Content-Length") == "0")
        #expect(await get("/bucket/empty", headers: [("Range", "bytes=0-0")]).status == 416)
        #expect(await get("/bucket/empty", headers: [("Range", "bytes=x")]).status == 200)
    }

    @Test("a listing never walks through a symbolic link, even when the prefix names it")
    func linkedFolder() async throws {
        try FileManager.default.createSymbolicLink(
            atPath: "\(harness.directory)/bucket/linked", withDestinationPath: "\(harness.directory)/bucket/dir")
        for target in ["/bucket?list-type=2&prefix=linked/", "/bucket?list-type=2&prefix=linked/&delimiter=/"] {
            let text = String(decoding: await get(target).body, as: UTF8.self)
            #expect(text.contains("<KeyCount>0</KeyCount>"), "\(target): \(text)")
        }
        let text = String(decoding: await get("/bucket?list-type=2&prefix=dir/").body, as: UTF8.self)
        #expect(text.contains("<Key>dir/object.txt</Key>"))
    }

    @Test("a symbolic link is not listed")
    func listing() async {
        let response = await get("/bucket?list-type=2")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains("<Key>dir/object.txt</Key>") && !text.contains("link.txt"))
        #expect(text.contains("<KeyCount>1</KeyCount>"))
    }

    @Test("a declared payload hash that is not the body's is refused")
    func payloadHash() async {
        let mismatch = await get(
            "/bucket?list-type=2", headers: [("x-amz-content-sha256", String(repeating: "0", count: 64))])
        #expect(mismatch.status == 400 && code(mismatch) == "XAmzContentSHA256Mismatch")
        let garbage = await get("/bucket?list-type=2", headers: [("x-amz-content-sha256", "nope")])
        #expect(garbage.status == 400 && code(garbage) == "InvalidArgument")
    }

    @Test("HEAD errors have no body; max-keys and encoding-type are checked")
    func errors() async {
        let head = await harness.handle(
            APIRequest(method: "HEAD", target: "/bucket/none", headers: [("host", "h")], body: []))
        #expect(head.status == 404 && head.body.isEmpty && head.header("x-amz-request-id") != nil)
        #expect(code(await get("/bucket?max-keys=x")) == "InvalidArgument")
        #expect(code(await get("/bucket?max-keys=-1")) == "InvalidArgument")
        #expect(code(await get("/bucket?encoding-type=base64")) == "InvalidArgument")
        #expect(code(await get("/bucket?list-type=3")) == "InvalidArgument")
    }
}

@Suite("S3 aws-chunked bodies and checksums")
struct S3ChunkedBodyTests {
    static func unsigned(_ chunks: [String], trailers: [String] = []) -> [UInt8] {
        var body = ""
        for chunk in chunks { body += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
        body += "0\r\n" + trailers.map { $0 + "\r\n" }.joined() + "\r\n"
        return Array(body.utf8)
    }

    @Test("unsigned chunks with a trailing checksum decode to their data")
    func unsignedTrailer() throws {
        let body = Self.unsigned(["hello ", "world"], trailers: ["x-amz-checksum-crc32:DUoRhQ=="])
        let decoded = try S3ChunkedBody(decoding: body, signed: false, signatures: nil, decodedLength: 11)
        #expect(decoded.data == Array("hello world".utf8))
        #expect(decoded.trailers.map(\.name) == ["x-amz-checksum-crc32"])
        let request = APIRequest(method: "PUT", path: "/b/k", headers: [], body: body)
        #expect(try S3Checksums.verify(request, body: decoded.data, trailers: decoded.trailers).count == 1)
        let wrong = [(name: "x-amz-checksum-crc32", value: "AAAAAA==")]
        #expect(throws: S3Error.self) { try S3Checksums.verify(request, body: decoded.data, trailers: wrong) }
    }

    @Test(
        "malformed bodies are refused whole",
        arguments: [
            "5\r\nhello\r\n",  // no last chunk
            "zz\r\nhello\r\n0\r\n\r\n",  // not hex
            "9\r\nhello\r\n0\r\n\r\n",  // size past the data
            "5\r\nhelloXX0\r\n\r\n",  // no CRLF after the data
            "5\r\nhello\r\n0\r\n\r\nextra",  // bytes after the end
            "-1\r\n\r\n0\r\n\r\n",
        ])
    func malformed(body: String) {
        #expect(throws: S3Error.self) {
            try S3ChunkedBody(decoding: Array(body.utf8), signed: false, signatures: nil, decodedLength: nil)
        }
    }

    @Test("the decoded length must be the data's, and signed bodies need a signature on every chunk")
    func lengthsAndSignatures() {
        #expect(throws: S3Error.self) {
            try S3ChunkedBody(decoding: Self.unsigned(["hello"]), signed: false, signatures: nil, decodedLength: 6)
        }
        #expect(throws: S3Error.self) {
            try S3ChunkedBody(decoding: Self.unsigned(["hello"]), signed: true, signatures: nil, decodedLength: 5)
        }
    }

    @Test("a declared length past the body is refused before anything is reserved for it")
    func declaredLengthPastTheBody() {
        // 100 GB over a 15-byte body aborted the process: the capacity was reserved before the check.
        let body = Self.unsigned(["hello"])
        #expect(body.count == 15)
        for declared in [16, 100_000_000_000, Int.max] {
            #expect {
                try S3ChunkedBody(decoding: body, signed: false, signatures: nil, decodedLength: declared)
            } throws: { ($0 as? S3Error)?.code == "IncompleteBody" }
        }
    }

    @Test("checksums: CRC32, CRC32C, SHA1, SHA256 and Content-MD5, as botocore computes them")
    func checksums() throws {
        // For b"hello world": Python's zlib and hashlib, and CRC-32C 0xC99465AA (its published check value).
        let body = Array("hello world".utf8)
        let headers: [(name: String, value: String)] = [
            ("x-amz-checksum-crc32", "DUoRhQ=="), ("x-amz-checksum-crc32c", "yZRlqg=="),
            ("x-amz-checksum-sha1", "Kq5sNclPz7QV2+lfQIuc6R7oRu0="),
            ("x-amz-checksum-sha256", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="),
            ("Content-MD5", "XrY7u+Ae7tCTyyK7j1rNww=="),
        ]
        let request = APIRequest(method: "PUT", path: "/b/k", headers: headers, body: body)
        #expect(try S3Checksums.verify(request, body: body).count == 4)
        for index in headers.indices {
            var changed = headers
            changed[index].value = "AAAAAAAAAAAAAAAAAAAAAA=="
            let tampered = APIRequest(method: "PUT", path: "/b/k", headers: changed, body: body)
            #expect(throws: S3Error.self) { try S3Checksums.verify(tampered, body: body) }
        }
    }

    @Test("DeleteObjects bodies: keys with entities, Quiet, and what is no such body")
    func deleteRequests() throws {
        let parsed = try S3DeleteRequest(
            parsing: Array(
                "<?xml version=\"1.0\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Object><Key>a&amp;b&#x1;</Key></Object><Object><Key>c&lt;d</Key><VersionId>x</VersionId></Object><Quiet>true</Quiet></Delete>"
                    .utf8))
        #expect(parsed == S3DeleteRequest(keys: ["a&b\u{1}", "c<d"], quiet: true))
        for body in [
            "", "<Delete></Delete>", "<Delete><Object><Key>a</Object></Delete>",
            "<Delete><Object><Key>&bogus;</Key></Object></Delete>",
        ] {
            #expect(throws: S3Error.self) { try S3DeleteRequest(parsing: Array(body.utf8)) }
        }
        let tooMany = "<Delete>" + String(repeating: "<Object><Key>k</Key></Object>", count: 1001) + "</Delete>"
        #expect(throws: S3Error.self) { try S3DeleteRequest(parsing: Array(tooMany.utf8)) }
    }

    @Test("CompleteMultipartUpload bodies: parts in the order given, their ETags decoded")
    func completeRequests() throws {
        let parsed = try S3CompleteRequest(
            parsing: Array(
                "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Part><ETag>&quot;a&quot;</ETag><PartNumber>2</PartNumber><ChecksumCRC32>x</ChecksumCRC32></Part><Part><PartNumber>1</PartNumber><ETag>b</ETag></Part></CompleteMultipartUpload>"
                    .utf8))
        #expect(parsed.parts == [.init(number: 2, etag: "\"a\""), .init(number: 1, etag: "b")])
        for body in [
            "", "<CompleteMultipartUpload></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>x</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>",
            "<CompleteMultipartUpload><Part><PartNumber>10001</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>",
        ] {
            #expect(throws: S3Error.self) { try S3CompleteRequest(parsing: Array(body.utf8)) }
        }
    }

    @Test("multipart uploads: parts checked as S3 checks them, S3's ETag, a refused list changes nothing")
    func multipartUploads() async throws {
        let root = try TestDirectory("uploads").url.path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let uploads = S3MultipartUploads(root: root)
        let id = try uploads.create(bucket: "b", key: "k")
        let large = [UInt8](repeating: 7, count: S3MultipartUploads.minPartSize)
        let first = try await uploads.storePart(
            [1, 2, 3], md5: Array(Insecure.MD5.hash(data: [1, 2, 3])), number: 1, upload: id, bucket: "b", key: "k")
        let second = try await uploads.storePart(
            [4], md5: Array(Insecure.MD5.hash(data: [4])), number: 2, upload: id, bucket: "b", key: "k")
        func codeOf(_ parts: [S3CompleteRequest.Part], key: String = "k") -> String? {
            do {
                _ = try uploads.take(id, bucket: "b", key: key, listed: parts)
                return nil
            } catch { return error.code }
        }
        #expect(codeOf([.init(number: 1, etag: first), .init(number: 2, etag: second)]) == "EntityTooSmall")
        #expect(codeOf([.init(number: 2, etag: second), .init(number: 1, etag: first)]) == "InvalidPartOrder")
        #expect(codeOf([.init(number: 1, etag: second)]) == "InvalidPart")
        #expect(codeOf([.init(number: 3, etag: second)]) == "InvalidPart")
        #expect(codeOf([.init(number: 1, etag: first)], key: "other") == "NoSuchUpload")
        // Part 1 again, now large enough: the earlier file goes.
        let replaced = try await uploads.storePart(
            large, md5: Array(Insecure.MD5.hash(data: large)), number: 1, upload: id, bucket: "b", key: "k")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(root)/\(id)").count == 2)
        let taken = try uploads.take(
            id, bucket: "b", key: "k",
            listed: [.init(number: 1, etag: replaced.uppercased()), .init(number: 2, etag: second)])
        #expect(taken.parts.map(\.size) == [large.count, 1])
        var digests = Insecure.MD5()
        digests.update(data: Array(Insecure.MD5.hash(data: large)))
        digests.update(data: Array(Insecure.MD5.hash(data: [4])))
        #expect(taken.etag == "\"\(Hex.string(digests.finalize()))-2\"")
        #expect(uploads.inProgress == 0)
        await #expect(throws: S3Error.self) {
            try await uploads.storePart(
                [5], md5: Array(Insecure.MD5.hash(data: [5])), number: 3, upload: id, bucket: "b", key: "k")
        }
        uploads.restore(id, taken.upload)
        #expect(uploads.inProgress == 1)
        try await uploads.abort(id, bucket: "b", key: "k")
        #expect(!FileManager.default.fileExists(atPath: "\(root)/\(id)"))
        // A new run starts with none.
        let again = try uploads.create(bucket: "b", key: "k")
        _ = S3MultipartUploads(root: root)
        #expect(!FileManager.default.fileExists(atPath: "\(root)/\(again)"))
    }

    @Test("uploads and parts in progress are bounded: SlowDown past them, room again once some end")
    func multipartBounds() async throws {
        let root = try TestDirectory("uploads").url.path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let uploads = S3MultipartUploads(root: root, maxInProgress: 2, maxPartFiles: 3)
        let first = try uploads.create(bucket: "b", key: "k")
        let second = try uploads.create(bucket: "b", key: "k")
        #expect(throws: S3Error.self) { try uploads.create(bucket: "b", key: "k") }
        for number in 1...3 {
            _ = try await uploads.storePart(
                [1], md5: Array(Insecure.MD5.hash(data: [1])), number: number, upload: first, bucket: "b", key: "k")
        }
        // A part uploaded again replaces its file, so it is not refused; a new one is.
        _ = try await uploads.storePart(
            [2], md5: Array(Insecure.MD5.hash(data: [2])), number: 3, upload: first, bucket: "b", key: "k")
        do {
            _ = try await uploads.storePart(
                [1], md5: Array(Insecure.MD5.hash(data: [1])), number: 1, upload: second, bucket: "b", key: "k")
            Issue.record("a fourth part was taken")
        } catch {
            #expect(error.code == "SlowDown" && error.status == 503)
        }
        try await uploads.abort(first, bucket: "b", key: "k")
        _ = try await uploads.storePart(
            [1], md5: Array(Insecure.MD5.hash(data: [1])), number: 1, upload: second, bucket: "b", key: "k")
        _ = try uploads.create(bucket: "b", key: "k")
    }

    @Test("new bucket names follow S3's rules")
    func bucketNames() {
        for good in ["abc", "my-bucket.v2", String(repeating: "a", count: 63)] {
            #expect(BucketFolders.newBucketNameProblem(good) == nil)
        }
        for bad in ["ab", "Bad", "a_b", "-ab", "ab-", "a..b", "192.168.1.1", String(repeating: "a", count: 64)] {
            #expect(BucketFolders.newBucketNameProblem(bad) != nil)
        }
    }
}
