package import AWSSigV4
package import IAMPolicy

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Temporary credentials handed out (Cognito's GetCredentialsForIdentity, STS's AssumeRole), with the
/// role session they act as: what the server looks up to verify a request signed with them and to
/// bind its caller.
package struct CredentialGrant: Codable, Sendable, Equatable {
    package var accessKeyId: String
    package var secretAccessKey: String
    package var sessionToken: String
    /// Seconds since 1970, whole, as Cognito's `Expiration`.
    package var expiration: Double
    package var roleArn: String
    /// Whether the role existed here when the credentials were issued: then its policies bind them,
    /// and deny everything once it is gone; otherwise nothing binds them (nil in older lines: false).
    package var bound: Bool?
    /// The session's name, the last part of its ARN: `CognitoIdentityCredentials` for Cognito's
    /// (absent from their lines), the `RoleSessionName` given to AssumeRole.
    package var sessionName: String
    /// The Cognito identity the credentials were issued to; nil for AssumeRole's.
    package var identityId: String?
    package var identityPoolId: String?
    /// The `cognito-identity.amazonaws.com:amr` values: `unauthenticated`, or `authenticated` and the
    /// providers of the logins used.
    package var amr: [String]?
    /// The inline session policy given to AssumeRole (JSON text, checked): the session may do only
    /// what both it and the role's policies allow.
    package var sessionPolicy: String?

    package static let cognitoSessionName = "CognitoIdentityCredentials"

    package init(
        accessKeyId: String, secretAccessKey: String, sessionToken: String, expiration: Double, roleArn: String,
        bound: Bool?, sessionName: String = cognitoSessionName
    ) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
        self.roleArn = roleArn
        self.bound = bound
        self.sessionName = sessionName
    }

    enum CodingKeys: String, CodingKey {
        case accessKeyId = "AccessKeyId"
        case secretAccessKey = "SecretAccessKey"
        case sessionToken = "SessionToken"
        case expiration = "Expiration"
        case roleArn = "RoleArn"
        case bound = "Bound"
        case sessionName = "SessionName"
        case identityId = "IdentityId"
        case identityPoolId = "IdentityPoolId"
        case amr = "Amr"
        case sessionPolicy = "SessionPolicy"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessKeyId = try container.decode(String.self, forKey: .accessKeyId)
        secretAccessKey = try container.decode(String.self, forKey: .secretAccessKey)
        sessionToken = try container.decode(String.self, forKey: .sessionToken)
        expiration = try container.decode(Double.self, forKey: .expiration)
        roleArn = try container.decode(String.self, forKey: .roleArn)
        bound = try container.decodeIfPresent(Bool.self, forKey: .bound)
        sessionName = try container.decodeIfPresent(String.self, forKey: .sessionName) ?? Self.cognitoSessionName
        identityId = try container.decodeIfPresent(String.self, forKey: .identityId)
        identityPoolId = try container.decodeIfPresent(String.self, forKey: .identityPoolId)
        amr = try container.decodeIfPresent([String].self, forKey: .amr)
        sessionPolicy = try container.decodeIfPresent(String.self, forKey: .sessionPolicy)
    }

    package var credentials: AWSCredentials {
        AWSCredentials(
            accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: sessionToken,
            expiration: Date(timeIntervalSince1970: expiration))
    }
}

/// A role as STS reads it to let a caller assume it: from the IAM store, through the front door.
package struct AssumableRole: Sendable, Equatable {
    package var arn: String
    /// `AROA…`: the first part of a session's `AssumedRoleId`.
    package var roleID: String
    /// The trust policy, parsed once (when the role is stored), or why firehose-local cannot read it.
    package var trust: Result<IAMPolicy, IAMPolicyError>
    /// Seconds (3600 to 43200).
    package var maxSessionDuration: Int
    /// Whether the trust policy is the one firehose-local gives a role declared without one
    /// (Cognito's, with no condition on the pool): no web identity may assume such a role.
    package var hasDefaultTrust: Bool

    /// - Parameter trustPolicy: the trust policy's JSON, as given.
    package init(
        arn: String, roleID: String, trustPolicy: String, maxSessionDuration: Int, hasDefaultTrust: Bool = false
    ) {
        self.arn = arn
        self.roleID = roleID
        trust = Result { () throws(IAMPolicyError) in try IAMPolicy(json: Array(trustPolicy.utf8), kind: .trust) }
        self.maxSessionDuration = maxSessionDuration
        self.hasDefaultTrust = hasDefaultTrust
    }
}
