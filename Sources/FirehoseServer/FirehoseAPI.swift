public import AWSSigV4
package import CognitoIdentityService
import Dispatch
public import DurableStorage
package import FaultInjection
package import FirehoseService
public import FirehoseSink
import FirehoseWire
package import IAMService
import KinesisService
package import KinesisStreams
public import Logging
import S3Service
import STSService
public import ServerCore
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The Firehose API and the `/_local` endpoints over a sink: authentication, operation dispatch and
/// the mapping of every failure to the AWS error a client expects. HTTP-server agnostic.
public final class FirehoseAPI: Sendable {
    public enum Authentication: Sendable {
        /// Verify SigV4 against these credentials.
        case verify([AWSCredentials])
        /// Accept any request, signed or not.
        case off
    }

    public struct Configuration: Sendable {
        public var region: String
        public var accountID: String
        public var authentication: Authentication
        /// Largest request body accepted, before and after `Content-Encoding: gzip` decoding. A full
        /// PutRecordBatch is about 5.6 MB of JSON; the margin leaves room for verbose encoders.
        public var maxBodyBytes: Int
        /// Largest Kinesis Data Streams request body: a stream's records may be 10 MiB
        /// (`MaxRecordSizeInKiB` up to 10240), which PutRecord sends as about 14 MB of base64 in JSON,
        /// and a PutRecords request may carry 10 MiB of data and keys.
        public var maxKinesisBodyBytes = 16 * 1024 * 1024

        /// The body limit of a request with this `X-Amz-Target` (Kinesis's is larger).
        public func maxBodyBytes(target: String?) -> Int {
            target?.hasPrefix(KinesisOperation.targetPrefix) == true ? maxKinesisBodyBytes : maxBodyBytes
        }
        /// How long a stream made with CreateDeliveryStream stays CREATING. Zero by default: SDK
        /// waiters poll every 20 s, so any delay would cost a test run that much.
        public var streamActivationDelay: TimeInterval
        /// zlib level of GZIP streams created through the API.
        public var gzipLevel: Int32
        /// The deflate that writes the GZIP objects of streams created through the API; nil: each
        /// stream's default (`DeliveryStreamSettings.defaultGzipImplementation`).
        public var gzipImplementation: DeliveryStreamSettings.GzipImplementation?
        /// Whether `/_local` answers clients that are not on this machine (`/_local/health` always does).
        public var localEndpointsOpen = false
        /// Names this server is reached by besides IP addresses, `localhost` and the machine's host
        /// name (the `--host` it listens on): `/_local` refuses requests addressed to any other name.
        public var serverNames: [String] = []
        /// `/_local/wait` requests waiting at once; more are refused with 503, so waiters cannot take
        /// every connection.
        public var maxWaitingRequests = 64
        /// Where the functions of `Lambda` processors run on this machine.
        package var lambdaFunctions = LambdaFunctionDirectory()
        /// Fault rules in force from the start (the configuration file's `Faults`), with distinct names.
        package var faults: [FaultRule] = []
        /// Per-stream throughput quotas, as AWS enforces them; nil: none (the default).
        package var quotas: QuotaSetting?
        /// How long credentials from the Cognito endpoint's GetCredentialsForIdentity are valid
        /// (AWS: one hour).
        package var credentialLifetime: TimeInterval = 3_600
        /// Identity pools of the configuration file (`CognitoIdentityAPI.configuredPool`): each
        /// replaces, at start, the saved pool of its id; their identities stay.
        package var identityPools: [StoredIdentityPool] = []
        /// Kinesis data streams of the configuration file, made at start when they do not exist.
        package var kinesisStreams: [StreamDefinition] = []
        /// Roles' and configured keys' identity-based policies, enforced on the callers they bind.
        package var accessPolicies = AccessPolicies()
        /// The trust policies (JSON text) of the configuration file's roles that give one, by ARN.
        package var roleTrustPolicies: [String: String] = [:]
        /// Whether delivery checks each stream's role, as AWS's Firehose meets it: the role exists,
        /// trusts `firehose.amazonaws.com`, and allows what delivery does (`CheckDeliveryRoles`).
        package var checksDeliveryRoles = false

        public static let defaultMaxBodyBytes = 8 * 1024 * 1024

