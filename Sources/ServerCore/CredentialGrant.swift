package import AWSSigV4

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Temporary credentials handed out (Cognito's GetCredentialsForIdentity), with the identity and role
/// they act as: what the server looks up to verify a request signed with them and to bind its caller.
package struct CredentialGrant: Codable, Sendable, Equatable {
    package var accessKeyId: String
    package var secretAccessKey: String
    package var sessionToken: String
    /// Seconds since 1970, whole, as Cognito's `Expiration`.
    package var expiration: Double
    package var identityId: String
    package var identityPoolId: String
    package var roleArn: String
    /// The `cognito-identity.amazonaws.com:amr` values: `unauthenticated`, or `authenticated` and the
    /// providers of the logins used.
    package var amr: [String]
    /// Whether the role existed here when the credentials were issued: then its policies bind them,
    /// and deny everything once it is gone; otherwise nothing binds them (nil in older lines: false).
    package var bound: Bool?

    package init(
        accessKeyId: String, secretAccessKey: String, sessionToken: String, expiration: Double, identityId: String,
        identityPoolId: String, roleArn: String, amr: [String], bound: Bool?
    ) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
        self.identityId = identityId
        self.identityPoolId = identityPoolId
        self.roleArn = roleArn
        self.amr = amr
        self.bound = bound
    }

    enum CodingKeys: String, CodingKey {
        case accessKeyId = "AccessKeyId"
        case secretAccessKey = "SecretAccessKey"
        case sessionToken = "SessionToken"
        case expiration = "Expiration"
        case identityId = "IdentityId"
        case identityPoolId = "IdentityPoolId"
        case roleArn = "RoleArn"
        case amr = "Amr"
        case bound = "Bound"
    }

    package var credentials: AWSCredentials {
        AWSCredentials(
            accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: sessionToken,
            expiration: Date(timeIntervalSince1970: expiration))
    }
}
