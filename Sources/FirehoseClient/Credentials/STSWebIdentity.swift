import AWSCredentialProviders
import AWSSigV4
import FirehoseWire
import Foundation
import HTTPTransports

/// STS's AssumeRoleWithWebIdentity, unsigned, as the AWS SDKs send it: the Query protocol's form in, the
/// XML answer's credentials out.
enum STSWebIdentity {
    static func assumeRole(
        roleArn: String, sessionName: String, token: String, durationSeconds: Int, endpoint: URL,
        transport: any HTTPTransport, timeout: Duration
    ) async throws -> AWSCredentials {
        let form = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleArn),
            ("RoleSessionName", sessionName), ("WebIdentityToken", token), ("DurationSeconds", String(durationSeconds)),
        ].map { "\(URIEncoding.encode($0.0))=\(URIEncoding.encode($0.1))" }.joined(separator: "&")
        let request = HTTPRequest(
            url: endpoint, method: "POST",
            headers: [
                ("Host", SignedJSONExchange.hostHeader(endpoint)),
                ("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),
            ],
            body: Array(form.utf8), timeout: timeout, maxResponseBytes: 1 << 20)
        let response = try await transport.send(request)
        let text = Substring(String(decoding: response.body, as: UTF8.self))
        guard (200..<300).contains(response.status) else {
            throw STSServiceError(
                operation: "AssumeRoleWithWebIdentity",
                code: S3XML.element("Code", in: text) ?? "HTTP \(response.status)",
                message: S3XML.element("Message", in: text) ?? String(text))
        }
        guard let key = S3XML.element("AccessKeyId", in: text), let secret = S3XML.element("SecretAccessKey", in: text),
            let sessionToken = S3XML.element("SessionToken", in: text),
            let expiration = S3XML.element("Expiration", in: text).flatMap({ try? Date($0, strategy: .iso8601) })
        else {
            throw CredentialsError("STS's AssumeRoleWithWebIdentity answer has no complete Credentials.")
        }
        return AWSCredentials(
            accessKeyId: key, secretAccessKey: secret, sessionToken: sessionToken, expiration: expiration)
    }
}

/// STS answered with an error: `AccessDenied` (the role's trust policy does not let the identity in),
/// `InvalidIdentityToken`, `ExpiredTokenException`, …
public struct STSServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var code: String
    public var message: String

    public var description: String { "STS \(operation): \(code): \(message)" }
}