        public init(
            region: String = "us-east-1", accountID: String = "000000000000",
            authentication: Authentication = .verify([AWSCredentials(accessKeyId: "test", secretAccessKey: "test")]),
            maxBodyBytes: Int = defaultMaxBodyBytes, streamActivationDelay: TimeInterval = 0, gzipLevel: Int32 = 6
        ) {
            self.streamActivationDelay = streamActivationDelay
            self.gzipLevel = gzipLevel
            self.region = region
            self.accountID = accountID
            self.authentication = authentication
            self.maxBodyBytes = maxBodyBytes
        }
    }

    public let configuration: Configuration
    public let sink: FirehoseSink
    public let metrics: FirehoseMetrics
    /// The fault rules in force: the configuration's, and those added through `/_local/faults`.
    package let faults: FaultInjector
    /// Firehose's own API: the puts and the control plane.
    package let firehose: FirehoseService
    private let verifier: SigV4Verifier?
    private let s3: S3API
    /// Identity pools, and the temporary credentials every endpoint accepts besides the configured ones.
    private let cognito: CognitoIdentityAPI
    /// IAM roles and their inline policies.
    private let iam: IAMAPI
    private let sts: STSAPI
    /// Kinesis Data Streams, unless their log could not be opened (`kinesisUnavailable` says why).
    let kinesis: KinesisAPI?
    private let kinesisUnavailable: String?
    private let kinesisVerifier: SigV4Verifier?
    private let logger: Logger
    /// The policies that bind the caller of an access key, if any do.
    private let boundCallerOf: @Sendable (_ accessKeyID: String) -> BoundCaller?
    private let requestIDs = RequestIDGenerator()
    /// Requests waiting now: `/_local/wait` requests and hanging fault rules.
    private let waitingRequests = Mutex(0)
    /// `/_local/object` reads and decodes one object at a time.
    let objectPreviews = AsyncGate(width: 1)
    /// What keeps web pages out of `/_local`.
    let localRequestGuard: LocalRequestGuard

