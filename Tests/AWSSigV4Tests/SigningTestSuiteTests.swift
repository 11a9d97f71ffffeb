import Foundation
import Testing

@testable import AWSSigV4

/// The AWS signing test suite (awslabs/aws-c-auth, `tests/aws-signing-test-suite/v4`), vendored with its
/// licence in `Tests/sigv4-test-suite/v4`. Every case runs four ways: the canonical request
/// (and string to sign) of both the signer and the verifier, the signer's signature, the verifier
/// accepting the signed request, and the verifier rejecting it once tampered with or replayed late.
enum SigningSuite {
    /// Cases that cannot apply to Firehose (they run under the S3 dialect, test (e)). Each must stay
    /// explained; the test
    /// `skippedCasesAreExactlyTheS3OnlyOnes` fails if this list and the suite drift apart.
    ///
    /// The `-unnormalized` cases have `"normalize": false`: they sign the path as is, which only S3 does.
    /// Every other service, Firehose included, normalizes the path, and their `-normalized` twins run.
    /// No other case is skipped: the suite's query-string (presigned URL) files are not used because
    /// Firehose requests are signed in the `Authorization` header, not because they fail.
    static let notApplicable: [String: String] = [
        "get-relative-relative-unnormalized": s3Only,
        "get-relative-unnormalized": s3Only,
        "get-slash-dot-slash-unnormalized": s3Only,
        "get-slash-pointless-dot-unnormalized": s3Only,
        "get-slash-unnormalized": s3Only,
        "get-slashes-unnormalized": s3Only,
        "get-space-unnormalized": s3Only,
    ]
    static let s3Only = "normalize: false — S3-only path handling; Firehose always normalizes"

    static let allCaseNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestPaths.signingSuite.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    static let applicableCaseNames = allCaseNames.filter { notApplicable[$0] == nil }
}

struct SuiteCase {
    struct Context: Decodable {
        struct Credentials: Decodable {
            var accessKeyId: String
            var secretAccessKey: String
            var token: String?
        }
        var credentials: Credentials
        var region: String
        var service: String
        var timestamp: String
        var normalize: Bool
        var signBody: Bool
        var omitSessionToken: Bool?
    }

    let name: String
    let context: Context
    let unsigned: RawHTTPRequest
    let signed: RawHTTPRequest
    let expectedCanonicalRequest: String
    let expectedStringToSign: String
    let expectedSignature: String

    init(_ name: String) throws {
        self.name = name
        let folder = TestPaths.signingSuite.appendingPathComponent(name)
        func text(_ file: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        }
        context = try snakeCaseDecoder.decode(
            Context.self, from: Data(contentsOf: folder.appendingPathComponent("context.json")))
        unsigned = try RawHTTPRequest(contentsOf: folder.appendingPathComponent("request.txt"))
        signed = try RawHTTPRequest(contentsOf: folder.appendingPathComponent("header-signed-request.txt"))
        expectedCanonicalRequest = try text("header-canonical-request.txt")
        expectedStringToSign = try text("header-string-to-sign.txt")
        expectedSignature = try text("header-signature.txt").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var date: Date { utcDate(context.timestamp) }

    /// The credentials the server knows, token included even when the case sends it unsigned.
    var credentials: AWSCredentials {
        AWSCredentials(
            accessKeyId: context.credentials.accessKeyId,
            secretAccessKey: context.credentials.secretAccessKey,
            sessionToken: context.credentials.token
        )
    }

    /// `omit_session_token` cases sign without the token and add it afterwards.
    var signingCredentials: AWSCredentials {
        var credentials = credentials
        if context.omitSessionToken == true {
            credentials.sessionToken = nil
        }
        return credentials
    }

    var verifier: SigV4Verifier {
        let credentials = credentials
        return SigV4Verifier(region: context.region, service: context.service) { id in
            id == credentials.accessKeyId ? credentials : nil
        }
    }

    /// What our signer computes for `request.txt`; `sign_body` cases also sign `X-Amz-Content-Sha256`.
    func signerParts() -> SigV4Signer.SigningParts {
        let bodyHash = SHA256Hex.hash(unsigned.body)
        var headers = unsigned.headers
        if context.signBody {
            headers.append(("X-Amz-Content-Sha256", bodyHash))
        }
        let signer = SigV4Signer(credentials: signingCredentials, region: context.region, service: context.service)
        return signer.signingParts(
            method: unsigned.method,
            path: unsigned.path,
            query: unsigned.query,
            headers: headers,
            bodySHA256: bodyHash,
            date: date
        )
    }

    var signedAuthorization: String { signed.values(of: "authorization")[0] }
}

@Suite("AWS signing test suite")
struct SigningTestSuiteTests {
    @Test("skipped cases are exactly the S3-only ones")
    func skippedCasesAreExactlyTheS3OnlyOnes() throws {
        try #require(
            !SigningSuite.allCaseNames.isEmpty,
            "AWS signing suite not found at \(TestPaths.signingSuite.path)"
        )
        var unnormalized: Set<String> = []
        for name in SigningSuite.allCaseNames where try !SuiteCase(name).context.normalize {
            unnormalized.insert(name)
        }
        #expect(unnormalized == Set(SigningSuite.notApplicable.keys))
        #expect(SigningSuite.allCaseNames.count == 38)
        #expect(SigningSuite.applicableCaseNames.count == 31)
    }

