package import FirehoseWire
package import IAMPolicy

/// A caller bound by identity-based policies: what a service is given to authorize a call, from
/// whichever service bound it (IAM's roles and keys, the credentials Cognito issued).
package struct BoundCaller: Sendable {
    package var arn: String
    package var policies: [IAMPolicy]
    /// The session policy an assumed role's session was made with: it allows at most what it and
    /// `policies` both allow. Nil: no session policy.
    package var sessionPolicies: [IAMPolicy]?
    /// Condition keys and their values.
    package var context: [String: [String]]

    package init(
        arn: String, policies: [IAMPolicy], sessionPolicies: [IAMPolicy]? = nil, context: [String: [String]]
    ) {
        self.arn = arn
        self.policies = policies
        self.sessionPolicies = sessionPolicies
        self.context = context
    }

    /// What the policies decide on `action` on `resource`, and for a refusal the end of IAM's message
    /// (why). (docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic_policies_session.html)
    package func decide(action: String, resource: String) -> (decision: IAMDecision, reason: String) {
        let request = IAMRequest(action: action, resource: resource, context: context)
        switch IAMPolicy.evaluate(request, policies: policies) {
        case .allowed: break
        case .implicitDeny: return (.implicitDeny, "because no identity-based policy allows the \(action) action")
        case .explicitDeny: return (.explicitDeny, "with an explicit deny in an identity-based policy")
        }
        guard let sessionPolicies else { return (.allowed, "") }
        switch IAMPolicy.evaluate(request, policies: sessionPolicies) {
        case .allowed: return (.allowed, "")
        case .implicitDeny: return (.implicitDeny, "because no session policy allows the \(action) action")
        case .explicitDeny: return (.explicitDeny, "with an explicit deny in a session policy")
        }
    }

    package func authorize(action: String, resource: String) throws(FirehoseError) {
        let (decision, reason) = decide(action: action, resource: resource)
        guard decision != .allowed else { return }
        throw FirehoseError(
            code: "AccessDeniedException",
            message: "User: \(arn) is not authorized to perform: \(action) on resource: \(resource) \(reason)")
    }
}
