import AWSCredentialProviders
import AWSSigV4
import CognitoIdentityService
import FirehoseSink
import FirehoseWire
import KinesisService
import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

// The sections of a configuration file besides its streams and credentials, each decoded strictly
// and validated into what the server takes.

/// A role of `Roles`: its name or ARN, its identity-based policies, and its trust policy.
// swift-format-ignore: AlwaysUseLowerCamelCase
struct RoleShape: Decodable {
    var RoleName: String?
    var RoleArn: String?
    var Policies: [JSONValue]?
    var AssumeRolePolicyDocument: JSONValue?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case RoleName, RoleArn, Policies, AssumeRolePolicyDocument
    }
}

/// A data stream as CreateStream takes it.
// swift-format-ignore: AlwaysUseLowerCamelCase
struct KinesisStreamShape: Decodable {
    struct ModeShape: Decodable {
        var StreamMode: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case StreamMode
        }

        init(from decoder: any Decoder) throws {
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

    var input: CreateStreamInput {
        CreateStreamInput(
            StreamName: StreamName, ShardCount: ShardCount,
            StreamModeDetails: StreamModeDetails.map { CreateStreamInput.ModeDetails(StreamMode: $0.StreamMode) },
            MaxRecordSizeInKiB: MaxRecordSizeInKiB)
    }
}

/// `Cognito`: identity pools that exist from the start, and how long issued credentials last.
// swift-format-ignore: AlwaysUseLowerCamelCase
struct CognitoShape: Decodable {
    var CredentialLifetimeSeconds: Int?
    var IdentityPools: [IdentityPoolShape]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case CredentialLifetimeSeconds, IdentityPools
    }
}

/// A pool as CreateIdentityPool takes it, with an optional `IdentityPoolId` and the `Roles` of
/// SetIdentityPoolRoles.
struct IdentityPoolShape: Decodable, DeclaresKnownMembers {
    var pool: IdentityPool
    var roles: [String: String]?

    static var knownMembers: [String] { IdentityPool.CodingKeys.allCases.map(\.rawValue) + ["Roles"] }

    init(from decoder: any Decoder) throws {
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
struct QuotasShape: Decodable {
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
struct FunctionShape: Decodable {
    var FunctionArn: String?
    var FunctionName: String?
    var Command: [String]?
    var Endpoint: String?
    var InvokeName: String?
    var Timeout: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case FunctionArn, FunctionName, Command, Endpoint, InvokeName, Timeout
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
struct BucketShape: Decodable {
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
