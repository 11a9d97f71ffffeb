/// An error exactly as Firehose reports it: the `__type` clients switch on, the message people read,
/// and the HTTP status SDKs use to decide whether to retry.
public struct FirehoseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String
    public var httpStatus: Int
    /// For the server's log only, never sent: the cause behind a terse message (a local path, an
    /// errno) that a client must not see.
    package var logDetail: String?

    public init(code: String, message: String, httpStatus: Int = 400) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
    }

    public var description: String { "\(code): \(message)" }

    /// `{"__type": "...", "message": "..."}` — the body every AWS JSON 1.1 SDK parses.
    package var jsonBody: [UInt8] { jsonBody(adding: NoMembers()) }

    /// The same body with the members of `extra` after `message`.
    package func jsonBody(adding extra: some Encodable) -> [UInt8] {
        OrderedJSONEncoder.encode(ErrorBody(type: code, message: message, extra: extra))
    }
}

/// An AWS JSON error body: `__type` and `message`, then the members of `extra`.
private struct ErrorBody<Extra: Encodable>: Encodable {
    enum CodingKeys: String, CodingKey {
        case type = "__type"
        case message
    }

    var type: String
    var message: String
    var extra: Extra

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(message, forKey: .message)
        try extra.encode(to: encoder)
    }
}

extension FirehoseError {
    package static func resourceNotFound(stream: String, accountID: String) -> FirehoseError {
        FirehoseError(
            code: "ResourceNotFoundException",
            message: "Firehose \(stream) under account \(accountID) not found."
        )
    }

    /// At most this many violations are spelled out; a hostile request must not buy a huge answer.
    package static let maxListedViolations = 10

    /// The message of `validation(violations)`; nil when there are none.
    package static func validationMessage(_ violations: [ValidationViolation]) -> String? {
        violations.isEmpty ? nil : validation(violations).message
    }

    package static func validation(_ violations: [ValidationViolation]) -> FirehoseError {
        let count = violations.count
        let noun = count == 1 ? "error" : "errors"
        var details = violations.prefix(maxListedViolations).map(\.description).joined(separator: "; ")
        if count > maxListedViolations { details += "; and \(count - maxListedViolations) more" }
        return FirehoseError(
            code: "ValidationException",
            message: "\(count) validation \(noun) detected: \(details)"
        )
    }

    package static func invalidArgument(_ message: String) -> FirehoseError {
        FirehoseError(code: "InvalidArgumentException", message: message)
    }

    package static func serialization(_ message: String) -> FirehoseError {
        FirehoseError(code: "SerializationException", message: message)
    }

    /// Kinesis answers an unknown target or a non-JSON content type with 404; SDKs surface the code.
    package static func unknownOperation(_ message: String) -> FirehoseError {
        FirehoseError(code: "UnknownOperationException", message: message, httpStatus: 404)
    }

    /// 503 so that every SDK's standard retry policy retries it.
    package static func serviceUnavailable(_ message: String) -> FirehoseError {
        FirehoseError(code: "ServiceUnavailableException", message: message, httpStatus: 503)
    }

    /// What a stream over its throughput quota answers, whole (PutRecord) or per record
    /// (PutRecordBatch): HTTP 500, as the API reference lists ServiceUnavailableException and as
    /// throttled SDK calls report it.
    package static let throttled = FirehoseError(
        code: "ServiceUnavailableException", message: "Slow down.", httpStatus: 500)

    package static func internalFailure(_ message: String) -> FirehoseError {
        FirehoseError(code: "InternalFailure", message: message, httpStatus: 500)
    }

    package static func requestTooLarge(limit: Int) -> FirehoseError {
        FirehoseError(
            code: "SerializationException",
            message: "Request body exceeds the \(limit)-byte limit of firehose-local.",
            httpStatus: 413
        )
    }
}

