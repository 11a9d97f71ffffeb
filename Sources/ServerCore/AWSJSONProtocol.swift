package import FirehoseWire

/// AWS JSON 1.1, the protocol of Firehose, Kinesis and Cognito Identity: what a call must be and
/// how it is answered, one way for every service.
package enum AWSJSONProtocol {
    package static let contentType = FirehoseOperation.contentType

    /// What every AWS JSON 1.1 call is: `POST /` with that content type.
    package static func check(_ request: APIRequest, service: String) throws(FirehoseError) {
        guard request.method == "POST", request.path == "/" else {
            throw .unknownOperation(
                "firehose-local serves \(service) as POST / (got \(request.method) \(request.path)).")
        }
        let contentType = request.header("content-type")
        // What SDKs send matches exactly; only variants need parsing.
        guard contentType == Self.contentType || FirehoseOperation.isAcceptedContentType(contentType) else {
            throw .unknownOperation(
                "Unsupported Content-Type '\(contentType ?? "")': \(service) expects \(Self.contentType)."
            )
        }
    }

    package static func success(_ body: [UInt8], requestID: String) -> APIResponse {
        APIResponse(
            status: 200,
            headers: [("Content-Type", contentType), ("x-amzn-RequestId", requestID)],
            body: body)
    }

    package static func errorResponse(_ error: FirehoseError, requestID: String) -> APIResponse {
        APIResponse(
            status: error.httpStatus,
            headers: [
                ("Content-Type", contentType), ("x-amzn-RequestId", requestID), ("x-amzn-ErrorType", error.code),
            ],
            body: error.jsonBody)
    }
}