    @Test("(a) canonical request and string to sign", arguments: SigningSuite.applicableCaseNames)
    func canonicalRequest(name: String) throws {
        let suiteCase = try SuiteCase(name)

        let parts = suiteCase.signerParts()
        #expect(String(decoding: parts.canonicalRequest, as: UTF8.self) == suiteCase.expectedCanonicalRequest)
        #expect(String(decoding: parts.stringToSign, as: UTF8.self) == suiteCase.expectedStringToSign)

        // The verifier's side: rebuilt from the signed request and the SignedHeaders it lists.
        let signed = suiteCase.signed
        let authorization = try AuthorizationHeader(parsing: suiteCase.signedAuthorization)
        let signedHeaders = try #require(authorization.signedHeaders)
        let rebuilt = CanonicalRequest.build(
            method: signed.method,
            path: signed.path,
            query: signed.query,
            signedHeaderNames: signedHeaders.split(separator: ";"),
            signedHeadersLine: String(signedHeaders),
            headers: signed.headers,
            payloadHash: SHA256Hex.hash(signed.body)
        )
        #expect(String(decoding: rebuilt, as: UTF8.self) == suiteCase.expectedCanonicalRequest)
    }

    @Test("(b) signer reproduces the signature", arguments: SigningSuite.applicableCaseNames)
    func signature(name: String) throws {
        let suiteCase = try SuiteCase(name)
        let parts = suiteCase.signerParts()
        #expect(parts.signature == suiteCase.expectedSignature)
        #expect(parts.authorization == suiteCase.signedAuthorization)
    }

    @Test("(c) verifier accepts the signed request", arguments: SigningSuite.applicableCaseNames)
    func verifierAccepts(name: String) throws {
        let suiteCase = try SuiteCase(name)
        let credentials = try suiteCase.verifier.verify(suiteCase.signed.sigV4Request, now: suiteCase.date)
        #expect(credentials == suiteCase.credentials)
    }

    @Test("(e) the S3-only cases, under the S3 dialect", arguments: SigningSuite.notApplicable.keys.sorted())
    func s3Dialect(name: String) throws {
        let suiteCase = try SuiteCase(name)
        let signed = suiteCase.signed
        let authorization = try AuthorizationHeader(parsing: suiteCase.signedAuthorization)
        let signedHeaders = try #require(authorization.signedHeaders)
        let rebuilt = CanonicalRequest.build(
            method: signed.method, path: signed.path, query: signed.query,
            signedHeaderNames: signedHeaders.split(separator: ";"), signedHeadersLine: String(signedHeaders),
            headers: signed.headers, payloadHash: SHA256Hex.hash(signed.body), pathAsSent: true)
        #expect(String(decoding: rebuilt, as: UTF8.self) == suiteCase.expectedCanonicalRequest)

        // S3 takes the payload hash from the header every S3 client sends (unsigned here).
        let credentials = suiteCase.credentials
        let verifier = SigV4Verifier(region: suiteCase.context.region, service: suiteCase.context.service, dialect: .s3)
        {
            $0 == credentials.accessKeyId ? credentials : nil
        }
        var request = signed.sigV4Request
        request.headers.append(("x-amz-content-sha256", SHA256Hex.hash(signed.body)))
        #expect(try verifier.verify(request, now: suiteCase.date) == credentials)
        // The standard dialect normalizes these paths, so where that changes the path it computes
        // another signature (`/example space/` is the same either way).
        let standard = CanonicalRequest.build(
            method: signed.method, path: signed.path, query: signed.query,
            signedHeaderNames: signedHeaders.split(separator: ";"), signedHeadersLine: String(signedHeaders),
            headers: signed.headers, payloadHash: SHA256Hex.hash(signed.body))
        if standard != rebuilt {
            #expect(throws: SigV4Error.self) { try suiteCase.verifier.verify(signed.sigV4Request, now: suiteCase.date) }
        }
    }

