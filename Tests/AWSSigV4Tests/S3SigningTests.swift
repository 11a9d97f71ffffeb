import Foundation
import Testing

@testable import AWSSigV4

/// The S3 dialect against the worked examples of AWS's S3 documentation ("Examples: Signature
/// Calculations", sig-v4-header-based-auth.html and sigv4-query-string-auth.html), whose signatures
/// botocore's S3 signer also computes, and its own errors.
@Suite("S3 signing")
struct S3SigningTests {
    static let credentials = AWSCredentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let now = utcDate("2013-05-24T00:00:00Z")
    let verifier = SigV4Verifier(region: "us-east-1", service: "s3", dialect: .s3) { id in
        id == S3SigningTests.credentials.accessKeyId ? S3SigningTests.credentials : nil
    }

    static func headerSigned(
        method: String = "GET", path: String, query: String = "", headers: [(name: String, value: String)],
        signedHeaders: String, signature: String, bodySHA256: String = emptyHash
    ) -> SigV4Request {
        let authorization =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=\(signedHeaders),Signature=\(signature)"
        return SigV4Request(
            method: method, path: path, query: query,
            headers: [("Host", "examplebucket.s3.amazonaws.com")] + headers + [("Authorization", authorization)],
            bodySHA256: bodySHA256)
    }

    static let getObject = headerSigned(
        path: "/test.txt",
        headers: [("Range", "bytes=0-9"), ("x-amz-content-sha256", emptyHash), ("x-amz-date", "20130524T000000Z")],
        signedHeaders: "host;range;x-amz-content-sha256;x-amz-date",
        signature: "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")

    @Test("GET Object with a Range header")
    func getObjectExample() throws {
        #expect(try verifier.verify(Self.getObject, now: Self.now) == Self.credentials)
    }

    @Test("GET Bucket Lifecycle: a query key without a value")
    func lifecycleExample() throws {
        let request = Self.headerSigned(
            path: "/", query: "lifecycle",
            headers: [("x-amz-content-sha256", Self.emptyHash), ("x-amz-date", "20130524T000000Z")],
            signedHeaders: "host;x-amz-content-sha256;x-amz-date",
            signature: "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        #expect(try verifier.verify(request, now: Self.now) == Self.credentials)
    }

    @Test("Get Bucket (List Objects): query parameters sorted")
    func listObjectsExample() throws {
        let request = Self.headerSigned(
            path: "/", query: "max-keys=2&prefix=J",
            headers: [("x-amz-content-sha256", Self.emptyHash), ("x-amz-date", "20130524T000000Z")],
            signedHeaders: "host;x-amz-content-sha256;x-amz-date",
            signature: "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
        #expect(try verifier.verify(request, now: Self.now) == Self.credentials)
    }

    static let presignedQuery =
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"

    static func presigned(query: String = presignedQuery) -> SigV4Request {
        SigV4Request(
            method: "GET", path: "/test.txt", query: query, headers: [("Host", "examplebucket.s3.amazonaws.com")],
            bodySHA256: emptyHash)
    }

    @Test("a presigned GET within its 86400 seconds, at either end")
    func presignedExample() throws {
        #expect(try verifier.verify(Self.presigned(), now: Self.now) == Self.credentials)
        #expect(try verifier.verify(Self.presigned(), now: Self.now.addingTimeInterval(86400)) == Self.credentials)
    }

    @Test("a presigned URL after its expiry is AccessDenied")
    func presignedExpired() {
        #expect(throws: SigV4Error(code: "AccessDenied", message: "Request has expired")) {
            try verifier.verify(Self.presigned(), now: Self.now.addingTimeInterval(86401))
        }
    }

    @Test("a presigned URL whose signature or path was changed does not match")
    func presignedTampered() throws {
        let wrongSignature = Self.presignedQuery.replacingOccurrences(of: "=aeeed9bb", with: "=aeeed9bc")
        let error = #expect(throws: SigV4Error.self) {
            try verifier.verify(Self.presigned(query: wrongSignature), now: Self.now)
        }
        #expect(error?.kind == .signatureMismatch)
        var otherPath = Self.presigned()
        otherPath.path = "/other.txt"
        let mismatch = #expect(throws: SigV4Error.self) { try verifier.verify(otherPath, now: Self.now) }
        #expect(mismatch?.kind == .signatureMismatch)
    }

