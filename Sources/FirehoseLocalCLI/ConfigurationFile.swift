public import AWSSigV4
package import CognitoIdentityService
package import FaultInjection
public import FirehoseSink
public import FirehoseWire
package import IAMPolicy
import IAMService
import KinesisService
package import KinesisStreams
package import ServerCore
import Yams

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A problem with the configuration file, said the way a person fixes it: file, field, what is wrong.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// e.g. `DeliveryStreams[0].ExtendedS3DestinationConfiguration.BufferingHints.SizeInMBs`; empty for the whole file.
    public var field: String
    public var message: String

    public var description: String {
        field.isEmpty ? "\(file): \(message)" : "\(file): \(field): \(message)"
    }
}

/// The contents of a `firehose-local` configuration file (YAML, or JSON).
///
/// ```yaml
/// Authentication: verify          # or off
/// Credentials:                    # default: test / test
///   - {AccessKeyId: test, SecretAccessKey: test}
/// GzipLevel: 6
/// GzipImplementation: libdeflate  # or zlib; default: libdeflate for SizeInMBs up to 32, zlib above
/// LambdaFunctions:                # where Lambda processors' functions run here
///   - {FunctionName: enrich, Command: [python3, enrich.py], Timeout: 60}
///   - {FunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:tag", Endpoint: "http://127.0.0.1:3001"}
/// DeliveryStreams:                # CreateDeliveryStream requests, as given to AWS
///   - DeliveryStreamName: app-events
///     ExtendedS3DestinationConfiguration: {BucketARN: "arn:aws:s3:::demo-bucket", CompressionFormat: GZIP}
/// Buckets:                        # buckets whose objects go to an S3-compatible store
///   - Name: demo-bucket
///     Endpoint: http://127.0.0.1:9000
///     Credentials: {AccessKeyId: minio, SecretAccessKey: minio-secret}   # or CredentialsFrom
/// Faults:                         # fault rules, tried in order (see FaultRuleDefinition)
///   - {Name: flaky, FailRecords: {Fraction: 0.3}}
/// Quotas: aws                     # per-stream throughput quotas: aws, off (default), or
///                                 # {RecordsPerSecond: 1000, RequestsPerSecond: 100, MiBPerSecond: 1}
/// CheckDeliveryRoles: true         # streams' roles must exist, trust Firehose and allow delivery
/// Roles:                          # IAM roles whose identity-based policies bind their callers
///   - RoleName: AppUnauth         # or RoleArn
///     Policies: [{Version: "2012-10-17", Statement: [...]}]   # or the policy's JSON text
///     AssumeRolePolicyDocument: {...}   # the trust policy (STS's AssumeRole); Cognito's by default
/// ```
public struct ConfigurationFile: Sendable {
    public var authentication: AuthenticationMode?
    public var credentials: [AWSCredentials]
    public var gzipLevel: Int32?
    /// `GzipImplementation`: the deflate that writes GZIP objects.
    public var gzipImplementation: DeliveryStreamSettings.GzipImplementation?
    public var durability: Durability?
    public var deliveryStreams: [CreateDeliveryStreamInput]
    /// `LambdaFunctions`, in order.
    package var lambdaFunctions: [LambdaFunctionDirectory.Entry] = []
    /// `Buckets` mapped to a store, by the name streams give them. A store without a `Region` has
    /// an empty one here: the server's own applies.
    package var stores: [String: S3Store] = [:]
    /// `Faults`, in order, with distinct names.
    package var faults: [FaultRule] = []
    /// `Quotas`; nil when off.
    package var quotas: QuotaSetting?
    /// `Cognito.CredentialLifetimeSeconds`: how long issued credentials are valid.
    package var credentialLifetime: TimeInterval?
    /// `KinesisStreams`: data streams made at start when they do not exist.
    package var kinesisStreams: [StreamDefinition] = []
    /// `Cognito.IdentityPools`, as written: checked (and given ids) with the server's region.
    package var identityPools: [(pool: IdentityPool, roles: [String: String])] = []
    /// `Roles`, their policies parsed; ARNs are made with the server's account.
    package var roles: [ConfiguredRole] = []
    /// `Credentials` entries given `Policies`: the user's name and the policies, by access key.
    package var userPolicies: [String: (userName: String, policies: [IAMPolicy])] = [:]
    /// `CheckDeliveryRoles`: each stream's role must exist, trust Firehose and allow what delivery does.
    package var checksDeliveryRoles = false