/// One constraint failure in the form AWS's validation layer prints:
/// `Value '<v>' at '<path>' failed to satisfy constraint: Member must ...`.
package struct ValidationViolation: Sendable, Equatable, CustomStringConvertible {
    /// The rendered value: `'text'` in quotes, or `null` for a missing member.
    package var renderedValue: String
    /// The member path in lower camel case, 1-based list indexes: `records.97.member.data`.
    package var path: String
    package var constraint: String

    package init(value: String?, path: String, constraint: String) {
        self.renderedValue = value.map { "'\($0)'" } ?? "null"
        self.path = path
        self.constraint = constraint
    }

    package var description: String {
        "Value \(renderedValue) at '\(path)' failed to satisfy constraint: \(constraint)"
    }

    /// A string member checked against its model's length (UTF-16 code units, as AWS's Java
    /// validator counts) and pattern, in AWS's words: none when it conforms, or is absent and optional.
    /// - Parameter rendered: what the message shows of the value (a secret's placeholder); the value itself by default.
    package static func string(
        _ value: String?, path: String, required: Bool = false, length: ClosedRange<Int>,
        pattern: String? = nil, matches: (String) -> Bool = { _ in true }, rendered: String? = nil
    ) -> [ValidationViolation] {
        guard let value else { return required ? [.missing(path)] : [] }
        let shown = rendered ?? value
        let count = value.utf16.count
        var violations: [ValidationViolation] = []
        if count < length.lowerBound {
            violations.append(
                ValidationViolation(
                    value: shown, path: path,
                    constraint: "Member must have length greater than or equal to \(length.lowerBound)"))
        }
        if count > length.upperBound {
            violations.append(
                ValidationViolation(
                    value: shown, path: path,
                    constraint: "Member must have length less than or equal to \(length.upperBound)"))
        }
        if let pattern, count > 0, !matches(value) {
            violations.append(
                ValidationViolation(
                    value: shown, path: path, constraint: "Member must satisfy regular expression pattern: \(pattern)"))
        }
        return violations
    }

    /// A list whose length is outside `range`, as AWS words it: the value `[N nouns]` (`empty` for
    /// none, when given); nil when the length is fine.
    package static func length(
        of count: Int, path: String, noun: String, range: ClosedRange<Int>, empty: String? = nil
    ) -> ValidationViolation? {
        guard !range.contains(count) else { return nil }
        return ValidationViolation(
            value: count == 0 ? empty ?? "[0 \(noun)]" : "[\(count) \(noun)]", path: path,
            constraint: count < range.lowerBound
                ? "Member must have length greater than or equal to \(range.lowerBound)"
                : "Member must have length less than or equal to \(range.upperBound)")
    }

    /// A required member outside its model enum (or missing), as AWS words it; nil when it is one of `allowed`.
    package static func enumValue(_ value: String?, path: String, allowed: [String]) -> ValidationViolation? {
        guard let value else { return .missing(path) }
        guard !allowed.contains(value) else { return nil }
        return ValidationViolation(
            value: value, path: path,
            constraint: "Member must satisfy enum value set: [\(allowed.joined(separator: ", "))]")
    }

    package static func missing(_ path: String) -> ValidationViolation {
        ValidationViolation(value: nil, path: path, constraint: "Member must not be null")
    }

    /// A number outside the model's `range`, in AWS's words; nil when it is inside.
    package static func outOfRange(_ value: Int, path: String, range: ClosedRange<Int>) -> ValidationViolation? {
        outOfRange(Double(value), rendered: String(value), path: path, range: range)
    }

    /// The same for a JSON number, which may be any double (never converted to `Int` unchecked).
    package static func outOfRange(_ value: Double, path: String, range: ClosedRange<Int>) -> ValidationViolation? {
        outOfRange(value, rendered: Int(exactly: value).map(String.init) ?? "\(value)", path: path, range: range)
    }

    private static func outOfRange(_ value: Double, rendered: String, path: String, range: ClosedRange<Int>)
        -> ValidationViolation?
    {
        if value < Double(range.lowerBound) {
            return ValidationViolation(
                value: rendered, path: path,
                constraint: "Member must have value greater than or equal to \(range.lowerBound)")
        }
        if value > Double(range.upperBound) {
            return ValidationViolation(
                value: rendered, path: path,
                constraint: "Member must have value less than or equal to \(range.upperBound)")
        }
        return nil
    }
}
