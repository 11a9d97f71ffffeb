package import AWSSigV4
package import FirehoseWire

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension SigV4Verifier {
    /// Verifies a request of an AWS JSON or Query service (its body hashed as received), failing with
    /// the error an AWS JSON service answers (HTTP 400; a Query service's is `verifyQuery`'s).
    package func verify(_ request: APIRequest, now: Date) throws(FirehoseError) -> AWSCredentials {
        let signed = SigV4Request(
            method: request.method, path: request.path, query: request.query, headers: request.headers,
            bodySHA256: SHA256Hex.hash(request.body))
        do {
            return try verify(signed, now: now)
        } catch {
            throw FirehoseError(code: error.code, message: error.message, httpStatus: 400)
        }
    }
}
