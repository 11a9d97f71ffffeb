import AWSSigV4
import FirehoseSink
import FirehoseWire

/// An S3 error answer: the code, message and HTTP status S3 gives, and the elements it adds to its
/// `Error` document (the bucket, the key, the range asked for, …).
struct S3Error: Error, Sendable {
    var code: String
    var message: String
    var status: Int
    var details: [(name: String, value: String)] = []

    /// The `Error` document S3 sends (none for HEAD, whose answers have no body).
    func document(requestID: String) -> [UInt8] {
        var xml = S3XML(root: "Error", namespaced: false)
        xml.element("Code", code)
        xml.element("Message", message)
        for detail in details { xml.element(detail.name, detail.value) }
        xml.element("RequestId", requestID)
        xml.element("HostId", S3API.hostID(requestID))
        return xml.finish()
    }

    static func noSuchBucket(_ bucket: String) -> S3Error {
        S3Error(
            code: "NoSuchBucket", message: "The specified bucket does not exist", status: 404,
            details: [("BucketName", bucket)])
    }

    static func noSuchKey(_ key: String) -> S3Error {
        S3Error(code: "NoSuchKey", message: "The specified key does not exist.", status: 404, details: [("Key", key)])
    }

    static func invalidRange(_ range: String, size: Int) -> S3Error {
        S3Error(
            code: "InvalidRange", message: "The requested range is not satisfiable", status: 416,
            details: [("RangeRequested", range), ("ActualObjectSize", String(size))])
    }

    static func preconditionFailed(_ condition: String) -> S3Error {
        S3Error(
            code: "PreconditionFailed", message: "At least one of the pre-conditions you specified did not hold",
            status: 412, details: [("Condition", condition)])
    }

    static func invalidArgument(_ message: String, name: String, value: String) -> S3Error {
        S3Error(
            code: "InvalidArgument", message: message, status: 400,
            details: [("ArgumentName", name), ("ArgumentValue", value)])
    }

    static func invalidBucketName(_ bucket: String) -> S3Error {
        S3Error(
            code: "InvalidBucketName", message: "The specified bucket is not valid.", status: 400,
            details: [("BucketName", bucket)])
    }

    static func notImplemented(_ message: String) -> S3Error {
        S3Error(code: "NotImplemented", message: message, status: 501)
    }

    static func methodNotAllowed(_ method: String, resource: String) -> S3Error {
        S3Error(
            code: "MethodNotAllowed", message: "The specified method is not allowed against this resource.",
            status: 405, details: [("Method", method), ("ResourceType", resource)])
    }

    static func contentSHA256Mismatch(declared: String, computed: String) -> S3Error {
        S3Error(
            code: "XAmzContentSHA256Mismatch",
            message: "The provided 'x-amz-content-sha256' header does not match what was computed.", status: 400,
            details: [("ClientComputedContentSHA256", declared), ("S3ComputedContentSHA256", computed)])
    }

    static func invalidContentSHA256(_ value: String) -> S3Error {
        S3Error(
            code: "InvalidArgument",
            message:
                "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or a valid sha256 value.",
            status: 400, details: [("ArgumentName", "x-amz-content-sha256"), ("ArgumentValue", value)])
    }

    static let internalError = S3Error(
        code: "InternalError", message: "We encountered an internal error. Please try again.", status: 500)

}

extension S3Error {
    /// A rejected signature, in S3's codes and statuses rather than the JSON services'.
    init(_ error: SigV4Error) {
        switch error.code {
        case SigV4Error.missingAuthenticationTokenCode:
            self.init(code: "AccessDenied", message: "Access Denied", status: 403)
        case SigV4Error.unrecognizedClientCode:
            self.init(
                code: "InvalidAccessKeyId",
                message: "The AWS Access Key Id you provided does not exist in our records.", status: 403)
        case SigV4Error.expiredTokenCode:
            self.init(code: "ExpiredToken", message: "The provided token has expired.", status: 400)
        case SigV4Error.accessDeniedCode:
            self.init(code: "AccessDenied", message: error.message, status: 403)
        case SigV4Error.presignedParametersCode, SigV4Error.missingContentSHA256Code:
            self.init(code: error.code, message: error.message, status: 400)
        default:
            switch error.kind {
            case .signatureMismatch:
                self.init(code: "SignatureDoesNotMatch", message: error.message, status: 403)
            case .clockSkew:
                self.init(
                    code: "RequestTimeTooSkewed",
                    message:
                        "The difference between the request time and the current time is too large. \(error.message)",
                    status: 403)
            case nil:
                self.init(code: "AuthorizationHeaderMalformed", message: error.message, status: 400)
            }
        }
    }
}

extension S3Error {
    /// A write to `bucket` the bucket folders refused.
    init(_ error: BucketFolders.WriteError, bucket: String) {
        switch error {
        case .noSuchBucket:
            self = .noSuchBucket(bucket)
        case .invalidKey:
            self = S3Error(
                code: "InvalidArgument",
                message:
                    "firehose-local stores each object as a file: a key cannot have an empty, '.' or '..' segment, or one named .firehose-local.",
                status: 400)
        case .conflict(let what):
            self = S3Error(
                code: "InvalidArgument",
                message:
                    "firehose-local stores each object as a file, so one key cannot be an object and a folder of others: \(what).",
                status: 400)
        case .storage:
            self = .serviceUnavailable
        }
    }
}

extension S3Error {
    /// What the HTTP layer refused before the request reached the API (a body too large, too slow,
    /// malformed, or no memory for it), in S3's codes.
    init(transport error: FirehoseError) {
        switch error.httpStatus {
        case 413:
            self = S3Error(
                code: "EntityTooLarge",
                message: "Your proposed upload exceeds the maximum allowed object size. \(error.message)",
                status: 400)
        case 408:
            self = S3Error(
                code: "RequestTimeout",
                message:
                    "Your socket connection to the server was not read from or written to within the timeout period. \(error.message)",
                status: 400)
        case 503:
            self = S3Error(code: "SlowDown", message: "Please reduce your request rate. \(error.message)", status: 503)
        case 501:
            self = S3Error(code: "NotImplemented", message: error.message, status: 501)
        default:
            self = S3Error(code: "IncompleteBody", message: error.message, status: 400)
        }
    }
}
