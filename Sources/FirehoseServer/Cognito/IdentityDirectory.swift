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

    enum CodingKeys: String, CodingKey {
        case identityId = "IdentityId"
        case identityPoolId = "IdentityPoolId"
        case logins = "Logins"
    }

    var isAuthenticated: Bool { !logins.isEmpty }
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
struct IdentityDirectory: Sendable {
    private(set) var pools: [String: StoredIdentityPool] = [:]
    private(set) var identities: [String: CognitoIdentity] = [:]
    private var byLogin: [PoolLogin: String] = [:]

    private struct PoolLogin: Hashable {
        var pool: String
        var login: LinkedLogin
    }

    /// Identities kept at most: GetId without logins makes a new one every call, and each is kept.
    static let maxIdentities = 100_000

    init(pools: [StoredIdentityPool] = [], identities: [CognitoIdentity] = []) {
        for pool in pools {
            if let id = pool.pool.identityPoolId { self.pools[id] = pool }
        }
        // Later records of an identity replace earlier ones; identities of pools gone are dropped.
        for identity in identities where self.pools[identity.identityPoolId] != nil {
            self.identities[identity.identityId] = identity
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
    func resolve(pool: String, logins: [LinkedLogin], newID: () -> String) -> (
        identity: CognitoIdentity, changed: Bool
    ) {
        let linked = logins.lazy.compactMap { byLogin[PoolLogin(pool: pool, login: $0)] }.first
        guard let linked, var identity = identities[linked] else {
            return (CognitoIdentity(identityId: newID(), identityPoolId: pool, logins: logins), true)
        }
        let missing = logins.filter { !identity.logins.contains($0) }
        identity.logins += missing
        return (identity, !missing.isEmpty)
    }

    /// Records an identity that `resolve` made or changed.
    mutating func record(_ identity: CognitoIdentity) {
        identities[identity.identityId] = identity
        for login in identity.logins {
            byLogin[PoolLogin(pool: identity.identityPoolId, login: login)] = identity.identityId
        }
    }
}
