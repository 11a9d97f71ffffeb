import AWSSigV4
import CognitoIdentityService
import FirehoseTestSupport
import FirehoseWire
import Foundation
import IAMPolicy
import IAMService
import ServerCore
import ServiceTestSupport
import Testing

@testable import FirehoseServer

extension APIHarness {
    /// An IAM Query call through the front door, signed for IAM (us-east-1, whatever the server's region).
    func iam(_ action: String, _ parameters: [String: String] = [:]) async -> APIResponse {
        await api.handle(
            request(
                operation: nil, body: SignedRequests.iamQuery(action, parameters),
                contentType: SignedRequests.formContentType, service: "iam"))
    }
}

extension APIHarness: CognitoCalls {
    func cognito(_ operation: String, _ body: String, sign: Bool) async -> APIResponse {
        await api.handle(
            request(
                operation: operation, body: Array(body.utf8), sign: sign, service: "cognito-identity",
                targetPrefix: CognitoIdentityAPI.targetPrefix))
    }

    func put(signedWith credentials: AWSCredentials) async -> APIResponse {
        await api.handle(
            request(operation: "PutRecord", body: putRecordBody(data: Array("x".utf8)), signingCredentials: credentials)
        )
    }
}

@Suite("Cognito Identity through the front door: issued credentials sign Firehose's and S3's calls")
struct CognitoIdentityTests {
    @Test("Credentials issued before a restart still sign Firehose requests after it")
    func issuedCredentialsSurviveARestart() async throws {
        var harness: APIHarness? = try APIHarness()
        let directory = harness!.directory
        harness!.keepDirectory = true
        let pool = try await harness!.makePool()
        let credentials = try await harness!.issuedCredentials(identity: try await harness!.identityID(pool: pool))
        #expect(await harness!.put(signedWith: credentials).status == 200)
        harness = nil

        let restarted = try APIHarness(directory: directory)
        #expect(await restarted.put(signedWith: credentials).status == 200)
    }

    @Test("Issued credentials sign Firehose and S3 requests until they expire; then ExpiredTokenException")
    func issuedCredentialsAreAccepted() async throws {
        let harness = try APIHarness()
        let pool = try await harness.makePool()
        let credentials = try await harness.issuedCredentials(identity: try await harness.identityID(pool: pool))
        #expect(await harness.put(signedWith: credentials).status == 200)

        var withoutToken = credentials
        withoutToken.sessionToken = nil
        _ = try expectError(
            await harness.put(signedWith: withoutToken), status: 400, code: "UnrecognizedClientException")

        var headers: [(name: String, value: String)] = [("Host", "127.0.0.1:4573")]
        headers += SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3").sign(
            method: "GET", path: "/", query: "",
            headers: headers + [("x-amz-content-sha256", SHA256Hex.hash([UInt8]()))],
            bodySHA256: SHA256Hex.hash([UInt8]()), date: harness.clock.date)
        headers.append(("x-amz-content-sha256", SHA256Hex.hash([UInt8]())))
        let listBuckets = await harness.api.handle(APIRequest(method: "GET", path: "/", headers: headers, body: []))
        #expect(listBuckets.status == 200)

        harness.clock.advance(by: .seconds(3_600))
        let expired = await harness.put(signedWith: credentials)
        #expect(
            try expectError(expired, status: 400, code: "ExpiredTokenException")
                == "The security token included in the request is expired")
    }
}

@Suite("IAM policies bind issued credentials and configured keys")
struct AccessPolicyTests {
    static let unauthRole = "arn:aws:iam::123456789012:role/Unauth"

    /// The typical mobile-analytics role: put into the app's streams only, and only for identities of
    /// the app's pool.
    static func mobileAnalytics(pool: String? = "*") -> IAMPolicy {
        try! IAMPolicy(json: Array(mobileAnalyticsDocument(pool: pool).utf8))
    }

