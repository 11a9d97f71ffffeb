import AWSCredentialProviders
import FirehoseWire

/// Why a call failed. An opaque struct over a private enum (as in SwiftNIO), so kinds can be added
/// without breaking callers; switch on `kind` with `==`.
///
/// - `service`: Firehose answered with an AWS error — `code`, `message`, `httpStatus` and
///   `requestID` say which. The request reached the service.
/// - `network`: no HTTP answer (refused, dropped, timed out). Whether the service acted on the request
///   is unknown.
/// - `credentials`: the credentials provider could not supply credentials; nothing was sent.
/// - `invalidRequest`: refused before sending (a record over 1,024,000 bytes, a bad stream name…).
/// - `invalidResponse`: the service answered 2xx with a body that is not what Firehose sends.
public struct FirehoseClientError: Error, Sendable, CustomStringConvertible {
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case service, network, credentials, invalidRequest, invalidResponse
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        public static let service = Kind(.service)
        public static let network = Kind(.network)
        public static let credentials = Kind(.credentials)
        public static let invalidRequest = Kind(.invalidRequest)
        public static let invalidResponse = Kind(.invalidResponse)

        public var description: String { base.rawValue }
    }

    public var kind: Kind
    /// The AWS error code (`ResourceNotFoundException`, …) for service errors and for invalid requests
    /// (`ValidationException`, `InvalidArgumentException`); nil otherwise.
    public var code: String?
    public var message: String
    public var httpStatus: Int?
    /// `x-amzn-RequestId` of the answer, when there was one: quote it to AWS support.
    public var requestID: String?
    /// The transport's or the credentials provider's own error, when there is one.
    public var underlying: (any Error)?

    public init(
        kind: Kind, code: String? = nil, message: String, httpStatus: Int? = nil, requestID: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.requestID = requestID
        self.underlying = underlying
    }

    public var isServiceError: Bool { kind == .service }
    public var isNetworkError: Bool { kind == .network }
    public var isCredentialsError: Bool { kind == .credentials }

    /// The service error as the wire model has it (`nil` unless `kind == .service`).
    public var serviceError: FirehoseError? {
        guard kind == .service, let code else { return nil }
        return FirehoseError(code: code, message: message, httpStatus: httpStatus ?? 400)
    }

    public var description: String {
        var text = "\(kind)"
        if let code { text += " \(code)" }
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        text += ": \(message)"
        if let requestID { text += " [request id \(requestID)]" }
        return text
    }
}

extension FirehoseClientError {
    /// Throttling in every spelling AWS services use.
    public static let throttlingCodes: Set<String> = [
        "ThrottlingException", "Throttling", "ThrottledException", "RequestThrottledException",
        "TooManyRequestsException", "ProvisionedThroughputExceededException", "RequestLimitExceeded",
        "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled", "SlowDown",
        "PriorRequestNotComplete", "EC2ThrottledException", "KMSThrottlingException",
    ]

    /// Transient service-side failures: retry after a pause.
    public static let transientCodes: Set<String> = [
        "ServiceUnavailableException", "ServiceUnavailable", "InternalFailure", "InternalServerError",
        "InternalError", "RequestTimeout", "RequestTimeoutException",
    ]

    /// The request was refused for who sent it: credentials, signature or permissions.
    public static let authorizationCodes: Set<String> = [
        "AccessDeniedException", "AccessDenied", "UnrecognizedClientException", "InvalidSignatureException",
        "IncompleteSignatureException", "MissingAuthenticationTokenException", "MissingAuthenticationToken",
        "InvalidClientTokenId", "SignatureDoesNotMatch", "NotAuthorized", "AuthFailure",
        "UnauthorizedOperation", "InvalidAccessKeyId",
    ]

    /// Temporary credentials ran out: get new ones and send again.
    public static let expiredCredentialCodes: Set<String> = [
        "ExpiredTokenException", "ExpiredToken", "RequestExpired", "TokenRefreshRequired",
    ]

    /// The request itself is invalid (a record too large, a batch too big, unreadable JSON).
    public static let invalidRequestCodes: Set<String> = [
        "ValidationException", "InvalidArgumentException", "SerializationException", "RequestEntityTooLarge",
    ]

    /// True for throttling, 5xx and transient service codes: the same request may succeed later.
    public var isRetryableServiceError: Bool {
        guard kind == .service else { return false }
        if let code, Self.throttlingCodes.contains(code) || Self.transientCodes.contains(code) { return true }
        if let httpStatus, httpStatus >= 500 || httpStatus == 429 { return true }
        return false
    }
}
