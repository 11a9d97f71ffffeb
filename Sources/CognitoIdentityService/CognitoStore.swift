package import DurableStorage
import FirehoseWire
package import ServerCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The identity pools, their identities and the credentials issued to them, on disk under
/// `<data-dir>/.firehose-local/cognito/`: `pools.json` replaced whole on each pool change,
/// `identities.jsonl` one line per identity made or linked to a new login, `credentials.jsonl`, and
/// `openid-token.key`, which signs GetOpenIdToken's tokens.
/// Every change is on disk before it is visible. Calls run one at a time; they are rare (an app asks
/// for an identity at its first start and for credentials once an hour).
package final class CognitoStore: Sendable {
    private struct State {
        var directory: IdentityDirectory
        var identityFile: JSONLinesFile
        var identityLines: Int
    }

    private let state: Mutex<State>
    private let poolsPath: String
    package let credentials: IssuedCredentials
    /// Signs GetOpenIdToken's tokens, with the key in `openid-token.key`.
    package let tokens: OpenIDTokens
    /// Identities kept at most (`IdentityDirectory.maxIdentities`; tests lower it).
    let maxIdentities: Int

    package init(folder: String, now: Date, maxIdentities: Int = IdentityDirectory.maxIdentities)
        throws(FileSystemError)
    {
        self.maxIdentities = maxIdentities
        try POSIX.makeDirectoriesDurably(folder)
        poolsPath = "\(folder)/pools.json"
        var pools: [StoredIdentityPool] = []
        if POSIX.exists(poolsPath) {
            let bytes = try POSIX.readFile(poolsPath)
            guard let stored = try? JSONDecoder().decode(StoredPools.self, from: Data(bytes)) else {
                throw FileSystemError(operation: "parse", path: poolsPath, errno: EINVAL)
            }
            pools = stored.pools
        }
        let identitiesPath = "\(folder)/identities.jsonl"
        let (file, lines) = try JSONLinesFile.open(identitiesPath)
        var identities: [CognitoIdentity] = []
        for line in lines {
            guard let identity = try? JSONDecoder().decode(CognitoIdentity.self, from: Data(line)) else {
                throw FileSystemError(
                    operation: "parse", path: identitiesPath, errno: EINVAL, detail: "a line is not an identity")
            }
            identities.append(identity)
        }
        var state = State(
            directory: IdentityDirectory(pools: pools, identities: identities), identityFile: file,
            identityLines: lines.count)
        try Self.compactIfSparse(&state)
        self.state = Mutex(state)
        credentials = try IssuedCredentials(path: "\(folder)/credentials.jsonl", now: now)
        tokens = try OpenIDTokens.load(path: "\(folder)/openid-token.key")
    }

    private struct StoredPools: Codable {
        var format = 1
        var pools: [StoredIdentityPool]

        enum CodingKeys: String, CodingKey {
            case format = "Format"
            case pools = "Pools"
        }
    }

    /// The directory as it is now.
    /// What `body` reads of the directory as it is, under the lock: no copy of it outlives the call
    /// (a copy held while GetId records an identity would make that write copy every identity).
    func read<Result>(_ body: (IdentityDirectory) -> Result) -> Result {
        state.withLock { body($0.directory) }
    }

    /// Runs `change` on the directory as it is and, when it returns a new set of pools, saves that
    /// before applying it; pools removed take their identities with them.
    func changePools<Result>(
        _ change: (IdentityDirectory) throws(FirehoseError) -> (pools: [String: StoredIdentityPool]?, result: Result)
    ) throws(FirehoseError) -> Result {
        try state.withLock { state throws(FirehoseError) -> Result in
            let (pools, result) = try change(state.directory)
            if let pools {
                do throws(FileSystemError) {
                    try replacePools(with: pools, in: &state)
                } catch {
                    throw .cognitoStorage(error)
                }
            }
            return result
        }
    }

    /// Puts the configuration file's pools in place of the saved ones of the same ids.
    package func apply(configuredPools: [StoredIdentityPool]) throws(FileSystemError) {
        try state.withLock { state throws(FileSystemError) in
            var pools = state.directory.pools
            for pool in configuredPools { pools[pool.pool.identityPoolId!] = pool }
            if pools != state.directory.pools { try replacePools(with: pools, in: &state) }
        }
    }

    private func replacePools(with pools: [String: StoredIdentityPool], in state: inout State) throws(FileSystemError) {
        let bytes: Data
        do {
            bytes = try Self.encoder.encode(StoredPools(pools: pools.keys.sorted().map { pools[$0]! }))
        } catch {
            throw FileSystemError(operation: "encode", path: poolsPath, errno: EINVAL)
        }
        try AtomicFile.replace(poolsPath, with: Array(bytes), temporary: poolsPath + ".tmp", durable: true)
        let removed = state.directory.pools.keys.filter { pools[$0] == nil }
        for id in removed { state.directory.removePool(id) }
        for pool in pools.values where state.directory.pools[pool.pool.identityPoolId!] != pool {
            state.directory.setPool(pool)
        }
        if !removed.isEmpty { try Self.rewriteIdentities(&state) }
    }

    /// The identity of `logins` in `pool` (see `IdentityDirectory.resolve`), recorded on disk first
    /// when it is new or newly linked.
    func identity(pool: String, logins: [LinkedLogin], now: Date) throws(FirehoseError) -> CognitoIdentity {
        try state.withLock { state throws(FirehoseError) -> CognitoIdentity in
            let (identity, changed) = try state.directory.resolve(pool: pool, logins: logins, now: now) {
                "\(pool.prefix { $0 != ":" }):\(UUID().uuidString.lowercased())"
            }
            guard changed else { return identity }
            var records = [identity]
            // Full: the unauthenticated identity made first is forgotten (an app holding it gets a
            // new one, as after its pool forgot it), so anonymous GetId calls cannot lock new users out.
            if state.directory.identities[identity.identityId] == nil,
                state.directory.identities.count >= maxIdentities
            {
                guard var oldest = state.directory.oldestUnauthenticated else {
                    throw FirehoseError(
                        code: "LimitExceededException",
                        message:
                            "firehose-local keeps at most \(maxIdentities) identities, all of them signed in; delete an identity pool to start over."
                    )
                }
                oldest.removed = true
                records.insert(oldest, at: 0)
            }
            do {
                for record in records {
                    try state.identityFile.append(Array(Self.encoder.encode(record)))
                    state.identityLines += 1
                    if record.removed == true { state.directory.remove(record.identityId) }
                }
                state.directory.record(identity)
                try Self.compactIfSparse(&state)
            } catch let error as FileSystemError {
                throw .cognitoStorage(error)
            } catch {
                throw .cognitoStorage(
                    FileSystemError(operation: "encode", path: state.identityFile.path, errno: EINVAL))
            }
            return identity
        }
    }

    private static let encoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static func compactIfSparse(_ state: inout State) throws(FileSystemError) {
        guard state.identityLines > 2 * state.directory.identities.count + 64 else { return }
        try rewriteIdentities(&state)
    }

    private static func rewriteIdentities(_ state: inout State) throws(FileSystemError) {
        let identities = state.directory.identities
        let lines = identities.keys.sorted().compactMap { try? Array(encoder.encode(identities[$0]!)) }
        try state.identityFile.rewrite(lines)
        state.identityLines = lines.count
    }
}

extension FirehoseError {
    /// What a client of the Cognito endpoint is told when its state cannot be saved: AWS's 500, with
    /// the cause in the log.
    static func cognitoStorage(_ error: FileSystemError) -> FirehoseError {
        var failure = FirehoseError(
            code: "InternalErrorException", message: "An internal error occurred; see the server's log.",
            httpStatus: 500)
        failure.logDetail = error.description
        return failure
    }
}

extension IssuedCredentials {
    /// New credentials for `identity` acting as `roleArn` (a session named `CognitoIdentityCredentials`,
    /// as Cognito names it), valid for `lifetime` seconds from `now`.
    func issue(for identity: CognitoIdentity, roleArn: String, bound: Bool, lifetime: TimeInterval, now: Date)
        throws(FileSystemError) -> CredentialGrant
    {
        try issue(roleArn: roleArn, bound: bound, lifetime: lifetime, now: now) { grant in
            grant.identityId = identity.identityId
            grant.identityPoolId = identity.identityPoolId
            grant.amr = identity.amr
        }
    }
}
