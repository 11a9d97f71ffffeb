package import DurableStorage
import FirehoseWire
package import IAMPolicy
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

/// An IAM role as firehose-local keeps it: what GetRole answers, and its inline policies.
struct IAMRole: Codable, Sendable, Equatable {
    var arn: String
    var roleName: String
    var path: String
    var roleID: String
    /// Seconds since 1970.
    var createDate: Double
    var assumeRolePolicyDocument: String
    var description: String?
    var maxSessionDuration: Int
    /// Inline policies: name to document, as given.
    var policies: [String: String]

    enum CodingKeys: String, CodingKey {
        case arn = "Arn"
        case roleName = "RoleName"
        case path = "Path"
        case roleID = "RoleId"
        case createDate = "CreateDate"
        case assumeRolePolicyDocument = "AssumeRolePolicyDocument"
        case description = "Description"
        case maxSessionDuration = "MaxSessionDuration"
        case policies = "Policies"
    }

    /// Role names are unique regardless of case in IAM.
    var key: String { roleName.lowercased() }

    /// A role's unique id: `AROA` and 17 characters of base 32, as IAM's.
    static func newID() -> String {
        "AROA" + RandomText.make(17, from: RandomText.base32)
    }

    /// The trust policy of a role given without one (the configuration file's): Cognito's.
    static let cognitoTrustPolicy =
        #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"cognito-identity.amazonaws.com"},"Action":"sts:AssumeRoleWithWebIdentity"}]}"#
}

/// The roles, in `<data-dir>/.firehose-local/iam/roles.json` (replaced whole, fsynced, before a change
/// is visible), and their inline policies parsed, by role ARN, for `AccessPolicies`.
package final class RoleStore: Sendable {
    private struct State {
        var roles: [String: IAMRole] = [:]
        /// By lowercased ARN: what delivery and STS look up for each object and call.
        var policies: [String: [IAMPolicy]] = [:]
        var assumable: [String: AssumableRole] = [:]
    }

    private let state = Mutex(State())
    private let path: String
    static let maxRoles = 1_000

    package init(folder: String) throws(FileSystemError) {
        path = "\(folder)/roles.json"
        try POSIX.makeDirectoriesDurably(folder)
        guard POSIX.exists(path) else { return }
        let bytes = try POSIX.readFile(path)
        guard let stored = try? JSONDecoder().decode(StoredRoles.self, from: Data(bytes)) else {
            throw FileSystemError(operation: "parse", path: path, errno: EINVAL)
        }
        let roles = Dictionary(stored.roles.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        state.withLock { $0 = Self.state(roles) }
    }

    private struct StoredRoles: Codable {
        var format = 1
        var roles: [IAMRole]

        enum CodingKeys: String, CodingKey {
            case format = "Format"
            case roles = "Roles"
        }
    }

    /// The inline policies of the role with this ARN (compared regardless of case, as role names
    /// are); nil when there is no such role.
    package func policies(ofRoleARN arn: String) -> [IAMPolicy]? {
        let key = arn.lowercased()
        return state.withLock { $0.policies[key] }
    }

    /// The `AROA…` id of the role with this ARN (compared regardless of case); nil when there is no
    /// such role.
    package func roleID(ofRoleARN arn: String) -> String? {
        assumableRole(arn: arn)?.roleID
    }

    /// The role with this ARN (compared regardless of case) as STS's AssumeRole reads it; nil when
    /// there is no such role.
    package func assumableRole(arn: String) -> AssumableRole? {
        let key = arn.lowercased()
        return state.withLock { $0.assumable[key] }
    }

    var roles: [String: IAMRole] { state.withLock { $0.roles } }

    /// Runs `change` on the roles as they are (by lowercased name) and, when it returns new ones,
    /// saves them before they take effect.
    func change<Result>(
        _ change: ([String: IAMRole]) throws(FirehoseError) -> (roles: [String: IAMRole]?, result: Result)
    ) throws(FirehoseError) -> Result {
        try state.withLock { state throws(FirehoseError) -> Result in
            let (roles, result) = try change(state.roles)
            if let roles {
                do throws(FileSystemError) {
                    try save(roles)
                } catch {
                    var failure = FirehoseError(
                        code: "ServiceFailure", message: "The role could not be saved; see the server's log.",
                        httpStatus: 500)
                    failure.logDetail = error.description
                    throw failure
                }
                state = Self.state(roles)
            }
            return result
        }
    }

    /// Puts the configuration file's roles (ARN to policy documents) in place of the saved ones of the
    /// same ARN, at start, with the trust policy given (by ARN); without one, a new role gets Cognito's
    /// and a saved one keeps its own.
    package func apply(configured: [String: [String]], trustPolicies: [String: String] = [:], now: Date)
        throws(FileSystemError)
    {
        guard !configured.isEmpty else { return }
        try state.withLock { state throws(FileSystemError) in
            var roles = state.roles
            for (arn, documents) in configured {
                let resource = String(arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)[5])
                let name = String(resource.split(separator: "/").last ?? "")
                let path = String(resource.dropFirst("role".count).dropLast(name.count))
                let policies = Dictionary(
                    documents.enumerated().map { ("policy-\($0.offset + 1)", $0.element) }, uniquingKeysWith: { $1 })
                var role =
                    roles[name.lowercased()]
                    ?? IAMRole(
                        arn: arn, roleName: name, path: path, roleID: IAMRole.newID(),
                        createDate: now.timeIntervalSince1970.rounded(.down),
                        assumeRolePolicyDocument: IAMRole.cognitoTrustPolicy, description: nil,
                        maxSessionDuration: 3_600, policies: [:])
                role.arn = arn
                role.path = path
                role.policies = policies
                if let trust = trustPolicies[arn] { role.assumeRolePolicyDocument = trust }
                roles[role.key] = role
            }
            if roles != state.roles {
                try save(roles)
                state = Self.state(roles)
            }
        }
    }

    private func save(_ roles: [String: IAMRole]) throws(FileSystemError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(StoredRoles(roles: roles.keys.sorted().map { roles[$0]! })) else {
            throw FileSystemError(operation: "encode", path: path, errno: EINVAL)
        }
        try AtomicFile.replace(path, with: Array(data), temporary: path + ".tmp", durable: true)
    }

    /// The roles with their policies parsed (each was checked when it was put), by ARN.
    private static func state(_ roles: [String: IAMRole]) -> State {
        var state = State(roles: roles)
        for role in roles.values {
            let key = role.arn.lowercased()
            state.policies[key] = role.policies.keys.sorted().compactMap {
                try? IAMPolicy(json: Array(role.policies[$0]!.utf8))
            }
            state.assumable[key] = AssumableRole(
                arn: role.arn, roleID: role.roleID, trustPolicy: role.assumeRolePolicyDocument,
                maxSessionDuration: role.maxSessionDuration,
                hasDefaultTrust: role.assumeRolePolicyDocument == IAMRole.cognitoTrustPolicy)
        }
        return state
    }
}
