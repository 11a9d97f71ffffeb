package import AWSSigV4
package import FirehoseWire

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// AWS's Query protocol, as IAM and STS speak it: `POST /` of a form with `Action` and `Version`, XML
/// answers in the service's namespace, and errors in an `ErrorResponse` document.
package enum QueryProtocol {
    /// Whether a request is a Query-protocol call: `POST /` of a form, with no `X-Amz-Target`.
    /// Whether `text` is made of IAM's name characters, `[\w+=,.@-]` (role, user, policy and role
    /// session names).
    package static func isIAMNameText(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0.isASCIIAlphanumeric || "_+=,.@-".utf8.contains($0) }
    }

    package static func isQueryRequest(_ request: APIRequest, hasTarget: Bool) -> Bool {
        guard !hasTarget, request.method == "POST", request.path == "/",
            let type = request.header("content-type")?.lowercased()
        else { return false }
        return type.hasPrefix("application/x-www-form-urlencoded")
    }

    /// `a=b&c=d`, percent-decoded with `+` as a space, as HTML forms and the Query protocol encode.
    package static func formParameters(_ body: [UInt8]) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(decoding: String(parts[0]).percentDecodedBytes(plusIsSpace: true), as: UTF8.self)
            let value =
                parts.count > 1
                ? String(decoding: String(parts[1]).percentDecodedBytes(plusIsSpace: true), as: UTF8.self) : ""
            parameters[key] = value
        }
        return parameters
    }

    /// `<ActionResponse><ActionResult>…</ActionResult><ResponseMetadata>…</ResponseMetadata>`, with the
    /// result's members written by `result` (none: an empty result is left out, as IAM's changes answer).
    package static func response(
        action: String, namespace: String, requestID: String,
        result: ((inout S3XML) throws(FirehoseError) -> Void)? = nil
    ) throws(FirehoseError) -> APIResponse {
        var xml = S3XML(root: "\(action)Response", namespace: namespace)
        if let result {
            xml.open("\(action)Result")
            try result(&xml)
            xml.close("\(action)Result")
        }
        xml.open("ResponseMetadata")
        xml.element("RequestId", requestID)
        xml.close("ResponseMetadata")
        return APIResponse(
            status: 200, headers: [("Content-Type", "text/xml"), ("x-amzn-RequestId", requestID)], body: xml.finish())
    }

    /// `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>`: `Sender` for a
    /// client's fault, `Receiver` for a 5xx.
    package static func errorResponse(_ error: FirehoseError, requestID: String, namespace: String) -> APIResponse {
        var xml = S3XML(root: "ErrorResponse", namespace: namespace)
        xml.open("Error")
        xml.element("Type", error.httpStatus >= 500 ? "Receiver" : "Sender")
        xml.element("Code", error.code)
        xml.element("Message", error.message)
        xml.close("Error")
        xml.element("RequestId", requestID)
        return APIResponse(
            status: error.httpStatus, headers: [("Content-Type", "text/xml"), ("x-amzn-RequestId", requestID)],
            body: xml.finish())
    }

    /// A signature failure as a Query service names it: the codes of AWS's common errors, not the AWS
    /// JSON services' `…Exception` spellings, all 403 but a malformed `Authorization` (400).
    package static func authenticationError(_ error: FirehoseError) -> FirehoseError {
        let (code, status): (String, Int) =
            switch error.code {
            case SigV4Error.unrecognizedClientCode: ("InvalidClientTokenId", 403)
            case SigV4Error.expiredTokenCode: ("ExpiredToken", 403)
            case SigV4Error.missingAuthenticationTokenCode: ("MissingAuthenticationToken", 403)
            case SigV4Error.invalidSignatureCode: ("SignatureDoesNotMatch", 403)
            case SigV4Error.incompleteSignatureCode: ("IncompleteSignature", 400)
            default: (error.code, 403)
            }
        let message =
            code == "MissingAuthenticationToken" ? "Request is missing Authentication Token" : error.message
        return FirehoseError(code: code, message: message, httpStatus: status)
    }
}

extension SigV4Verifier {
    /// Verifies a Query-protocol request, failing with the error its service answers
    /// (`QueryProtocol.authenticationError`).
    package func verifyQuery(_ request: APIRequest, now: Date) throws(FirehoseError) -> AWSCredentials {
        do {
            return try verify(request, now: now)
        } catch {
            throw QueryProtocol.authenticationError(error)
        }
    }
}
