/// Who signed a request, as STS's GetCallerIdentity names it: worked out by whichever service knows the
/// credentials (IAM's configured keys and roles, the credentials Cognito issued) and passed to STS by
/// the front door.
package struct CallerIdentity: Sendable, Equatable {
    /// `arn:aws:iam::ACCOUNT:root`, `arn:aws:iam::ACCOUNT:user/NAME` or
    /// `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`.
    package var arn: String
    /// The account's id for its root, a user's `AIDA…` id, or a role's `AROA…` id and the session name.
    package var userID: String
    package var account: String
    /// The ARN a policy's `Principal` and `aws:PrincipalArn` name: the caller's own, or for a role's
    /// session the role's (`arn:aws:iam::ACCOUNT:role/PATH/NAME`).
    package var principalArn: String

    package init(arn: String, userID: String, account: String, principalArn: String? = nil) {
        self.arn = arn
        self.userID = userID
        self.account = account
        self.principalArn = principalArn ?? arn
    }

    /// Whether the caller is a role's session (assumed through STS or Cognito): a role it assumes is
    /// chained.
    package var isRoleSession: Bool { arn != principalArn }

    /// The account of an ARN (`arn:PARTITION:SERVICE:REGION:ACCOUNT:…`).
    package static func account(of arn: String) -> String? {
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        return parts.count == 6 && !parts[4].isEmpty ? String(parts[4]) : nil
    }

    /// `arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION` for `arn:aws:iam::ACCOUNT:role/PATH/NAME`: the
    /// role's name without its path, as STS writes it.
    package static func sessionARN(role: String, session: String) -> String {
        let parts = role.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count == 6 else { return role }
        let name = parts[5].split(separator: "/").last ?? parts[5]
        return "arn:\(parts[1]):sts::\(parts[4]):assumed-role/\(name)/\(session)"
    }

    /// The account's root: what its own access keys are.
    package static func root(of account: String) -> CallerIdentity {
        CallerIdentity(arn: "arn:aws:iam::\(account):root", userID: account, account: account)
    }
}