    @Test(
        "S3's canonical URI keeps escapes as sent and escapes raw bytes once",
        arguments: [
            ("/test%24file.text", "/test%24file.text"), ("/example space/", "/example%20space/"),
            ("/a%7e%41%2fb%2Fc", "/a%7e%41%2fb%2Fc"), ("/%2E%2E/x", "/%2E%2E/x"), ("/k(1)!*'", "/k%281%29%21%2A%27"),
            ("", "/"), ("/é", "/%C3%A9"),
        ])
    func s3CanonicalURI(path: String, expected: String) {
        var out: [UInt8] = []
        CanonicalRequest.appendS3CanonicalURI(path, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }

    @Test("(d) verifier rejects tampering and replay", arguments: SigningSuite.applicableCaseNames)
    func verifierRejects(name: String) throws {
        let suiteCase = try SuiteCase(name)
        let verifier = suiteCase.verifier
        let mismatch = SigV4Error(code: "InvalidSignatureException", message: SigV4Error.signatureMismatchMessage)

        // One byte of the body (the suite's bodies are mostly empty: then one byte is added).
        var body = suiteCase.signed
        if body.body.isEmpty {
            body.body = [UInt8(ascii: "x")]
        } else {
            body.body[body.body.count - 1] ^= 0x01
        }
        #expect(throws: mismatch) { try verifier.verify(body.sigV4Request, now: suiteCase.date) }

        // One byte of each signed header's value.
        let authorization = try AuthorizationHeader(parsing: suiteCase.signedAuthorization)
        let signedNames = try #require(authorization.signedHeaders).split(separator: ";").map(String.init)
        for signedName in signedNames {
            var tampered = suiteCase.signed
            let index = try #require(tampered.headers.firstIndex { $0.name.lowercased() == signedName })
            if signedName == "x-amz-date" {
                // Move the seconds only: another day or hour would be caught earlier, by scope or skew.
                var value = Array(tampered.headers[index].value.utf8)
                value[value.count - 2] =
                    value[value.count - 2] == UInt8(ascii: "9") ? UInt8(ascii: "8") : value[value.count - 2] + 1
                tampered.headers[index].value = String(decoding: value, as: UTF8.self)
            } else {
                tampered.headers[index].value = mutatedValue(tampered.headers[index].value)
            }
            #expect(throws: mismatch, "changed \(signedName)") {
                try verifier.verify(tampered.sigV4Request, now: suiteCase.date)
            }
        }

        // Replayed six minutes late, or arriving six minutes early.
        #expect(
            throws: SigV4Error(
                code: "InvalidSignatureException",
                message:
                    "Signature expired: 20150830T123600Z is now earlier than 20150830T123700Z (20150830T124200Z - 5 min.)"
            )
        ) {
            try verifier.verify(suiteCase.signed.sigV4Request, now: suiteCase.date + 360)
        }
        #expect(
            throws: SigV4Error(
                code: "InvalidSignatureException",
                message:
                    "Signature not yet current: 20150830T123600Z is still later than 20150830T123500Z (20150830T123000Z + 5 min.)"
            )
        ) {
            try verifier.verify(suiteCase.signed.sigV4Request, now: suiteCase.date - 360)
        }
    }
}
