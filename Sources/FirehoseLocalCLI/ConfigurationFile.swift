import AWSCredentialProviders
import AWSSigV4
import CognitoIdentityService
import FaultInjection
import FirehoseSink
import FirehoseWire
import IAMPolicy
import IAMService
import KinesisService
import KinesisStreams
import ServerCore
import Yams

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
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
/// Roles:                          # IAM roles whose identity-based policies bind their callers
///   - RoleName: AppUnauth         # or RoleArn
///     Policies: [{Version: "2012-10-17", Statement: [...]}]   # or the policy's JSON text
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

    /// A role of `Roles`: named by its ARN, or by its name in the server's account.
    package struct ConfiguredRole: Sendable {
        package var roleARN: String?
        package var roleName: String?
        /// The policy documents, as JSON text (each checked).
        package var policies: [String]

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
                let decoder = JSONDecoder()
                decoder.userInfo[.rejectUnknownMembers] = true
                shape = try decoder.decode(FileShape.self, from: contents)
            } else {
                guard let text = String(data: contents, encoding: .utf8) else {
                    throw ConfigurationError(file: path, field: "", message: "the file is not UTF-8 text.")
                }
                if text.allSatisfy({ $0.isWhitespace }) { return ConfigurationFile() }
                shape = try YAMLDecoder().decode(
                    FileShape.self, from: text, userInfo: [.rejectUnknownMembers: true])
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
private struct CredentialShape: Decodable {
    var AccessKeyId: String
    var SecretAccessKey: String
    var SessionToken: String?
    var Expiration: String?
    var UserName: String?
    var Policies: [JSONValue]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case AccessKeyId, SecretAccessKey, SessionToken, Expiration, UserName, Policies
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        AccessKeyId = try container.decode(String.self, forKey: .AccessKeyId)
        SecretAccessKey = try container.decode(String.self, forKey: .SecretAccessKey)
        SessionToken = try container.decodeIfPresent(String.self, forKey: .SessionToken)
        Expiration = try container.decodeIfPresent(String.self, forKey: .Expiration)
        UserName = try container.decodeIfPresent(String.self, forKey: .UserName)
        Policies = try container.decodeIfPresent([JSONValue].self, forKey: .Policies)
    }
}

private struct FileShape: Decodable {
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
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authentication = try container.decodeIfPresent(String.self, forKey: .authentication)
        credentials = try container.decodeIfPresent([CredentialShape].self, forKey: .credentials)
        gzipLevel = try container.decodeIfPresent(Int.self, forKey: .gzipLevel)
        gzipImplementation = try container.decodeIfPresent(String.self, forKey: .gzipImplementation)
        durability = try container.decodeIfPresent(String.self, forKey: .durability)
        deliveryStreams = try container.decodeIfPresent([CreateDeliveryStreamInput].self, forKey: .deliveryStreams)
        lambdaFunctions = try container.decodeIfPresent([FunctionShape].self, forKey: .lambdaFunctions)
        buckets = try container.decodeIfPresent([BucketShape].self, forKey: .buckets)
        faults = try container.decodeIfPresent([FaultRuleDefinition].self, forKey: .faults)
        quotas = try container.decodeIfPresent(QuotasShape.self, forKey: .quotas)
        cognito = try container.decodeIfPresent(CognitoShape.self, forKey: .cognito)
        roles = try container.decodeIfPresent([RoleShape].self, forKey: .roles)
        kinesisStreams = try container.decodeIfPresent([KinesisStreamShape].self, forKey: .kinesisStreams)
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
                    policies: try Self.policies(role.Policies ?? [], path: path, field: "\(field).Policies").map(\.text)
                ))
        }
        return file
    }

    /// IAM's user and role names: `[\w+=,.@-]{1,64}`.
    static func isIAMName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && IAMAPI.isNameText(name)
    }

    /// Policies as written: documents (YAML or JSON objects), or the JSON text of one, as pasted from
    /// AWS's console; each with its JSON text.
    static func policies(_ documents: [JSONValue], path: String, field: String) throws(ConfigurationError)
        -> [(text: String, policy: IAMPolicy)]
    {
        var policies: [(text: String, policy: IAMPolicy)] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for (index, document) in documents.enumerated() {
            do throws(IAMPolicyError) {
                if case .string(let text) = document {
                    policies.append((text, try IAMPolicy(json: Array(text.utf8))))
                } else {
                    let text = (try? encoder.encode(document)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                    policies.append((text, try IAMPolicy(document: document)))
                }
            } catch {
                let place = error.field.isEmpty ? "\(field)[\(index)]" : "\(field)[\(index)].\(error.field)"
                throw ConfigurationError(file: path, field: place, message: error.message)
            }
        }
        return policies
    }
}

