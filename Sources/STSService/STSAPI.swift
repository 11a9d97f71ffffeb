package import AWSSigV4
package import FirehoseWire
package import Logging
package import ServerCore

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// AWS Security Token Service (2011-06-15, the Query protocol: a form-encoded `Action` in, XML out) on
/// the server's port: GetCallerIdentity, which needs no permission (AWS answers it even under an
/// explicit deny), so it is never authorized, only verified; AssumeRole, for the roles of the IAM
/// store, with their trust policies (`STSAPI+AssumeRole.swift`); and AssumeRoleWithWebIdentity, for the
/// Cognito endpoint's OpenID tokens (`STSAPI+WebIdentity.swift`).
///
/// SDKs given an endpoint sign STS for their own region, so a credential scoped to any region is
/// taken (`SigV4Verifier.acceptsAnyRegion`).
package struct STSAPI: Sendable {
    package static let version = "2011-06-15"
    static let namespace = "https://sts.amazonaws.com/doc/2011-06-15/"

    let accountID: String
    let verifier: SigV4Verifier?
    let credentials: IssuedCredentials
    let identify: @Sendable (_ accessKeyID: String) -> CallerIdentity?
    let boundCaller: @Sendable (_ accessKeyID: String) -> BoundCaller?
    let role: @Sendable (_ arn: String) -> AssumableRole?
    let tokens: OpenIDTokens
    let logger: Logger

    /// - Parameters:
    ///   - verifier: checks signatures (service `sts`); nil when authentication is off, and the caller
    ///     is then whoever the request's credential scope names, or the account's root.
    ///   - credentials: where AssumeRole's credentials are kept (with Cognito's: every endpoint takes them).
    ///   - identify: who the caller of an access key is (`AccessPolicies.identity`).
    ///   - boundCaller: the policies that bind the caller of an access key, if any do.
    ///   - role: the role of the IAM store with this ARN.
    ///   - tokens: verifies the OpenID tokens of the Cognito endpoint (AssumeRoleWithWebIdentity).
    package init(
        accountID: String, verifier: SigV4Verifier?, credentials: IssuedCredentials,
        identify: @escaping @Sendable (_ accessKeyID: String) -> CallerIdentity?,
        boundCaller: @escaping @Sendable (_ accessKeyID: String) -> BoundCaller?,
        role: @escaping @Sendable (_ arn: String) -> AssumableRole?, tokens: OpenIDTokens, logger: Logger
    ) {
        self.tokens = tokens
        self.accountID = accountID
        self.verifier = verifier
        self.credentials = credentials
        self.identify = identify
        self.boundCaller = boundCaller
        self.role = role
        self.logger = logger
    }

    enum Operation: String, CaseIterable {
        case getCallerIdentity = "GetCallerIdentity"
        case assumeRole = "AssumeRole"
        case assumeRoleWithWebIdentity = "AssumeRoleWithWebIdentity"
    }

    /// Every action of STS's 2011-06-15 API (botocore's model): a request naming one is STS's even
    /// without `Version`, and one not served yet is refused as STS's, not taken for IAM's.
    static let actions: Set<String> = [
        "AssumeRole", "AssumeRoleWithSAML", "AssumeRoleWithWebIdentity", "AssumeRoot", "DecodeAuthorizationMessage",
        "GetAccessKeyInfo", "GetCallerIdentity", "GetDelegatedAccessToken", "GetFederationToken", "GetSessionToken",
        "GetWebIdentityToken",
    ]

    /// Whether a Query-protocol request with these form parameters is STS's rather than IAM's: its
    /// `Version`, else the service its credential is scoped to, else its action (the two APIs share
    /// no action name). AssumeRoleWithWebIdentity comes unsigned, so the form decides first.
    package static func isSTSRequest(_ request: APIRequest, parameters: [String: String]) -> Bool {
        if let version = parameters["Version"] { return version == Self.version }
        if let service = request.header("authorization").flatMap(SigV4Verifier.claimedService(authorization:)) {
            return service == "sts"
        }
        return actions.contains(parameters["Action"] ?? "")
    }

    /// The answer, with the operation (`unknown` for one not served, so a client cannot make up metric
    /// labels) and the error code (`OK` for a success) it is counted under.
    package func handle(_ request: APIRequest, parameters: [String: String], requestID: String, now: Date) -> (
        response: APIResponse, operation: String, code: String
    ) {
        let action = parameters["Action"] ?? ""
        let operation = Operation(rawValue: action)
        let label = operation?.rawValue ?? "unknown"
        do throws(FirehoseError) {
            guard let operation else {
                throw FirehoseError(
                    code: "InvalidAction",
                    message:
                        "Could not find operation \(action) for version \(parameters["Version"] ?? Self.version): firehose-local's STS serves \(Operation.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            let response: APIResponse
            switch operation {
            case .getCallerIdentity:
                let caller = try self.caller(request, now: now)
                response = try QueryProtocol.response(
                    action: action, namespace: Self.namespace, requestID: requestID
                ) { (xml: inout S3XML) throws(FirehoseError) in
                    xml.element("Arn", caller.identity.arn)
                    xml.element("UserId", caller.identity.userID)
                    xml.element("Account", caller.identity.account)
                }
            case .assumeRole, .assumeRoleWithWebIdentity:
                let session =
                    operation == .assumeRole
                    ? try assumeRole(parameters, caller: self.caller(request, now: now), now: now)
                    : try assumeRoleWithWebIdentity(parameters, now: now)
                response = try QueryProtocol.response(
                    action: action, namespace: Self.namespace, requestID: requestID
                ) { (xml: inout S3XML) throws(FirehoseError) in session.write(into: &xml) }
            }
            return (response, label, "OK")
        } catch {
            return (
                QueryProtocol.errorResponse(error, requestID: requestID, namespace: Self.namespace), label, error.code
            )
        }
    }

    /// Who signed the request, and with which key: verified, or with authentication off the key its
    /// credential scope names (any key is taken then, so an unknown one is the account's root).
    private func caller(_ request: APIRequest, now: Date) throws(FirehoseError) -> Caller {
        let root = CallerIdentity.root(of: accountID)
        guard let verifier else {
            let claimed = request.header("authorization").flatMap(SigV4Verifier.claimedAccessKeyID(authorization:))
            return Caller(accessKeyID: claimed, identity: claimed.flatMap(identify) ?? root)
        }
        let credentials = try verifier.verifyQuery(request, now: now)
        return Caller(accessKeyID: credentials.accessKeyId, identity: identify(credentials.accessKeyId) ?? root)
    }

    struct Caller {
        var accessKeyID: String?
        var identity: CallerIdentity
    }
}
