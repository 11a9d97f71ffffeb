import FirehoseWire

/// An IAM identity-based policy, as IAM reads one: statements that allow or deny actions on resources
/// under conditions. Parsed from the policy's JSON (or YAML, through the same `JSONValue`) and
/// evaluated by `IAMPolicy.evaluate`, a pure function.
public struct IAMPolicy: Sendable, Equatable {
    public var statements: [Statement]

    public enum Effect: String, Sendable, Equatable {
        case allow = "Allow"
        case deny = "Deny"
    }

    /// `Action` or `NotAction`, `Resource` or `NotResource`: patterns with `*` and `?`, or all but them.
    public struct Selector: Sendable, Equatable {
        public var patterns: [String]
        /// `NotAction` / `NotResource`: everything the patterns do not match.
        public var isNegated: Bool
    }

    public struct Statement: Sendable, Equatable {
        public var sid: String?
        public var effect: Effect
        /// `Principal` or `NotPrincipal`: a resource-based policy's (a role's trust policy) only.
        public var principals: Principals?
        public var actions: Selector
        /// `*` in a trust policy, which names no resource (the role is the resource).
        public var resources: Selector
        /// All must hold.
        public var conditions: [Condition]
    }

    /// Which kind of policy a document is read as: they differ in the elements they may (and must) have.
    public enum Kind: Sendable, Equatable {
        /// Attached to an identity (a role's inline policies, a configured key's, a session policy): no
        /// `Principal`, a `Resource` in every statement.
        case identityBased
        /// A role's trust policy: a `Principal` in every statement and no `Resource`.
        case trust
    }

    /// `Principal` or `NotPrincipal`: `"*"`, or principals by kind (`AWS`, `Service`, `Federated`,
    /// `CanonicalUser`), each `"*"`, a list, or one value.
    public struct Principals: Sendable, Equatable {
        /// `"Principal": "*"`: every principal, signed or not.
        public var everyone: Bool
        /// Values by kind, as written.
        public var byKind: [String: [String]]
        /// `NotPrincipal`: every principal but those.
        public var isNegated: Bool
    }

    /// One key of a condition block: `"ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "unauthenticated"}`.
    public struct Condition: Sendable, Equatable {
        public enum Operator: String, Sendable, Equatable, CaseIterable {
            case stringEquals = "StringEquals"
            case stringNotEquals = "StringNotEquals"
            case stringEqualsIgnoreCase = "StringEqualsIgnoreCase"
            case stringNotEqualsIgnoreCase = "StringNotEqualsIgnoreCase"
            case stringLike = "StringLike"
            case stringNotLike = "StringNotLike"
            case arnEquals = "ArnEquals"
            case arnLike = "ArnLike"
            case arnNotEquals = "ArnNotEquals"
            case arnNotLike = "ArnNotLike"
            case bool = "Bool"
            case null = "Null"
        }

        public enum SetQualifier: String, Sendable, Equatable {
            case forAnyValue = "ForAnyValue"
            case forAllValues = "ForAllValues"
        }

        public var `operator`: Operator
        public var qualifier: SetQualifier?
        /// `...IfExists`: true when the request has no such key.
        public var ifExists: Bool
        /// Lowercased: condition keys are case-insensitive.
        public var key: String
        /// Any one of them may match.
        public var values: [String]
    }
}

/// What a request brings to the evaluation.
public struct IAMRequest: Sendable, Equatable {
    /// `service:Action`, e.g. `firehose:PutRecordBatch`.
    public var action: String
    /// The resource's ARN, or `*` for an action on no resource (ListDeliveryStreams).
    public var resource: String
    /// Condition keys (lowercased names) and their values; a multivalued key has several.
    public var context: [String: [String]]

    public init(action: String, resource: String, context: [String: [String]] = [:]) {
        self.action = action
        self.resource = resource
        self.context = Dictionary(context.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + $1 })
    }
}

public enum IAMDecision: Sendable, Equatable {
    case allowed
    /// No statement allows it (IAM's default deny).
    case implicitDeny
    /// A statement denies it; nothing can allow it then.
    case explicitDeny
}

extension IAMPolicy {
    /// IAM's evaluation for identity-based policies of one account: an explicit deny in any policy
    /// wins, then an allow, and otherwise the request is denied.
    /// (docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html)
    public static func evaluate(_ request: IAMRequest, policies: [IAMPolicy]) -> IAMDecision {
        var allowed = false
        for statement in policies.lazy.flatMap(\.statements) where statement.applies(to: request) {
            if statement.effect == .deny { return .explicitDeny }
            allowed = true
        }
        return allowed ? .allowed : .implicitDeny
    }
}

/// Who asks to assume a role, as a trust policy's `Principal` names them.
public struct IAMPrincipal: Sendable, Equatable {
    /// `AWS` for an IAM principal (an account's root, a user, a role's session), `Federated` for a web
    /// identity provider, `Service` for an AWS service.
    public var kind: String
    /// What names this principal itself: a user's ARN; a session's ARN and its role's; a provider's name.
    public var names: [String]
    /// The account of an `AWS` principal: a trust policy naming the account (`123456789012` or
    /// `arn:aws:iam::123456789012:root`) trusts it only as far as its own policies allow.
    public var account: String?