    static func mobileAnalyticsDocument(pool: String? = "*") -> String {
        let condition = pool.map { #", "Condition": {"StringLike": {"cognito-identity.amazonaws.com:aud": "\#($0)"}}"# }
        return #"""
            {"Version": "2012-10-17", "Statement": [{
                "Effect": "Allow",
                "Action": ["firehose:PutRecord", "firehose:PutRecordBatch"],
                "Resource": "arn:aws:firehose:us-east-1:123456789012:deliverystream/events"\#(condition ?? "")
            }]}
            """#
    }

    @Test("A role's policy allows its streams and refuses the rest with AWS's AccessDeniedException")
    func rolePolicyIsEnforced() async throws {
        let harness = try APIHarness { $0.accessPolicies.roles[Self.unauthRole] = [Self.mobileAnalyticsDocument()] }
        let pool = try await harness.makePool()
        let credentials = try await harness.issuedCredentials(identity: try await harness.identityID(pool: pool))
        #expect(await harness.put(signedWith: credentials).status == 200)
        let batch = await harness.api.handle(
            harness.request(
                operation: "PutRecordBatch", body: harness.batchBody(records: [Array("a".utf8)]),
                signingCredentials: credentials))
        #expect(batch.status == 200)

        // A stream the policy does not name, even one that does not exist: refused before anything else.
        let other = await harness.api.handle(
            harness.request(
                operation: "PutRecord", body: harness.putRecordBody(stream: "other", data: Array("x".utf8)),
                signingCredentials: credentials))
        #expect(
            try expectError(other, status: 400, code: "AccessDeniedException")
                == "User: arn:aws:sts::123456789012:assumed-role/Unauth/CognitoIdentityCredentials is not authorized to perform: firehose:PutRecord on resource: arn:aws:firehose:us-east-1:123456789012:deliverystream/other because no identity-based policy allows the firehose:PutRecord action"
        )
        let describe = await harness.api.handle(
            harness.request(
                operation: "DescribeDeliveryStream", body: Array(#"{"DeliveryStreamName": "events"}"#.utf8),
                signingCredentials: credentials))
        #expect(
            try expectError(describe, status: 400, code: "AccessDeniedException").contains(
                "firehose:DescribeDeliveryStream on resource: arn:aws:firehose:us-east-1:123456789012:deliverystream/events"
            ))
        let list = await harness.api.handle(
            harness.request(operation: "ListDeliveryStreams", body: Array("{}".utf8), signingCredentials: credentials))
        #expect(
            try expectError(list, status: 400, code: "AccessDeniedException").contains(
                "firehose:ListDeliveryStreams on resource: *"))
        // The pool operations too: the role may not make pools.
        let create = await harness.api.handle(
            harness.request(
                operation: "CreateIdentityPool",
                body: Array(#"{"IdentityPoolName": "x", "AllowUnauthenticatedIdentities": true}"#.utf8),
                service: "cognito-identity", targetPrefix: "AWSCognitoIdentityService.", signingCredentials: credentials
            ))
        #expect(
            try expectError(create, status: 400, code: "AccessDeniedException").contains(
                "cognito-identity:CreateIdentityPool on resource: *"))
        // The configured keys are bound by nothing.
        #expect(
            await harness.api.handle(
                harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "events", data: [1]))
            ).status == 200)
    }

    @Test("Cognito's condition keys: aud names the pool, amr the kind of identity; an explicit deny wins")
    func cognitoConditionKeys() async throws {
        let denyAuthenticated = #"""
            {"Version": "2012-10-17", "Statement": {"Effect": "Deny", "Action": "firehose:*", "Resource": "*",
             "Condition": {"ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "authenticated"}}}}
            """#
        let harness = try APIHarness {
            $0.accessPolicies.roles[Self.unauthRole] = [Self.mobileAnalyticsDocument(pool: "us-east-1:*")]
            $0.accessPolicies.roles["arn:aws:iam::123456789012:role/Auth"] = [
                Self.mobileAnalyticsDocument(), denyAuthenticated,
            ]
        }
        let poolID = try await harness.makePool(extra: #", "DeveloperProviderName": "login.app""#)
        let unauthenticated = try await harness.issuedCredentials(
            identity: try await harness.identityID(pool: poolID))
        #expect(await harness.put(signedWith: unauthenticated).status == 200)
        let grant = try #require(harness.api.issuedGrant(forAccessKey: unauthenticated.accessKeyId))
        #expect(grant.identityPoolId == poolID)

        let logins = #"{"login.app": "user-1"}"#
        let authenticated = try await harness.issuedCredentials(
            identity: try await harness.identityID(pool: poolID, logins: logins), logins: logins)
        let refused = await harness.put(signedWith: authenticated)
        #expect(
            try expectError(refused, status: 400, code: "AccessDeniedException")
                == "User: arn:aws:sts::123456789012:assumed-role/Auth/CognitoIdentityCredentials is not authorized to perform: firehose:PutRecord on resource: arn:aws:firehose:us-east-1:123456789012:deliverystream/events with an explicit deny in an identity-based policy"
        )

        // A policy that names another pool in aud refuses this pool's identities.
        let other = try APIHarness {
            $0.accessPolicies.roles[Self.unauthRole] = [Self.mobileAnalyticsDocument(pool: "us-east-1:not-this-pool")]
        }
        let otherPool = try await other.makePool()
        let credentials = try await other.issuedCredentials(identity: try await other.identityID(pool: otherPool))
        _ = try expectError(await other.put(signedWith: credentials), status: 400, code: "AccessDeniedException")
    }

    @Test("A configured key given policies is bound by them; a role nobody declared is not")
    func configuredKeysAndUndeclaredRoles() async throws {
        let harness = try APIHarness {
            $0.accessPolicies.users["AKIDLOCAL"] = AccessPolicies.User(
                arn: "arn:aws:iam::123456789012:user/ci", policies: [Self.mobileAnalytics(pool: nil)])
        }
        // A condition on Cognito's keys fails for a caller that has none.
        let conditioned = try APIHarness {
            $0.accessPolicies.users["AKIDLOCAL"] = AccessPolicies.User(
                arn: "arn:aws:iam::123456789012:user/ci", policies: [Self.mobileAnalytics()])
        }
        _ = try expectError(
            await conditioned.api.handle(
                conditioned.request(operation: "PutRecord", body: conditioned.putRecordBody(data: [1]))),
            status: 400, code: "AccessDeniedException")
        #expect(
            await harness.api.handle(harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1])))
                .status == 200)
        let refused = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "other", data: [1])))
        #expect(
            try expectError(refused, status: 400, code: "AccessDeniedException").hasPrefix(
                "User: arn:aws:iam::123456789012:user/ci is not authorized to perform: firehose:PutRecord"))

        let open = try APIHarness { $0.accessPolicies.roles["arn:aws:iam::123456789012:role/Declared"] = [] }
        let pool = try await open.makePool()
        let credentials = try await open.issuedCredentials(identity: try await open.identityID(pool: pool))
        let elsewhere = await open.api.handle(
            open.request(
                operation: "PutRecord", body: open.putRecordBody(stream: "other", data: [1]),
                signingCredentials: credentials))
        _ = try expectError(elsewhere, status: 400, code: "ResourceNotFoundException")
    }
}

@Suite("IAM policies fail closed")
struct AccessPolicyFailClosedTests {
    static let unauthRole = "arn:aws:iam::123456789012:role/Unauth"
    static let putOnly =
        #"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"firehose:Put*","Resource":"*"}}"#

    @Test("Credentials of a role that was deleted allow nothing; neither do S3 calls the policy does not allow")
    func deletedRoleAndS3() async throws {
        let harness = try APIHarness { $0.accessPolicies.roles[Self.unauthRole] = [Self.putOnly] }
        let pool = try await harness.makePool()
        let credentials = try await harness.issuedCredentials(identity: try await harness.identityID(pool: pool))
        #expect(await harness.put(signedWith: credentials).status == 200)

        var headers: [(name: String, value: String)] = [
            ("Host", "127.0.0.1:4573"), ("x-amz-content-sha256", SHA256Hex.hash([UInt8]())),
        ]
        headers += SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3").sign(
            method: "GET", path: "/", query: "", headers: headers, bodySHA256: SHA256Hex.hash([UInt8]()),
            date: harness.clock.date)
        let listBuckets = await harness.api.handle(APIRequest(method: "GET", path: "/", headers: headers, body: []))
        #expect(listBuckets.status == 403)
        let text = String(decoding: listBuckets.body, as: UTF8.self)
        #expect(text.contains("<Code>AccessDenied</Code>"))
        #expect(text.contains("s3:ListAllMyBuckets on resource: *"))

        #expect(await harness.iam("DeleteRolePolicy", ["RoleName": "Unauth", "PolicyName": "policy-1"]).status == 200)
        #expect(await harness.iam("DeleteRole", ["RoleName": "Unauth"]).status == 200)
        _ = try expectError(await harness.put(signedWith: credentials), status: 400, code: "AccessDeniedException")
    }

    @Test("A bound caller needs iam:PassRole to give a pool a role; IAM refuses it as IAM does")
    func passRole() async throws {
        let manage =
            #"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"cognito-identity:*","Resource":"*"}}"#
        let harness = try APIHarness { $0.accessPolicies.roles[Self.unauthRole] = [manage] }
        let pool = try await harness.makePool()
        let credentials = try await harness.issuedCredentials(identity: try await harness.identityID(pool: pool))
        let set = await harness.api.handle(
            harness.request(
                operation: "SetIdentityPoolRoles",
                body: Array(
                    #"{"IdentityPoolId": "\#(pool)", "Roles": {"unauthenticated": "arn:aws:iam::123456789012:role/Nowhere"}}"#
                        .utf8),
                service: "cognito-identity", targetPrefix: "AWSCognitoIdentityService.", signingCredentials: credentials
            ))
        #expect(
            try expectError(set, status: 400, code: "AccessDeniedException").contains(
                "iam:PassRole on resource: arn:aws:iam::123456789012:role/Nowhere"))

        let body = "Action=ListRoles&Version=2010-05-08"
        let listed = await harness.api.handle(
            harness.request(
                operation: nil, body: Array(body.utf8), contentType: "application/x-www-form-urlencoded",
                service: "iam", signingCredentials: credentials))
        #expect(listed.status == 403)
        #expect(String(decoding: listed.body, as: UTF8.self).contains("<Code>AccessDenied</Code>"))
    }
}
