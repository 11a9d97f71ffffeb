import AWSSigV4
import FirehoseTestSupport
import Foundation
import Logging
import ServerCore
import ServiceTestSupport
import Testing

@testable import STSService

/// STS alone, as the front door hands it a request: verification against three key pairs (an account's
/// root, a user's, a role session's) and the credentials it issues, who their callers are, the roles
/// it may assume, and a fixed date.
final class STSHarness {
    static let date = Date(timeIntervalSince1970: 1_795_266_309)  // 2026-11-21T13:05:09Z
    static let root = AWSCredentials(accessKeyId: "test", secretAccessKey: "test")
    static let user = AWSCredentials(accessKeyId: "AKIAUSEREXAMPLE", secretAccessKey: "user-secret")
    static let session = AWSCredentials(
        accessKeyId: "ASIASESSIONEXAMPLE", secretAccessKey: "session-secret", sessionToken: "session-token")
    static let identities: [String: CallerIdentity] = [
        user.accessKeyId: CallerIdentity(
            arn: "arn:aws:iam::123456789012:user/alice", userID: "AIDAEXAMPLEEXAMPLE", account: "123456789012"),
        session.accessKeyId: CallerIdentity(
            arn: "arn:aws:sts::123456789012:assumed-role/App_Unauth/CognitoIdentityCredentials",
            userID: "AROAEXAMPLEEXAMPLE:CognitoIdentityCredentials", account: "123456789012",
            principalArn: "arn:aws:iam::123456789012:role/App_Unauth"),
    ]
    /// Signs and verifies the Cognito endpoint's tokens.
    static let tokens = OpenIDTokens(key: Array(repeating: 7, count: 32))
    let directory: String
    let issued: IssuedCredentials
    let api: STSAPI

    /// - Parameters:
    ///   - roles: the roles of the IAM store.
    ///   - bound: the policies that bind callers, by access key.
    init(
        authentication: Bool = true, roles: [AssumableRole] = [], bound: [String: BoundCaller] = [:]
    ) throws {
        directory = try TestDirectory("sts").url.path
        let issued = try IssuedCredentials(path: "\(directory)/credentials.jsonl", now: Self.date)
        self.issued = issued
        let known = [Self.root, Self.user, Self.session]
        api = STSAPI(
            accountID: "123456789012",
            verifier: authentication
                ? SigV4Verifier(region: "us-east-1", service: "sts", acceptsAnyRegion: true) { key in
                    known.first { $0.accessKeyId == key } ?? issued.grant(forAccessKey: key)?.credentials
                } : nil,
            credentials: issued,
            identify: { key in
                Self.identities[key]
                    ?? issued.grant(forAccessKey: key).map { grant in
                        CallerIdentity(
                            arn: CallerIdentity.sessionARN(role: grant.roleArn, session: grant.sessionName),
                            userID: "AROA:\(grant.sessionName)", account: "123456789012", principalArn: grant.roleArn)
                    }
            },
            boundCaller: { bound[$0] },
            role: { arn in roles.first { $0.arn.lowercased() == arn.lowercased() } }, tokens: Self.tokens,
            logger: Logger(label: "sts-tests"))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    static func request(
        _ action: String, _ parameters: [String: String] = [:], credentials: AWSCredentials?,
        region: String = "us-east-1", service: String = "sts", version: String? = STSAPI.version
    ) -> APIRequest {
        SignedRequests.post(
            target: nil, body: SignedRequests.query(action, version: version, parameters), credentials: credentials,
            region: region, service: service, date: date, contentType: SignedRequests.formContentType)
    }

    func call(_ request: APIRequest) -> (response: APIResponse, operation: String, code: String) {
        #expect(QueryProtocol.isQueryRequest(request, hasTarget: false))
        return api.handle(
            request, parameters: QueryProtocol.formParameters(request.body), requestID: "request-1", now: Self.date)
    }
}

@Suite("STS (Query protocol)")
struct STSAPITests {
    @Test("GetCallerIdentity answers STS's document: the account's root for its keys")
    func rootDocument() throws {
        let (response, operation, code) = try STSHarness().call(
            STSHarness.request("GetCallerIdentity", credentials: STSHarness.root))
        #expect(response.status == 200)
        #expect((operation, code) == ("GetCallerIdentity", "OK"))
        #expect(response.header("content-type") == "text/xml")
        #expect(response.header("x-amzn-requestid") == "request-1")
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == """
                <?xml version="1.0" encoding="UTF-8"?>
                <GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">\
                <GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:root</Arn><UserId>123456789012</UserId>\
                <Account>123456789012</Account></GetCallerIdentityResult>\
                <ResponseMetadata><RequestId>request-1</RequestId></ResponseMetadata></GetCallerIdentityResponse>
                """)
    }