    public init(kind: String, names: [String], account: String? = nil) {
        self.kind = kind
        self.names = names
        self.account = account
    }
}

/// What a role's trust policy says about one request to assume it.
public enum TrustDecision: Sendable, Equatable {
    /// A statement allows the principal by name (or `*`): nothing else is needed.
    case allowedForPrincipal
    /// A statement allows the principal's account only: its identity-based policies must allow the
    /// action too (docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html).
    case allowedForAccount
    case implicitDeny
    case explicitDeny
}

extension IAMPolicy {
    /// A role's trust policy on a request to assume the role: a deny that applies wins, then an allow
    /// naming the principal, then one naming its account.
    public static func evaluateTrust(_ request: IAMRequest, principal: IAMPrincipal, policy: IAMPolicy)
        -> TrustDecision
    {
        var decision = TrustDecision.implicitDeny
        for statement in policy.statements where statement.applies(to: request) {
            guard let match = statement.principals?.match(principal) else { continue }
            if statement.effect == .deny { return .explicitDeny }
            if match == .byName || decision == .implicitDeny {
                decision = match == .byName ? .allowedForPrincipal : .allowedForAccount
            }
        }
        return decision
    }
}

extension IAMPolicy.Principals {
    enum Match { case byName, byAccount }

    /// How these principals name `principal`, if they do.
    func match(_ principal: IAMPrincipal) -> Match? {
        let found = everyone ? .byName : listedMatch(principal)
        guard isNegated else { return found }
        return found == nil ? .byName : nil
    }

    private func listedMatch(_ principal: IAMPrincipal) -> Match? {
        guard let values = byKind[principal.kind] else { return nil }
        if values.contains("*") { return .byName }
        let names = Set(principal.names.map { $0.lowercased() })
        if values.contains(where: { names.contains($0.lowercased()) }) { return .byName }
        guard principal.kind == "AWS", let account = principal.account else { return nil }
        let accountNames: Set<String> = [account, "arn:aws:iam::\(account):root"]
        return values.contains(where: accountNames.contains) ? .byAccount : nil
    }
}

extension IAMPolicy.Statement {
    func applies(to request: IAMRequest) -> Bool {
        actions.matches(request.action, ignoringCase: true) && resources.matches(request.resource, ignoringCase: false)
            && conditions.allSatisfy { $0.holds(in: request.context) }
    }
}

extension IAMPolicy.Selector {
    func matches(_ value: String, ignoringCase: Bool) -> Bool {
        let matched = patterns.contains { Wildcard.matches($0, value, ignoringCase: ignoringCase) }
        return matched != isNegated
    }
}

extension IAMPolicy.Condition {
    /// IAM's rules (reference_policies_condition-single-vs-multi-valued-context-keys.html): a missing
    /// key fails a condition, but a negated one or one `IfExists`; `ForAnyValue` needs one request
    /// value to match (false when there is none), `ForAllValues` every one (true when there is none).
    func holds(in context: [String: [String]]) -> Bool {
        let requestValues = context[key] ?? []
        if `operator` == .null {
            // "Null": true means the key must be absent.
            let wantsAbsent = values.contains { $0.lowercased() == "true" }
            return requestValues.isEmpty == wantsAbsent
        }
        if requestValues.isEmpty {
            if ifExists { return true }
            switch qualifier {
            case .forAnyValue: return false
            case .forAllValues: return true
            case nil: return isNegated
            }
        }
        switch qualifier {
        case .forAllValues:
            return requestValues.allSatisfy(matches)
        case .forAnyValue, nil:
            // A single-valued operator on a multivalued key: as any of its values (IAM advises against it).
            return requestValues.contains(where: matches)
        }
    }

    var isNegated: Bool {
        switch `operator` {
        case .stringNotEquals, .stringNotEqualsIgnoreCase, .stringNotLike, .arnNotEquals, .arnNotLike: true
        default: false
        }
    }

    /// Whether one request value satisfies the operator against the policy's values.
    func matches(_ value: String) -> Bool {
        switch `operator` {
        case .stringEquals, .arnEquals: values.contains(value)
        case .stringNotEquals, .arnNotEquals: !values.contains(value)
        case .stringEqualsIgnoreCase: values.contains { $0.lowercased() == value.lowercased() }
        case .stringNotEqualsIgnoreCase: !values.contains { $0.lowercased() == value.lowercased() }
        case .stringLike, .arnLike: values.contains { Wildcard.matches($0, value, ignoringCase: false) }
        case .stringNotLike, .arnNotLike: !values.contains { Wildcard.matches($0, value, ignoringCase: false) }
        case .bool: values.contains { $0.lowercased() == value.lowercased() }
        case .null: false
        }
    }
}

/// IAM's wildcards: `*` any run of characters (`:` and `/` included), `?` any one character.
enum Wildcard {
    static func matches(_ pattern: String, _ text: String, ignoringCase: Bool) -> Bool {
        let pattern = Array((ignoringCase ? pattern.lowercased() : pattern).unicodeScalars)
        let text = Array((ignoringCase ? text.lowercased() : text).unicodeScalars)
        // Iterative glob with one backtrack point: linear in practice, never exponential.
        var p = 0
        var t = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