    @Test("a presigned URL missing a parameter, or valid for more than a week")
    func presignedParameters() {
        let missing = Self.presignedQuery.replacingOccurrences(of: "&X-Amz-Expires=86400", with: "")
        #expect(throws: SigV4Error.self) { try verifier.verify(Self.presigned(query: missing), now: Self.now) }
        let tooLong = Self.presignedQuery.replacingOccurrences(of: "X-Amz-Expires=86400", with: "X-Amz-Expires=604801")
        #expect(
            throws: SigV4Error(
                code: "AuthorizationQueryParametersError",
                message: "X-Amz-Expires must be less than a week (in seconds) that is 604800")
        ) { try verifier.verify(Self.presigned(query: tooLong), now: Self.now) }
    }

    @Test("PUT Object: the path is signed as sent, where a normalizing verifier would encode it again")
    func putObjectExample() throws {
        // `test$file.text` as the documentation's client sends it; the standard dialect signs `%2524`.
        let put = Self.headerSigned(
            method: "PUT", path: "/test%24file.text",
            headers: [
                ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("x-amz-content-sha256", "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"),
                ("x-amz-date", "20130524T000000Z"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ],
            signedHeaders: "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
            signature: "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
            bodySHA256: SHA256Hex.hash(Array("Welcome to Amazon S3.".utf8)))
        #expect(try verifier.verify(put, now: Self.now) == Self.credentials)
        let standard = SigV4Verifier(region: "us-east-1", service: "s3") { _ in Self.credentials }
        #expect(throws: SigV4Error.self) { try standard.verify(put, now: Self.now) }
    }

    @Test("the payload hash is the declared one, and a request signed in S3's header must declare it")
    func declaredPayloadHash() {
        let undeclared = Self.headerSigned(
            path: "/test.txt", headers: [("x-amz-date", "20130524T000000Z")], signedHeaders: "host;x-amz-date",
            signature: "0000")
        #expect(
            throws: SigV4Error(
                code: "InvalidRequest", message: "Missing required header for this request: x-amz-content-sha256")
        ) { try verifier.verify(undeclared, now: Self.now) }
        // Whatever the body, the signature covers the declared hash; checking it against the body is
        // the S3 layer's job (XAmzContentSHA256Mismatch).
        var other = Self.getObject
        other.bodySHA256 = SHA256Hex.hash(Array("something else".utf8))
        #expect(throws: Never.self) { try verifier.verify(other, now: Self.now) }
    }

    @Test("a credential scoped to another region is accepted: every region's S3 client reaches the bucket")
    func anyRegion() throws {
        let headers: [(name: String, value: String)] = [
            ("host", "examplebucket.s3.amazonaws.com"), ("x-amz-content-sha256", Self.emptyHash),
            ("x-amz-date", "20130524T000000Z"),
        ]
        let signature = Self.signature(
            method: "GET", path: "/test.txt", headers: headers, payloadHash: Self.emptyHash, region: "eu-west-1")
        let request = SigV4Request(
            method: "GET", path: "/test.txt",
            headers: headers + [
                (
                    "Authorization",
                    "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/eu-west-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=\(signature)"
                )
            ], bodySHA256: Self.emptyHash)
        #expect(try verifier.verify(request, now: Self.now) == Self.credentials)
    }

    // MARK: Signature Version 2 presigned URLs

    static func v2(_ target: String, host: String = "127.0.0.1:4573") -> SigV4Request {
        let parts = target.split(separator: "?", maxSplits: 1)
        return SigV4Request(
            method: "GET", path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "",
            headers: [("Host", host)], bodySHA256: emptyHash)
    }

    @Test("Signature Version 2 presigned URLs from botocore's HmacV1QueryAuth, and AWS's documented example")
    func queryStringV2() throws {
        let temporary = AWSCredentials(accessKeyId: "ASIATEMP", secretAccessKey: "tempsecret", sessionToken: "tok/123=")
        let verifier = SigV4Verifier(region: "us-east-1", service: "s3", dialect: .s3) { id in
            [Self.credentials, temporary].first { $0.accessKeyId == id }
        }
        let now = Self.now
        for target in [
            "/examplebucket/logs/a%20b%2Bc.txt?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=qpNv6HDiYeF0uHEJn9tTJReAkEg%3D&Expires=1369357200",
            "/examplebucket/k.txt?response-content-type=text%2Fplain&AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=bC6TPcypjSzAse6%2FTS9pq4ij2JQ%3D&Expires=1369357200",
        ] {
            #expect(SigV4Verifier.isQueryStringV2(target))
            #expect(
                try verifier.verifyQueryStringV2(Self.v2(target), virtualHostedBucket: nil, now: now)
                    == Self.credentials)
        }
        let withToken =
            "/examplebucket/k.txt?AWSAccessKeyId=ASIATEMP&Signature=vl%2BC2E40PKG5Vfr78fF9YHlVyHg%3D&x-amz-security-token=tok%2F123%3D&Expires=1369357200"
        #expect(try verifier.verifyQueryStringV2(Self.v2(withToken), virtualHostedBucket: nil, now: now) == temporary)
        // sig-v2 RESTAuthentication.html, "Query String Request Authentication Alternative".
        let documented = Self.v2(
            "/photos/puppy.jpg?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1175139620&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D",
            host: "johnsmith.s3.amazonaws.com")
        #expect(
            try verifier.verifyQueryStringV2(
                documented, virtualHostedBucket: "johnsmith", now: Date(timeIntervalSince1970: 1_175_139_000))
                == Self.credentials)
    }

    @Test("a Signature Version 2 URL that expired, or whose resource or subresource changed, is refused")
    func queryStringV2Refused() {
        let target =
            "/examplebucket/k.txt?response-content-type=text%2Fplain&AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=bC6TPcypjSzAse6%2FTS9pq4ij2JQ%3D&Expires=1369357200"
        #expect(throws: SigV4Error(code: "AccessDenied", message: "Request has expired")) {
            try verifier.verifyQueryStringV2(
                Self.v2(target), virtualHostedBucket: nil, now: Date(timeIntervalSince1970: 1_369_357_201))
        }
        for changed in [
            target.replacingOccurrences(of: "/k.txt", with: "/j.txt"),
            target.replacingOccurrences(of: "text%2Fplain", with: "text%2Fhtml"),
        ] {
            let error = #expect(throws: SigV4Error.self) {
                try verifier.verifyQueryStringV2(Self.v2(changed), virtualHostedBucket: nil, now: Self.now)
            }
            #expect(error?.kind == .signatureMismatch)
        }
        #expect(throws: SigV4Error.self) {
            try verifier.verifyQueryStringV2(
                Self.v2("/b/k?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=x"), virtualHostedBucket: nil, now: Self.now
            )
        }
    }

    // MARK: aws-chunked uploads

    /// sigv4-streaming.html's example: 66,560 bytes of `a` in a 64 KiB chunk, a 1 KiB chunk and the
    /// final empty one.
    static let chunkedPut = headerSigned(
        method: "PUT", path: "/examplebucket/chunkObject.txt",
        headers: [
            ("x-amz-date", "20130524T000000Z"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ("x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"), ("Content-Encoding", "aws-chunked"),
            ("x-amz-decoded-content-length", "66560"), ("Content-Length", "66824"),
        ],
        signedHeaders:
            "content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class",
        signature: "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")

    @Test("a chunked upload's seed signature, and each chunk's chained from it")
    func chunkSignatures() throws {
        var request = Self.chunkedPut
        request.headers[0] = ("Host", "s3.amazonaws.com")
        let (credentials, chunks) = try verifier.verifyStreaming(request, now: Self.now)
        #expect(credentials == Self.credentials)
        var chain = chunks
        #expect(chain.previous == "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
        #expect(
            chain.next(dataSHA256: SHA256Hex.hash([UInt8](repeating: UInt8(ascii: "a"), count: 65536)))
                == "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648")
        #expect(
            chain.next(dataSHA256: SHA256Hex.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1024)))
                == "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497")
        #expect(
            chain.next(dataSHA256: SHA256Hex.empty)
                == "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9")
        // The chain is order-dependent: the second chunk's signature does not sign the first.
        var other = chunks
        #expect(
            other.next(dataSHA256: SHA256Hex.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1024)))
                != "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497")
    }

    @Test("the signer's S3 dialect reproduces the documented GET Object signature, and the verifier accepts it")
    func signer() throws {
        let signer = SigV4Signer(credentials: Self.credentials, region: "us-east-1", service: "s3", dialect: .s3)
        let headers: [(name: String, value: String)] = [
            ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
        ]
        let added = signer.sign(
            method: "GET", path: "/test.txt", query: "", headers: headers, bodySHA256: Self.emptyHash, date: Self.now)
        #expect(added.map(\.name) == ["X-Amz-Date", "x-amz-content-sha256", "Authorization"])
        #expect(
            added.last?.value.hasSuffix("Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
                == true)
        let request = SigV4Request(
            method: "GET", path: "/test.txt", headers: headers + added, bodySHA256: Self.emptyHash)
        #expect(try verifier.verify(request, now: Self.now) == Self.credentials)
        #expect(SigV4URI.encodePath("logs/a b+c/é~") == "logs/a%20b%2Bc/%C3%A9~")
    }

    /// The signature of a request whose headers are all signed, computed from the canonical request.
    static func signature(
        method: String, path: String, headers: [(name: String, value: String)], payloadHash: String,
        region: String = "us-east-1"
    ) -> String {
        let names = headers.map { Substring($0.name) }
        let canonical = CanonicalRequest.build(
            method: method, path: path, query: "", signedHeaderNames: names,
            signedHeadersLine: names.joined(separator: ";"), headers: headers, payloadHash: payloadHash,
            pathAsSent: true)
        let scope = "20130524/\(region)/s3/aws4_request"
        let stringToSign = CanonicalRequest.stringToSign(
            timestamp: AMZTimestamp(secondsSince1970: 1_369_353_600), scope: scope, canonicalRequest: canonical)
        let key = SigningKeyCache().signingKey(
            secret: credentials.secretAccessKey, date: "20130524", region: region, service: "s3")
        return String(decoding: SigningKeyCache.signature(signingKey: key, stringToSign: stringToSign), as: UTF8.self)
    }
}