    /// - Throws: when the Cognito endpoint's saved pools, identities or credentials, or the Kinesis
    ///   stream log, cannot be read.
    public init(configuration: Configuration, sink: FirehoseSink, logger: Logger) throws(FileSystemError) {
        self.configuration = configuration
        self.sink = sink
        self.logger = logger
        localRequestGuard = .forServer(
            names: configuration.serverNames, anyHost: configuration.localEndpointsOpen)
        let metrics = FirehoseMetrics()
        self.metrics = metrics
        faults = FaultInjector(rules: configuration.faults, now: sink.now())
        // What the sink delivered before this API existed (an embedder's own puts) counts too; from
        // here on every delivery is counted as it happens, so a stream deleted before any scrape
        // keeps its count.
        for name in sink.streamNames {
            metrics.objectsDeliveredEarlier(sink.objectsWritten(stream: name), stream: name)
        }
        sink.addDeliveryFailureObserver { failure in metrics.deliveryFailed(stream: failure.stream) }
        sink.addEndpointObserver { event, stream in metrics.endpoint(event, stream: stream) }
        sink.addDeliveryObserver { object, time in
            metrics.objectDelivered(object, latencySeconds: time.timeIntervalSince(object.firstArrival))
        }
        let store = try CognitoStore(
            folder: "\(sink.configuration.dataDirectory)/\(FirehoseSink.Configuration.privateFolderName)/cognito",
            now: sink.now())
        try store.apply(configuredPools: configuration.identityPools)
        let issued = store.credentials
        var lookup: (@Sendable (String) -> AWSCredentials?)?
        if case .verify(let credentials) = configuration.authentication {
            let byKey = Dictionary(credentials.map { ($0.accessKeyId, $0) }, uniquingKeysWith: { first, _ in first })
            lookup = { byKey[$0] ?? issued.grant(forAccessKey: $0)?.credentials }
        }
        verifier = lookup.map {
            SigV4Verifier(
                region: configuration.region, service: "firehose", requiredSignedHeaders: ["X-Amz-Target"], lookup: $0)
        }
        let roles = try RoleStore(
            folder: "\(sink.configuration.dataDirectory)/\(FirehoseSink.Configuration.privateFolderName)/iam")
        try roles.apply(
            configured: configuration.accessPolicies.roles, trustPolicies: configuration.roleTrustPolicies,
            now: sink.now())
        var policies = configuration.accessPolicies
        if case .verify(let credentials) = configuration.authentication {
            policies.configuredKeys = Set(credentials.map(\.accessKeyId))
        }
        let boundCaller: @Sendable (String) -> BoundCaller? = { [policies] in
            policies.caller(
                accessKeyID: $0, issued: issued.grant(forAccessKey:), rolePolicies: roles.policies(ofRoleARN:))
        }
        self.boundCallerOf = boundCaller
        if configuration.checksDeliveryRoles {
            let (account, region) = (configuration.accountID, configuration.region)
            sink.deliveryRoles.set { request in
                roles.refusal(
                    service: "firehose.amazonaws.com", roleARN: request.roleARN, action: request.action,
                    resource: request.resource, account: account,
                    sourceARN: ServiceLimits.streamARN(region: region, accountID: account, name: request.stream)
                ).map { DeliveryRoleRefusal($0.cannotAssume ? .cannotAssume : .notAllowed, $0.reason) }
            }
        }
        s3 = S3API(
            region: configuration.region, sink: sink, logger: logger, lookup: lookup, boundCaller: boundCaller)
        iam = IAMAPI(
            store: roles, accountID: configuration.accountID,
            verifier: lookup.map {
                SigV4Verifier(region: "us-east-1", service: "iam", acceptsAnyRegion: true, lookup: $0)
            },
            boundCaller: boundCaller, logger: logger)
        let accountID = configuration.accountID
        sts = STSAPI(
            accountID: accountID,
            verifier: lookup.map {
                SigV4Verifier(region: configuration.region, service: "sts", acceptsAnyRegion: true, lookup: $0)
            }, credentials: issued,
            identify: { [policies] in
                policies.identity(
                    accessKeyID: $0, accountID: accountID, issued: issued.grant(forAccessKey:),
                    roleID: roles.roleID(ofRoleARN:))
            }, boundCaller: boundCaller, role: roles.assumableRole(arn:), tokens: store.tokens, logger: logger)
        var kinesisSource: KinesisSourceReader?
        let streamLogPath =
            "\(sink.configuration.dataDirectory)/\(FirehoseSink.Configuration.privateFolderName)/kinesis/streams.sqlite"
        // Firehose and S3 serve without it: a data directory SQLite cannot open a file in (a path over
        // its 512 bytes) loses the Kinesis endpoint only, and says so.
        do {
            let log = try StreamLog(path: streamLogPath)
            let api = KinesisAPI(
                log: log, region: configuration.region, accountID: configuration.accountID, logger: logger,
                throttling: configuration.quotas != nil)
            do throws(FirehoseError) {
                try api.apply(configured: configuration.kinesisStreams, now: sink.now())
            } catch {
                logger.error(
                    "Kinesis streams of the configuration file could not be made",
                    metadata: ["cause": .string(error.logDetail ?? error.message)])
            }
            kinesis = api
            kinesisSource = KinesisSourceReader(log: log, sink: sink, logger: logger) {
                metrics.recordsReceived(stream: $0, records: $1, bytes: $2)
            }
            kinesisUnavailable = nil
        } catch {
            kinesis = nil
            kinesisUnavailable = "its stream log \(streamLogPath) cannot be opened: \(error)"
            logger.error(
                "Kinesis Data Streams are unavailable: their stream log cannot be opened; Firehose and S3 are served",
                metadata: ["path": .string(streamLogPath), "cause": .string("\(error)")])
        }
        firehose = FirehoseService(
            configuration: FirehoseService.Configuration(
                region: configuration.region, accountID: configuration.accountID,
                streamActivationDelay: configuration.streamActivationDelay, gzipLevel: configuration.gzipLevel,
                gzipImplementation: configuration.gzipImplementation, lambdaFunctions: configuration.lambdaFunctions),
            sink: sink,
            quotas: configuration.quotas.map { StreamQuotas(quota: $0.quota(region: configuration.region)) },
            kinesisSource: kinesisSource, logger: logger,
            recordsReceived: { metrics.recordsReceived(stream: $0, records: $1, bytes: $2) },
            recordsThrottled: { metrics.recordsThrottled(stream: $0, records: $1) })
        kinesisVerifier = lookup.map {
            SigV4Verifier(
                region: configuration.region, service: "kinesis", requiredSignedHeaders: ["X-Amz-Target"], lookup: $0)
        }
        cognito = CognitoIdentityAPI(
            store: store, region: configuration.region, accountID: configuration.accountID,
            credentialLifetime: configuration.credentialLifetime,
            boundCaller: boundCaller, roleExists: { roles.policies(ofRoleARN: $0) != nil },
            verifier: lookup.map {
                SigV4Verifier(
                    region: configuration.region, service: "cognito-identity", requiredSignedHeaders: ["X-Amz-Target"],
                    lookup: $0)
            }, logger: logger)
    }

