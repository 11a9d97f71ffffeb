import AWSSigV4
import FirehoseWire
import Foundation
import ServerCore
import ServiceTestSupport
import Testing

@testable import STSService

@Suite("STS AssumeRoleWithWebIdentity (Cognito's basic flow)")
struct WebIdentityTests {
    static let pool = "us-east-1:11111111-2222-3333-4444-555555555555"
    static let identity = "us-east-1:aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    static let roleArn = "arn:aws:iam::123456789012:role/AppUnauth"
    static let now = Int(STSHarness.date.timeIntervalSince1970)

    static func token(
        aud: String = pool, amr: [String] = ["unauthenticated"], exp: Int = now + 600,
        tokens: OpenIDTokens = STSHarness.tokens
    ) -> String {
        tokens.token(for: OpenIDTokens.Claims(sub: identity, aud: aud, amr: amr, iat: now, exp: exp))
    }

    /// Cognito's guide's trust policy for an unauthenticated role
    /// (cognito/latest/developerguide/role-trust-and-permissions.html).
    static let guideTrust =
        #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": "cognito-identity.amazonaws.com"}, "Action": "sts:AssumeRoleWithWebIdentity", "Condition": {"StringEquals": {"cognito-identity.amazonaws.com:aud": "us-east-1:11111111-2222-3333-4444-555555555555"}, "ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "unauthenticated"}}}]}"#

    static func harness(trust: String = guideTrust, maxSessionDuration: Int = 3_600) throws -> STSHarness {
        try STSHarness(roles: [
            AssumableRole(
                arn: roleArn, roleID: "AROAAPPUNAUTHEXAMPL", trustPolicy: trust,
                maxSessionDuration: maxSessionDuration)
        ])
    }

    /// Unsigned, as SDKs send it.
    static func assume(_ harness: STSHarness, token: String, _ parameters: [String: String] = [:]) -> APIResponse {
        var all = ["RoleArn": roleArn, "RoleSessionName": "CognitoSession", "WebIdentityToken": token]
        all.merge(parameters) { $1 }
        return harness.call(STSHarness.request("AssumeRoleWithWebIdentity", all, credentials: nil)).response
    }

    @Test("A token of the pool the role trusts is exchanged for credentials of the role, carrying Cognito's keys")
    func exchanged() throws {
        let harness = try Self.harness()
        let response = Self.assume(harness, token: Self.token())
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(xmlText(response, "SubjectFromWebIdentityToken") == Self.identity)
        #expect(xmlText(response, "Audience") == Self.pool)
        #expect(xmlText(response, "Provider") == "cognito-identity.amazonaws.com")
        #expect(xmlText(response, "Arn") == "arn:aws:sts::123456789012:assumed-role/AppUnauth/CognitoSession")
        #expect(xmlText(response, "AssumedRoleId") == "AROAAPPUNAUTHEXAMPL:CognitoSession")
        #expect(xmlText(response, "Expiration") == "2026-11-21T14:05:09Z")
        let grant = try #require(harness.issued.grant(forAccessKey: xmlText(response, "AccessKeyId") ?? ""))
        #expect(grant.identityId == Self.identity && grant.identityPoolId == Self.pool)
        #expect(grant.amr == ["unauthenticated"] && grant.bound == true && grant.sessionName == "CognitoSession")
    }

    @Test("The trust policy's aud and amr conditions decide, as the role's trust says; refusals are STS's")
    func trustConditions() throws {
        let harness = try Self.harness()
        let otherPool = Self.assume(harness, token: Self.token(aud: "us-east-1:99999999-2222-3333-4444-555555555555"))
        #expect(otherPool.status == 403)
        #expect(xmlText(otherPool, "Code") == "AccessDenied")
        #expect(xmlText(otherPool, "Message") == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
        let signedIn = Self.assume(harness, token: Self.token(amr: ["authenticated", "graph.facebook.com"]))
        #expect(xmlText(signedIn, "Code") == "AccessDenied")
        // A role that trusts IAM principals only.
        let notFederated = try Self.harness(
            trust:
                #"{"Statement": {"Effect": "Allow", "Principal": {"AWS": "123456789012"}, "Action": "sts:AssumeRole"}}"#
        )
        #expect(xmlText(Self.assume(notFederated, token: Self.token()), "Code") == "AccessDenied")
        #expect(try String(contentsOfFile: "\(harness.directory)/credentials.jsonl", encoding: .utf8).isEmpty)
    }

