/// An access key pair, optionally with the session token of temporary (STS) credentials.
public struct AWSCredentials: Sendable, Hashable {
    public var accessKeyId: String
    public var secretAccessKey: String
    /// Present for temporary credentials; a request signed with them must carry it in `X-Amz-Security-Token`.
    public var sessionToken: String?

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

extension AWSCredentials: CustomStringConvertible {
    // Never print the secret or the token: descriptions end up in logs.
    public var description: String {
        "AWSCredentials(accessKeyId: \(accessKeyId), sessionToken: \(sessionToken == nil ? "none" : "present"))"
    }
}