    public func handle(_ request: APIRequest) async -> APIResponse {
        let requestID = requestIDs.next()
        if request.path.hasPrefix("/_local/") || request.path == "/_local" {
            return await LocalEndpoints(api: self).handle(request, requestID: requestID)
        }
        let targetHeader = request.header("x-amz-target")
        if let targetHeader, targetHeader.hasPrefix(CognitoIdentityAPI.targetPrefix) {
            return await handleCognito(request, target: targetHeader, requestID: requestID)
        }
        if let targetHeader, targetHeader.hasPrefix(KinesisOperation.targetPrefix) {
            return await handleKinesis(request, target: targetHeader, requestID: requestID)
        }
        if QueryProtocol.isQueryRequest(request, hasTarget: targetHeader != nil) {
            let parameters = QueryProtocol.formParameters(request.body)
            if STSAPI.isSTSRequest(request, parameters: parameters) {
                // AssumeRole's credentials are synced to disk before they are answered.
                let (sts, now) = (sts, sink.now())
                let (response, operation, code) = await BlockingIO.run {
                    sts.handle(request, parameters: parameters, requestID: requestID, now: now)
                }
                metrics.requestFinished(.sts, operation: operation, code: code)
                return response
            }
            // Its changes fsync: off the task threads.
            let (iam, now) = (iam, sink.now())
            let (response, operation, code) = await BlockingIO.run {
                iam.handle(request, parameters: parameters, requestID: requestID, now: now)
            }
            metrics.requestFinished(.iam, operation: operation, code: code)
            return response
        }
        if S3API.isS3Request(method: request.method, path: request.path, hasTarget: targetHeader != nil) {
            let (response, operation, code) = await s3.handle(request, requestID: requestID)
            metrics.requestFinished(.s3, operation: operation, code: code)
            return response
        }
        let started = ContinuousClock.now
        // Parsed once: the metrics label needs it even when the request fails before dispatch.
        let target = Result { () throws(FirehoseError) in
            try FirehoseOperation(target: targetHeader)
        }
        let operation = try? target.get()
        do {
            let response = try await handleFirehose(request, operation: target, requestID: requestID)
            metrics.requestFinished(
                operation: operation, errorCode: response.resetsConnection ? APIResponse.connectionResetCode : nil,
                durationSeconds: Self.seconds(since: started))
            return response
        } catch {
            metrics.requestFinished(
                operation: operation, errorCode: error.code, durationSeconds: Self.seconds(since: started))
            logFailure(error, requestID: requestID, operation: operation?.rawValue ?? "-")
            return AWSJSONProtocol.errorResponse(error, requestID: requestID)
        }
    }

