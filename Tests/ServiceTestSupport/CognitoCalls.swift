package import AWSSigV4
import Foundation
package import ServerCore
import Testing

/// The Cognito Identity calls tests make, on whatever answers them: the Cognito service alone, or the
/// whole server through its front door.
package protocol CognitoCalls {
    /// A Cognito Identity call: signed with the configured credentials when `sign` is true (the
    /// identity calls are unsigned, as SDKs send them).
    func cognito(_ operation: String, _ body: String, sign: Bool) async -> APIResponse
}

extension CognitoCalls {
    package func cognito(_ operation: String, _ body: String) async -> APIResponse {
        await cognito(operation, body, sign: false)
    }

    /// Creates a pool (signed) with a role for each kind of identity, and returns its id.
    package func makePool(
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

    package func identityID(pool: String, logins: String? = nil) async throws -> String {
        let loginsMember = logins.map { #", "Logins": \#($0)"# } ?? ""
        let response = await cognito("GetId", #"{"IdentityPoolId": "\#(pool)"\#(loginsMember)}"#)
        #expect(response.status == 200)
        return try #require(try json(response)["IdentityId"] as? String)
    }

    package func issuedCredentials(identity: String, logins: String? = nil) async throws -> AWSCredentials {
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
}