/// A role of `Roles`: its name or ARN, and its identity-based policies.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct RoleShape: Decodable {
    var RoleName: String?
    var RoleArn: String?
    var Policies: [JSONValue]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case RoleName, RoleArn, Policies
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        RoleName = try container.decodeIfPresent(String.self, forKey: .RoleName)
        RoleArn = try container.decodeIfPresent(String.self, forKey: .RoleArn)
        Policies = try container.decodeIfPresent([JSONValue].self, forKey: .Policies)
    }
}

/// A data stream as CreateStream takes it.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct KinesisStreamShape: Decodable {
    struct ModeShape: Decodable {
        var StreamMode: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case StreamMode
        }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownMembers(CodingKeys.self)
            StreamMode = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(
                String.self, forKey: .StreamMode)
        }
    }

    var StreamName: String?
    var ShardCount: Int?
    var StreamModeDetails: ModeShape?
    var MaxRecordSizeInKiB: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case StreamName, ShardCount, StreamModeDetails, MaxRecordSizeInKiB
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        StreamName = try container.decodeIfPresent(String.self, forKey: .StreamName)
        ShardCount = try container.decodeIfPresent(Int.self, forKey: .ShardCount)
        StreamModeDetails = try container.decodeIfPresent(ModeShape.self, forKey: .StreamModeDetails)
        MaxRecordSizeInKiB = try container.decodeIfPresent(Int.self, forKey: .MaxRecordSizeInKiB)
    }

    var input: CreateStreamInput {
        CreateStreamInput(
            StreamName: StreamName, ShardCount: ShardCount,
            StreamModeDetails: StreamModeDetails.map { CreateStreamInput.ModeDetails(StreamMode: $0.StreamMode) },
            MaxRecordSizeInKiB: MaxRecordSizeInKiB)
    }
}

/// `Cognito`: identity pools that exist from the start, and how long issued credentials last.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct CognitoShape: Decodable {
    var CredentialLifetimeSeconds: Int?
    var IdentityPools: [IdentityPoolShape]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case CredentialLifetimeSeconds, IdentityPools
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        CredentialLifetimeSeconds = try container.decodeIfPresent(Int.self, forKey: .CredentialLifetimeSeconds)
        IdentityPools = try container.decodeIfPresent([IdentityPoolShape].self, forKey: .IdentityPools)
    }
}

/// A pool as CreateIdentityPool takes it, with an optional `IdentityPoolId` and the `Roles` of
/// SetIdentityPoolRoles.
private struct IdentityPoolShape: Decodable {
    var pool: IdentityPool
    var roles: [String: String]?

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(known: IdentityPool.CodingKeys.allCases.map(\.rawValue) + ["Roles"])
        pool = try IdentityPool(from: decoder)
        roles = try decoder.container(keyedBy: RolesKey.self).decodeIfPresent([String: String].self, forKey: .Roles)
    }

    enum RolesKey: String, CodingKey {
        case Roles
    }
}

