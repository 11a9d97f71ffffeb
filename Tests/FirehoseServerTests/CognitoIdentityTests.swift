import AWSSigV4
import FirehoseTestSupport
import FirehoseWire
import Foundation
import IAMPolicy
import IAMService
import ServerCore
import Testing

@testable import FirehoseServer

extension APIHarness {
    /// An IAM Query call through the front door, signed for IAM (us-east-1, whatever the server's region).
    func iam(_ action: String, _ parameters: [String: String] = [:]) async -> APIResponse {
        let pairs = [("Action", action), ("Version", "2010-05-08")] + parameters.sorted { $0.key < $1.key }
        let body = pairs.map { "\($0.0)=\(URIEncoding.encode($0.1))" }.joined(separator: "&")
        return await api.handle(
            request(
                operation: nil, body: Array(body.utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8",
                service: "iam"))
    }
}

extension APIHarness {
    /// A Cognito Identity call: signed with the configured credentials unless `sign` is false (the
    /// identity calls are unsigned, as SDKs send them).
    func cognito(_ operation: String, _ body: String, sign: Bool = false) async -> APIResponse {
        await api.handle(
            request(
                operation: operation, body: Array(body.utf8), sign: sign, service: "cognito-identity",
                targetPrefix: "AWSCognitoIdentityService."))
    }

    /// Creates a pool (signed) with a role for each kind of identity, and returns its id.
    func makePool(
        name: String = "app", allowUnauthenticated: Bool = true, roles: Bool = true, extra: String = ""
    ) async throws -> String {
        let created = await cognito(
            "CreateIdentityPool",
            #"{"IdentityPoolName": "\#(name)", "AllowUnauthenticatedIdentities": \#(allowUnauthenticated)\#(extra)}"#,
            sign: true)
        #expect(created.status == 200)
        let id = try #require(try json(created)["IdentityPoolId"] as? String)
        if roles {
            let set = await cognito(
                "SetIdentityPoolRoles",
                #"{"IdentityPoolId": "\#(id)", "Roles": {"unauthenticated": "arn:aws:iam::123456789012:role/Unauth", "authenticated": "arn:aws:iam::123456789012:role/Auth"}}"#,
                sign: true)
            #expect(set.status == 200)
        }
        return id
    }

