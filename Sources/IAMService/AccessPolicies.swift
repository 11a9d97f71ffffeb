import AWSSigV4
import FirehoseWire
package import IAMPolicy
package import ServerCore

/// Which callers identity-based policies bind: credentials issued for a role that exists (from the
/// configuration file's `Roles`, or IAM's CreateRole), bound by its inline policies; and configured
/// key pairs given `Policies`.
///
/// A caller nothing binds may call anything, as before policies existed: a configured key pair
/// without `Policies`, and credentials issued for a role that does not exist here. IAM would refuse
/// to issue those; here a role nobody described is one whose policies are not known, so its
/// credentials stay as open as the configured keys.
package struct AccessPolicies: Sendable {
    /// The configuration file's roles: their ARNs and policy documents (JSON text, each checked).
    package var roles: [String: [String]] = [:]
    /// Configured key pairs bound by policies, by access key.
    package var users: [String: User] = [:]
    /// Every configured access key (the server fills it in): any other key that is not an issued
    /// credential's is refused everything, so a credential forgotten between its check and its
    /// authorization is never taken for an unbound one.
    package var configuredKeys: Set<String> = []

    package struct User: Sendable {
        /// `arn:aws:iam::ACCOUNT:user/NAME`: who refusals name.
        package var arn: String
        package var policies: [IAMPolicy]

        package init(arn: String, policies: [IAMPolicy]) {
            self.arn = arn
            self.policies = policies
        }
    }

    package init() {}

    /// The policies that bind the caller of `accessKeyID`, and the condition keys its requests bring;
    /// nil when nothing binds it.
    /// - Parameters:
    ///   - issued: the grant behind credentials Cognito or STS issued.
    ///   - rolePolicies: the inline policies of an existing role, by ARN.
    package func caller(
        accessKeyID: String, issued: (String) -> CredentialGrant?, rolePolicies: (String) -> [IAMPolicy]?
    ) -> BoundCaller? {
        if let user = users[accessKeyID] {
            return BoundCaller(arn: user.arn, policies: user.policies, context: [:])
        }
        if configuredKeys.contains(accessKeyID) { return nil }
        guard let grant = issued(accessKeyID) else {
            return BoundCaller(
                arn: "arn:aws:sts::unknown:assumed-role/unknown/\(accessKeyID)", policies: [], context: [:])
        }
        // A role that exists binds its credentials; one that existed when they were issued and is
        // gone allows them nothing, as IAM refuses a deleted role's sessions. A role that never
        // existed here binds nothing.
        guard let policies = rolePolicies(grant.roleArn) ?? (grant.bound == true ? [] : nil) else { return nil }
        var context = ["aws:PrincipalArn": [grant.roleArn]]
        if let account = CallerIdentity.account(of: grant.roleArn) { context["aws:PrincipalAccount"] = [account] }
        if let pool = grant.identityPoolId, let identity = grant.identityId {
            context["cognito-identity.amazonaws.com:aud"] = [pool]
            context["cognito-identity.amazonaws.com:sub"] = [identity]
            context["cognito-identity.amazonaws.com:amr"] = grant.amr ?? []
        }
        // Checked when the session was made: one that no longer parses allows nothing.
        let sessionPolicies = grant.sessionPolicy.map { text in
            (try? IAMPolicy(json: Array(text.utf8))).map { [$0] } ?? []
        }
        return BoundCaller(
            arn: CallerIdentity.sessionARN(role: grant.roleArn, session: grant.sessionName), policies: policies,
            sessionPolicies: sessionPolicies, context: context)
    }

    /// Who the caller of `accessKeyID` is, for STS's GetCallerIdentity: a configured key pair given a
    /// `UserName` is that user; any other configured key pair is the account's root, as a key of
    /// AWS's own account would be; issued credentials are a session of their role, named
    /// `CognitoIdentityCredentials` for Cognito's as Cognito names it, and as AssumeRole was asked for
    /// STS's. Nil for a key that is neither.
    /// - Parameters:
    ///   - issued: the grant behind credentials Cognito or STS issued.
    ///   - roleID: the `AROA…` id of an existing role, by ARN.
    package func identity(
        accessKeyID: String, accountID: String, issued: (String) -> CredentialGrant?, roleID: (String) -> String?
    ) -> CallerIdentity? {
        if let user = users[accessKeyID] {
            return CallerIdentity(
                arn: user.arn, userID: Self.stableID(prefix: "AIDA", of: user.arn),
                account: CallerIdentity.account(of: user.arn) ?? accountID)
        }
        if configuredKeys.contains(accessKeyID) {
            return .root(of: accountID)
        }
        guard let grant = issued(accessKeyID) else { return nil }
        let session = grant.sessionName
        // A role described nowhere here has no id of its own: one made from its ARN stays the same
        // from call to call and across restarts.
        let id = roleID(grant.roleArn) ?? Self.stableID(prefix: "AROA", of: grant.roleArn.lowercased())
        return CallerIdentity(
            arn: CallerIdentity.sessionARN(role: grant.roleArn, session: session), userID: "\(id):\(session)",
            account: CallerIdentity.account(of: grant.roleArn) ?? accountID, principalArn: grant.roleArn)
    }

    /// `prefix` and 17 characters of IAM's unique-id alphabet, from a hash of `name`: the id of a user
    /// or role described nowhere here, the same from call to call and across restarts.
    static func stableID(prefix: String, of name: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let hash = SHA256Hex.hash(Array(name.utf8))
        return prefix + String(hash.prefix(17).map { alphabet[Int($0.hexDigitValue ?? 0) * 2] })
    }
}