/// `Quotas`: `aws` (AWS's defaults for the server's region), `off`, or rates of one's own, AWS's
/// default for any left out.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct QuotasShape: Decodable {
    var mode: String?
    var RecordsPerSecond: Int?
    var RequestsPerSecond: Int?
    var MiBPerSecond: Double?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case RecordsPerSecond, RequestsPerSecond, MiBPerSecond
    }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            mode = text
            return
        }
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        RecordsPerSecond = try container.decodeIfPresent(Int.self, forKey: .RecordsPerSecond)
        RequestsPerSecond = try container.decodeIfPresent(Int.self, forKey: .RequestsPerSecond)
        MiBPerSecond = try container.decodeIfPresent(Double.self, forKey: .MiBPerSecond)
    }

    func validated(path: String) throws(ConfigurationError) -> QuotaSetting? {
        func fail(_ field: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: path, field: field.isEmpty ? "Quotas" : "Quotas.\(field)", message: message)
        }
        if let mode {
            switch mode.lowercased() {
            case "aws": return QuotaSetting()
            case "off": return nil
            default:
                throw fail(
                    "",
                    "must be 'aws', 'off', or a mapping of RecordsPerSecond, RequestsPerSecond and MiBPerSecond, not '\(mode)'."
                )
            }
        }
        var setting = QuotaSetting()
        if let records = RecordsPerSecond {
            guard records >= 1 else { throw fail("RecordsPerSecond", "must be at least 1, not \(records).") }
            setting.recordsPerSecond = records
        }
        if let requests = RequestsPerSecond {
            guard requests >= 1 else { throw fail("RequestsPerSecond", "must be at least 1, not \(requests).") }
            setting.requestsPerSecond = requests
        }
        if let mebibytes = MiBPerSecond {
            // Below 1 MiB/s (AWS's smallest), a record of the largest size could never fit.
            guard mebibytes.isFinite, mebibytes >= 1, mebibytes <= 1024 else {
                throw fail("MiBPerSecond", "must be from 1 to 1024, not \(mebibytes).")
            }
            setting.bytesPerSecond = Int(mebibytes * 1_048_576)
        }
        return setting
    }
}

/// One entry of `LambdaFunctions`: which function (`FunctionArn` or `FunctionName`) and where it runs
/// (`Command` or `Endpoint`, with `InvokeName` for an endpoint that knows it by another name, such
/// as the Runtime Interface Emulator's `function`).
private struct FunctionShape: Decodable {
    var FunctionArn: String?
    var FunctionName: String?
    var Command: [String]?
    var Endpoint: String?
    var InvokeName: String?
    var Timeout: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case FunctionArn, FunctionName, Command, Endpoint, InvokeName, Timeout
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        FunctionArn = try container.decodeIfPresent(String.self, forKey: .FunctionArn)
        FunctionName = try container.decodeIfPresent(String.self, forKey: .FunctionName)
        Command = try container.decodeIfPresent([String].self, forKey: .Command)
        Endpoint = try container.decodeIfPresent(String.self, forKey: .Endpoint)
        InvokeName = try container.decodeIfPresent(String.self, forKey: .InvokeName)
        Timeout = try container.decodeIfPresent(Int.self, forKey: .Timeout)
    }

    func validated(path: String, field: String) throws(ConfigurationError) -> LambdaFunctionDirectory.Entry {
        func fail(_ member: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: path, field: member.isEmpty ? field : "\(field).\(member)", message: message)
        }
        if let arn = FunctionArn, LambdaFunctionDirectory.functionName(inARN: arn) == nil {
            throw fail(
                "FunctionArn", "'\(arn)' is not a Lambda function ARN (arn:aws:lambda:REGION:ACCOUNT:function:NAME).")
        }
        for (member, name) in [("FunctionName", FunctionName), ("InvokeName", InvokeName)] {
            if let name, !LambdaFunctionDirectory.isFunctionName(name) {
                throw fail(member, "'\(name)' is not a function name (1 to 64 letters, digits, - and _).")
            }
        }
        guard (FunctionArn == nil) != (FunctionName == nil) else {
            throw fail("", "give FunctionArn or FunctionName (one of them): which function this entry runs.")
        }
        // Lambda's own bounds for a function's timeout (1 to 900 seconds); Firehose waits five
        // minutes at most whatever it is.
        if let timeout = Timeout, !(1...900).contains(timeout) {
            throw fail("Timeout", "must be a whole number of seconds from 1 to 900 (Lambda's range), not \(timeout).")
        }
        let function: LambdaFunction
        switch (Command, Endpoint) {
        case (let command?, nil):
            guard let program = command.first, !program.isEmpty else {
                throw fail("Command", "must name a program, e.g. [python3, transform.py].")
            }
            guard InvokeName == nil else { throw fail("InvokeName", "applies to an Endpoint, not a Command.") }
            function = .command(command)
        case (nil, let text?):
            guard let url = LambdaFunctionDirectory.endpointURL(text) else {
                throw fail(
                    "Endpoint", "must be an http:// or https:// URL such as http://127.0.0.1:3001, not '\(text)'.")
            }
            let name = InvokeName ?? FunctionName ?? LambdaFunctionDirectory.functionName(inARN: FunctionArn!)!
            function = .invokeAPI(endpoint: url, functionName: name)
        default:
            throw fail(
                "",
                "give Command (a program that reads the event on stdin) or Endpoint (a Lambda Invoke API), one of them."
            )
        }
        return LambdaFunctionDirectory.Entry(
            arn: FunctionArn, name: FunctionName, function: function,
            timeout: Timeout.map { .seconds($0) } ?? LambdaTransformationSettings.defaultInvocationTimeout)
    }
}

