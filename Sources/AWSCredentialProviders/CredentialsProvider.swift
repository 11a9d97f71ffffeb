public import AWSSigV4
public import Foundation

/// Supplies the keys requests are signed with. Called before every request, so a provider should
/// cache what is expensive to get.
public protocol CredentialsProvider: Sendable {
    func credentials() async throws -> AWSCredentials
    /// Called when the service answered that the credentials expired (`ExpiredTokenException`):
    /// drop anything cached so the next `credentials()` fetches anew. The default does nothing.
    func invalidate() async
}

extension CredentialsProvider {
    public func invalidate() async {}
}

/// A provider could not produce credentials.
public struct CredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Fixed keys, e.g. `test`/`test` for `firehose-local`.
public struct StaticCredentialsProvider: CredentialsProvider {
    public let value: AWSCredentials

    public init(_ credentials: AWSCredentials) {
        value = credentials
    }

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        value = AWSCredentials(accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: sessionToken)
    }

    public func credentials() async throws -> AWSCredentials { value }
}

/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, when set, `AWS_SESSION_TOKEN`.
///
/// Read when called, so a process can change them; `environment` is injectable for tests.
public struct EnvironmentCredentialsProvider: CredentialsProvider {
    private let environment: @Sendable () -> [String: String]

    public init(environment: @escaping @Sendable () -> [String: String] = { ProcessInfo.processInfo.environment }) {
        self.environment = environment
    }

    public init(environment: [String: String]) {
        self.environment = { environment }
    }

    public func credentials() async throws -> AWSCredentials { try resolve() }

    /// The credentials now, without waiting (the environment is at hand).
    public func resolve() throws(CredentialsError) -> AWSCredentials {
        let env = environment()
        guard let key = env["AWS_ACCESS_KEY_ID"], !key.isEmpty else {
            throw CredentialsError("AWS_ACCESS_KEY_ID is not set.")
        }
        guard let secret = env["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            throw CredentialsError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not.")
        }
        let token = env["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return AWSCredentials(accessKeyId: key, secretAccessKey: secret, sessionToken: token)
    }
}

/// Tries each provider in turn and returns the first credentials found; fails with every reason
/// when none has any.
public struct CredentialsProviderChain: CredentialsProvider {
    public let providers: [any CredentialsProvider]

    public init(_ providers: [any CredentialsProvider]) {
        self.providers = providers
    }

    /// The AWS SDKs' usual order for static credentials: the environment, then the shared files.
    public static func `default`() -> CredentialsProviderChain {
        CredentialsProviderChain([EnvironmentCredentialsProvider(), ProfileCredentialsProvider()])
    }

    public func credentials() async throws -> AWSCredentials {
        var reasons: [String] = []
        for provider in providers {
            do {
                return try await provider.credentials()
            } catch {
                reasons.append(String(describing: error))
            }
        }
        throw CredentialsError("No credentials found: " + reasons.joined(separator: "; "))
    }

    public func invalidate() async {
        for provider in providers { await provider.invalidate() }
    }
}
