/// An error exactly as Firehose reports it: the `__type` clients switch on, the message people read,
/// and the HTTP status SDKs use to decide whether to retry.
public struct FirehoseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String
    public var httpStatus: Int

    public init(code: String, message: String, httpStatus: Int = 400) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
    }

    public var description: String { "\(code): \(message)" }

    /// `{"__type": "...", "message": "..."}` — the body every AWS JSON 1.1 SDK parses.
    public var jsonBody: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("__type")
        writer.string(code)
        writer.key("message")
        writer.string(message)
        writer.endObject()
        return writer.bytes
    }
}

extension FirehoseError {
    public static func resourceNotFound(stream: String, accountID: String) -> FirehoseError {
        FirehoseError(
            code: "ResourceNotFoundException",
            message: "Firehose \(stream) under account \(accountID) not found."
        )
    }

    /// At most this many violations are spelled out; a hostile request must not buy a huge answer.
    public static let maxListedViolations = 10

    public static func validation(_ violations: [ValidationViolation]) -> FirehoseError {
        let count = violations.count
        let noun = count == 1 ? "error" : "errors"
        var details = violations.prefix(maxListedViolations).map(\.description).joined(separator: "; ")
        if count > maxListedViolations { details += "; and \(count - maxListedViolations) more" }
        return FirehoseError(
            code: "ValidationException",
            message: "\(count) validation \(noun) detected: \(details)"
        )
    }

    public static func invalidArgument(_ message: String) -> FirehoseError {
        FirehoseError(code: "InvalidArgumentException", message: message)
    }

    public static func serialization(_ message: String) -> FirehoseError {
        FirehoseError(code: "SerializationException", message: message)
    }

    /// Kinesis answers an unknown target or a non-JSON content type with 404; SDKs surface the code.
    public static func unknownOperation(_ message: String) -> FirehoseError {
        FirehoseError(code: "UnknownOperationException", message: message, httpStatus: 404)
    }

    /// 503 so that every SDK's standard retry policy retries it.
    public static func serviceUnavailable(_ message: String) -> FirehoseError {
        FirehoseError(code: "ServiceUnavailableException", message: message, httpStatus: 503)
    }

    public static func internalFailure(_ message: String) -> FirehoseError {
        FirehoseError(code: "InternalFailure", message: message, httpStatus: 500)
    }

    public static func requestTooLarge(limit: Int) -> FirehoseError {
        FirehoseError(
            code: "SerializationException",
            message: "Request body exceeds the \(limit)-byte limit of firehose-local.",
            httpStatus: 413
        )
    }
}

/// One constraint failure in the form AWS's validation layer prints:
/// `Value '<v>' at '<path>' failed to satisfy constraint: Member must ...`.
public struct ValidationViolation: Sendable, Equatable, CustomStringConvertible {
    /// The rendered value: `'text'` in quotes, or `null` for a missing member.
    public var renderedValue: String
    /// The member path in lower camel case, 1-based list indexes: `records.97.member.data`.
    public var path: String
    public var constraint: String

    public init(value: String?, path: String, constraint: String) {
        self.renderedValue = value.map { "'\($0)'" } ?? "null"
        self.path = path
        self.constraint = constraint
    }

    public var description: String {
        "Value \(renderedValue) at '\(path)' failed to satisfy constraint: \(constraint)"
    }

    public static func missing(_ path: String) -> ValidationViolation {
        ValidationViolation(value: nil, path: path, constraint: "Member must not be null")
    }
}
