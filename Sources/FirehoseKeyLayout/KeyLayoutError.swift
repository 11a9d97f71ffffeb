/// A configuration that Firehose would refuse, or that firehose-local cannot store on disk, phrased
/// the way the API reports it so the server can pass `errorType` and `message` straight through as
/// `__type` and `message`.
public struct KeyLayoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The AWS error code, e.g. `InvalidArgumentException` or `ValidationException`.
    public var errorType: String
    public var message: String

    public init(errorType: String, message: String) {
        self.errorType = errorType
        self.message = message
    }

    public var description: String { "\(errorType): \(message)" }
}

extension KeyLayoutError {
    static let invalidArgumentType = "InvalidArgumentException"
    static let validationType = "ValidationException"

    /// AWS words its prefix rules with this lead-in, typo included, so clients that match on the
    /// text see the same thing locally.
    static let prefixConstraintLeadIn = "Ths supplied prefix(es) do not satisfy the following constraint: "

    static func prefixConstraint(_ constraint: String) -> KeyLayoutError {
        KeyLayoutError(errorType: invalidArgumentType, message: prefixConstraintLeadIn + constraint)
    }

    static func invalidArgument(_ message: String) -> KeyLayoutError {
        KeyLayoutError(errorType: invalidArgumentType, message: message)
    }

    /// The model-level check (length, pattern) in the form AWS's validation layer prints.
    static func validation(value: String, memberPath: String, constraint: String) -> KeyLayoutError {
        KeyLayoutError(
            errorType: validationType,
            message:
                "1 validation error detected: Value '\(value)' at '\(memberPath)' failed to satisfy constraint: \(constraint)"
        )
    }
}
