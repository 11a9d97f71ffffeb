public import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a policy document was refused: where in it (`Statement[1].Condition`) and what is wrong, in
/// the spirit of IAM's `MalformedPolicyDocument` messages.
public struct IAMPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var message: String

    public var description: String { field.isEmpty ? message : "\(field): \(message)" }
}

extension IAMPolicy {
    /// The policy in a JSON document, as IAM accepts it (`Version`, `Id`, `Statement` as one object or
    /// a list).
    public init(json: [UInt8], kind: Kind = .identityBased) throws(IAMPolicyError) {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: Data(json))
        } catch {
            throw IAMPolicyError(field: "", message: "The policy is not valid JSON.")
        }
        try self.init(document: document, kind: kind)
    }

    /// The policy in a decoded document (from JSON, or YAML in a configuration file).
    public init(document: JSONValue, kind: Kind = .identityBased) throws(IAMPolicyError) {
        guard case .object(let members) = document else {
            throw IAMPolicyError(field: "", message: "A policy is a JSON object with a Statement.")
        }
        for key in members.keys where !["Version", "Id", "Statement"].contains(key) {
            throw IAMPolicyError(field: key, message: "Unknown policy element; a policy has Version, Id and Statement.")
        }
        if let version = members["Version"] {
            guard let text = version.stringValue, ["2012-10-17", "2008-10-17"].contains(text) else {
                throw IAMPolicyError(field: "Version", message: "must be \"2012-10-17\" (or \"2008-10-17\").")
            }
        }
        let list: [JSONValue]
        switch members["Statement"] {
        case .array(let items)?: list = items
        case .object?: list = [members["Statement"]!]
        default: throw IAMPolicyError(field: "Statement", message: "is required: one statement or a list of them.")
        }
        guard !list.isEmpty else { throw IAMPolicyError(field: "Statement", message: "must not be empty.") }
        statements = []
        for (index, item) in list.enumerated() {
            statements.append(try Statement(document: item, field: "Statement[\(index)]", kind: kind))
        }
    }
}

extension IAMPolicy.Statement {
    static let elements: Set<String> = [
        "Sid", "Effect", "Action", "NotAction", "Resource", "NotResource", "Condition", "Principal", "NotPrincipal",
    ]

    init(document: JSONValue, field: String, kind: IAMPolicy.Kind) throws(IAMPolicyError) {
        func fail(_ member: String, _ message: String) -> IAMPolicyError {
            IAMPolicyError(field: member.isEmpty ? field : "\(field).\(member)", message: message)
        }
        guard case .object(let members) = document else { throw fail("", "A statement is a JSON object.") }
        for key in members.keys where !Self.elements.contains(key) {
            throw fail(key, "Unknown statement element.")
        }
        switch kind {
        case .identityBased:
            if members["Principal"] != nil || members["NotPrincipal"] != nil {
                throw fail("Principal", "Policy document should not specify a principal (an identity-based policy).")
            }
            principals = nil
        case .trust:
            for key in ["Resource", "NotResource"] where members[key] != nil {
                throw fail(key, "Has prohibited field \(key) (a trust policy names no resource).")
            }
            // IAM refuses NotPrincipal in a role's trust policy: with Allow it would let in every
            // service and federated user not listed.
            if members["NotPrincipal"] != nil {
                throw fail(
                    "NotPrincipal", "Has prohibited field NotPrincipal (a role's trust policy names its principals).")
            }
            principals = try IAMPolicy.Principals(members, field: field)
        }
        sid = members["Sid"]?.stringValue
        guard let effect = members["Effect"]?.stringValue.flatMap(IAMPolicy.Effect.init(rawValue:)) else {
            throw fail("Effect", "must be Allow or Deny.")
        }
        self.effect = effect
        actions = try Self.selector(members, "Action", "NotAction", field: field) { pattern in
            pattern == "*" || pattern.split(separator: ":", omittingEmptySubsequences: false).count == 2
        }
        resources =
            kind == .trust
            ? IAMPolicy.Selector(patterns: ["*"], isNegated: false)
            : try Self.selector(members, "Resource", "NotResource", field: field) { _ in true }
        conditions = []
        if let block = members["Condition"] {
            guard case .object(let operators) = block else { throw fail("Condition", "must be a JSON object.") }
            for (name, keys) in operators.sorted(by: { $0.key < $1.key }) {
                conditions += try IAMPolicy.Condition.parse(
                    operator: name, keys: keys, field: "\(field).Condition.\(name)")
            }
        }
    }

