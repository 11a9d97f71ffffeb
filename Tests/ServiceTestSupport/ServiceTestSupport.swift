package import AWSSigV4
import FirehoseWire
package import Foundation
package import ServerCore
package import Testing

/// What the service test targets share: requests signed as SDKs sign them, and the checks of an
/// AWS JSON answer.
package enum SignedRequests {
    /// A `POST /` as SDKs send it: `Host`, `Content-Type`, `X-Amz-Target` (when given), the extra
    /// headers, then the SigV4 headers over `signedBody` (the body, unless a test signs other bytes);
    /// unsigned when `credentials` is nil.
    package static func post(
        target: String?, body: [UInt8], credentials: AWSCredentials?, region: String = "us-east-1", service: String,
        date: Date, contentType: String? = "application/x-amz-json-1.1",
        extraHeaders: [(name: String, value: String)] = [], signedBody: [UInt8]? = nil
    ) -> APIRequest {
        var headers: [(name: String, value: String)] = [("Host", "127.0.0.1:4573")]
        if let contentType { headers.append(("Content-Type", contentType)) }
        if let target { headers.append(("X-Amz-Target", target)) }
        headers += extraHeaders
        if let credentials {
            headers += SigV4Signer(credentials: credentials, region: region, service: service).sign(
                method: "POST", path: "/", query: "", headers: headers, bodySHA256: SHA256Hex.hash(signedBody ?? body),
                date: date)
        }
        return APIRequest(method: "POST", path: "/", headers: headers, body: body)
    }

    /// The form an IAM Query call carries: `Action`, `Version`, then the parameters by name.
    package static func iamQuery(_ action: String, _ parameters: [String: String]) -> [UInt8] {
        query(action, version: "2010-05-08", parameters)
    }

    /// The form a Query call carries: `Action`, `Version` (unless nil), then the parameters by name.
    package static func query(_ action: String, version: String?, _ parameters: [String: String]) -> [UInt8] {
        let pairs =
            [("Action", action)] + (version.map { [("Version", $0)] } ?? []) + parameters.sorted { $0.key < $1.key }
        return Array(pairs.map { "\($0.0)=\(URIEncoding.encode($0.1))" }.joined(separator: "&").utf8)
    }

    package static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"
}

/// A JSON answer's body as an object.
package func json(_ response: APIResponse) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
}

/// Checks an AWS JSON error answer (status, `x-amzn-ErrorType`, request id, `__type`) and returns its
/// message.
package func expectError(
    _ response: APIResponse, status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation
) throws -> String {
    #expect(response.status == status, sourceLocation: sourceLocation)
    #expect(response.header("x-amzn-ErrorType") == code, sourceLocation: sourceLocation)
    #expect(response.header("x-amzn-RequestId")?.isEmpty == false, sourceLocation: sourceLocation)
    let body = try json(response)
    #expect(body["__type"] as? String == code, sourceLocation: sourceLocation)
    return body["message"] as? String ?? ""
}

/// The text of the first `element` of an XML answer (a Query service's or S3's), unescaped.
package func xmlText(_ response: APIResponse, _ element: String) -> String? {
    let text = String(decoding: response.body, as: UTF8.self)
    guard let start = text.range(of: "<\(element)>"),
        let end = text.range(of: "</\(element)>", range: start.upperBound..<text.endIndex)
    else { return nil }
    return S3XML.unescaped(text[start.upperBound..<end.lowerBound])
}