    @Test("GetCallerIdentity names a user and a role session as their identities say, signed for any region")
    func userAndSession() throws {
        let harness = try STSHarness()
        for (credentials, region) in [(STSHarness.user, "eu-west-1"), (STSHarness.session, "ap-southeast-2")] {
            let (response, _, _) = harness.call(
                STSHarness.request("GetCallerIdentity", credentials: credentials, region: region))
            let identity = STSHarness.identities[credentials.accessKeyId]!
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(xmlText(response, "Arn") == identity.arn)
            #expect(xmlText(response, "UserId") == identity.userID)
            #expect(xmlText(response, "Account") == "123456789012")
        }
    }

    @Test("Signature failures answer the Query services' codes, and nothing of the caller")
    func authenticationFailures() throws {
        let harness = try STSHarness()
        let unsigned = harness.call(STSHarness.request("GetCallerIdentity", credentials: nil))
        #expect(unsigned.response.status == 403)
        #expect(xmlText(unsigned.response, "Type") == "Sender")
        #expect(xmlText(unsigned.response, "Code") == "MissingAuthenticationToken")
        #expect(xmlText(unsigned.response, "Message") == "Request is missing Authentication Token")
        #expect(xmlText(unsigned.response, "RequestId") == "request-1")

        let unknown = harness.call(
            STSHarness.request(
                "GetCallerIdentity", credentials: AWSCredentials(accessKeyId: "AKIAUNKNOWN", secretAccessKey: "x")))
        #expect(unknown.response.status == 403)
        #expect(xmlText(unknown.response, "Code") == "InvalidClientTokenId")
        #expect(xmlText(unknown.response, "Message") == "The security token included in the request is invalid.")

        let forged = harness.call(
            STSHarness.request(
                "GetCallerIdentity", credentials: AWSCredentials(accessKeyId: "test", secretAccessKey: "wrong")))
        #expect(forged.response.status == 403)
        #expect(xmlText(forged.response, "Code") == "SignatureDoesNotMatch")

        var incomplete = STSHarness.request("GetCallerIdentity", credentials: nil)
        incomplete.headers.append(
            ("Authorization", "AWS4-HMAC-SHA256 Credential=test/20261121/us-east-1/sts/aws4_request"))
        let malformed = harness.call(incomplete)
        #expect(malformed.response.status == 400)
        #expect(xmlText(malformed.response, "Code") == "IncompleteSignature")

        let forIAM = harness.call(STSHarness.request("GetCallerIdentity", credentials: STSHarness.root, service: "iam"))
        #expect(xmlText(forIAM.response, "Code") == "SignatureDoesNotMatch")
        #expect(
            xmlText(forIAM.response, "Message")?.contains("Credential should be scoped to correct service: 'sts'")
                == true)
        #expect(xmlText(forIAM.response, "Arn") == nil)
    }

    @Test("An action STS does not serve here is InvalidAction, counted under unknown")
    func unservedAction() throws {
        let (response, operation, code) = try STSHarness().call(
            STSHarness.request("GetSessionToken", credentials: STSHarness.root))
        #expect(response.status == 400)
        #expect((operation, code) == ("unknown", "InvalidAction"))
        #expect(
            xmlText(response, "Message")
                == "Could not find operation GetSessionToken for version 2011-06-15: firehose-local's STS serves GetCallerIdentity, AssumeRole, AssumeRoleWithWebIdentity."
        )
    }

    @Test("With authentication off the caller is the key its credential names, or the account's root")
    func authenticationOff() throws {
        let harness = try STSHarness(authentication: false)
        let user = harness.call(
            STSHarness.request(
                "GetCallerIdentity",
                credentials: AWSCredentials(accessKeyId: STSHarness.user.accessKeyId, secretAccessKey: "any")))
        #expect(xmlText(user.response, "Arn") == "arn:aws:iam::123456789012:user/alice")
        let unsigned = harness.call(STSHarness.request("GetCallerIdentity", credentials: nil))
        #expect(xmlText(unsigned.response, "Arn") == "arn:aws:iam::123456789012:root")
    }

    @Test("A Query request is STS's by its Version, else its credential's service, else its action")
    func routing() {
        func isSTS(_ request: APIRequest) -> Bool {
            STSAPI.isSTSRequest(request, parameters: QueryProtocol.formParameters(request.body))
        }
        #expect(isSTS(STSHarness.request("GetCallerIdentity", credentials: nil)))
        #expect(
            !isSTS(STSHarness.request("ListRoles", credentials: STSHarness.root, service: "sts", version: "2010-05-08"))
        )
        #expect(isSTS(STSHarness.request("ListRoles", credentials: STSHarness.root, version: nil)))
        #expect(
            !isSTS(STSHarness.request("GetCallerIdentity", credentials: STSHarness.root, service: "iam", version: nil)))
        // Unsigned, as AssumeRoleWithWebIdentity always is: its action says whose it is.
        #expect(isSTS(STSHarness.request("AssumeRoleWithWebIdentity", credentials: nil, version: nil)))
        #expect(!isSTS(STSHarness.request("ListRoles", credentials: nil, version: nil)))
    }
}
