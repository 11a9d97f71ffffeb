/// A rejected request, as AWS reports it: the `__type` code and the message of the JSON error body.
///
/// Every code here is answered with HTTP 400 by Firehose; S3 answers in its own codes (`kind` tells
/// apart the failures S3 names differently).
public struct SigV4Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The AWS `__type`, e.g. `InvalidSignatureException`.
    public var code: String
    /// The message, worded as AWS words it, so SDK users see what they would see against AWS.
    public var message: String
    /// For server logs only, never for the response: on a signature mismatch, the canonical request and
    /// string to sign the server computed. (Some AWS services append these to the message; Firehose does
    /// not, so they are kept apart.) Not part of equality: two errors are equal when a client would see
    /// the same thing.
    public var diagnostics: String?
    /// What failed, where a service names it in its own words (S3's SignatureDoesNotMatch,
    /// RequestTimeTooSkewed); nil for the rest. Not part of equality.
    public var kind: Kind?

    public enum Kind: Sendable, Equatable {
        /// The request was well formed and its key known, but the signature is not the one computed.
        case signatureMismatch
        /// The request's time is too far from the server's.
        case clockSkew
    }

    public init(code: String, message: String, diagnostics: String? = nil, kind: Kind? = nil) {
        self.code = code
        self.message = message
        self.diagnostics = diagnostics
        self.kind = kind
    }

    public static func == (lhs: SigV4Error, rhs: SigV4Error) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public var description: String { "\(code): \(message)" }
}

extension SigV4Error {
    public static let missingAuthenticationTokenCode = "MissingAuthenticationTokenException"
    public static let incompleteSignatureCode = "IncompleteSignatureException"
    public static let unrecognizedClientCode = "UnrecognizedClientException"
    public static let invalidSignatureCode = "InvalidSignatureException"

    static let signatureMismatchMessage =
        "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

    static var missingAuthenticationToken: SigV4Error {
        SigV4Error(code: missingAuthenticationTokenCode, message: "Missing Authentication Token")
    }

    public static let expiredTokenCode = "ExpiredTokenException"

    public static var expiredToken: SigV4Error {
        SigV4Error(code: expiredTokenCode, message: "The security token included in the request is expired")
    }

    public static var unrecognizedClient: SigV4Error {
        SigV4Error(code: unrecognizedClientCode, message: "The security token included in the request is invalid.")
    }

    static func incomplete(_ message: String) -> SigV4Error {
        SigV4Error(code: incompleteSignatureCode, message: message)
    }

    static func invalid(_ message: String, diagnostics: String? = nil, kind: Kind? = nil) -> SigV4Error {
        SigV4Error(code: invalidSignatureCode, message: message, diagnostics: diagnostics, kind: kind)
    }

    static func signatureMismatch(diagnostics: String) -> SigV4Error {
        invalid(signatureMismatchMessage, diagnostics: diagnostics, kind: .signatureMismatch)
    }
}

extension SigV4Error {
    public static let missingContentSHA256Code = "InvalidRequest"
    public static let presignedParametersCode = "AuthorizationQueryParametersError"
    public static let accessDeniedCode = "AccessDenied"

    /// S3 requires the payload hash in a header of every request signed in its `Authorization`.
    static var missingContentSHA256: SigV4Error {
        SigV4Error(
            code: missingContentSHA256Code, message: "Missing required header for this request: x-amz-content-sha256")
    }

    static func presignedParameters(_ message: String) -> SigV4Error {
        SigV4Error(code: presignedParametersCode, message: message)
    }

    static func accessDenied(_ message: String) -> SigV4Error {
        SigV4Error(code: accessDeniedCode, message: message)
    }
}
