import Foundation
import Testing

@testable import AWSSigV4

/// Requests botocore really sent (see `scripts/capture-boto3-requests.py` and
/// `sample-data/captured/boto3-manifest.json`): the JSON POSTs the AWS suite lacks, with `Host` carrying
/// `:4573`, binary record data and a session token.
struct Boto3Capture {
    struct Manifest: Decodable {
        struct Credentials: Decodable {
            var accessKeyId: String
            var secretAccessKey: String
            var sessionToken: String
        }
        struct Entry: Decodable {
            var file: String
            var operation: String
            var usesSessionToken: Bool
        }
        var timestamp: String
        var region: String
        var service: String
        var credentials: Credentials
        var requests: [Entry]
    }

    static let manifest: Manifest? = try? snakeCaseDecoder.decode(
        Manifest.self,
        from: Data(contentsOf: TestPaths.capturedRequests.appendingPathComponent("boto3-manifest.json"))
    )

    static let files: [String] = manifest?.requests.map(\.file) ?? []

    let manifest: Manifest
    let entry: Manifest.Entry
    let request: RawHTTPRequest

    init(_ file: String) throws {
        manifest = try #require(Self.manifest)
        entry = try #require(manifest.requests.first { $0.file == file })
        request = try RawHTTPRequest(contentsOf: TestPaths.capturedRequests.appendingPathComponent(file))
    }

    /// The manifest's `yyyyMMddTHHmmssZ`, as a `Date`.
    var date: Date {
        let t = Array(manifest.timestamp)
        return utcDate(
            "\(String(t[0..<4]))-\(String(t[4..<6]))-\(String(t[6..<8]))T\(String(t[9..<11])):\(String(t[11..<13])):\(String(t[13..<15]))Z"
        )
    }

    var credentials: AWSCredentials {
        AWSCredentials(
            accessKeyId: manifest.credentials.accessKeyId,
            secretAccessKey: manifest.credentials.secretAccessKey,
            sessionToken: entry.usesSessionToken ? manifest.credentials.sessionToken : nil
        )
    }

    func verifier(region: String? = nil, knowing credentials: AWSCredentials? = nil) -> SigV4Verifier {
        let known = credentials ?? self.credentials
        return SigV4Verifier(region: region ?? manifest.region, service: manifest.service) { id in
            id == known.accessKeyId ? known : nil
        }
    }
}

@Suite("Golden requests captured from boto3")
struct Boto3CaptureTests {
    @Test("the captures are there")
    func capturesExist() throws {
        let manifest = try #require(Boto3Capture.manifest, "no manifest in \(TestPaths.capturedRequests.path)")
        #expect(Set(manifest.requests.map(\.operation)) == ["PutRecord", "PutRecordBatch"])
        #expect(manifest.requests.contains { $0.usesSessionToken })
    }

    @Test("verifier accepts what botocore signed", arguments: Boto3Capture.files)
    func verifierAccepts(file: String) throws {
        let capture = try Boto3Capture(file)
        #expect(capture.request.values(of: "host") == [" localhost:4573"])
        let credentials = try capture.verifier().verify(capture.request.sigV4Request, now: capture.date)
        #expect(credentials == capture.credentials)
    }

    @Test("signer writes the Authorization header botocore wrote", arguments: Boto3Capture.files)
    func signerMatchesBotocore(file: String) throws {
        let capture = try Boto3Capture(file)
        let request = capture.request
        let authorization = try AuthorizationHeader(parsing: request.values(of: "authorization")[0])
        let signedNames = try #require(authorization.signedHeaders).split(separator: ";").map(String.init)
        // Give the signer the headers botocore signed, less the two it adds itself.
        let headers = request.headers.filter {
            let name = $0.name.lowercased()
            return signedNames.contains(name) && name != "x-amz-date" && name != "x-amz-security-token"
        }
        let signer = SigV4Signer(
            credentials: capture.credentials, region: capture.manifest.region, service: capture.manifest.service)
        let added = signer.sign(
            method: request.method,
            path: request.path,
            query: request.query,
            headers: headers,
            bodySHA256: SHA256Hex.hash(request.body),
            date: capture.date
        )
        let expected = request.headers.filter {
            ["x-amz-date", "x-amz-security-token", "authorization"].contains($0.name.lowercased())
        }
        #expect(added.map(\.name) == expected.map(\.name))
        #expect(added.map(\.value) == expected.map { $0.value.trimmingCharacters(in: .whitespaces) })
    }

    @Test("the port is part of what is signed")
    func hostPortIsSigned() throws {
        let capture = try Boto3Capture("boto3-put-record.http")
        var request = capture.request
        let index = try #require(request.headers.firstIndex { $0.name == "Host" })
        request.headers[index].value = " localhost"
        #expect(throws: SigV4Error(code: "InvalidSignatureException", message: SigV4Error.signatureMismatchMessage)) {
            try capture.verifier().verify(request.sigV4Request, now: capture.date)
        }
    }

    @Test("a server in another region rejects the scope")
    func otherRegion() throws {
        let capture = try Boto3Capture("boto3-put-record.http")
        #expect(
            throws: SigV4Error(
                code: "InvalidSignatureException",
                message: "Credential should be scoped to a valid region, not 'us-east-1'. "
            )
        ) {
            try capture.verifier(region: "eu-west-1").verify(capture.request.sigV4Request, now: capture.date)
        }
    }

    @Test("a session token must match the credentials")
    func sessionTokenMustMatch() throws {
        let capture = try Boto3Capture("boto3-put-record-session-token.http")
        let unrecognized = SigV4Error(
            code: "UnrecognizedClientException",
            message: "The security token included in the request is invalid."
        )
        var withoutToken = capture.credentials
        withoutToken.sessionToken = nil
        #expect(throws: unrecognized) {
            try capture.verifier(knowing: withoutToken).verify(capture.request.sigV4Request, now: capture.date)
        }
        var otherToken = capture.credentials
        otherToken.sessionToken = "another-token"
        #expect(throws: unrecognized) {
            try capture.verifier(knowing: otherToken).verify(capture.request.sigV4Request, now: capture.date)
        }
    }

    @Test("one flipped bit of binary record data is caught")
    func batchBodyTampering() throws {
        let capture = try Boto3Capture("boto3-put-record-batch.http")
        var request = capture.request
        // Inside the base64 of the first record: still valid JSON, still valid base64.
        let index = try #require(request.body.firstIndex(of: UInt8(ascii: "A")))
        request.body[index] = UInt8(ascii: "B")
        #expect(throws: SigV4Error(code: "InvalidSignatureException", message: SigV4Error.signatureMismatchMessage)) {
            try capture.verifier().verify(request.sigV4Request, now: capture.date)
        }
    }
}
