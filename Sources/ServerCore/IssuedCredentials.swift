import AWSSigV4
package import DurableStorage
import FirehoseWire
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

/// The temporary credentials handed out (Cognito's GetCredentialsForIdentity, STS's AssumeRole) and not long expired, by access key, each on disk (one line of
/// `credentials.jsonl`, readable by its owner only) before a client sees it: a restart does not
/// invalidate what an app holds.
///
/// Expired credentials are kept a day, so that a client using them is told `ExpiredTokenException`
/// (which makes SDKs refresh) rather than that the key is unknown. At most `maxKept` are kept; past
/// that, the one that expires first is forgotten. The file is rewritten with only the kept ones when
/// it holds more than twice as many lines.
///
/// Two locks: the file's, held across an append's sync, and the grants', held only to read or
/// change the map, so the lookups of every signed request never wait for a disk.
package final class IssuedCredentials: Sendable {
    private struct FileState {
        var file: JSONLinesFile
        var lines: Int
    }

    private let file: Mutex<FileState>
    private let grants: Mutex<[String: CredentialGrant]>
    static let maxKept = 10_000
    static let keptAfterExpiry: TimeInterval = 86_400

    package init(path: String, now: Date) throws(FileSystemError) {
        let (file, lines) = try JSONLinesFile.open(path, mode: 0o600)
        var grants: [String: CredentialGrant] = [:]
        for line in lines {
            guard let grant = try? JSONDecoder().decode(CredentialGrant.self, from: Data(line)) else {
                throw FileSystemError(
                    operation: "parse", path: path, errno: EINVAL, detail: "a line is not an issued credential")
            }
            if Self.isKept(grant, now: now) { grants[grant.accessKeyId] = grant }
        }
        Self.evictOverLimit(&grants)
        var fileState = FileState(file: file, lines: lines.count)
        try Self.compactIfSparse(&fileState, grants: grants)
        self.file = Mutex(fileState)
        self.grants = Mutex(grants)
    }

    /// New credentials acting as `roleArn`, valid for `lifetime` seconds from `now`, described by
    /// `session` (who they were issued to) before they are saved.
    /// - Parameter bound: whether the role existed here then (see `CredentialGrant.bound`).
    package func issue(
        roleArn: String, bound: Bool, lifetime: TimeInterval, now: Date, session: (inout CredentialGrant) -> Void
    ) throws(FileSystemError) -> CredentialGrant {
        var random = SystemRandomNumberGenerator()
        var grant = CredentialGrant(
            accessKeyId: "ASIA" + RandomText.make(16, from: RandomText.base32),
            secretAccessKey: RandomText.make(40, from: Self.secretAlphabet),
            sessionToken: Base64.encode((0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }),
            expiration: (now.timeIntervalSince1970 + lifetime).rounded(.down), roleArn: roleArn, bound: bound)
        session(&grant)
        let line: [UInt8]
        do {
            line = Array(try JSONEncoder().encode(grant))
        } catch {
            throw FileSystemError(operation: "encode", path: "credentials", errno: EINVAL)
        }
        try file.withLock { file throws(FileSystemError) in
            try file.file.append(line)
            file.lines += 1
            let kept = grants.withLock { grants in
                grants[grant.accessKeyId] = grant
                // Pruned only when full: an issue does not rebuild the map every time.
                if grants.count > Self.maxKept {
                    grants = grants.filter { Self.isKept($0.value, now: now) }
                    Self.evictOverLimit(&grants)
                }
                return grants.count
            }
            guard file.lines > 2 * kept + 64 else { return }
            try Self.compactIfSparse(&file, grants: grants.withLock { $0 })
        }
        return grant
    }

    package func grant(forAccessKey accessKeyId: String) -> CredentialGrant? {
        grants.withLock { $0[accessKeyId] }
    }

    private static func isKept(_ grant: CredentialGrant, now: Date) -> Bool {
        grant.expiration + keptAfterExpiry > now.timeIntervalSince1970
    }

    private static func evictOverLimit(_ grants: inout [String: CredentialGrant]) {
        guard grants.count > maxKept else { return }
        let byExpiry = grants.values.sorted { $0.expiration < $1.expiration }
        for grant in byExpiry.prefix(grants.count - maxKept) { grants[grant.accessKeyId] = nil }
    }

    private static func compactIfSparse(_ file: inout FileState, grants: [String: CredentialGrant])
        throws(FileSystemError)
    {
        guard file.lines > 2 * grants.count + 64 else { return }
        let encoder = JSONEncoder()
        let lines = grants.values.sorted { $0.expiration < $1.expiration }.compactMap { try? Array(encoder.encode($0)) }
        try file.file.rewrite(lines)
        file.lines = lines.count
    }

    private static let secretAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
}
