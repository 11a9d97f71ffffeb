import AWSCredentialProviders
import AWSSigV4
public import Foundation

/// Temporary credentials from your own code (STS, Cognito, your backend), cached and refreshed
/// `refreshBefore` ahead of their `expiration`.
///
/// Refreshes are single-flight: however many requests need credentials at once, `fetch` runs once
/// and all of them wait for that one result. When a refresh fails while the cached credentials are
/// still valid, they keep being used (and the next call tries again); once they have expired the
/// failure is thrown. Credentials without an `expiration` are kept until `invalidate()`.
public actor TemporaryCredentialsProvider: CredentialsProvider {
    public typealias Fetch = @Sendable () async throws -> AWSCredentials

    private let fetch: Fetch
    private let refreshBefore: Duration
    private let now: @Sendable () -> Date
    private var cached: AWSCredentials?
    private var refresh: Task<AWSCredentials, any Error>?
    /// How many times `fetch` has been called.
    public private(set) var fetchCount = 0

    public init(
        refreshBefore: Duration = .seconds(300),
        now: @escaping @Sendable () -> Date = { Date() },
        fetch: @escaping Fetch
    ) {
        self.fetch = fetch
        self.refreshBefore = refreshBefore
        self.now = now
    }

    public func credentials() async throws -> AWSCredentials {
        if let cached, !needsRefresh(cached) { return cached }
        do {
            return try await refreshed()
        } catch {
            if let cached, !isExpired(cached) { return cached }
            throw error
        }
    }

    public func invalidate() async {
        cached = nil
    }

    private func refreshed() async throws -> AWSCredentials {
        if let refresh { return try await refresh.value }
        fetchCount += 1
        let task = Task { [fetch] in try await fetch() }
        refresh = task
        defer { refresh = nil }
        let fresh = try await task.value
        cached = fresh
        return fresh
    }

    private func needsRefresh(_ credentials: AWSCredentials) -> Bool {
        guard let expiration = credentials.expiration else { return false }
        let margin = Double(refreshBefore.components.seconds) + Double(refreshBefore.components.attoseconds) / 1e18
        return now().addingTimeInterval(margin) >= expiration
    }

    private func isExpired(_ credentials: AWSCredentials) -> Bool {
        guard let expiration = credentials.expiration else { return false }
        return now() >= expiration
    }
}
