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

    package init(arn: String, userID: String, account: String) {
        self.arn = arn
        self.userID = userID
        self.account = account
    }

    /// The account's root: what its own access keys are.
    package static func root(of account: String) -> CallerIdentity {
        CallerIdentity(arn: "arn:aws:iam::\(account):root", userID: account, account: account)
    }
}
