import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A login as an identity remembers it: the provider's name and who the token says the user is.
struct LinkedLogin: Codable, Sendable, Hashable {
    var provider: String
    var user: String

    enum CodingKeys: String, CodingKey {
        case provider = "Provider"
        case user = "User"
    }
}

/// An identity of a pool: unauthenticated when it has no login linked.
struct CognitoIdentity: Codable, Sendable, Equatable {
    var identityId: String
    var identityPoolId: String
    var logins: [LinkedLogin]
    /// Seconds since 1970 (nil in lines written before it was kept).
    var created: Double?
    /// A record that forgets the identity (written when the directory is full).
    var removed: Bool?

    enum CodingKeys: String, CodingKey {
        case identityId = "IdentityId"
        case identityPoolId = "IdentityPoolId"
        case logins = "Logins"
        case created = "Created"
        case removed = "Removed"
    }

    var isAuthenticated: Bool { !logins.isEmpty }

    /// Cognito's `amr` claim (and `cognito-identity.amazonaws.com:amr` key): `unauthenticated`, or
    /// `authenticated` and the providers of its logins.
    var amr: [String] { isAuthenticated ? ["authenticated"] + logins.map(\.provider) : ["unauthenticated"] }
}

/// A pool with what SetIdentityPoolRoles gave it.
package struct StoredIdentityPool: Codable, Sendable, Equatable {
    package var pool: IdentityPool
    /// `authenticated` and `unauthenticated` to role ARNs.
    package var roles: [String: String]

    enum CodingKeys: String, CodingKey {
        case pool = "Pool"
        case roles = "Roles"
    }
}

/// Pools and their identities, as a pure value: what GetId finds or makes, and how the pool control
/// plane changes them. `CognitoStore` persists each change before applying it here.
package struct IdentityDirectory: Sendable {
    private(set) var pools: [String: StoredIdentityPool] = [:]
    private(set) var identities: [String: CognitoIdentity] = [:]
    private var byLogin: [PoolLogin: String] = [:]

    private struct PoolLogin: Hashable {
        var pool: String
        var login: LinkedLogin
    }

    /// Identities kept at most: GetId without logins makes a new one every call, and each is kept.
    package static let maxIdentities = 100_000

    init(pools: [StoredIdentityPool] = [], identities: [CognitoIdentity] = []) {
        for pool in pools {
            if let id = pool.pool.identityPoolId { self.pools[id] = pool }
        }
        // Later records of an identity replace earlier ones; identities of pools gone are dropped.
        for identity in identities where self.pools[identity.identityPoolId] != nil {
            self.identities[identity.identityId] = identity.removed == true ? nil : identity
        }
        for identity in self.identities.values {
            for login in identity.logins {
                byLogin[PoolLogin(pool: identity.identityPoolId, login: login)] = identity.identityId
            }
        }
    }

    mutating func setPool(_ pool: StoredIdentityPool) {
        guard let id = pool.pool.identityPoolId else { return }
        pools[id] = pool
    }

    /// Removes the pool and its identities.
    mutating func removePool(_ id: String) {
        pools[id] = nil
        identities = identities.filter { $0.value.identityPoolId != id }
        byLogin = byLogin.filter { $0.key.pool != id }
    }

    /// The identity of these logins in the pool: the one any of them is linked to (then linked to
    /// all of them), or a new one (always new without logins, as Cognito makes a new unauthenticated
    /// identity on every GetId). `changed` is the identity to record, when anything changed.
    /// - Throws: `ResourceConflictException` when the logins belong to different identities (they
    ///   are not merged).
    func resolve(pool: String, logins: [LinkedLogin], now: Date, newID: () -> String) throws(FirehoseError) -> (
        identity: CognitoIdentity, changed: Bool
    ) {
        let linked = Set(logins.compactMap { byLogin[PoolLogin(pool: pool, login: $0)] })
        guard linked.count <= 1 else {
            throw FirehoseError(
                code: "ResourceConflictException",
                message:
                    "These logins belong to different identities; firehose-local does not merge identities: give the logins of one."
            )
        }
        guard let id = linked.first, var identity = identities[id] else {
            return (
                CognitoIdentity(
                    identityId: newID(), identityPoolId: pool, logins: logins, created: now.timeIntervalSince1970),
                true
            )
        }
        let missing = logins.filter { !identity.logins.contains($0) }
        identity.logins += missing
        return (identity, !missing.isEmpty)
    }

    /// The unauthenticated identity made first: the one forgotten when the directory is full.
    var oldestUnauthenticated: CognitoIdentity? {
        identities.values.filter { !$0.isAuthenticated }.min { ($0.created ?? 0) < ($1.created ?? 0) }
    }

    mutating func remove(_ id: String) {
        guard let identity = identities.removeValue(forKey: id) else { return }
        for login in identity.logins { byLogin[PoolLogin(pool: identity.identityPoolId, login: login)] = nil }
    }

    /// Records an identity that `resolve` made or changed.
    mutating func record(_ identity: CognitoIdentity) {
        identities[identity.identityId] = identity
        for login in identity.logins {
            byLogin[PoolLogin(pool: identity.identityPoolId, login: login)] = identity.identityId
        }
    }
}