/// One entry of `Buckets`: a bucket (by the name streams give it) whose objects go to an
/// S3-compatible store, and how to reach and sign for that store.
private struct BucketShape: Decodable {
    var Name: String
    var Endpoint: String
    var Region: String?
    var StoreBucket: String?
    var AddressingStyle: String?
    var Credentials: CredentialShape?
    var CredentialsFrom: String?
    var Timeout: Int?
    var MultipartThresholdMB: Int?
    var PartSizeMB: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case Name, Endpoint, Region, StoreBucket, AddressingStyle, Credentials, CredentialsFrom, Timeout
        case MultipartThresholdMB, PartSizeMB
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownMembers(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        Name = try container.decode(String.self, forKey: .Name)
        Endpoint = try container.decode(String.self, forKey: .Endpoint)
        Region = try container.decodeIfPresent(String.self, forKey: .Region)
        StoreBucket = try container.decodeIfPresent(String.self, forKey: .StoreBucket)
        AddressingStyle = try container.decodeIfPresent(String.self, forKey: .AddressingStyle)
        Credentials = try container.decodeIfPresent(CredentialShape.self, forKey: .Credentials)
        CredentialsFrom = try container.decodeIfPresent(String.self, forKey: .CredentialsFrom)
        Timeout = try container.decodeIfPresent(Int.self, forKey: .Timeout)
        MultipartThresholdMB = try container.decodeIfPresent(Int.self, forKey: .MultipartThresholdMB)
        PartSizeMB = try container.decodeIfPresent(Int.self, forKey: .PartSizeMB)
    }

