#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An access key pair, optionally with the session token of temporary (STS) credentials.
public struct AWSCredentials: Sendable, Hashable {
    public var accessKeyId: String
    public var secretAccessKey: String
    /// Present for temporary credentials; a request signed with them must carry it in `X-Amz-Security-Token`.
    public var sessionToken: String?
    /// When temporary credentials stop being accepted (`ExpiredTokenException` from then on).
    public var expiration: Date?

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }
}

extension AWSCredentials: CustomStringConvertible {
    // Never print the secret or the token: descriptions end up in logs.
    public var description: String {
        "AWSCredentials(accessKeyId: \(accessKeyId), sessionToken: \(sessionToken == nil ? "none" : "present"))"
    }
}