    /// A role of `Roles`: named by its ARN, or by its name in the server's account.
    package struct ConfiguredRole: Sendable {
        package var roleARN: String?
        package var roleName: String?
        /// The policy documents, as JSON text (each checked).
        package var policies: [String]
        /// `AssumeRolePolicyDocument`, as JSON text (checked); nil: the saved role's, or Cognito's for
        /// a new one.
        package var trustPolicy: String?

        package func arn(accountID: String) -> String {
            roleARN ?? "arn:aws:iam::\(accountID):role/\(roleName ?? "")"
        }
    }

    public enum AuthenticationMode: String, Sendable, CaseIterable {
        case verify
        case off
    }

    public init(
        authentication: AuthenticationMode? = nil, credentials: [AWSCredentials] = [], gzipLevel: Int32? = nil,
        deliveryStreams: [CreateDeliveryStreamInput] = []
    ) {
        self.authentication = authentication
        self.credentials = credentials
        self.gzipLevel = gzipLevel
        self.deliveryStreams = deliveryStreams
    }

    public static func load(path: String) throws(ConfigurationError) -> ConfigurationFile {
        let contents: Data
        do {
            contents = try readFile(path)
        } catch {
            throw ConfigurationError(file: path, field: "", message: "cannot read the file (\(error.description)).")
        }
        return try parse(contents, path: path)
    }