    func validated(path: String, field: String, environment: [String: String]) throws(ConfigurationError) -> S3Store {
        func fail(_ member: String, _ message: String) -> ConfigurationError {
            ConfigurationError(file: path, field: "\(field).\(member)", message: message)
        }
        guard BucketFolders.isBucketName(Name) else {
            throw fail(
                "Name",
                "'\(Name)' is not a bucket name (letters, digits, '.', '-', '_'; a letter or digit first and last).")
        }
        guard let url = URL(string: Endpoint), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.path.isEmpty || url.path == "/"
        else {
            throw fail(
                "Endpoint",
                "must be an http:// or https:// URL of a host (and port), without a path: not '\(Endpoint)'.")
        }
        if let Region, Region.isEmpty {
            throw fail("Region", "must not be empty (leave it out for the server's region).")
        }
        let storeBucket = StoreBucket ?? Name
        if let problem = BucketFolders.newBucketNameProblem(storeBucket) {
            throw fail(
                StoreBucket == nil ? "Name" : "StoreBucket",
                "'\(storeBucket)' is not an S3 bucket name, so no store would take it: \(problem)"
                    + (StoreBucket == nil ? " Give the store's name in StoreBucket." : ""))
        }
        let pathStyle: Bool
        switch AddressingStyle?.lowercased() {
        case nil, "path": pathStyle = true
        case "virtual": pathStyle = false
        case let other?: throw fail("AddressingStyle", "must be 'path' or 'virtual', not '\(other)'.")
        }
        let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { UInt8($0) != nil }
        if !pathStyle, isAddress {
            throw fail(
                "AddressingStyle", "'virtual' needs a host name to put the bucket in front of, not the address \(host)."
            )
        }
        var timeout = Duration.seconds(120)
        if let Timeout {
            guard (1...3600).contains(Timeout) else {
                throw fail("Timeout", "must be 1 to 3600 seconds, not \(Timeout).")
            }
            timeout = .seconds(Timeout)
        }
        let credentials: AWSCredentials
        switch (Credentials, CredentialsFrom) {
        case (let given?, nil):
            guard !given.AccessKeyId.isEmpty, !given.SecretAccessKey.isEmpty else {
                throw fail("Credentials", "AccessKeyId and SecretAccessKey must not be empty.")
            }
            credentials = AWSCredentials(
                accessKeyId: given.AccessKeyId, secretAccessKey: given.SecretAccessKey, sessionToken: given.SessionToken
            )
        case (nil, "environment"?):
            do {
                credentials = try EnvironmentCredentialsProvider(environment: environment).resolve()
            } catch {
                throw fail("CredentialsFrom", "'environment': \(error)")
            }
        case (nil, let from?) where from.hasPrefix("profile:"):
            // The shared files as the AWS CLI and FirehoseClient read them.
            let profile = String(from.dropFirst("profile:".count))
            do {
                credentials = try ProfileCredentialsProvider(profile: profile, environment: environment).resolve()
            } catch {
                throw fail("CredentialsFrom", "profile '\(profile)': \(error)")
            }
        case (nil, let from?):
            throw fail("CredentialsFrom", "must be 'environment' or 'profile:<name>', not '\(from)'.")
        case (nil, nil):
            throw fail("Credentials", "give Credentials {AccessKeyId, SecretAccessKey} or CredentialsFrom.")
        case (_?, _?):
            throw fail("CredentialsFrom", "give Credentials or CredentialsFrom, not both.")
        }
        guard let endpoint = URL(string: "\(scheme)://\(S3Store.authority(url))") else {
            throw fail("Endpoint", "'\(Endpoint)' is not a URL this server can reach.")
        }
        var store = S3Store(
            endpoint: endpoint, region: Region ?? "", bucket: storeBucket, credentials: credentials,
            pathStyle: pathStyle)
        store.timeout = timeout
        // S3 takes parts of 5 MiB to 5 GiB; an upload holds an object under the threshold, or a
        // part, in memory, so both stop at 512 MiB.
        if let MultipartThresholdMB {
            guard (1...512).contains(MultipartThresholdMB) else {
                throw fail("MultipartThresholdMB", "must be 1 to 512 (MiB), not \(MultipartThresholdMB).")
            }
            store.multipartThreshold = MultipartThresholdMB << 20
        }
        if let PartSizeMB {
            guard (5...512).contains(PartSizeMB) else {
                throw fail(
                    "PartSizeMB", "must be 5 to 512 (MiB; S3 refuses parts under 5 MiB), not \(PartSizeMB).")
            }
            store.partSize = PartSizeMB << 20
        }
        return store
    }
}
