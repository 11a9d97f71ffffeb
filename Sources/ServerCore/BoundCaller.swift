package import FirehoseWire
package import IAMPolicy

/// A caller bound by identity-based policies: what a service is given to authorize a call, from
/// whichever service bound it (IAM's roles and keys, the credentials Cognito issued).
package struct BoundCaller: Sendable {
    package var arn: String
    package var policies: [IAMPolicy]
    /// Condition keys and their values.
    package var context: [String: [String]]

    package init(arn: String, policies: [IAMPolicy], context: [String: [String]]) {
        self.arn = arn
        self.policies = policies
        self.context = context
    }

    /// Refuses, as IAM refuses, what the policies do not allow: `AccessDeniedException` naming the
    /// caller, the action and the resource, and why.
    package func authorize(action: String, resource: String) throws(FirehoseError) {
        let request = IAMRequest(action: action, resource: resource, context: context)
        let reason: String
        switch IAMPolicy.evaluate(request, policies: policies) {
        case .allowed: return
        case .implicitDeny: reason = "because no identity-based policy allows the \(action) action"
        case .explicitDeny: reason = "with an explicit deny in an identity-based policy"
        }
        throw FirehoseError(
            code: "AccessDeniedException",
            message: "User: \(arn) is not authorized to perform: \(action) on resource: \(resource) \(reason)")
    }
}