    private func handleFirehose(
        _ request: APIRequest, operation target: Result<FirehoseOperation, FirehoseError>, requestID: String
    ) async throws(FirehoseError) -> APIResponse {
        try checkBodySize(request)
        var accessKeyID: String?
        if let verifier {
            accessKeyID = try verifier.verify(request, now: sink.now()).accessKeyId
        }
        try AWSJSONProtocol.check(request, service: "Firehose")
        let operation = try target.get()
        let body = try decodedBody(request)
        let caller = accessKeyID.flatMap(boundCallerOf)
        // Faults apply to requests that are valid as far as their own decoding goes and, for puts, to
        // an existing ACTIVE stream within the batch limit, as AWS's throttling applies to requests it
        // has accepted.
        var fault = FaultStage(api: self, request: request, requestID: requestID, operation: .firehose(operation))
        if !faults.isEmpty {
            fault.accessKeyID =
                accessKeyID ?? request.header("authorization").flatMap(SigV4Verifier.claimedAccessKeyID(authorization:))
        }
        switch operation {
        case .putRecord:
            let input = try PutRecordsRequest.decodePutRecord(body)
            try caller?.authorize(action: "firehose:PutRecord", resource: firehose.streamARN(input.deliveryStreamName))
            try firehose.checkPut(input)
            if let interruption = try await fault.apply(stream: input.deliveryStreamName, records: 1) {
                return interruption
            }
            guard try await firehose.put(input, reserveMemory: request.reserveMemory).isEmpty else { throw .throttled }
            return fault.finish(
                AWSJSONProtocol.success(
                    PutRecordsResponse.putRecord(
                        recordID: firehose.recordIDs.next(), encrypted: firehose.isEncrypted(input.deliveryStreamName)),
                    requestID: requestID))
        case .putRecordBatch:
            let input = try PutRecordsRequest.decodePutRecordBatch(body)
            try caller?.authorize(
                action: "firehose:PutRecordBatch", resource: firehose.streamARN(input.deliveryStreamName))
            try firehose.checkPut(input)
            if let interruption = try await fault.apply(stream: input.deliveryStreamName, records: input.records.count)
            {
                return interruption
            }
            var failures = fault.failedRecords
            // Failed and throttled records are not stored: a client that retries them delivers each once.
            failures += try await firehose.put(
                input, except: failures.map(\.position), reserveMemory: request.reserveMemory)
            guard !failures.isEmpty else {
                let ids = (0..<input.records.count).map { _ in firehose.recordIDs.next() }
                return fault.finish(
                    AWSJSONProtocol.success(
                        PutRecordsResponse.putRecordBatch(
                            recordIDs: ids, encrypted: firehose.isEncrypted(input.deliveryStreamName)),
                        requestID: requestID))
            }
            failures.sort { $0.position < $1.position }
            let answer = PutRecordsResponse.putRecordBatch(
                records: input.records.count, failures: failures,
                encrypted: firehose.isEncrypted(input.deliveryStreamName),
                recordID: firehose.recordIDs.next)
            return fault.finish(AWSJSONProtocol.success(answer, requestID: requestID))
        default:
            // The body's stream name is read once, and only when a policy or a fault rule needs it.
            let named =
                caller != nil || faults.matchesStreams(of: .firehose(operation))
                ? FaultStage.streamName(in: body) : nil
            if let caller {
                // A call on no stream (ListDeliveryStreams), or whose stream name is not valid, is on `*`.
                let name = operation == .listDeliveryStreams ? nil : named
                try caller.authorize(
                    action: "firehose:\(operation.rawValue)", resource: name.map(firehose.streamARN) ?? "*")
            }
            let stream = faults.matchesStreams(of: .firehose(operation)) ? named : nil
            let exists = stream.map { sink.settings(of: $0) != nil } ?? false
            if let interruption = try await fault.apply(stream: stream, streamExists: exists, records: 0) {
                return interruption
            }
            let body = try await firehose.handleControlPlane(operation, body: body, now: sink.now())
            return fault.finish(AWSJSONProtocol.success(body, requestID: requestID))
        }
    }

    /// The identity and role behind credentials the Cognito endpoint or STS issued.
    func issuedGrant(forAccessKey accessKeyID: String) -> CredentialGrant? {
        cognito.store.credentials.grant(forAccessKey: accessKeyID)
    }

    private func handleCognito(_ request: APIRequest, target: String, requestID: String) async -> APIResponse {
        // Only the operations served name a series: a client cannot make up label values.
        let name = String(target.dropFirst(CognitoIdentityAPI.targetPrefix.count))
        let operation = CognitoIdentityAPI.Operation(rawValue: name)?.rawValue ?? "unknown"
        return await answer(.cognitoIdentity, operation: operation, requestID: requestID) {
            () async throws(FirehoseError) -> [UInt8] in
            try checkBodySize(request)
            try AWSJSONProtocol.check(request, service: "Cognito Identity")
            // Identities and credentials are synced to disk before they are answered.
            let (cognito, now) = (cognito, sink.now())
            return try await BlockingIO.perform(on: BlockingIO.writes) { () throws(FirehoseError) in
                try cognito.handle(request, target: target, body: request.body, now: now)
            }
        }
    }

