import AWSSigV4
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Logging
import ServerCore
import ServiceTestSupport
import Testing

@testable import CognitoIdentityService

/// Cognito Identity alone, as the front door hands it a request: its store in a folder of its own,
/// pool calls verified against one key pair, and a fixed date.
final class CognitoHarness: CognitoCalls {
    let directory: String
    var keepDirectory = false
    let date = Date(timeIntervalSince1970: 1_795_266_309)  // 2026-11-21T13:05:09Z
    let credentials = AWSCredentials(accessKeyId: "AKIDLOCAL", secretAccessKey: "local-secret")
    let api: CognitoIdentityAPI

    init(directory: String? = nil) throws {
        let directory = try directory ?? TestDirectory("cognito").url.path
        self.directory = directory
        let credentials = credentials
        api = CognitoIdentityAPI(
            store: try CognitoStore(folder: directory, now: date), region: "us-east-1", accountID: "123456789012",
            credentialLifetime: 3_600, boundCaller: { _ in nil }, roleExists: { _ in false },
            verifier: SigV4Verifier(region: "us-east-1", service: "cognito-identity") {
                $0 == credentials.accessKeyId ? credentials : nil
            }, logger: Logger(label: "cognito-tests"))
    }

    deinit {
        if !keepDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func cognito(_ operation: String, _ body: String, sign: Bool) async -> APIResponse {
        let target = CognitoIdentityAPI.targetPrefix + operation
        let request = SignedRequests.post(
            target: target, body: Array(body.utf8), credentials: sign ? credentials : nil,
            service: "cognito-identity", date: date)
        do throws(FirehoseError) {
            try AWSJSONProtocol.check(request, service: "Cognito Identity")
            return AWSJSONProtocol.success(
                try api.handle(request, target: target, body: request.body, now: date), requestID: "request-1")
        } catch {
            return AWSJSONProtocol.errorResponse(error, requestID: "request-1")
        }
    }

    func issuedGrant(forAccessKey accessKeyID: String) -> CredentialGrant? {
        api.store.credentials.grant(forAccessKey: accessKeyID)
    }
}

/// A JWT as identity providers issue them; only its claims matter here.
private func jwt(subject: String, nonce: String) -> String {
    func part(_ text: String) -> String {
        Base64.encodeURL(Array(text.utf8))
    }
    return part(#"{"alg":"RS256"}"#) + "." + part(#"{"sub":"\#(subject)","nonce":"\#(nonce)"}"#) + ".c2ln"
}

@Suite("Cognito Identity: pools, identities, temporary credentials")
struct CognitoIdentityTests {
    @Test("The pool control plane: create, describe, list in pages, update, roles, delete")
    func poolControlPlane() async throws {
        let harness = try CognitoHarness()
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
        // Members in the model's order, the same every run; login providers by name.
        let twoProviders = try await harness.makePool(
            name: "second", roles: false,
            extra:
                #", "SupportedLoginProviders": {"www.amazon.com": "a", "graph.facebook.com": "f", "accounts.google.com": "g"}"#
        )
        let text = await harness.cognito("DescribeIdentityPool", #"{"IdentityPoolId": "\#(twoProviders)"}"#, sign: true)
        #expect(
            String(decoding: text.body, as: UTF8.self)
                == #"{"IdentityPoolId":"\#(twoProviders)","IdentityPoolName":"second","AllowUnauthenticatedIdentities":true,"SupportedLoginProviders":{"accounts.google.com":"g","graph.facebook.com":"f","www.amazon.com":"a"}}"#
        )
        _ = await harness.cognito("DeleteIdentityPool", #"{"IdentityPoolId": "\#(twoProviders)"}"#, sign: true)

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
        let harness = try CognitoHarness()
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
        let harness = try CognitoHarness()
        let pool = try await harness.makePool()
        let first = try await harness.identityID(pool: pool)
        let second = try await harness.identityID(pool: pool)
        #expect(first != second)
        #expect(first.hasPrefix("us-east-1:") && CognitoIdentityAPI.isID(first) && first.count == 46)

        let credentials = try await harness.issuedCredentials(identity: first)
        #expect(credentials.accessKeyId.hasPrefix("ASIA") && credentials.accessKeyId.count == 20)
        #expect(credentials.secretAccessKey.count == 40)
        #expect(credentials.expiration == harness.date.addingTimeInterval(3_600))
        let grant = try #require(harness.issuedGrant(forAccessKey: credentials.accessKeyId))
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
        let harness = try CognitoHarness()
        let pool = try await harness.makePool(
            extra:
                #", "AllowClassicFlow": true, "SupportedLoginProviders": {"graph.facebook.com": "1234"}, "CognitoIdentityProviders": [{"ProviderName": "cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool", "ClientId": "client"}]"#
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
        let grant = try #require(harness.issuedGrant(forAccessKey: credentials.accessKeyId))
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
        let claims = try #require(Base64.decodeURL(jwtText.split(separator: ".")[1]))
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any])
        #expect(decoded["sub"] as? String == alice)
        #expect(decoded["aud"] as? String == pool)
        #expect(decoded["amr"] as? [String] == ["authenticated", "graph.facebook.com"])

        // The basic flow only where the pool allows it, as AWS's AllowClassicFlow says.
        let enhancedOnly = try await harness.makePool(name: "enhanced-only")
        let anonymous = try await harness.identityID(pool: enhancedOnly)
        let classic = await harness.cognito("GetOpenIdToken", #"{"IdentityId": "\#(anonymous)"}"#)
        #expect(
            try expectError(classic, status: 400, code: "InvalidParameterException")
                == "Basic (classic) flow is not enabled, please use enhanced flow.")
    }

    @Test("Pools, identities and credentials survive a restart; a deleted pool's identities do not")
    func persistedAcrossRestarts() async throws {
        var harness: CognitoHarness? = try CognitoHarness()
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

        let restarted = try CognitoHarness(directory: directory)
        #expect(try await restarted.identityID(pool: pool, logins: logins) == identity)
        let kept = try #require(restarted.issuedGrant(forAccessKey: credentials.accessKeyId))
        #expect(kept.credentials.secretAccessKey == credentials.secretAccessKey)
        #expect(kept.credentials.sessionToken == credentials.sessionToken)
        #expect(kept.credentials.expiration == credentials.expiration)
        let gone = await restarted.cognito("GetCredentialsForIdentity", #"{"IdentityId": "\#(droppedIdentity)"}"#)
        _ = try expectError(gone, status: 400, code: "ResourceNotFoundException")
        let roles = try json(
            await restarted.cognito("GetIdentityPoolRoles", #"{"IdentityPoolId": "\#(pool)"}"#, sign: true))
        #expect((roles["Roles"] as? [String: String])?.count == 2)
    }

    @Test("Logins of two identities are refused, not merged")
    func noMerge() async throws {
        let harness = try CognitoHarness()
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
        let folder = try TestDirectory("cognito").url.path
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
