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
        public var actions: Selector
        public var resources: Selector
        /// All must hold.
        public var conditions: [Condition]
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