    private func handleKinesis(_ request: APIRequest, target: String, requestID: String) async -> APIResponse {
        let operation = KinesisOperation(rawValue: String(target.dropFirst(KinesisOperation.targetPrefix.count)))
        return await respond(.kinesis, operation: operation?.rawValue ?? "unknown", requestID: requestID) {
            () async throws(FirehoseError) -> APIResponse in
            try checkBodySize(request)
            var accessKeyID: String?
            if let kinesisVerifier { accessKeyID = try kinesisVerifier.verify(request, now: sink.now()).accessKeyId }
            let caller = accessKeyID.flatMap(boundCallerOf)
            if request.header("content-type")?.lowercased().hasPrefix("application/x-amz-cbor") == true {
                throw .unknownOperation(
                    "firehose-local serves Kinesis as AWS JSON 1.1 only, not CBOR. The Java SDK and the KCL send CBOR by default: set AWS_CBOR_DISABLE=true (Java SDK v1) or CBOR_ENABLED=false (v2) in their environment."
                )
            }
            try AWSJSONProtocol.check(request, service: "Kinesis")
            guard let operation else {
                throw .unknownOperation(
                    "Operation \(target) is not served by firehose-local. It serves Kinesis's \(KinesisOperation.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            guard let kinesis else {
                throw FirehoseError(
                    code: "InternalFailureException",
                    message: "Kinesis Data Streams are unavailable on this server: \(kinesisUnavailable ?? "")",
                    httpStatus: 500)
            }
            let body = try decodedBody(request)
            let now = sink.now()
            let authorize = { @Sendable (action: String, resource: String) throws(FirehoseError) -> Void in
                try caller?.authorize(action: action, resource: resource)
            }
            var fault = FaultStage(api: self, request: request, requestID: requestID, operation: .kinesis(operation))
            if !faults.isEmpty {
                fault.accessKeyID =
                    accessKeyID
                    ?? request.header("authorization").flatMap(SigV4Verifier.claimedAccessKeyID(authorization:))
            }
            if operation.isPut {
                // Faults apply to a valid put to an existing stream, as for Firehose's puts.
                let put = try kinesis.preparePut(operation, body: body, now: now, authorize: authorize)
                if let interruption = try await fault.apply(stream: put.stream.name, records: put.records.count) {
                    return interruption
                }
                let failing = Dictionary(
                    fault.failedRecords.map {
                        ($0.position, KinesisAPI.RecordFailure(code: $0.code, message: $0.message))
                    },
                    uniquingKeysWith: { first, _ in first })
                let stored = try await kinesis.store(put, failing: failing, now: now)
                return fault.finish(AWSJSONProtocol.success(stored, requestID: requestID))
            }
            let stream = faults.matchesStreams(of: .kinesis(operation)) ? FaultStage.kinesisStreamName(in: body) : nil
            if let interruption = try await fault.apply(stream: stream, records: 0) { return interruption }
            // Stream changes are synced to disk before they are answered; reads wait behind no fsync.
            let answer = try await BlockingIO.perform(on: operation.writes ? StreamLog.writeQueue : nil) {
                () throws(FirehoseError) in
                try kinesis.handle(operation, body: body, now: now, authorize: authorize)
            }
            return fault.finish(AWSJSONProtocol.success(answer, requestID: requestID))
        }
    }

    /// A call of another JSON service: answered, counted and logged the one way.
    private func answer(
        _ service: FirehoseMetrics.Service, operation: String, requestID: String,
        _ body: () async throws(FirehoseError) -> [UInt8]
    ) async -> APIResponse {
        await respond(service, operation: operation, requestID: requestID) { () async throws(FirehoseError) in
            AWSJSONProtocol.success(try await body(), requestID: requestID)
        }
    }

    /// The same for a call whose answer may be other than a JSON body (a fault rule's reset).
    private func respond(
        _ service: FirehoseMetrics.Service, operation: String, requestID: String,
        _ body: () async throws(FirehoseError) -> APIResponse
    ) async -> APIResponse {
        do throws(FirehoseError) {
            let response = try await body()
            metrics.requestFinished(
                service, operation: operation,
                code: response.resetsConnection ? APIResponse.connectionResetCode : "OK")
            return response
        } catch {
            metrics.requestFinished(service, operation: operation, code: error.code)
            logFailure(error, requestID: requestID, operation: operation)
            return AWSJSONProtocol.errorResponse(error, requestID: requestID)
        }
    }

    private func checkBodySize(_ request: APIRequest) throws(FirehoseError) {
        let limit = configuration.maxBodyBytes(target: request.header("x-amz-target"))
        guard request.body.count <= limit else { throw .requestTooLarge(limit: limit) }
    }

    /// Takes one of the `maxWaitingRequests` slots of requests that wait (`/_local/wait`, hangs);
    /// false when all are taken. A slot taken is given back with `releaseWaitingSlot`.
    func takeWaitingSlot() -> Bool {
        waitingRequests.withLock { waiting in
            guard waiting < configuration.maxWaitingRequests else { return false }
            waiting += 1
            return true
        }
    }

    func releaseWaitingSlot() {
        waitingRequests.withLock { $0 -= 1 }
    }

    /// Waiting slots taken now.
    var waitingSlotsTaken: Int { waitingRequests.withLock { $0 } }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Logs a failed request with the request id its client was given: at error level with what the
    /// client is not told (the error's `logDetail`), else at debug level (the client has it all).
    func logFailure(_ error: FirehoseError, requestID: String, operation: String) {
        var metadata: Logger.Metadata = [
            "request_id": .string(requestID), "operation": .string(operation), "error_code": .string(error.code),
        ]
        if let detail = error.logDetail {
            metadata["cause"] = .string(detail)
            logger.error("Request failed", metadata: metadata)
        } else {
            metadata["error_message"] = .string(error.message)
            logger.debug("Request failed", metadata: metadata)
        }
    }

    func log(_ message: Logger.Message, _ metadata: Logger.Metadata) {
        logger.info(message, metadata: metadata)
    }

    /// The body the operation reads: as sent, or gunzipped for `Content-Encoding: gzip` (the AWS iOS
    /// SDK compresses PutRecord/PutRecordBatch and signs the compressed bytes).
    private func decodedBody(_ request: APIRequest) throws(FirehoseError) -> [UInt8] {
        guard let encoding = request.header("content-encoding")?.lowercased(), !encoding.isEmpty,
            encoding != "identity"
        else { return request.body }
        guard encoding == "gzip" || encoding == "x-gzip" else {
            throw .serialization("Unsupported Content-Encoding '\(encoding)': only gzip is accepted.")
        }
        let limit = configuration.maxBodyBytes(target: request.header("x-amz-target"))
        do {
            // Charged twice, as the HTTP layer charges a plain body: the JSON and its decoded records.
            return try Gzip.decompress(request.body, limit: limit) {
                request.reserveMemory(2 * $0)
            }
        } catch .tooLarge(let limit) {
            throw .requestTooLarge(limit: limit)
        } catch .refused {
            throw .requestMemorySpent
        } catch {
            throw .serialization("Request body is declared gzip (Content-Encoding) but is not valid gzip data.")
        }
    }
}

/// `x-amzn-RequestId` values: version 4 UUIDs in lowercase, as AWS sends, without a system call per
/// request (`UUID()` opens, reads and closes /dev/urandom every time). 60 random bits fixed per process
/// and a 62-bit bijective scramble of a counter: unique within the process, and unpredictable enough
/// for what they are, ids to quote in a bug report.
final class RequestIDGenerator: Sendable {
    private let high: UInt64
    private let salt: UInt64
    private let counter = Atomic<UInt64>(0)

