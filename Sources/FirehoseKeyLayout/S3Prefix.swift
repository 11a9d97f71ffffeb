/// A validated, pre-parsed `Prefix` or `ErrorOutputPrefix`; evaluation does no parsing.
///
/// Parsing applies the per-field rules of "Custom prefixes for Amazon S3 objects" (Firehose developer
/// guide, section "Semantic rules") and firehose-local's own rule that the evaluated prefix must map
/// onto directories without `.`/`..`/empty path segments. Rules that involve both fields live in
/// `ObjectKeyLayout`.
public struct S3Prefix: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
        case prefix
        case errorOutputPrefix

        /// The API field name, as messages name it.
        public var fieldName: String {
            switch self {
            case .prefix: return "Prefix"
            case .errorOutputPrefix: return "ErrorOutputPrefix"
            }
        }

        var memberName: String {
            switch self {
            case .prefix: return "prefix"
            case .errorOutputPrefix: return "errorOutputPrefix"
            }
        }
    }

    /// The model's limit on both fields (`Prefix`/`ErrorOutputPrefix`: length 0–1024), counted as
    /// AWS's Java validator counts: UTF-16 code units (an emoji is 2).
    public static let maxLength = 1024

    /// The prefix as configured.
    public let raw: String
    public let role: Role
    let parts: [Part]

    enum Part: Sendable, Equatable {
        case literal(String)
        case timestamp(JavaDateTimePattern)
        case randomString
        case errorOutputType
        case partitionKey(PartitionValues.Source, String)
    }

    /// Whether any `!{namespace:value}` expression appears. A prefix without one gets the default
    /// `yyyy/MM/dd/HH/` appended; a prefix with one gets nothing appended.
    public var hasExpressions: Bool {
        parts.contains { if case .literal = $0 { false } else { true } }
    }

    /// What every key under the prefix starts with: the prefix up to its first expression.
    public var literalStart: String {
        if case .literal(let text)? = parts.first { text } else { "" }
    }

    /// Whether `!{firehose:error-output-type}` appears.
    public var containsErrorOutputType: Bool {
        parts.contains { $0 == .errorOutputType }
    }

    /// The dynamic-partitioning keys the prefix uses (`!{partitionKeyFromQuery:NAME}`,
    /// `!{partitionKeyFromLambda:NAME}`), each once, in order of first use.
    public var partitionKeys: [(source: PartitionValues.Source, name: String)] {
        var keys: [(source: PartitionValues.Source, name: String)] = []
        for case .partitionKey(let source, let name) in parts
        where !keys.contains(where: { $0.source == source && $0.name == name }) {
            keys.append((source, name))
        }
        return keys
    }

    /// - Parameters:
    ///   - raw: the configured value; empty is valid and means "no prefix".
    ///   - memberPath: where a length violation is reported, e.g.
    ///     `extendedS3DestinationConfiguration.prefix`; defaults to the bare member name.
    public init(_ raw: String, role: Role, memberPath: String? = nil) throws(KeyLayoutError) {
        if raw.utf16.count > Self.maxLength {
            throw KeyLayoutError.validation(
                value: raw,
                memberPath: memberPath ?? role.memberName,
                constraint: "Member must have length less than or equal to \(Self.maxLength)"
            )
        }
        self.raw = raw
        self.role = role
        self.parts = try Self.parse(raw, role: role)
        if role == .errorOutputPrefix && hasExpressions && !containsErrorOutputType {
            throw KeyLayoutError.prefixConstraint(
                "ErrorOutputPrefix must contain at least one !{firehose:error-output-type} when it contains expressions"
            )
        }
        try PathShape(parts).checkStorable(raw: raw, field: role.fieldName)
    }

    /// Evaluates the prefix at `time`.
    ///
    /// - Parameters:
    ///   - errorOutputType: what `!{firehose:error-output-type}` becomes, e.g. `processing-failed`;
    ///     ignored when the prefix has none.
    ///   - randomSource: draws each `!{firehose:random-string}` afresh.
    ///   - partition: what each `!{partitionKeyFrom…:NAME}` becomes; a missing value evaluates empty
    ///     (`ObjectKeyLayout.checkPartition` refuses such values before keys are made).
    public func evaluate(
        at time: CivilDateTime,
        errorOutputType: String? = nil,
        partition: PartitionValues = .none,
        randomSource: inout some RandomNumberGenerator
    ) -> String {
        var output = ""
        append(
            at: time, errorOutputType: errorOutputType, partition: partition, randomSource: &randomSource,
            to: &output)
        return output
    }

    func append(
        at time: CivilDateTime,
        errorOutputType: String?,
        partition: PartitionValues,
        randomSource: inout some RandomNumberGenerator,
        to output: inout String
    ) {
        for part in parts {
            switch part {
            case .literal(let text):
                output += text
            case .timestamp(let pattern):
                pattern.append(time, to: &output)
            case .randomString:
                Self.appendRandomString(to: &output, using: &randomSource)
            case .errorOutputType:
                output += errorOutputType ?? ""
            case .partitionKey(let source, let name):
                output += partition[source, name] ?? ""
            }
        }
    }

    /// The parts with every partition key replaced by its value as literal text (nil for a key
    /// without a value): the shape a partition's keys have on disk.
    func substituting(_ partition: PartitionValues) -> [Part]? {
        var substituted: [Part] = []
        for part in parts {
            guard case .partitionKey(let source, let name) = part else {
                substituted.append(part)
                continue
            }
            guard let value = partition[source, name] else { return nil }
            substituted.append(.literal(value))
        }
        return substituted
    }

    /// AWS documents the length only; its examples (`5abf82daaa5`) fit within this alphabet.
    static let randomStringLength = 11
    private static let randomAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars)

    static func appendRandomString(to output: inout String, using random: inout some RandomNumberGenerator) {
        for _ in 0..<randomStringLength {
            output.unicodeScalars.append(randomAlphabet[Int.random(in: 0..<randomAlphabet.count, using: &random)])
        }
    }
}