    /// Exactly one of `positive` and `negative`, a string or a non-empty list of strings.
    private static func selector(
        _ members: [String: JSONValue], _ positive: String, _ negative: String, field: String,
        valid: (String) -> Bool
    ) throws(IAMPolicyError) -> IAMPolicy.Selector {
        let given = [members[positive].map { (positive, $0) }, members[negative].map { (negative, $0) }].compactMap {
            $0
        }
        guard given.count == 1, let (name, value) = given.first else {
            throw IAMPolicyError(field: field, message: "A statement needs exactly one of \(positive) and \(negative).")
        }
        let patterns = try IAMPolicy.strings(value, field: "\(field).\(name)")
        guard !patterns.isEmpty else { throw IAMPolicyError(field: "\(field).\(name)", message: "must not be empty.") }
        for pattern in patterns where !valid(pattern) {
            throw IAMPolicyError(
                field: "\(field).\(name)", message: "'\(pattern)' is not an action of the form service:Action.")
        }
        return IAMPolicy.Selector(patterns: patterns, isNegated: name == negative)
    }
}

extension IAMPolicy.Principals {
    static let kinds: Set<String> = ["AWS", "Service", "Federated", "CanonicalUser"]

    /// Exactly one of `Principal` and `NotPrincipal`: `"*"`, or an object of kinds to values.
    init(_ members: [String: JSONValue], field: String) throws(IAMPolicyError) {
        let given = [
            members["Principal"].map { ("Principal", $0) }, members["NotPrincipal"].map { ("NotPrincipal", $0) },
        ]
        .compactMap { $0 }
        guard given.count == 1, let (name, value) = given.first else {
            throw IAMPolicyError(
                field: field, message: "A trust policy's statement needs exactly one of Principal and NotPrincipal.")
        }
        isNegated = name == "NotPrincipal"
        byKind = [:]
        switch value {
        case .string("*"):
            everyone = true
        case .object(let kinds) where !kinds.isEmpty:
            everyone = false
            for (kind, values) in kinds {
                guard Self.kinds.contains(kind) else {
                    throw IAMPolicyError(
                        field: "\(field).\(name).\(kind)",
                        message: "Invalid principal kind; use AWS, Service, Federated or CanonicalUser.")
                }
                let list = try IAMPolicy.strings(values, field: "\(field).\(name).\(kind)")
                guard !list.isEmpty else {
                    throw IAMPolicyError(field: "\(field).\(name).\(kind)", message: "must not be empty.")
                }
                byKind[kind] = list
            }
        default:
            throw IAMPolicyError(
                field: "\(field).\(name)",
                message: "must be \"*\" or an object of principals by kind (AWS, Service, Federated).")
        }
    }
}

extension IAMPolicy.Condition {
    /// One operator of a condition block and its keys: `"ForAnyValue:StringLike": {"key": ["a", "b"]}`.
    static func parse(operator name: String, keys: JSONValue, field: String) throws(IAMPolicyError) -> [Self] {
        var rest = Substring(name)
        var qualifier: SetQualifier?
        if let colon = rest.firstIndex(of: ":") {
            guard let parsed = SetQualifier(rawValue: String(rest[..<colon])) else {
                throw IAMPolicyError(field: field, message: "Unknown set operator; use ForAnyValue or ForAllValues.")
            }
            qualifier = parsed
            rest = rest[rest.index(after: colon)...]
        }
        let ifExists = rest.hasSuffix("IfExists")
        if ifExists { rest = rest.dropLast("IfExists".count) }
        guard let op = Operator(rawValue: String(rest)) else {
            throw IAMPolicyError(
                field: field,
                message:
                    "Condition operator '\(name)' is not supported by firehose-local (supported: \(Operator.allCases.map(\.rawValue).joined(separator: ", ")), with ForAnyValue:/ForAllValues: and IfExists)."
            )
        }
        guard case .object(let entries) = keys, !entries.isEmpty else {
            throw IAMPolicyError(field: field, message: "must map condition keys to values.")
        }
        var conditions: [Self] = []
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            let values = try IAMPolicy.strings(value, field: "\(field).\(key)")
            conditions.append(
                Self(operator: op, qualifier: qualifier, ifExists: ifExists, key: key.lowercased(), values: values))
        }
        return conditions
    }
}

extension IAMPolicy {
    /// A string, or a list of them; booleans and numbers as IAM reads them in conditions ("true", "42").
    static func strings(_ value: JSONValue, field: String) throws(IAMPolicyError) -> [String] {
        func scalar(_ value: JSONValue) -> String? {
            switch value {
            case .string(let text): text
            case .bool(let flag): flag ? "true" : "false"
            case .number(let number): JSONValue.text(of: number)
            default: nil
            }
        }
        if let single = scalar(value) { return [single] }
        guard case .array(let items) = value else {
            throw IAMPolicyError(field: field, message: "must be a string or a list of strings.")
        }
        var result: [String] = []
        for item in items {
            guard let text = scalar(item) else {
                throw IAMPolicyError(field: field, message: "must be a string or a list of strings.")
            }
            result.append(text)
        }
        return result
    }
}