    /// Parses YAML, or JSON when the file name ends in `.json` (JSON is also valid YAML, but JSON's
    /// own decoder gives better messages for JSON mistakes).
    /// - Parameter environment: where `CredentialsFrom: environment` (and a profile's file) are found.
    public static func parse(
        _ contents: Data, path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> ConfigurationFile {
        let shape: FileShape
        do {
            if path.lowercased().hasSuffix(".json") {
                shape = try JSONDecoder().decode(MemberChecked<FileShape>.self, from: contents).value
            } else {
                guard let text = String(data: contents, encoding: .utf8) else {
                    throw ConfigurationError(file: path, field: "", message: "the file is not UTF-8 text.")
                }
                if text.allSatisfy({ $0.isWhitespace }) { return ConfigurationFile() }
                shape = try YAMLDecoder().decode(MemberChecked<FileShape>.self, from: text).value
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw Self.describe(error, path: path)
        }
        return try shape.validated(path: path, environment: environment)
    }

    /// `DeliveryStreams.0.ExtendedS3DestinationConfiguration` → `DeliveryStreams[0].ExtendedS3DestinationConfiguration`
    static func fieldPath(_ components: [String]) -> String {
        var text = ""
        for component in components {
            if let index = Int(component) {
                text += "[\(index)]"
            } else if component.hasPrefix("Index "), let index = Int(component.dropFirst(6)) {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? component : ".\(component)"
            }
        }
        return text
    }

    static func describe(_ error: any Error, path: String) -> ConfigurationError {
        switch error {
        case let error as UnknownMemberError:
            return ConfigurationError(
                file: path, field: fieldPath(error.codingPath),
                message:
                    "unknown field '\(error.member)'. Known fields here: \(error.knownMembers.joined(separator: ", "))."
            )
        case let error as YamlError:
            return ConfigurationError(file: path, field: "", message: "not valid YAML: \(error)")
        case let error as DecodingError:
            // Yams reports what a type's own decoder threw as "not valid YAML" around the real error.
            if case .dataCorrupted(let context) = error, let underlying = context.underlyingError {
                return describe(underlying, path: path)
            }
            return describe(decoding: error, path: path)
        default:
            return ConfigurationError(file: path, field: "", message: "cannot be parsed: \(error)")
        }
    }

    static func describe(decoding error: DecodingError, path: String) -> ConfigurationError {
        func field(_ codingPath: [any CodingKey]) -> String {
            fieldPath(codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue })
        }
        switch error {
        case .typeMismatch(let type, let context):
            return ConfigurationError(
                file: path, field: field(context.codingPath), message: "expected \(Self.typeName(type)).")
        case .valueNotFound(let type, let context):
            return ConfigurationError(
                file: path, field: field(context.codingPath), message: "expected \(Self.typeName(type)), found nothing."
            )
        case .keyNotFound(let key, let context):
            return ConfigurationError(
                file: path, field: field(context.codingPath + [key]), message: "this field is required.")
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0))" } ?? ""
            return ConfigurationError(
                file: path, field: field(context.codingPath), message: "\(context.debugDescription)\(underlying)")
        @unknown default:
            return ConfigurationError(file: path, field: "", message: "\(error)")
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "text"
        case is Int.Type, is Int32.Type: return "a whole number"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "a list" }
            if name.hasPrefix("Dictionary") || name.contains("Shape") || name.contains("Configuration") {
                return "a mapping of fields"
            }
            return name
        }
    }

    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads a whole file, reporting the errno text ("No such file or directory") on failure.
    static func readFile(_ path: String) throws(ReadError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(description: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(description: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return Data(bytes)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
struct CredentialShape: Decodable {
    var AccessKeyId: String
    var SecretAccessKey: String
    var SessionToken: String?
    var Expiration: String?
    var UserName: String?
    var Policies: [JSONValue]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case AccessKeyId, SecretAccessKey, SessionToken, Expiration, UserName, Policies
    }
}

struct FileShape: Decodable {
    var authentication: String?
    var credentials: [CredentialShape]?
    var gzipLevel: Int?
    var gzipImplementation: String?
    var durability: String?
    var deliveryStreams: [CreateDeliveryStreamInput]?
    var lambdaFunctions: [FunctionShape]?
    var buckets: [BucketShape]?
    var faults: [FaultRuleDefinition]?
    var quotas: QuotasShape?
    var cognito: CognitoShape?
    var roles: [RoleShape]?
    var kinesisStreams: [KinesisStreamShape]?
    var checkDeliveryRoles: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case authentication = "Authentication"
        case credentials = "Credentials"
        case gzipLevel = "GzipLevel"
        case gzipImplementation = "GzipImplementation"
        case durability = "Durability"
        case deliveryStreams = "DeliveryStreams"
        case lambdaFunctions = "LambdaFunctions"
        case buckets = "Buckets"
        case faults = "Faults"
        case quotas = "Quotas"
        case cognito = "Cognito"
        case roles = "Roles"
        case kinesisStreams = "KinesisStreams"
        case checkDeliveryRoles = "CheckDeliveryRoles"
    }

    func validated(path: String, environment: [String: String]) throws(ConfigurationError) -> ConfigurationFile {
        var file = ConfigurationFile()
        if let authentication {
            guard let mode = ConfigurationFile.AuthenticationMode(rawValue: authentication.lowercased()) else {
                throw ConfigurationError(
                    file: path, field: "Authentication", message: "must be 'verify' or 'off', not '\(authentication)'.")
            }
            file.authentication = mode
        }
        for (index, credential) in (credentials ?? []).enumerated() {
            guard !credential.AccessKeyId.isEmpty, !credential.SecretAccessKey.isEmpty else {
                throw ConfigurationError(
                    file: path, field: "Credentials[\(index)]",
                    message: "AccessKeyId and SecretAccessKey must not be empty.")
            }
            var expiration: Date?
            if let text = credential.Expiration {
                guard let date = try? Date(text, strategy: .iso8601) else {
                    throw ConfigurationError(
                        file: path, field: "Credentials[\(index)].Expiration",
                        message: "must be an ISO 8601 time such as 2026-11-21T15:00:00Z, not '\(text)'.")
                }
                expiration = date
            }
            file.credentials.append(
                AWSCredentials(
                    accessKeyId: credential.AccessKeyId, secretAccessKey: credential.SecretAccessKey,
                    sessionToken: credential.SessionToken, expiration: expiration))
            if let documents = credential.Policies {
                let userName = credential.UserName ?? credential.AccessKeyId
                guard Self.isIAMName(userName) else {
                    throw ConfigurationError(
                        file: path, field: "Credentials[\(index)].UserName",
                        message: "must be 1 to 64 letters, digits and +=,.@_-, not '\(userName)'.")
                }
                file.userPolicies[credential.AccessKeyId] = (
                    userName,
                    try Self.policies(documents, path: path, field: "Credentials[\(index)].Policies").map(\.policy)
                )
            } else if credential.UserName != nil {
                throw ConfigurationError(
                    file: path, field: "Credentials[\(index)].UserName",
                    message: "names the user in refusals of its Policies; give Policies too.")
            }
        }
        if let gzipLevel {
            guard (1...9).contains(gzipLevel) else {
                throw ConfigurationError(
                    file: path, field: "GzipLevel", message: "must be between 1 and 9, not \(gzipLevel).")
            }
            file.gzipLevel = Int32(gzipLevel)
        }
        if let gzipImplementation {
            guard
                let implementation = DeliveryStreamSettings.GzipImplementation(
                    rawValue: gzipImplementation.lowercased())
            else {
                throw ConfigurationError(
                    file: path, field: "GzipImplementation",
                    message: "must be 'zlib' or 'libdeflate', not '\(gzipImplementation)'.")
            }
            file.gzipImplementation = implementation
        }
        if let durability {
            guard let mode = Durability(rawValue: durability.lowercased()) else {
                throw ConfigurationError(
                    file: path, field: "Durability", message: "must be 'fsync' or 'none', not '\(durability)'.")
            }
            file.durability = mode
        }
        file.deliveryStreams = deliveryStreams ?? []
        for (index, function) in (lambdaFunctions ?? []).enumerated() {
            file.lambdaFunctions.append(try function.validated(path: path, field: "LambdaFunctions[\(index)]"))
        }
        for (index, bucket) in (buckets ?? []).enumerated() {
            let field = "Buckets[\(index)]"
            let store = try bucket.validated(path: path, field: field, environment: environment)
            guard file.stores[bucket.Name] == nil else {
                throw ConfigurationError(
                    file: path, field: "\(field).Name", message: "'\(bucket.Name)' is mapped twice.")
            }
            file.stores[bucket.Name] = store
        }
        for (index, definition) in (faults ?? []).enumerated() {
            let field = "Faults[\(index)]"
            let rule: FaultRule
            do throws(FaultRuleError) {
                rule = try definition.validated(defaultName: "fault-\(index + 1)")
            } catch {
                throw ConfigurationError(
                    file: path, field: error.field.isEmpty ? field : "\(field).\(error.field)", message: error.message)
            }
            guard !file.faults.contains(where: { $0.name == rule.name }) else {
                throw ConfigurationError(
                    file: path, field: "\(field).Name", message: "a fault rule named '\(rule.name)' comes earlier.")
            }
            guard file.faults.count < FaultRuleSet.maxRules else {
                throw ConfigurationError(
                    file: path, field: "Faults", message: "at most \(FaultRuleSet.maxRules) fault rules.")
            }
            file.faults.append(rule)
        }
        file.quotas = try quotas?.validated(path: path)
        file.checksDeliveryRoles = checkDeliveryRoles ?? false
        if let lifetime = cognito?.CredentialLifetimeSeconds {
            guard (1...43_200).contains(lifetime) else {
                throw ConfigurationError(
                    file: path, field: "Cognito.CredentialLifetimeSeconds",
                    message: "must be between 1 and 43200 (12 hours), not \(lifetime).")
            }
            file.credentialLifetime = TimeInterval(lifetime)
        }
        file.identityPools = (cognito?.IdentityPools ?? []).map { ($0.pool, $0.roles ?? [:]) }
        for (index, stream) in (kinesisStreams ?? []).enumerated() {
            let field = "KinesisStreams[\(index)]"
            let definition: StreamDefinition
            do throws(FirehoseError) {
                definition = try KinesisAPI.definition(stream.input)
            } catch {
                throw ConfigurationError(file: path, field: field, message: error.message)
            }
            guard !file.kinesisStreams.contains(where: { $0.name == definition.name }) else {
                throw ConfigurationError(
                    file: path, field: "\(field).StreamName", message: "'\(definition.name)' is defined twice.")
            }
            file.kinesisStreams.append(definition)
        }
        let shards = file.kinesisStreams.reduce(0) { $0 + $1.shardCount }
        guard shards <= KinesisAPI.Limits.shardsPerAccount else {
            throw ConfigurationError(
                file: path, field: "KinesisStreams",
                message:
                    "\(shards) shards in all; an account has at most \(KinesisAPI.Limits.shardsPerAccount) (a stream without ShardCount, or on demand, has 4)."
            )
        }
        for (index, role) in (roles ?? []).enumerated() {
            let field = "Roles[\(index)]"
            switch (role.RoleName, role.RoleArn) {
            case (let name?, nil):
                guard Self.isIAMName(name) else {
                    throw ConfigurationError(
                        file: path, field: "\(field).RoleName",
                        message: "must be 1 to 64 letters, digits and +=,.@_-, not '\(name)'.")
                }
            case (nil, let arn?):
                guard CognitoIdentityAPI.isRoleARN(arn) else {
                    throw ConfigurationError(
                        file: path, field: "\(field).RoleArn",
                        message: "must be a role's ARN (arn:aws:iam::ACCOUNT:role/NAME), not '\(arn)'.")
                }
            default:
                throw ConfigurationError(file: path, field: field, message: "give RoleName or RoleArn (one of them).")
            }
            file.roles.append(
                ConfigurationFile.ConfiguredRole(
                    roleARN: role.RoleArn, roleName: role.RoleName,
                    policies: try Self.policies(role.Policies ?? [], path: path, field: "\(field).Policies").map(
                        \.text),
                    trustPolicy: try role.AssumeRolePolicyDocument.map { document throws(ConfigurationError) in
                        try Self.policy(
                            document, kind: .trust, path: path, field: "\(field).AssumeRolePolicyDocument"
                        ).text
                    }))
        }
        return file
    }

    /// IAM's user and role names: `[\w+=,.@-]{1,64}`.
    static func isIAMName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && QueryProtocol.isIAMNameText(name)
    }

    /// Policies as written: documents (YAML or JSON objects), or the JSON text of one, as pasted from
    /// AWS's console; each with its JSON text.
    static func policies(_ documents: [JSONValue], path: String, field: String) throws(ConfigurationError)
        -> [(text: String, policy: IAMPolicy)]
    {
        var policies: [(text: String, policy: IAMPolicy)] = []
        for (index, document) in documents.enumerated() {
            policies.append(try policy(document, kind: .identityBased, path: path, field: "\(field)[\(index)]"))
        }
        return policies
    }

    /// One policy as written (a document, or its JSON text), read as `kind`, with its JSON text.
    static func policy(_ document: JSONValue, kind: IAMPolicy.Kind, path: String, field: String)
        throws(ConfigurationError) -> (text: String, policy: IAMPolicy)
    {
        do throws(IAMPolicyError) {
            if case .string(let text) = document {
                return (text, try IAMPolicy(json: Array(text.utf8), kind: kind))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let text = (try? encoder.encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return (text, try IAMPolicy(document: document, kind: kind))
        } catch {
            throw ConfigurationError(
                file: path, field: error.field.isEmpty ? field : "\(field).\(error.field)", message: error.message)
        }
    }
}
