import AWSSigV4
import FirehoseWire
import IAMPolicy
import Logging
import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// AssumeRole: temporary credentials for a role of the IAM store, when its trust policy lets the caller
/// in (docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html).
extension STSAPI {
    /// What AssumeRole was asked, checked against botocore's model.
    struct AssumeRoleInput {
        var roleArn: String
        var sessionName: String
        /// Seconds; nil: an hour.
        var duration: Int?
        var policy: String?
        var externalID: String?
        var sourceIdentity: String?
    }

    /// The session made: what AssumeRole and AssumeRoleWithWebIdentity answer.
    struct AssumedSession {
        var grant: CredentialGrant
        var assumedRoleID: String
        var packedPolicySize: Int?
        var sourceIdentity: String?
        /// AssumeRoleWithWebIdentity's: the token's `sub`, `aud` and issuer.
        var webIdentity: (subject: String, audience: String, provider: String)?

        /// The members of the result, in the order of the API reference's example.
        func write(into xml: inout S3XML) {
            if let webIdentity { xml.element("SubjectFromWebIdentityToken", webIdentity.subject) }
            if let sourceIdentity { xml.element("SourceIdentity", sourceIdentity) }
            xml.open("AssumedRoleUser")
            xml.element("AssumedRoleId", assumedRoleID)
            xml.element("Arn", CallerIdentity.sessionARN(role: grant.roleArn, session: grant.sessionName))
            xml.close("AssumedRoleUser")
            xml.open("Credentials")
            xml.element("AccessKeyId", grant.accessKeyId)
            xml.element("SecretAccessKey", grant.secretAccessKey)
            xml.element("SessionToken", grant.sessionToken)
            xml.element("Expiration", Date(timeIntervalSince1970: grant.expiration).formatted(.iso8601))
            xml.close("Credentials")
            if let packedPolicySize { xml.element("PackedPolicySize", String(packedPolicySize)) }
            if let webIdentity {
                xml.element("Provider", webIdentity.provider)
                xml.element("Audience", webIdentity.audience)
            }
        }
    }

    /// The longest session of a role assumed with a role's credentials (role chaining).
    static let chainedSessionLimit = 3_600
    /// What STS allows the plaintext of a session policy, in characters.
    static let sessionPolicyLimit = 2_048

    func assumeRole(_ parameters: [String: String], caller: Caller, now: Date) throws(FirehoseError)
        -> AssumedSession
    {
        let input = try Self.assumeRoleInput(parameters)
        let sessionPolicy = try input.policy.map { text throws(FirehoseError) in try Self.sessionPolicy(text) }
        guard let role = role(input.roleArn) else {
            throw accessDenied(caller, roleArn: input.roleArn, reason: "there is no such role")
        }
        try authorize(caller, toAssume: role, input: input)
        if caller.identity.isRoleSession, let duration = input.duration, duration > Self.chainedSessionLimit {
            throw FirehoseError(
                code: "ValidationError",
                message:
                    "The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining."
            )
        }
        try Self.check(duration: input.duration, within: role.maxSessionDuration)
        let grant = try issue(
            roleArn: role.arn, bound: true, sessionName: input.sessionName, duration: input.duration, now: now
        ) { grant in
            grant.sessionPolicy = input.policy
        }
        logger.info(
            "Role assumed",
            metadata: [
                "caller": .string(caller.identity.arn), "role": .string(role.arn),
                "session": .string(input.sessionName), "access_key_id": .string(grant.accessKeyId),
                "expires": .stringConvertible(Int(grant.expiration)),
            ])
        return AssumedSession(
            grant: grant, assumedRoleID: "\(role.roleID):\(input.sessionName)", packedPolicySize: sessionPolicy,
            sourceIdentity: input.sourceIdentity)
    }