    private static let mask62: UInt64 = (1 << 62) - 1

    init() {
        var random = SystemRandomNumberGenerator()
        // Version 4 in the high nibble of the third group.
        high = (random.next() & ~0xF000) | 0x4000
        salt = random.next()
    }

    func next() -> String {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        // Each step is a bijection on 62 bits: xor-shift right, and multiplication by an odd number.
        var x = (count &+ salt) & Self.mask62
        x ^= x >> 31
        x = (x &* 0x7FB5_D329_728E_A185) & Self.mask62
        x ^= x >> 27
        x = (x &* 0x81DA_DEF4_BC2D_D44D) & Self.mask62
        x ^= x >> 33
        // RFC 4122 variant: 10 in the two high bits of the fourth group.
        return Self.format(high: high, low: x | (1 << 63))
    }

    /// 8-4-4-4-12 lowercase hex.
    static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { output in
            var index = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    let nibble = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0xF
                    output[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
                    index += 1
                }
            }
            func dash() {
                output[index] = UInt8(ascii: "-")
                index += 1
            }
            put(high >> 32, nibbles: 8)
            dash()
            put(high >> 16, nibbles: 4)
            dash()
            put(high, nibbles: 4)
            dash()
            put(low >> 48, nibbles: 4)
            dash()
            put(low, nibbles: 12)
            return 36
        }
    }
}