    func identityID(pool: String, logins: String? = nil) async throws -> String {
        let loginsMember = logins.map { #", "Logins": \#($0)"# } ?? ""
        let response = await cognito("GetId", #"{"IdentityPoolId": "\#(pool)"\#(loginsMember)}"#)
        #expect(response.status == 200)
        return try #require(try json(response)["IdentityId"] as? String)
    }

    func issuedCredentials(identity: String, logins: String? = nil) async throws -> AWSCredentials {
        let loginsMember = logins.map { #", "Logins": \#($0)"# } ?? ""
        let response = await cognito("GetCredentialsForIdentity", #"{"IdentityId": "\#(identity)"\#(loginsMember)}"#)
        #expect(response.status == 200)
        let body = try json(response)
        #expect(body["IdentityId"] as? String == identity)
        let credentials = try #require(body["Credentials"] as? [String: Any])
        return AWSCredentials(
            accessKeyId: try #require(credentials["AccessKeyId"] as? String),
            secretAccessKey: try #require(credentials["SecretKey"] as? String),
            sessionToken: try #require(credentials["SessionToken"] as? String),
            expiration: Date(timeIntervalSince1970: try #require(credentials["Expiration"] as? Double)))
    }

    func put(signedWith credentials: AWSCredentials) async -> APIResponse {
        await api.handle(
            request(operation: "PutRecord", body: putRecordBody(data: Array("x".utf8)), signingCredentials: credentials)
        )
    }
}

/// A JWT as identity providers issue them; only its claims matter here.
private func jwt(subject: String, nonce: String) -> String {
    func part(_ text: String) -> String {
        CognitoIdentityAPI.base64URL(Array(text.utf8))
    }
    return part(#"{"alg":"RS256"}"#) + "." + part(#"{"sub":"\#(subject)","nonce":"\#(nonce)"}"#) + ".c2ln"
}

@Suite("Cognito Identity: pools, identities, temporary credentials")
struct CognitoIdentityTests {
    @Test("The pool control plane: create, describe, list in pages, update, roles, delete")
    func poolControlPlane() async throws {
        let harness = try APIHarness()
        let first = try await harness.makePool(
            name: "first app", roles: false,
            extra: #", "SupportedLoginProviders": {"graph.facebook.com": "1234"}, "DeveloperProviderName": "login.app""#
        )
        #expect(CognitoIdentityAPI.isID(first) && first.hasPrefix("us-east-1:"))
        let described = try json(
            await harness.cognito("DescribeIdentityPool", #"{"IdentityPoolId": "\#(first)"}"#, sign: true))
        #expect(described["IdentityPoolName"] as? String == "first app")
        #expect(described["AllowUnauthenticatedIdentities"] as? Bool == true)
        #expect(described["SupportedLoginProviders"] as? [String: String] == ["graph.facebook.com": "1234"])
        #expect(described["DeveloperProviderName"] as? String == "login.app")

        var ids = [first]
        for index in 0..<3 { ids.append(try await harness.makePool(name: "pool-\(index)", roles: false)) }
        var listed: [String] = []
        var token: String?
        repeat {
            let next = token.map { #", "NextToken": "\#($0)""# } ?? ""
            let page = try json(await harness.cognito("ListIdentityPools", #"{"MaxResults": 3\#(next)}"#, sign: true))
            let pools = try #require(page["IdentityPools"] as? [[String: Any]])
            #expect(pools.count <= 3)
            listed += pools.compactMap { $0["IdentityPoolId"] as? String }
            token = page["NextToken"] as? String
        } while token != nil
        #expect(listed == ids.sorted())

        let updated = await harness.cognito(
            "UpdateIdentityPool",
            #"{"IdentityPoolId": "\#(first)", "IdentityPoolName": "renamed", "AllowUnauthenticatedIdentities": false}"#,
            sign: true)
        #expect(try json(updated)["IdentityPoolName"] as? String == "renamed")
        #expect(try json(updated)["SupportedLoginProviders"] == nil)

        let roles = #"{"authenticated": "arn:aws:iam::123456789012:role/Auth"}"#
        #expect(
            await harness.cognito(
                "SetIdentityPoolRoles", #"{"IdentityPoolId": "\#(first)", "Roles": \#(roles)}"#, sign: true
            )
            .status == 200)
        let got = try json(
            await harness.cognito("GetIdentityPoolRoles", #"{"IdentityPoolId": "\#(first)"}"#, sign: true))
        #expect(got["Roles"] as? [String: String] == ["authenticated": "arn:aws:iam::123456789012:role/Auth"])

        #expect(
            await harness.cognito("DeleteIdentityPool", #"{"IdentityPoolId": "\#(first)"}"#, sign: true).status == 200)
        let gone = await harness.cognito("DescribeIdentityPool", #"{"IdentityPoolId": "\#(first)"}"#, sign: true)
        #expect(
            try expectError(gone, status: 400, code: "ResourceNotFoundException")
                == "IdentityPool '\(first)' not found.")
    }

    @Test("Pool calls must be signed; bad input is refused as Cognito refuses it")
    func poolCallsAreCheckedAndValidated() async throws {
        let harness = try APIHarness()
        let unsigned = await harness.cognito(
            "CreateIdentityPool", #"{"IdentityPoolName": "app", "AllowUnauthenticatedIdentities": true}"#)
        _ = try expectError(unsigned, status: 400, code: "MissingAuthenticationTokenException")
        let badName = await harness.cognito(
            "CreateIdentityPool", #"{"IdentityPoolName": "no/slash", "AllowUnauthenticatedIdentities": true}"#,
            sign: true)
        #expect(
            try expectError(badName, status: 400, code: "ValidationException")
                == "1 validation error detected: Value 'no/slash' at 'identityPoolName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w\\s+=,.@-]+"
        )
        let missing = await harness.cognito("CreateIdentityPool", #"{"IdentityPoolName": "app"}"#, sign: true)
        #expect(
            try expectError(missing, status: 400, code: "ValidationException")
                == "1 validation error detected: Value null at 'allowUnauthenticatedIdentities' failed to satisfy constraint: Member must not be null"
        )
        let badID = await harness.cognito("GetId", #"{"IdentityPoolId": "us-east-1_AbCdEf"}"#)
        #expect(
            try expectError(badID, status: 400, code: "ValidationException")
                == "1 validation error detected: Value 'us-east-1_AbCdEf' at 'identityPoolId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w-]+:[0-9a-f-]+"
        )
        let noMax = await harness.cognito("ListIdentityPools", "{}", sign: true)
        _ = try expectError(noMax, status: 400, code: "ValidationException")
        let unknown = await harness.cognito(
            "GetId", #"{"IdentityPoolId": "us-east-1:00000000-0000-0000-0000-000000000000"}"#)
        #expect(
            try expectError(unknown, status: 400, code: "ResourceNotFoundException")
                == "IdentityPool 'us-east-1:00000000-0000-0000-0000-000000000000' not found.")
        let pool = try await harness.makePool(roles: false)
        let mapped = await harness.cognito(
            "SetIdentityPoolRoles",
            #"{"IdentityPoolId": "\#(pool)", "Roles": {}, "RoleMappings": {"graph.facebook.com": {"Type": "Token"}}}"#,
            sign: true)
        #expect(try expectError(mapped, status: 400, code: "InvalidParameterException").contains("RoleMappings"))
        let badRole = await harness.cognito(
            "SetIdentityPoolRoles",
            #"{"IdentityPoolId": "\#(pool)", "Roles": {"authenticated": "not-an-arn-but-long-enough"}}"#,
            sign: true)
        _ = try expectError(badRole, status: 400, code: "InvalidParameterException")
        let operation = await harness.cognito("GetCredentialsForIdentityPool", "{}")
        _ = try expectError(operation, status: 404, code: "UnknownOperationException")
    }

    @Test(
        "Unauthenticated identities: a new one per GetId, credentials for the pool's role, refused when the pool forbids them"
    )
    func unauthenticatedIdentities() async throws {
        let harness = try APIHarness()
        let pool = try await harness.makePool()
        let first = try await harness.identityID(pool: pool)
        let second = try await harness.identityID(pool: pool)
        #expect(first != second)
        #expect(first.hasPrefix("us-east-1:") && CognitoIdentityAPI.isID(first) && first.count == 46)

        let credentials = try await harness.issuedCredentials(identity: first)
        #expect(credentials.accessKeyId.hasPrefix("ASIA") && credentials.accessKeyId.count == 20)
        #expect(credentials.secretAccessKey.count == 40)
        #expect(credentials.expiration == harness.clock.date.addingTimeInterval(3_600))
        let grant = try #require(harness.api.issuedGrant(forAccessKey: credentials.accessKeyId))
        #expect(grant.roleArn == "arn:aws:iam::123456789012:role/Unauth")
        #expect(grant.amr == ["unauthenticated"])
        #expect(grant.identityPoolId == pool)

        let closed = try await harness.makePool(name: "closed", allowUnauthenticated: false)
        let refused = await harness.cognito("GetId", #"{"IdentityPoolId": "\#(closed)"}"#)
        #expect(
            try expectError(refused, status: 400, code: "NotAuthorizedException")
                == "Unauthenticated access is not supported for this identity pool.")
        let unknown = await harness.cognito(
            "GetCredentialsForIdentity", #"{"IdentityId": "us-east-1:00000000-0000-0000-0000-000000000000"}"#)
        _ = try expectError(unknown, status: 400, code: "ResourceNotFoundException")

        let roleless = try await harness.makePool(name: "roleless", roles: false)
        let identity = try await harness.identityID(pool: roleless)
        let noRole = await harness.cognito("GetCredentialsForIdentity", #"{"IdentityId": "\#(identity)"}"#)
        #expect(
            try expectError(noRole, status: 400, code: "InvalidIdentityPoolConfigurationException")
                == "Invalid identity pool configuration. Check assigned IAM roles for this pool.")
    }

    @Test("Logins: the same user is the same identity (a JWT by its sub), its logins are needed for its credentials")
    func authenticatedIdentities() async throws {
        let harness = try APIHarness()
        let pool = try await harness.makePool(
            extra:
                #", "SupportedLoginProviders": {"graph.facebook.com": "1234"}, "CognitoIdentityProviders": [{"ProviderName": "cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool", "ClientId": "client"}]"#
        )
        let facebook = #"{"graph.facebook.com": "token-of-alice"}"#
        let alice = try await harness.identityID(pool: pool, logins: facebook)
        #expect(try await harness.identityID(pool: pool, logins: facebook) == alice)
        #expect(try await harness.identityID(pool: pool, logins: #"{"graph.facebook.com": "token-of-bob"}"#) != alice)

        let userPool = "cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool"
        let carol = try await harness.identityID(
            pool: pool, logins: #"{"\#(userPool)": "\#(jwt(subject: "carol", nonce: "1"))"}"#)
        #expect(
            try await harness.identityID(
                pool: pool, logins: #"{"\#(userPool)": "\#(jwt(subject: "carol", nonce: "2"))"}"#)
                == carol)

        let credentials = try await harness.issuedCredentials(identity: alice, logins: facebook)
        let grant = try #require(harness.api.issuedGrant(forAccessKey: credentials.accessKeyId))
        #expect(grant.roleArn == "arn:aws:iam::123456789012:role/Auth")
        #expect(grant.amr == ["authenticated", "graph.facebook.com"])

        let withoutLogins = await harness.cognito("GetCredentialsForIdentity", #"{"IdentityId": "\#(alice)"}"#)
        _ = try expectError(withoutLogins, status: 400, code: "NotAuthorizedException")
        let otherUser = await harness.cognito(
            "GetCredentialsForIdentity",
            #"{"IdentityId": "\#(alice)", "Logins": {"graph.facebook.com": "token-of-bob"}}"#)
        _ = try expectError(otherUser, status: 400, code: "NotAuthorizedException")
        let unsupported = await harness.cognito(
            "GetId", #"{"IdentityPoolId": "\#(pool)", "Logins": {"accounts.google.com": "token"}}"#)
        #expect(
            try expectError(unsupported, status: 400, code: "NotAuthorizedException")
                == "Token is not from a supported provider of this identity pool.")

        let token = await harness.cognito("GetOpenIdToken", #"{"IdentityId": "\#(alice)", "Logins": \#(facebook)}"#)
        let jwtText = try #require(try json(token)["Token"] as? String)
        let claims = try #require(CognitoIdentityAPI.base64URLDecode(jwtText.split(separator: ".")[1]))
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any])
        #expect(decoded["sub"] as? String == alice)
        #expect(decoded["aud"] as? String == pool)
        #expect(decoded["amr"] as? [String] == ["authenticated", "graph.facebook.com"])
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

    @Test("Pools, identities and credentials survive a restart; a deleted pool's identities do not")
    func persistedAcrossRestarts() async throws {
        var harness: APIHarness? = try APIHarness()
        let directory = harness!.directory
        harness!.keepDirectory = true
        let pool = try await harness!.makePool(extra: #", "DeveloperProviderName": "login.app""#)
        let logins = #"{"login.app": "user-1"}"#
        let identity = try await harness!.identityID(pool: pool, logins: logins)
        let credentials = try await harness!.issuedCredentials(identity: identity, logins: logins)
        let dropped = try await harness!.makePool(name: "dropped")
        let droppedIdentity = try await harness!.identityID(pool: dropped)
        #expect(
            await harness!.cognito("DeleteIdentityPool", #"{"IdentityPoolId": "\#(dropped)"}"#, sign: true).status
                == 200)
        harness = nil

        let restarted = try APIHarness(directory: directory)
        #expect(try await restarted.identityID(pool: pool, logins: logins) == identity)
        #expect(await restarted.put(signedWith: credentials).status == 200)
        let gone = await restarted.cognito("GetCredentialsForIdentity", #"{"IdentityId": "\#(droppedIdentity)"}"#)
        _ = try expectError(gone, status: 400, code: "ResourceNotFoundException")
        let roles = try json(
            await restarted.cognito("GetIdentityPoolRoles", #"{"IdentityPoolId": "\#(pool)"}"#, sign: true))
        #expect((roles["Roles"] as? [String: String])?.count == 2)
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

    @Test("Logins of two identities are refused, not merged")
    func noMerge() async throws {
        let harness = try APIHarness()
        let pool = try await harness.makePool(
            extra: #", "DeveloperProviderName": "login.app", "SupportedLoginProviders": {"graph.facebook.com": "1"}"#)
        _ = try await harness.identityID(pool: pool, logins: #"{"login.app": "alice"}"#)
        _ = try await harness.identityID(pool: pool, logins: #"{"graph.facebook.com": "bob"}"#)
        let both = await harness.cognito(
            "GetId", #"{"IdentityPoolId": "\#(pool)", "Logins": {"login.app": "alice", "graph.facebook.com": "bob"}}"#)
        _ = try expectError(both, status: 400, code: "ResourceConflictException")
    }

    @Test("A full directory forgets its oldest unauthenticated identity, on disk too; the credentials file is private")
    func evictionAndPermissions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cognito-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let now = Date(timeIntervalSince1970: 1_795_266_309)
        let pool = StoredIdentityPool(
            pool: try JSONDecoder().decode(
                IdentityPool.self,
                from: Data(
                    #"{"IdentityPoolId": "us-east-1:00000000-0000-4000-8000-000000000009", "IdentityPoolName": "p", "AllowUnauthenticatedIdentities": true}"#
                        .utf8)), roles: [:])
        var ids: [String] = []
        do {
            let store = try CognitoStore(folder: folder, now: now, maxIdentities: 3)
            try store.apply(configuredPools: [pool])
            let signedIn = try store.identity(
                pool: pool.pool.identityPoolId!, logins: [LinkedLogin(provider: "p", user: "u")], now: now)
            for second in 1...3 {
                ids.append(
                    try store.identity(
                        pool: pool.pool.identityPoolId!, logins: [], now: now.addingTimeInterval(Double(second))
                    ).identityId)
            }
            #expect(store.read(\.identities).count == 3)
            #expect(store.read(\.identities)[ids[0]] == nil, "the oldest anonymous identity is forgotten")
            #expect(store.read(\.identities)[signedIn.identityId] != nil)
            _ = try store.credentials.issue(
                for: signedIn, roleArn: "arn:aws:iam::1:role/r", bound: false, lifetime: 60, now: now)
        }
        let reopened = try CognitoStore(folder: folder, now: now, maxIdentities: 3)
        #expect(Set(reopened.read(\.identities).keys).isSuperset(of: ids[1...]))
        #expect(reopened.read(\.identities)[ids[0]] == nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: "\(folder)/credentials.jsonl")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}