    /// STS's refusal of a session longer than the role allows.
    static func check(duration: Int?, within maxSessionDuration: Int) throws(FirehoseError) {
        if let duration, duration > maxSessionDuration {
            throw FirehoseError(
                code: "ValidationError",
                message: "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
        }
    }

    /// New credentials for a session of `roleArn`, an hour long unless `duration` says otherwise,
    /// described by `session` and on disk before they are answered.
    func issue(
        roleArn: String, bound: Bool, sessionName: String, duration: Int?, now: Date,
        session: (inout CredentialGrant) -> Void
    ) throws(FirehoseError) -> CredentialGrant {
        do {
            return try credentials.issue(
                roleArn: roleArn, bound: bound, lifetime: TimeInterval(duration ?? 3_600), now: now
            ) { grant in
                grant.sessionName = sessionName
                session(&grant)
            }
        } catch {
            var failure = FirehoseError(
                code: "InternalFailure", message: "The credentials could not be saved; see the server's log.",
                httpStatus: 500)
            failure.logDetail = "\(error)"
            throw failure
        }
    }

    /// Whether the role's trust policy lets the caller in, with the caller's own policies where the
    /// trust policy names only its account: as IAM decides for a principal of the role's account
    /// (docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic-cross-account.html).
    /// The account's root may assume a role that trusts it here, which AWS refuses: the configured
    /// keys stand for whatever credentials a developer holds.
    private func authorize(_ caller: Caller, toAssume role: AssumableRole, input: AssumeRoleInput)
        throws(FirehoseError)
    {
        let trust: IAMPolicy
        switch role.trust {
        case .success(let policy): trust = policy
        case .failure(let error):
            throw accessDenied(
                caller, roleArn: input.roleArn,
                reason: "firehose-local cannot evaluate the role's trust policy (\(error)), so it allows no one")
        }
        // With authentication off nothing is verified, so no policy binds the caller.
        let bound = verifier == nil ? nil : caller.accessKeyID.flatMap(boundCaller)
        var context = bound?.context ?? [:]
        context["aws:PrincipalArn"] = [caller.identity.principalArn]
        context["aws:PrincipalAccount"] = [caller.identity.account]
        context["sts:RoleSessionName"] = [input.sessionName]
        if let externalID = input.externalID { context["sts:ExternalId"] = [externalID] }
        if let sourceIdentity = input.sourceIdentity { context["sts:SourceIdentity"] = [sourceIdentity] }
        let request = IAMRequest(action: "sts:AssumeRole", resource: role.arn, context: context)
        // The account's root is named by its ARN and by the bare account id alike.
        let isRoot = caller.identity.arn == CallerIdentity.root(of: caller.identity.account).arn
        let principal = IAMPrincipal(
            kind: "AWS",
            names: [caller.identity.arn, caller.identity.principalArn] + (isRoot ? [caller.identity.account] : []),
            account: caller.identity.account)
        let own = bound.map { $0.decide(action: "sts:AssumeRole", resource: role.arn) }
        switch IAMPolicy.evaluateTrust(request, principal: principal, policy: trust) {
        case .explicitDeny:
            throw accessDenied(caller, roleArn: input.roleArn, reason: "the role's trust policy denies it")
        case .implicitDeny:
            throw accessDenied(
                caller, roleArn: input.roleArn, reason: "no statement of the role's trust policy allows it")
        case .allowedForPrincipal:
            if let own, own.decision == .explicitDeny {
                throw accessDenied(caller, roleArn: input.roleArn, reason: own.reason)
            }
        case .allowedForAccount:
            if let own, own.decision != .allowed {
                throw accessDenied(
                    caller, roleArn: input.roleArn,
                    reason:
                        "the role's trust policy trusts the account only, and the caller's own policies do not allow it: \(own.reason)"
                )
            }
        }
    }

    /// STS's refusal, in AWS's words (the same for a role that does not exist), then why.
    private func accessDenied(_ caller: Caller, roleArn: String, reason: String) -> FirehoseError {
        FirehoseError(
            code: "AccessDenied",
            message:
                "User: \(caller.identity.arn) is not authorized to perform: sts:AssumeRole on resource: \(roleArn) (\(reason))",
            httpStatus: 403)
    }

    /// The parameters, checked against the model (all violations at once, as AWS lists them); those
    /// not taken here are refused by name.
    static func assumeRoleInput(_ parameters: [String: String]) throws(FirehoseError) -> AssumeRoleInput {
        try refuseUnsupported(
            parameters,
            [
                ("Tags.", "session tags (Tags)"), ("TransitiveTagKeys.", "session tags (TransitiveTagKeys)"),
                ("SerialNumber", "MFA (SerialNumber, TokenCode)"), ("TokenCode", "MFA (SerialNumber, TokenCode)"),
                ("ProvidedContexts.", "trusted context assertions (ProvidedContexts)"),
            ])
        var (violations, duration) = sessionViolations(parameters, policyLength: 1...Int.max)
        violations += ValidationViolation.string(
            parameters["ExternalId"], path: "externalId", length: 2...1224, pattern: "[\\w+=,.@:\\/-]*",
            matches: { QueryProtocol.isIAMNameText($0.replacing(":", with: "").replacing("/", with: "")) })
        violations += ValidationViolation.string(
            parameters["SourceIdentity"], path: "sourceIdentity", length: 2...64, pattern: "[\\w+=,.@-]*",
            matches: QueryProtocol.isIAMNameText)
        if !violations.isEmpty {
            throw FirehoseError(code: "ValidationError", message: FirehoseError.validation(violations).message)
        }
        return AssumeRoleInput(
            roleArn: parameters["RoleArn"]!, sessionName: parameters["RoleSessionName"]!, duration: duration,
            policy: parameters["Policy"], externalID: parameters["ExternalId"],
            sourceIdentity: parameters["SourceIdentity"])
    }

    /// Refuses, by name, parameters that would change a session in ways not kept here (and
    /// `PolicyArns`, as IAM here has no managed policies).
    static func refuseUnsupported(_ parameters: [String: String], _ refused: [(prefix: String, what: String)])
        throws(FirehoseError)
    {
        let managed = (
            "PolicyArns.",
            "managed session policies (PolicyArns): IAM here has no managed policies; give the policy inline as Policy"
        )
        for (prefix, what) in [managed] + refused where parameters.keys.contains(where: { $0.hasPrefix(prefix) }) {
            throw FirehoseError(
                code: "ValidationError",
                message: "firehose-local's STS does not take \(what) yet: assume the role without them.")
        }
    }

    /// The violations of the members every AssumeRole call has (`RoleArn`, `RoleSessionName`,
    /// `DurationSeconds`, `Policy`), and the duration asked for.
    static func sessionViolations(_ parameters: [String: String], policyLength: ClosedRange<Int>) -> (
        [ValidationViolation], Int?
    ) {
        var violations: [ValidationViolation] = []
        violations += ValidationViolation.string(
            parameters["RoleArn"], path: "roleArn", required: true, length: 20...2048)
        violations += ValidationViolation.string(
            parameters["RoleSessionName"], path: "roleSessionName", required: true, length: 2...64,
            pattern: "[\\w+=,.@-]*", matches: QueryProtocol.isIAMNameText)
        var duration: Int?
        if let text = parameters["DurationSeconds"] {
            if let seconds = Int(text) {
                duration = seconds
                if let violation = ValidationViolation.outOfRange(seconds, path: "durationSeconds", range: 900...43_200)
                {
                    violations.append(violation)
                }
            } else {
                violations.append(
                    ValidationViolation(value: text, path: "durationSeconds", constraint: "Member must be an integer"))
            }
        }
        violations += ValidationViolation.string(
            parameters["Policy"], path: "policy", length: policyLength,
            pattern: "[\\u0009\\u000A\\u000D\\u0020-\\u00FF]+",
            matches: {
                $0.unicodeScalars.allSatisfy {
                    [0x09, 0x0A, 0x0D].contains($0.value) || (0x20...0xFF).contains($0.value)
                }
            })
        return (violations, duration)
    }

    /// A session policy checked as IAM checks an identity-based one, and its packed size: the percent
    /// of STS's 2,048 characters its text takes without the spaces outside strings (AWS packs it
    /// with its own compression; the limit is on the plaintext).
    static func sessionPolicy(_ text: String) throws(FirehoseError) -> Int {
        do throws(IAMPolicyError) {
            _ = try IAMPolicy(json: Array(text.utf8))
        } catch {
            throw FirehoseError(code: "MalformedPolicyDocument", message: "The session policy is malformed: \(error)")
        }
        let characters = compactLength(text)
        let percent = (characters * 100 + sessionPolicyLimit - 1) / sessionPolicyLimit
        guard percent <= 100 else {
            throw FirehoseError(
                code: "PackedPolicyTooLarge",
                message: "Packed policy consumes \(percent)% of allotted space, please use smaller policy.")
        }
        return percent
    }

    /// The characters of JSON text but the whitespace between its tokens.
    static func compactLength(_ text: String) -> Int {
        var count = 0
        var inString = false
        var escaped = false
        for scalar in text.unicodeScalars {
            if inString {
                count += 1
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inString = false
                }
            } else if ![" ", "\n", "\r", "\t"].contains(scalar) {
                count += 1
                if scalar == "\"" { inString = true }
            }
        }
        return count
    }
}