// MARK: - Parsing

extension S3Prefix {
    static let namespaces = ["timestamp", "firehose", "partitionKeyFromQuery", "partitionKeyFromLambda"]

    /// Splits `raw` into literal text and `!{namespace:value}` expressions. Works on Unicode scalars
    /// so that a combining mark after `{` or `}` cannot hide or fake a delimiter.
    private static func parse(_ raw: String, role: Role) throws(KeyLayoutError) -> [Part] {
        let scalars = Array(raw.unicodeScalars)
        var parts: [Part] = []
        var literal = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "!", index + 1 < scalars.count, scalars[index + 1] == "{" else {
                literal.append(scalars[index])
                index += 1
                continue
            }
            let bodyStart = index + 2
            guard let close = scalars[bodyStart...].firstIndex(of: "}") else {
                let unterminated = String(String.UnicodeScalarView(scalars[index...]))
                throw KeyLayoutError.prefixConstraint(
                    "The sequence !{ can only appear in !{namespace:value} expressions, but \(role.fieldName) has an unterminated '\(unterminated)'"
                )
            }
            let body = scalars[bodyStart..<close]
            let expression = "!{" + String(String.UnicodeScalarView(body)) + "}"
            guard let colon = body.firstIndex(of: ":") else {
                throw KeyLayoutError.prefixConstraint(
                    "The sequence !{ can only appear in !{namespace:value} expressions, but \(role.fieldName) has '\(expression)' without a ':'"
                )
            }
            let namespace = String(String.UnicodeScalarView(body[..<colon]))
            let value = String(String.UnicodeScalarView(body[(colon + 1)...]))
            let part = try parseExpression(namespace: namespace, value: value, expression: expression, role: role)
            if !literal.isEmpty {
                parts.append(.literal(String(literal)))
                literal = String.UnicodeScalarView()
            }
            parts.append(part)
            index = close + 1
        }
        if !literal.isEmpty {
            parts.append(.literal(String(literal)))
        }
        return parts
    }

    private static func parseExpression(
        namespace: String,
        value: String,
        expression: String,
        role: Role
    ) throws(KeyLayoutError) -> Part {
        switch namespace {
        case "timestamp":
            switch JavaDateTimePattern.compile(value) {
            case .success(let elements):
                return .timestamp(JavaDateTimePattern(verified: value, elements: elements))
            case .failure(let problem) where problem.unsupported:
                throw KeyLayoutError.invalidArgument(
                    "\(role.fieldName) expression '\(expression)' cannot be evaluated by firehose-local: \(problem.reason)."
                )
            case .failure(let problem):
                throw KeyLayoutError.prefixConstraint(
                    "The value of \(role.fieldName) expression '\(expression)' must be a valid Java DateTimeFormatter pattern: \(problem.reason)"
                )
            }
        case "firehose":
            switch value {
            case "random-string":
                return .randomString
            case "error-output-type":
                if role == .prefix {
                    throw KeyLayoutError.prefixConstraint("Prefix cannot contain !{firehose:error-output-type}")
                }
                return .errorOutputType
            default:
                throw KeyLayoutError.prefixConstraint(
                    "The firehose namespace only supports the values random-string and error-output-type, but \(role.fieldName) has '\(expression)'"
                )
            }
        case "partitionKeyFromQuery", "partitionKeyFromLambda":
            if role == .errorOutputPrefix {
                throw KeyLayoutError.prefixConstraint(
                    "ErrorOutputPrefix cannot contain dynamic partitioning namespaces (partitionKeyFromQuery, partitionKeyFromLambda), but has '\(expression)'"
                )
            }
            guard !value.isEmpty else {
                throw KeyLayoutError.prefixConstraint(
                    "A dynamic partitioning expression must name its key, but \(role.fieldName) has '\(expression)'")
            }
            return .partitionKey(namespace == "partitionKeyFromQuery" ? .query : .lambda, value)
        default:
            throw KeyLayoutError.prefixConstraint(
                "Expression namespace must be one of \(namespaces.joined(separator: ", ")), but \(role.fieldName) has '\(expression)'"
            )
        }
    }
}

extension JavaDateTimePattern {
    /// For patterns already compiled by `S3Prefix`'s parser.
    init(verified pattern: String, elements: [Element]) {
        self.pattern = pattern
        self.elements = elements
    }
}