    @Test("Expired, forged, foreign and malformed tokens are refused with STS's codes, and nothing is issued")
    func badTokens() throws {
        let harness = try Self.harness()
        let expired = Self.assume(harness, token: Self.token(exp: Self.now))
        #expect(expired.status == 400)
        #expect(xmlText(expired, "Code") == "ExpiredTokenException")
        #expect(
            xmlText(expired, "Message")
                == "Token expired: current date/time \(Self.now) must be before the expiration date/time \(Self.now)")

        let forged = Self.assume(
            harness, token: Self.token(tokens: OpenIDTokens(key: Array(repeating: 8, count: 32))))
        #expect(forged.status == 400)
        #expect(xmlText(forged, "Code") == "InvalidIdentityToken")
        #expect(xmlText(forged, "Message")?.hasPrefix("The token's signature is not valid") == true)

        // A payload changed after signing.
        let parts = Self.token().split(separator: ".")
        let changed = Base64.encodeURL(
            Array(
                #"{"iss":"https://cognito-identity.amazonaws.com","sub":"x","aud":"us-east-1:11111111-2222-3333-4444-555555555555","amr":["unauthenticated"],"iat":0,"exp":4102444800}"#
                    .utf8))
        #expect(
            xmlText(Self.assume(harness, token: "\(parts[0]).\(changed).\(parts[2])"), "Code") == "InvalidIdentityToken"
        )

        let header = Base64.encodeURL(Array(#"{"alg":"RS256"}"#.utf8))
        let google = Base64.encodeURL(Array(#"{"iss":"https://accounts.google.com","sub":"1","aud":"a","exp":1}"#.utf8))
        let foreign = Self.assume(harness, token: "\(header).\(google).c2ln")
        #expect(
            xmlText(foreign, "Message")?.hasPrefix(
                "No OpenIDConnect provider found in your account for https://accounts.google.com") == true)
        for malformed in ["not-a-jwt", "a.b.c", "\(header).\(header)"] {
            let response = Self.assume(harness, token: malformed)
            #expect(xmlText(response, "Code") == "InvalidIdentityToken", "\(malformed)")
        }
        let missing = harness.call(
            STSHarness.request(
                "AssumeRoleWithWebIdentity", ["RoleArn": Self.roleArn, "RoleSessionName": "s"], credentials: nil)
        ).response
        #expect(
            xmlText(missing, "Message")
                == "2 validation errors detected: Value 's' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2; Value null at 'webIdentityToken' failed to satisfy constraint: Member must not be null"
        )
        #expect(try String(contentsOfFile: "\(harness.directory)/credentials.jsonl", encoding: .utf8).isEmpty)
    }

    @Test("A role described nowhere here, or declared without its own trust policy, is refused: nothing is issued")
    func undescribedOrDefaultTrust() throws {
        let harness = try STSHarness(roles: [
            AssumableRole(
                arn: "arn:aws:iam::123456789012:role/Declared", roleID: "AROADECLARED",
                trustPolicy:
                    #"{"Statement": {"Effect": "Allow", "Principal": {"Federated": "cognito-identity.amazonaws.com"}, "Action": "sts:AssumeRoleWithWebIdentity"}}"#,
                maxSessionDuration: 3_600, hasDefaultTrust: true)
        ])
        for role in ["arn:aws:iam::123456789012:role/Nobody", "arn:aws:iam::123456789012:role/Declared"] {
            let response = Self.assume(harness, token: Self.token(), ["RoleArn": role])
            #expect(response.status == 403, "\(role)")
            #expect(xmlText(response, "Message") == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
        }
        #expect(try String(contentsOfFile: "\(harness.directory)/credentials.jsonl", encoding: .utf8).isEmpty)
    }

    @Test("DurationSeconds within the role's maximum, and a session policy of at most 2,048 characters")
    func durationAndPolicy() throws {
        let harness = try Self.harness()
        let long = Self.assume(harness, token: Self.token(), ["DurationSeconds": "7200"])
        #expect(
            xmlText(long, "Message")
                == "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
        let policy = #"{"Statement": {"Effect": "Allow", "Action": "firehose:PutRecordBatch", "Resource": "*"}}"#
        let narrowed = Self.assume(harness, token: Self.token(), ["Policy": policy, "DurationSeconds": "900"])
        #expect(narrowed.status == 200)
        #expect(xmlText(narrowed, "PackedPolicySize") != nil)
        #expect(xmlText(narrowed, "Expiration") == "2026-11-21T13:20:09Z")
        let tooLong = Self.assume(harness, token: Self.token(), ["Policy": String(repeating: " ", count: 2049)])
        #expect(xmlText(tooLong, "Code") == "ValidationError")
    }
}
