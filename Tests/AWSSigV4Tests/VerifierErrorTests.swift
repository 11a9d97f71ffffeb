import Foundation
import Testing

@testable import AWSSigV4

/// One test per authentication error in docs/compatibility.md ("Authentication"), with AWS's exact code
/// and message.
@Suite("Verifier errors")
struct VerifierErrorTests {
    let verifier = Fixture.verifier()
    let request = Fixture.signed()
    let now = Fixture.date

    @Test("a correctly signed request passes and returns its credentials")
    func accepts() throws {
        #expect(try verifier.verify(request, now: now) == Fixture.credentials)
    }

    // MARK: MissingAuthenticationTokenException

    @Test("no Authorization header", arguments: [nil, "", "   "] as [String?])
    func missingAuthorization(value: String?) {
        let unsigned = value.map { request.setting("Authorization", to: $0) } ?? request.removing("Authorization")
        #expect(
            throws: SigV4Error(code: "MissingAuthenticationTokenException", message: "Missing Authentication Token")
        ) {
            try verifier.verify(unsigned, now: now)
        }
    }

    // MARK: IncompleteSignatureException

    @Test("not a SigV4 header: a bare token lacks every parameter")
    func bareToken() {
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization=eyJhbGciOiJIUzI1NiJ9"
            )
        ) {
            try verifier.verify(request.setting("Authorization", to: "eyJhbGciOiJIUzI1NiJ9"), now: now)
        }
    }

    @Test("not a SigV4 header: a word without '='")
    func wordWithoutEquals() {
        #expect(
            throws: SigV4Error.incompleteSignature(
                "'abc.def' not a valid key=value pair (missing equal-sign) in Authorization header: 'Bearer abc.def'."
            )
        ) {
            try verifier.verify(request.setting("Authorization", to: "Bearer abc.def"), now: now)
        }
    }

    @Test("a space inside the credential splits it into a word without '='")
    func spaceInCredential() {
        let broken = request.editingAuthorization { $0.replacingOccurrences(of: "Credential=", with: "Credential= ") }
        let value = broken.header("Authorization")!
        #expect(
            throws: SigV4Error.incompleteSignature(
                "'AKIDFIREHOSE/20150830/us-east-1/firehose/aws4_request' not a valid key=value pair (missing equal-sign) in Authorization header: '\(value)'."
            )
        ) {
            try verifier.verify(broken, now: now)
        }
    }

    @Test("missing Signature and SignedHeaders")
    func missingParameters() {
        let value = "AWS4-HMAC-SHA256 Credential=AKIDFIREHOSE/20150830/us-east-1/firehose/aws4_request"
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization=\(value)"
            )
        ) {
            try verifier.verify(request.setting("Authorization", to: value), now: now)
        }
    }

    @Test("no X-Amz-Date and no Date")
    func missingDate() {
        let value = request.header("Authorization")!
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=\(value)"
            )
        ) {
            try verifier.verify(request.removing("X-Amz-Date"), now: now)
        }
    }

    @Test("a parameter given twice")
    func duplicateParameter() {
        let doubled = request.editingAuthorization { $0 + ", Signature=0000" }
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Authorization header has more than one 'Signature' parameter. Authorization=\(doubled.header("Authorization")!)"
            )
        ) {
            try verifier.verify(doubled, now: now)
        }
    }

    @Test("two Authorization headers")
    func twoAuthorizationHeaders() {
        #expect(throws: SigV4Error.incompleteSignature("Request has more than one Authorization header.")) {
            try verifier.verify(request.adding("Authorization", request.header("Authorization")!), now: now)
        }
    }

    @Test(
        "X-Amz-Date not in ISO 8601 basic form",
        arguments: [
            "2015-08-30T12:36:00Z", "20150830T123600", "20150830T123600.000Z", "20150230T123600Z",
            "Sun, 30 Aug 2015 12:36:00 GMT", "",
        ]
    )
    func badAMZDate(value: String) {
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Date must be in ISO-8601 'basic format'. Got '\(value)'. See http://en.wikipedia.org/wiki/ISO_8601"
            )
        ) {
            try verifier.verify(request.setting("X-Amz-Date", to: value), now: now)
        }
    }

    @Test("an unsupported algorithm")
    func unsupportedAlgorithm() {
        let other = request.editingAuthorization {
            $0.replacingOccurrences(of: "AWS4-HMAC-SHA256", with: "AWS4-HMAC-SHA1")
        }
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA1' (only AWS4-HMAC-SHA256 for now). ")
        ) {
            try verifier.verify(other, now: now)
        }
    }

    @Test("a credential without five elements")
    func credentialShape() {
        let short = request.editingAuthorization { $0.replacingOccurrences(of: "/aws4_request", with: "") }
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'AKIDFIREHOSE/20150830/us-east-1/firehose'"
            )
        ) {
            try verifier.verify(short, now: now)
        }
    }

    @Test("trailing slashes after the credential are ignored, as AWS does")
    func credentialTrailingSlash() throws {
        let slashed = request.editingAuthorization {
            $0.replacingOccurrences(of: "/aws4_request", with: "/aws4_request//")
        }
        #expect(try verifier.verify(slashed, now: now) == Fixture.credentials)
    }

    // MARK: UnrecognizedClientException

    @Test("an unknown access key")
    func unknownAccessKey() {
        let stranger = Fixture.signed(credentials: AWSCredentials(accessKeyId: "AKIDUNKNOWN", secretAccessKey: "x"))
        #expect(throws: SigV4Error.invalidToken) { try verifier.verify(stranger, now: now) }
    }

    @Test("temporary credentials need their token, signed or not")
    func sessionTokens() throws {
        let signedToken = Fixture.signed(credentials: Fixture.temporary)
        #expect(signedToken.header("Authorization")!.contains("x-amz-security-token"))
        #expect(try verifier.verify(signedToken, now: now) == Fixture.temporary)

        // Signed without the token, token added afterwards (the suite's post-sts-header-after).
        var withoutToken = Fixture.temporary
        withoutToken.sessionToken = nil
        let unsignedToken = Fixture.signed(credentials: withoutToken)
        #expect(
            try verifier.verify(unsignedToken.adding("X-Amz-Security-Token", Fixture.temporary.sessionToken!), now: now)
                == Fixture.temporary)

        // Missing, wrong, or repeated.
        #expect(throws: SigV4Error.invalidToken) { try verifier.verify(unsignedToken, now: now) }
        #expect(throws: SigV4Error.invalidToken) {
            try verifier.verify(unsignedToken.adding("X-Amz-Security-Token", "wrong"), now: now)
        }
        #expect(throws: SigV4Error.invalidToken) {
            try verifier.verify(
                unsignedToken.adding("X-Amz-Security-Token", Fixture.temporary.sessionToken!)
                    .adding("X-Amz-Security-Token", Fixture.temporary.sessionToken!),
                now: now
            )
        }
    }

    @Test("a token sent with long-term credentials")
    func tokenWithoutSession() {
        #expect(throws: SigV4Error.invalidToken) {
            try verifier.verify(request.adding("X-Amz-Security-Token", "anything"), now: now)
        }
    }

    @Test("a tampered signed token is reported as a signature mismatch, checked first as AWS does")
    func tamperedSignedToken() {
        let signedToken = Fixture.signed(credentials: Fixture.temporary)
        #expect(throws: SigV4Error.mismatch) {
            try verifier.verify(signedToken.setting("X-Amz-Security-Token", to: "wrong"), now: now)
        }
    }

    // MARK: InvalidSignatureException: scope

    @Test("credential scoped to another region")
    func wrongRegion() {
        #expect(throws: SigV4Error.invalidSignature("Credential should be scoped to a valid region, not 'eu-west-1'. "))
        {
            try verifier.verify(Fixture.signed(region: "eu-west-1"), now: now)
        }
    }

    @Test("credential scoped to another service")
    func wrongService() {
        let other = request.editingAuthorization { $0.replacingOccurrences(of: "/firehose/", with: "/kinesis/") }
        #expect(throws: SigV4Error.invalidSignature("Credential should be scoped to correct service: 'firehose'. ")) {
            try verifier.verify(other, now: now)
        }
    }

    @Test("credential with another terminator")
    func wrongTerminator() {
        let other = request.editingAuthorization { $0.replacingOccurrences(of: "/aws4_request", with: "/x") }
        #expect(
            throws: SigV4Error.invalidSignature(
                "Credential should be scoped with a valid terminator: 'aws4_request', not 'x'. ")
        ) {
            try verifier.verify(other, now: now)
        }
    }

    @Test("scope date differs from the request date")
    func wrongDate() {
        let nextDay = utcDate("2015-08-31T12:36:00Z")
        let other = request.setting("X-Amz-Date", to: "20150831T123600Z")
        #expect(
            throws: SigV4Error.invalidSignature(
                "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20150830' != '20150831', from '20150831T123600Z'."
            )
        ) {
            try verifier.verify(other, now: nextDay)
        }
    }

    @Test("every scope problem at once, in AWS's order")
    func everyScopeProblem() {
        let other = request.editingAuthorization {
            $0.replacingOccurrences(
                of: "20150830/us-east-1/firehose/aws4_request", with: "20150829/eu-west-1/s3/aws5_request")
        }
        #expect(
            throws: SigV4Error.invalidSignature(
                "Credential should be scoped to a valid region, not 'eu-west-1'. Credential should be scoped to correct service: 'firehose'. Credential should be scoped with a valid terminator: 'aws4_request', not 'aws5_request'. Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20150829' != '20150830', from '20150830T123600Z'."
            )
        ) {
            try verifier.verify(other, now: now)
        }
    }

    // MARK: InvalidSignatureException: host, skew, mismatch

    @Test("host must be signed")
    func hostNotSigned() {
        let request = Fixture.manuallySigned(
            headers: Fixture.baseHeaders + [("X-Amz-Date", "20150830T123600Z")],
            signedHeaders: "content-type;x-amz-date;x-amz-target",
            timestamp: "20150830T123600Z"
        )
        #expect(
            throws: SigV4Error.invalidSignature(
                "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
        ) {
            try verifier.verify(request, now: now)
        }
        let empty = request.editingAuthorization {
            $0.replacingOccurrences(of: "SignedHeaders=content-type;x-amz-date;x-amz-target", with: "SignedHeaders=")
        }
        #expect(
            throws: SigV4Error.invalidSignature(
                "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
        ) {
            try verifier.verify(empty, now: now)
        }
    }

    @Test(
        "The date header that gives the time, and X-Amz-Target, must be signed",
        arguments: [
            ("content-type;host;x-amz-target", "X-Amz-Date", false),
            ("content-type;date;host;x-amz-target", "X-Amz-Date", false),
            ("content-type;host;x-amz-date", "X-Amz-Target", false),
            ("host;x-amz-date", "X-Amz-Target", false),
            ("content-type;host;x-amz-date;x-amz-target", "Date", true),
            ("content-type;host;x-amz-target", "Date", true),
        ])
    func operationAndDateSigned(signedHeaders: String, unsigned: String, byDateHeader: Bool) {
        let dateHeader = byDateHeader ? ("Date", "Sun, 30 Aug 2015 12:36:00 GMT") : ("X-Amz-Date", "20150830T123600Z")
        // With the header unsigned, a request would verify whatever its value, so a captured PutRecord
        // could be replayed as DeleteDeliveryStream with the same body and signature.
        let request = Fixture.manuallySigned(
            headers: Fixture.baseHeaders + [dateHeader], signedHeaders: signedHeaders, timestamp: "20150830T123600Z")
        #expect(throws: SigV4Error.invalidSignature("'\(unsigned)' must be a 'SignedHeader' in the AWS Authorization."))
        {
            try verifier.verify(request, now: now)
        }
    }

    @Test("A required header the request does not have need not be signed")
    func absentRequiredHeader() throws {
        let request = Fixture.manuallySigned(
            headers: [("Host", "localhost:4573"), ("X-Amz-Date", "20150830T123600Z")], signedHeaders: "host;x-amz-date",
            timestamp: "20150830T123600Z")
        #expect(try verifier.verify(request, now: now) == Fixture.credentials)
    }

    @Test("A verifier for a service that names no required header needs only host and the date signed")
    func noRequiredHeaders() throws {
        let request = Fixture.manuallySigned(
            headers: Fixture.baseHeaders + [("X-Amz-Date", "20150830T123600Z")], signedHeaders: "host;x-amz-date",
            timestamp: "20150830T123600Z")
        let plain = SigV4Verifier(region: "us-east-1", service: "firehose") { _ in Fixture.credentials }
        #expect(try plain.verify(request, now: now) == Fixture.credentials)
    }

    @Test("SignedHeaders is matched without regard to case, and repeated as written")
    func signedHeadersCase() throws {
        let request = Fixture.manuallySigned(
            headers: Fixture.baseHeaders + [("X-Amz-Date", "20150830T123600Z")],
            signedHeaders: "Content-Type;Host;X-Amz-Date;X-Amz-Target",
            timestamp: "20150830T123600Z"
        )
        #expect(try verifier.verify(request, now: now) == Fixture.credentials)
    }

    @Test("expired beyond the tolerance")
    func expired() {
        #expect(
            throws: SigV4Error.invalidSignature(
                "Signature expired: 20150830T123600Z is now earlier than 20150830T123600Z (20150830T124100Z - 5 min.)"
            )
        ) {
            // Half a second past the limit: the timestamps print equal, as in AWS's own messages.
            try verifier.verify(request, now: now + 300.5)
        }
        #expect(
            throws: SigV4Error.invalidSignature(
                "Signature expired: 20150830T123600Z is now earlier than 20150830T130000Z (20150830T130500Z - 5 min.)"
            )
        ) {
            try verifier.verify(request, now: utcDate("2015-08-30T13:05:00Z"))
        }
        // S3 names it RequestTimeTooSkewed: the error says what failed without reading its text.
        let skew = #expect(throws: SigV4Error.self) { try verifier.verify(request, now: now + 300.5) }
        #expect(skew?.kind == .clockSkew)
    }

    @Test("not yet current beyond the tolerance")
    func notYetCurrent() {
        #expect(
            throws: SigV4Error.invalidSignature(
                "Signature not yet current: 20150830T123600Z is still later than 20150830T122500Z (20150830T122000Z + 5 min.)"
            )
        ) {
            try verifier.verify(request, now: utcDate("2015-08-30T12:20:00Z"))
        }
    }

    @Test("exactly at the tolerance is still accepted, both ways")
    func skewBoundary() throws {
        #expect(try verifier.verify(request, now: now + 300) == Fixture.credentials)
        #expect(try verifier.verify(request, now: now - 300) == Fixture.credentials)
    }

    @Test("a custom tolerance")
    func customTolerance() throws {
        let strict = Fixture.verifier(tolerance: .seconds(90))
        #expect(try strict.verify(request, now: now + 90) == Fixture.credentials)
        #expect(
            throws: SigV4Error.invalidSignature(
                "Signature expired: 20150830T123600Z is now earlier than 20150830T123631Z (20150830T123801Z - 90 sec.)"
            )
        ) {
            try strict.verify(request, now: now + 121)
        }
    }

    @Test("the wrong secret")
    func wrongSecret() throws {
        let forged = Fixture.signed(credentials: AWSCredentials(accessKeyId: "AKIDFIREHOSE", secretAccessKey: "guess"))
        let error = try #require(throws: SigV4Error.self) { try verifier.verify(forged, now: now) }
        #expect(error == .mismatch)
        // The server can log what it computed; the client never sees it.
        #expect(error.diagnostics?.contains("host:localhost:4573\n") == true)
        #expect(
            error.diagnostics?.contains(
                "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/firehose/aws4_request\n") == true)
        #expect(!error.message.contains("host:"))
    }

    @Test("a signature in uppercase hex, truncated, extended or empty")
    func malformedSignatures() throws {
        let signature = String(request.header("Authorization")!.split(separator: "=").last!)
        for replacement in [signature.uppercased(), String(signature.dropLast()), signature + "0", ""] {
            let other = request.editingAuthorization { $0.replacingOccurrences(of: signature, with: replacement) }
            #expect(throws: SigV4Error.mismatch) { try verifier.verify(other, now: now) }
        }
    }

    @Test("a body hash that is not the body's")
    func bodyHash() {
        var other = request
        other.bodySHA256 = SHA256Hex.hash(Array("{}".utf8))
        #expect(throws: SigV4Error.mismatch) { try verifier.verify(other, now: now) }
    }

    @Test("the method, path and query are signed")
    func requestLineIsSigned() {
        var other = request
        other.method = "PUT"
        #expect(throws: SigV4Error.mismatch) { try verifier.verify(other, now: now) }
        other = request
        other.path = "/other"
        #expect(throws: SigV4Error.mismatch) { try verifier.verify(other, now: now) }
        other = request
        other.query = "a=b"
        #expect(throws: SigV4Error.mismatch) { try verifier.verify(other, now: now) }
    }

    @Test("error descriptions and equality ignore diagnostics")
    func errorValue() {
        let a = SigV4Error(code: "InvalidSignatureException", message: "m", diagnostics: "one")
        let b = SigV4Error(code: "InvalidSignatureException", message: "m", diagnostics: "two")
        #expect(a == b)
        #expect(a.description == "InvalidSignatureException: m")
    }
}
