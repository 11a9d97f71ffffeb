import FirehoseWire
import IAMPolicy
import Logging
import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// AssumeRoleWithWebIdentity for the OpenID tokens this server's Cognito endpoint issues (GetOpenIdToken):
/// the last step of Cognito's basic (classic) flow
/// (docs.aws.amazon.com/cognito/latest/developerguide/authentication-flow.html). Unsigned, as in AWS:
/// the token is the credential.
extension STSAPI {
    func assumeRoleWithWebIdentity(_ parameters: [String: String], now: Date) throws(FirehoseError)
        -> AssumedSession
    {
        try Self.refuseUnsupported(parameters, [])
        var (violations, duration) = Self.sessionViolations(parameters, policyLength: 1...2048)
        violations += ValidationViolation.string(
            parameters["WebIdentityToken"], path: "webIdentityToken", required: true, length: 4...20_000)
        violations += ValidationViolation.string(parameters["ProviderId"], path: "providerId", length: 4...2048)
        if !violations.isEmpty {
            throw FirehoseError(code: "ValidationError", message: FirehoseError.validation(violations).message)
        }
        let (roleArn, sessionName) = (parameters["RoleArn"]!, parameters["RoleSessionName"]!)
        let claims = try verifiedClaims(parameters["WebIdentityToken"]!, now: now)
        let sessionPolicy = try parameters["Policy"].map { text throws(FirehoseError) in try Self.sessionPolicy(text) }
        let notAuthorized = FirehoseError(
            code: "AccessDenied", message: "Not authorized to perform sts:AssumeRoleWithWebIdentity", httpStatus: 403)
        guard let role = role(roleArn) else {
            logger.notice(
                "AssumeRoleWithWebIdentity refused: the role is described nowhere here (Roles, or IAM's CreateRole)",
                metadata: ["role": .string(roleArn)])
            throw notAuthorized
        }
        guard !role.hasDefaultTrust else {
            // Its trust policy would let any pool's identities in: the role's own one decides.
            logger.notice(
                "AssumeRoleWithWebIdentity refused: the role was declared without AssumeRolePolicyDocument; give it its trust policy (with the pool's aud and amr conditions)",
                metadata: ["role": .string(roleArn)])
            throw notAuthorized
        }
        try authorize(claims, sessionName: sessionName, toAssume: role, refusal: notAuthorized)
        try Self.check(duration: duration, within: role.maxSessionDuration)
        let grant = try issue(
            roleArn: role.arn, bound: true, sessionName: sessionName, duration: duration, now: now
        ) { grant in
            grant.identityId = claims.sub
            grant.identityPoolId = claims.aud
            grant.amr = claims.amr
            grant.sessionPolicy = parameters["Policy"]
        }
        logger.info(
            "Role assumed with a web identity",
            metadata: [
                "identity_id": .string(claims.sub), "role": .string(grant.roleArn), "session": .string(sessionName),
                "access_key_id": .string(grant.accessKeyId), "expires": .stringConvertible(Int(grant.expiration)),
            ])
        return AssumedSession(
            grant: grant, assumedRoleID: "\(role.roleID):\(sessionName)", packedPolicySize: sessionPolicy,
            webIdentity: (claims.sub, claims.aud, OpenIDTokens.provider))
    }

    /// The token's claims, or STS's refusal of it.
    private func verifiedClaims(_ token: String, now: Date) throws(FirehoseError) -> OpenIDTokens.Claims {
        do throws(OpenIDTokens.Rejection) {
            return try tokens.verify(token, now: now)
        } catch {
            switch error {
            case .malformed:
                throw FirehoseError(
                    code: "InvalidIdentityToken",
                    message:
                        "The ID Token provided is not a valid JWT with Cognito's claims (iss, sub, aud, amr, exp): firehose-local takes the tokens its Cognito endpoint's GetOpenIdToken issues."
                )
            case .foreignIssuer(let issuer):
                throw FirehoseError(
                    code: "InvalidIdentityToken",
                    message:
                        "No OpenIDConnect provider found in your account for \(issuer): firehose-local takes the tokens of its own Cognito endpoint (\(OpenIDTokens.issuer)) only."
                )
            case .badSignature:
                throw FirehoseError(
                    code: "InvalidIdentityToken",
                    message:
                        "The token's signature is not valid: it was not issued by this server's Cognito endpoint (GetOpenIdToken), or was changed."
                )
            case .expired(let now, let expiration):
                throw FirehoseError(
                    code: "ExpiredTokenException",
                    message:
                        "Token expired: current date/time \(now) must be before the expiration date/time \(expiration)")
            }
        }
    }

    /// Whether the role's trust policy lets Cognito's federated users in, under its conditions on the
    /// token's claims (`cognito-identity.amazonaws.com:aud`, `:amr`, `:sub`).
    private func authorize(
        _ claims: OpenIDTokens.Claims, sessionName: String, toAssume role: AssumableRole, refusal: FirehoseError
    ) throws(FirehoseError) {
        guard case .success(let trust) = role.trust else {
            logger.notice(
                "A role's trust policy cannot be evaluated here: it lets no one in",
                metadata: ["role": .string(role.arn)])
            throw refusal
        }
        let request = IAMRequest(
            action: "sts:AssumeRoleWithWebIdentity", resource: role.arn,
            context: [
                "cognito-identity.amazonaws.com:aud": [claims.aud],
                "cognito-identity.amazonaws.com:sub": [claims.sub],
                "cognito-identity.amazonaws.com:amr": claims.amr,
                "sts:RoleSessionName": [sessionName],
            ])
        let principal = IAMPrincipal(kind: "Federated", names: [OpenIDTokens.provider])
        guard IAMPolicy.evaluateTrust(request, principal: principal, policy: trust) == .allowedForPrincipal else {
            logger.info(
                "AssumeRoleWithWebIdentity refused: the role's trust policy does not let this identity in",
                metadata: [
                    "role": .string(role.arn), "identity_pool": .string(claims.aud),
                    "amr": .array(claims.amr.map { .string($0) }),
                ])
            throw refusal
        }
    }
}
