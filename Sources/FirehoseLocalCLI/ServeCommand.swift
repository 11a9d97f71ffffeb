import AWSSigV4
public import ArgumentParser
import AsyncHTTPClientTransport
import CognitoIdentityService
import DurableStorage
import FaultInjection
import FirehoseServer
import FirehoseService
import FirehoseSink
import FirehoseWire
import IAMService
import Logging
import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

public struct ServeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Firehose API server.",
        discussion: """
            Every option can also be set with an environment variable (shown in brackets); a \
            command-line option wins over the environment.

            Local endpoints: POST /_local/flush[?stream=NAME] delivers buffered records now and \
            answers when the objects are on disk; GET /_local/wait?stream=NAME&objects=N&timeout=S \
            answers once N objects were written; GET /_local/streams describes every stream's \
            buffer and deliveries; GET /_local/metrics serves Prometheus metrics; GET /_local/health \
            answers 200. SIGTERM or SIGINT gives request bodies still arriving 2 s, delivers every \
            buffer, then exits (1, naming the streams, if some records could not be delivered).
            """
    )

    @Option(help: "Address to listen on. [FIREHOSE_LOCAL_HOST] (default: 127.0.0.1)")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free port. [FIREHOSE_LOCAL_PORT] (default: 4573)")
    var port: Int?

    @Option(
        name: .customLong("port-file"),
        help: "Write the bound port to this file once listening. [FIREHOSE_LOCAL_PORT_FILE]")
    var portFile: String?

    @Option(
        name: .customLong("data-dir"),
        help:
            "Directory standing in for S3: one folder per bucket. [FIREHOSE_LOCAL_DATA_DIR] (default: ./firehose-data)")
    var dataDirectory: String?

    @Option(
        help: "Configuration file (YAML; JSON accepted) with DeliveryStreams and Credentials. [FIREHOSE_LOCAL_CONFIG]")
    var config: String?

    @Option(help: "AWS region requests must be signed for. [FIREHOSE_LOCAL_REGION] (default: us-east-1)")
    var region: String?

    @Option(
        name: .customLong("account-id"),
        help: "Account id used in ARNs and messages. [FIREHOSE_LOCAL_ACCOUNT_ID] (default: 000000000000)")
    var accountID: String?

    @Option(
        help: """
            fsync: acknowledge records only once they are on stable storage (group-committed); \
            none: acknowledge once written to the staging file (survives a killed process, not a power \
            loss). [FIREHOSE_LOCAL_DURABILITY] (default: fsync, or Durability in the config file)
            """)
    var durability: String?

    @Option(
        name: .customLong("max-connections"),
        help: """
            Connections open at once. At the limit the keep-alive connection idle longest is closed to \
            make room; when none is idle, new ones wait. [FIREHOSE_LOCAL_MAX_CONNECTIONS] (default: 1024)
            """
    )
    var maxConnections: Int?

    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds a connection may send nothing before it is closed. [FIREHOSE_LOCAL_IDLE_TIMEOUT] (default: 30)")
    var idleTimeout: Int?

    @Option(
        name: .customLong("body-timeout"),
        help: "Seconds a request body may take to arrive in full. [FIREHOSE_LOCAL_BODY_TIMEOUT] (default: 30)")
    var bodyTimeout: Int?

    @Option(
        name: .customLong("shutdown-timeout"),
        help: """
            Seconds SIGTERM/SIGINT waits for in-flight requests and the final delivery; then Lambda \
            function invocations and HTTP endpoint requests still under way are abandoned. Anything \
            still staged is recovered at the next start. [FIREHOSE_LOCAL_SHUTDOWN_TIMEOUT] (default: 60)
            """)
    var shutdownTimeout: Int?

    @Option(
        name: .customLong("activation-delay"),
        help: """
            Seconds a stream made with CreateDeliveryStream stays CREATING before it is ACTIVE. \
            [FIREHOSE_LOCAL_ACTIVATION_DELAY] (default: 0 — SDK waiters poll every 20 s)
            """)
    var activationDelay: Double?

    @Option(
        name: .customLong("local-endpoints"),
        help: """
            Who may use /_local (flush, wait, streams, metrics) when --host is not a loopback address: \
            loopback (clients on this machine only; others get 403) or open (every client, addressed by \
            any name). Either way web pages of other origins cannot change state through a browser. \
            /_local/health answers everyone. [FIREHOSE_LOCAL_LOCAL_ENDPOINTS] (default: loopback)
            """)
    var localEndpoints: String?

    @Option(
        name: .customLong("lambda-endpoint"),
        help: """
            A Lambda Invoke API (sam local start-lambda, or another emulator) that runs the functions of \
            Lambda processors not mapped under LambdaFunctions in the configuration file, each by the \
            function name in its ARN. [FIREHOSE_LOCAL_LAMBDA_ENDPOINT] (default: none)
            """)
    var lambdaEndpoint: String?

    @Option(
        name: .customLong("endpoint-ca-file"),
        help: """
            A PEM file of certificates to trust, beyond the system's, for https:// HTTP endpoint \
            destinations and Lambda Invoke API endpoints (a local receiver's self-signed certificate). \
            [FIREHOSE_LOCAL_ENDPOINT_CA_FILE] (default: none)
            """)
    var endpointCAFile: String?

    @Option(
        name: .customLong("endpoint-response-timeout"),
        help: """
            Seconds an HTTP endpoint destination has to answer each request before the attempt fails \
            with HttpEndpoint.RequestTimeout (AWS: 180); lower it to test a receiver's slow path \
            quickly. [FIREHOSE_LOCAL_ENDPOINT_RESPONSE_TIMEOUT] (default: 180)
            """)
    var endpointResponseTimeout: Int?

    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error or critical. [FIREHOSE_LOCAL_LOG_LEVEL] (default: info)")
    var logLevel: String?

    public init() {}

    public mutating func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let resolved: ResolvedSettings
        do {
            resolved = try ResolvedSettings(command: self, environment: environment)
        } catch {
            Self.printError(error.description)
            throw ExitCode(2)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = resolved.logLevel
            return handler
        }
        let logger = Logger(label: "firehose-local")
        do {
            try await Self.serve(resolved, logger: logger)
        } catch let error as ServeError {
            Self.printError(error.description)
            throw ExitCode(1)
        }
    }

    static func printError(_ message: String) {
        let bytes = Array("error: \(message)\n".utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// Raises the soft limit on open files to the hard one, as Go's runtime does for its servers:
    /// every open buffer holds two descriptors (a dynamically partitioned stream may have 500 open
    /// at once), as does a retired one waiting for a folder that cannot be written, and the usual
    /// soft limit of 1024 would end such a backlog with EMFILE. (Buffers waiting for a store, or for
    /// a source stage's function, hold none: they are read by path.)
    static func raiseOpenFileLimit(logger: Logger) {
        #if os(Linux)
            var limit = rlimit()
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
            guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
            let before = limit.rlim_cur
            limit.rlim_cur = limit.rlim_max
            if setrlimit(resource, &limit) == 0 {
                logger.debug(
                    "Raised the open-file limit",
                    metadata: ["from": .stringConvertible(before), "to": .stringConvertible(limit.rlim_max)])
            }
        #endif
    }

    static func serve(_ settings: ResolvedSettings, logger: Logger) async throws {
        let file: ConfigurationFile
        if let path = settings.configPath {
            do {
                file = try ConfigurationFile.load(path: path)
            } catch {
                throw ServeError(description: error.description)
            }
        } else {
            file = ConfigurationFile()
        }
        let gzipLevel = file.gzipLevel ?? 6
        let gzipImplementation = file.gzipImplementation
        let durability = settings.durability ?? file.durability ?? .fsync
        let lambdaFunctions = LambdaFunctionDirectory(
            entries: file.lambdaFunctions, defaultEndpoint: settings.lambdaEndpoint)
        var streams: [DeliveryStreamSettings] = []
        for (index, definition) in file.deliveryStreams.enumerated() {
            do {
                var stream = try DeliveryStreamSettings(
                    validating: definition, gzipLevel: gzipLevel, dataDirectory: settings.dataDirectory,
                    lambdaFunctions: lambdaFunctions, region: settings.region, accountID: settings.accountID)
                stream.compressGzip(with: gzipImplementation)
                if streams.contains(where: { $0.name == stream.name }) {
                    throw ServeError(
                        description:
                            "\(settings.configPath!): DeliveryStreams[\(index)].DeliveryStreamName: '\(stream.name)' is defined twice."
                    )
                }
                streams.append(stream)
            } catch let error as StreamConfigurationError {
                let name = definition.deliveryStreamName.map { " (\($0))" } ?? ""
                throw ServeError(
                    description:
                        "\(settings.configPath!): DeliveryStreams[\(index)]\(name).\(error.field): \(error.error.message)"
                )
            }
        }

        raiseOpenFileLimit(logger: logger)
        // Before anything in the directory is read or written: a second instance stops here.
        let lock: DataDirectoryLock
        do {
            lock = try DataDirectoryLock.acquire(dataDirectory: settings.dataDirectory)
        } catch {
            throw ServeError(description: "data directory \(settings.dataDirectory): \(error)")
        }
        defer { withExtendedLifetime(lock) {} }
        let sink: FirehoseSink
        do {
            var configuration = FirehoseSink.Configuration(
                dataDirectory: settings.dataDirectory, durability: durability)
            configuration.httpTransport = AsyncHTTPClientTransport(trust: .init(caFile: settings.endpointCAFile))
            configuration.endpointResponseTimeout = .seconds(settings.endpointResponseTimeout)
            configuration.stores = file.stores.mapValues { store in
                var store = store
                if store.region.isEmpty { store.region = settings.region }
                return store
            }
            sink = try FirehoseSink(configuration: configuration, logger: logger)
            for (bucket, store) in configuration.stores.sorted(by: { $0.key < $1.key }) {
                logger.info(
                    "Bucket delivered to an S3-compatible store",
                    metadata: [
                        "bucket": .string(bucket), "endpoint": .string(store.endpoint.absoluteString),
                        "store_bucket": .string(store.bucket), "region": .string(store.region),
                        "addressing": .string(store.pathStyle ? "path" : "virtual"),
                    ])
            }
        } catch {
            throw ServeError(description: "data directory \(settings.dataDirectory): \(error)")
        }
        for stream in streams { try sink.createStream(stream) }
        let usedBuckets = Set(streams.flatMap { [$0.bucket, $0.backupStage?.bucket].compactMap { $0 } })
        for bucket in file.stores.keys.sorted() where !usedBuckets.contains(bucket) {
            logger.warning(
                "A bucket mapped to a store is not the bucket of any stream in the configuration file (a typo would deliver to a folder)",
                metadata: ["bucket": .string(bucket)])
        }
        // Streams created through the API in earlier runs; the config file wins on a name clash.
        let persisted: [StreamRecord]
        do {
            persisted = try sink.loadPersistedStreams()
        } catch {
            throw ServeError(description: "cannot read the saved delivery streams: \(error)")
        }
        for record in persisted {
            let name = record.definition.deliveryStreamName ?? ""
            if streams.contains(where: { $0.name == name }) {
                logger.notice(
                    "A stream saved from the API has the name of a configuration-file stream; the configuration file wins",
                    metadata: ["stream": .string(name)])
                continue
            }
            do {
                var settings = try DeliveryStreamSettings(
                    validating: record.definition, gzipLevel: gzipLevel, versionID: record.versionID,
                    dataDirectory: settings.dataDirectory, lambdaFunctions: lambdaFunctions, region: settings.region,
                    accountID: settings.accountID)
                settings.compressGzip(with: gzipImplementation)
                try sink.createStream(settings, record: record)
            } catch {
                logger.error(
                    "A saved delivery stream is no longer valid and was not created",
                    metadata: ["stream": .string(name), "error": "\(error)"])
            }
        }

        // Counted after the saved ones are back: streams created through the API are streams too.
        if sink.streamNames.isEmpty {
            logger.warning(
                "No delivery streams are defined: every put will answer ResourceNotFoundException. Add DeliveryStreams to a --config file."
            )
        }

        let authentication: FirehoseAPI.Authentication
        switch file.authentication ?? .verify {
        case .off:
            authentication = .off
            logger.notice("Authentication is off: requests are accepted without checking signatures")
        case .verify:
            authentication = .verify(
                file.credentials.isEmpty
                    ? [AWSCredentials(accessKeyId: "test", secretAccessKey: "test")] : file.credentials
            )
        }
        var apiConfiguration = FirehoseAPI.Configuration(
            region: settings.region, accountID: settings.accountID, authentication: authentication,
            streamActivationDelay: settings.activationDelay, gzipLevel: gzipLevel)
        apiConfiguration.gzipImplementation = gzipImplementation
        apiConfiguration.localEndpointsOpen = settings.localEndpointsOpen
        apiConfiguration.serverNames = [settings.host]
        apiConfiguration.lambdaFunctions = lambdaFunctions
        apiConfiguration.faults = file.faults
        apiConfiguration.quotas = file.quotas
        apiConfiguration.checksDeliveryRoles = file.checksDeliveryRoles
        if file.checksDeliveryRoles {
            logger.notice(
                "Delivery roles are checked: a stream's role must exist (Roles, or IAM's CreateRole), trust firehose.amazonaws.com and allow s3:PutObject on what it delivers (or its buffers stay staged and are retried) lambda:InvokeFunction on its Lambda processor (or its records go to processing-failed) and Kinesis's reads on its source data stream (or its records stay there)"
            )
        }
        apiConfiguration.kinesisStreams = file.kinesisStreams
        if let lifetime = file.credentialLifetime { apiConfiguration.credentialLifetime = lifetime }
        for (index, entry) in file.identityPools.enumerated() {
            let field = "\(settings.configPath ?? ""): Cognito.IdentityPools[\(index)]"
            let pool: StoredIdentityPool
            do throws(FirehoseError) {
                pool = try CognitoIdentityAPI.configuredPool(entry.pool, roles: entry.roles, region: settings.region)
            } catch {
                throw ServeError(description: "\(field): \(error.message)")
            }
            if apiConfiguration.identityPools.contains(where: { $0.pool.identityPoolId == pool.pool.identityPoolId }) {
                throw ServeError(
                    description: "\(field): IdentityPoolId '\(pool.pool.identityPoolId!)' is defined twice.")
            }
            apiConfiguration.identityPools.append(pool)
        }
        var roleNames: Set<String> = []
        for role in file.roles {
            let arn = role.arn(accountID: settings.accountID)
            // IAM tells roles apart by name, regardless of case and path.
            let name = String(arn.split(separator: "/").last ?? "").lowercased()
            guard roleNames.insert(name).inserted else {
                throw ServeError(
                    description:
                        "\(settings.configPath ?? ""): Roles: \(arn) is declared twice (role names are unique regardless of case and path)."
                )
            }
            apiConfiguration.accessPolicies.roles[arn] = role.policies
            apiConfiguration.roleTrustPolicies[arn] = role.trustPolicy
        }
        if case .off = authentication, !file.roles.isEmpty || !file.userPolicies.isEmpty {
            logger.warning(
                "Authentication is off: requests are not signed, so Roles and Credentials' Policies are not enforced")
        }
        for (accessKeyID, user) in file.userPolicies {
            apiConfiguration.accessPolicies.users[accessKeyID] = AccessPolicies.User(
                arn: "arn:aws:iam::\(settings.accountID):user/\(user.userName)", policies: user.policies)
        }
        let undeclared = Set(apiConfiguration.identityPools.flatMap(\.roles.values)).subtracting(
            apiConfiguration.accessPolicies.roles.keys)
        if !undeclared.isEmpty {
            logger.notice(
                "Identity pools name roles that Roles does not declare: until they exist (Roles, or IAM's CreateRole), their credentials may call anything",
                metadata: ["roles": .array(undeclared.sorted().map { .string($0) })])
        }
        // Waits hold their connection for up to the wait cap: a quarter of the connections at most.
        apiConfiguration.maxWaitingRequests = max(1, settings.maxConnections / 4)
        let api = try FirehoseAPI(configuration: apiConfiguration, sink: sink, logger: logger)
        if let quota = api.firehose.quotas?.quota {
            logger.notice(
                "Per-stream quotas in force: requests over them are refused as AWS refuses them (ServiceUnavailableException)",
                metadata: [
                    "records_per_second": .stringConvertible(quota.recordsPerSecond),
                    "requests_per_second": .stringConvertible(quota.requestsPerSecond),
                    "bytes_per_second": .stringConvertible(quota.bytesPerSecond),
                ])
        }
        if !file.faults.isEmpty {
            logger.notice(
                "Fault rules in force: requests they match are delayed, refused or failed on purpose",
                metadata: ["rules": .array(file.faults.map { .string($0.name) })])
        }
        if !FirehoseHTTPServer.isLoopback(host: settings.host) {
            logger.warning(
                settings.localEndpointsOpen
                    ? "Listening beyond this machine: the Firehose API and every /_local endpoint (flush, wait, streams, metrics) answer any client that can reach it"
                    : "Listening beyond this machine: the Firehose API answers any client that can reach it; /_local endpoints answer only this machine (--local-endpoints open exposes them)",
                metadata: ["host": .string(settings.host)])
        }
        // Before accepting anything (and after the API's metrics observe deliveries): deliver what a
        // crashed run acknowledged but never delivered.
        _ = await sink.recoverStagedBuffers()
        let server = FirehoseHTTPServer(
            api: api,
            configuration: .init(
                host: settings.host, port: settings.port, maxConnections: settings.maxConnections,
                idleTimeout: .seconds(settings.idleTimeout), bodyTimeout: .seconds(settings.bodyTimeout),
                shutdownTimeout: .seconds(settings.shutdownTimeout)),
            logger: logger)
        logger.info(
            "Starting",
            metadata: [
                "version": .string(BuildInfo.version), "commit": .string(BuildInfo.commit ?? "none"),
                "data_dir": .string(settings.dataDirectory), "region": .string(settings.region),
                "durability": .string(durability.rawValue),
                "streams": .stringConvertible(streams.count),
            ])
        let portFile = settings.portFile
        try await server.run { _, port in
            guard let portFile else { return }
            do {
                try writeAtomically("\(port)\n", to: portFile)
            } catch {
                logger.error("Cannot write the port file", metadata: ["path": .string(portFile), "error": "\(error)"])
            }
        }
        // Records acknowledged but not delivered must not pass for a clean stop.
        let stranded = sink.undeliveredAtShutdown
        guard stranded.isEmpty else {
            let streams = stranded.map { "\($0.stream): \($0.stagedRecords) records (\($0.error))" }
            throw ServeError(
                description:
                    "stopped with records not delivered; they stay staged in \(settings.dataDirectory) and the next start delivers them. \(streams.joined(separator: "; "))"
            )
        }
        logger.info("Stopped")
    }

    /// Readers polling for the file never see it half-written. Not durable: the port means nothing
    /// after a crash, and an fsync here waits behind whatever the disk is writing, which slowed
    /// start-up while the disk was busy.
    static func writeAtomically(_ text: String, to path: String) throws {
        try AtomicFile.replace(path, with: Array(text.utf8), temporary: path + ".tmp-\(getpid())", durable: false)
    }
}

/// Why `serve` could not start, or stopped with records undelivered: printed as `error: ...`, exit 1.
struct ServeError: Error, CustomStringConvertible {
    var description: String
}

/// The serve options after applying command line > environment > defaults, validated.
struct ResolvedSettings {
    var host: String
    var port: Int
    var portFile: String?
    var dataDirectory: String
    var configPath: String?
    var region: String
    var accountID: String
    var logLevel: Logger.Level
    var durability: Durability?
    var maxConnections = 1024
    var idleTimeout = 30
    var bodyTimeout = 30
    var shutdownTimeout = 60
    var activationDelay: Double = 0
    var localEndpointsOpen = false
    var lambdaEndpoint: URL?
    var endpointCAFile: String?
    var endpointResponseTimeout = 180

    init(command: ServeCommand, environment: [String: String]) throws(ServeError) {
        func value(_ flag: String?, _ variable: String) -> String? {
            if let flag { return flag }
            if let text = environment[variable], !text.isEmpty { return text }
            return nil
        }
        host = value(command.host, "FIREHOSE_LOCAL_HOST") ?? "127.0.0.1"
        if let text = value(command.port.map(String.init), "FIREHOSE_LOCAL_PORT") {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw ServeError(description: "port must be a number from 0 to 65535, not '\(text)'.")
            }
            self.port = port
        } else {
            port = 4573
        }
        portFile = value(command.portFile, "FIREHOSE_LOCAL_PORT_FILE")
        dataDirectory = Self.absolute(value(command.dataDirectory, "FIREHOSE_LOCAL_DATA_DIR") ?? "./firehose-data")
        configPath = value(command.config, "FIREHOSE_LOCAL_CONFIG")
        region = value(command.region, "FIREHOSE_LOCAL_REGION") ?? "us-east-1"
        guard !region.isEmpty, region.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 })
        else {
            throw ServeError(description: "region must look like us-east-1, not '\(region)'.")
        }
        accountID = value(command.accountID, "FIREHOSE_LOCAL_ACCOUNT_ID") ?? "000000000000"
        guard accountID.utf8.count == 12, accountID.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw ServeError(description: "account id must be 12 digits, not '\(accountID)'.")
        }
        let levelText = value(command.logLevel, "FIREHOSE_LOCAL_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ServeError(
                description:
                    "log level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not '\(levelText)'."
            )
        }
        logLevel = level
        func positive(_ flag: Int?, _ variable: String, _ name: String) throws(ServeError) -> Int? {
            guard let text = value(flag.map(String.init), variable) else { return nil }
            guard let number = Int(text), number > 0 else {
                throw ServeError(description: "\(name) must be a positive whole number, not '\(text)'.")
            }
            return number
        }
        maxConnections =
            try positive(command.maxConnections, "FIREHOSE_LOCAL_MAX_CONNECTIONS", "max connections") ?? 1024
        idleTimeout = try positive(command.idleTimeout, "FIREHOSE_LOCAL_IDLE_TIMEOUT", "idle timeout") ?? 30
        bodyTimeout = try positive(command.bodyTimeout, "FIREHOSE_LOCAL_BODY_TIMEOUT", "body timeout") ?? 30
        shutdownTimeout =
            try positive(command.shutdownTimeout, "FIREHOSE_LOCAL_SHUTDOWN_TIMEOUT", "shutdown timeout") ?? 60
        if let text = value(command.activationDelay.map { String($0) }, "FIREHOSE_LOCAL_ACTIVATION_DELAY") {
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw ServeError(description: "activation delay must be 0 to 3600 seconds, not '\(text)'.")
            }
            activationDelay = seconds
        }
        if let text = value(command.localEndpoints, "FIREHOSE_LOCAL_LOCAL_ENDPOINTS") {
            switch text.lowercased() {
            case "loopback": localEndpointsOpen = false
            case "open": localEndpointsOpen = true
            default: throw ServeError(description: "local endpoints must be 'loopback' or 'open', not '\(text)'.")
            }
        }
        if let text = value(command.lambdaEndpoint, "FIREHOSE_LOCAL_LAMBDA_ENDPOINT") {
            guard let url = LambdaFunctionDirectory.endpointURL(text) else {
                throw ServeError(
                    description:
                        "lambda endpoint must be an http:// or https:// URL such as http://127.0.0.1:3001, not '\(text)'."
                )
            }
            lambdaEndpoint = url
        }
        endpointResponseTimeout =
            try positive(
                command.endpointResponseTimeout, "FIREHOSE_LOCAL_ENDPOINT_RESPONSE_TIMEOUT",
                "endpoint response timeout") ?? 180
        if let path = value(command.endpointCAFile, "FIREHOSE_LOCAL_ENDPOINT_CA_FILE") {
            let absolute = Self.absolute(path)
            guard FileManager.default.isReadableFile(atPath: absolute) else {
                throw ServeError(description: "endpoint CA file \(absolute) cannot be read.")
            }
            guard (try? AsyncHTTPClientTransport.certificates(inCAFile: absolute)) != nil else {
                throw ServeError(description: "endpoint CA file \(absolute) holds no PEM certificate.")
            }
            endpointCAFile = absolute
        }
        if let text = value(command.durability, "FIREHOSE_LOCAL_DURABILITY") {
            guard let mode = Durability(rawValue: text.lowercased()) else {
                throw ServeError(description: "durability must be 'fsync' or 'none', not '\(text)'.")
            }
            durability = mode
        }
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let base = FileManager.default.currentDirectoryPath
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        return relative.isEmpty || relative == "." ? base : "\(base)/\(relative)"
    }
}
