import AsyncHTTPClientTransport
public import DurableStorage
public import FirehoseWire
package import HTTPTransports
public import Logging
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the sink refused a call. Opaque struct over a private enum so cases can be added later.
public struct SinkError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Equatable {
        case unknownStream(String)
        case streamExists(String)
        case storage(FileSystemError)
        case undelivered(delivered: [DeliveredObject], failures: [UndeliveredStream])
        case memorySpent
    }

    private let kind: Kind

    public static func unknownStream(_ name: String) -> SinkError { SinkError(kind: .unknownStream(name)) }
    public static func streamExists(_ name: String) -> SinkError { SinkError(kind: .streamExists(name)) }
    public static func storage(_ error: FileSystemError) -> SinkError { SinkError(kind: .storage(error)) }
    /// What a processor made of a request's records (decompressed records) did not fit the caller's
    /// memory budget; nothing was stored.
    public static let memorySpent = SinkError(kind: .memorySpent)

    public var isMemorySpent: Bool { kind == .memorySpent }
    /// A flush delivered what it could; `failures` are the streams whose buffers stay staged.
    public static func undelivered(delivered: [DeliveredObject], failures: [UndeliveredStream]) -> SinkError {
        SinkError(kind: .undelivered(delivered: delivered, failures: failures))
    }

    public var isUnknownStream: Bool {
        if case .unknownStream = kind { return true }
        return false
    }

    public var isStreamExists: Bool {
        if case .streamExists = kind { return true }
        return false
    }

    /// The stream an unknown-stream or stream-exists error names.
    public var streamName: String? {
        switch kind {
        case .unknownStream(let name), .streamExists(let name): name
        case .storage, .undelivered, .memorySpent: nil
        }
    }

    public var storageError: FileSystemError? {
        if case .storage(let error) = kind { return error }
        return nil
    }

    /// For a flush that failed for some streams: what it delivered, and what stays staged per stream.
    public var undelivered: (delivered: [DeliveredObject], failures: [UndeliveredStream])? {
        if case .undelivered(let delivered, let failures) = kind { return (delivered, failures) }
        return nil
    }

    public var description: String {
        switch kind {
        case .unknownStream(let name): "delivery stream \(name) does not exist"
        case .streamExists(let name): "delivery stream \(name) already exists"
        case .storage(let error): "storage failure: \(error)"
        case .undelivered(_, let failures): failures.map(\.description).joined(separator: "; ")
        case .memorySpent: "the request's records decompress beyond the memory the server has left for requests"
        }
    }
}

/// A stream whose delivery failed: why, and how many records stay staged (delivered by a later
/// retry, flush or start).
public struct UndeliveredStream: Sendable, Equatable, CustomStringConvertible {
    public var stream: String
    public var error: FileSystemError
    public var stagedRecords: Int

    package init(stream: String, error: FileSystemError, stagedRecords: Int) {
        self.stream = stream
        self.error = error
        self.stagedRecords = stagedRecords
    }

    public var description: String {
        "stream \(stream) could not deliver (\(error)); \(stagedRecords) records stay staged"
    }
}

/// The delivery streams of one data directory: routes records to streams and delivers their
/// buffers into `<dataDirectory>/<bucket>/<key>`. Knows nothing about HTTP.
public final class FirehoseSink: Sendable {
    public struct Configuration: Sendable {
        /// Root of the local "S3": one folder per bucket.
        public var dataDirectory: String
        public var durability: Durability
        /// Where delivered objects go; nil: the bucket folders of `dataDirectory`, or the stores of
        /// `stores` for the buckets mapped to one.
        package var destination: (any ObjectDestination)?
        /// Buckets whose objects go to an S3-compatible store, by the name streams give them.
        package var stores: [String: S3Store] = [:]
        /// What a failed delivery's backoff is multiplied by (`DeliveryStream.retryJitter`; tests
        /// fix it to time retries exactly).
        package var retryJitter = DeliveryStream.retryJitter
        /// Partitions a dynamically partitioned stream may have with records not yet delivered;
        /// records of further partitions go to the error output (AWS's default quota: 500).
        public var maxActivePartitions = 500
        /// Content waiting in retired buffers to be encoded at delivery beyond which requests wait
        /// (`DeliveryStream.waitForEncodingRoom`); at least twice a stream's size hint.
        package var encodingBacklogBytes = 32 << 20
        /// How HTTP endpoint destinations and Lambda Invoke API endpoints are reached (tests plug in
        /// another).
        package var httpTransport: any HTTPTransport = AsyncHTTPClientTransport()
        /// How long an HTTP endpoint destination has to answer each attempt (AWS: 3 minutes).
        package var endpointResponseTimeout = HTTPEndpointContract.responseTimeout

        public init(dataDirectory: String, durability: Durability = .fsync) {
            self.dataDirectory = dataDirectory
            self.durability = durability
        }

        /// The longest path the file system accepts (PATH_MAX, less its terminating NUL): an object's
        /// `<data directory>/<bucket>/<key>` must fit, or it could never be delivered.
        public static let maxPathBytes = Int(PATH_MAX) - 1

        /// The folder of a data directory that is firehose-local's own (staging buffers, the stream
        /// catalog): never a bucket, never listed as one.
        public static let privateFolderName = ".firehose-local"

        /// Staging buffers live inside the data directory so publishing them is a same-filesystem rename.
        public var stagingDirectory: String { "\(dataDirectory)/\(Self.privateFolderName)/staging" }

        /// Staged buffers of streams that do not exist, kept until a stream of that name does.
        public var quarantineDirectory: String { "\(dataDirectory)/\(Self.privateFolderName)/quarantine" }

        var catalog: StreamCatalog { StreamCatalog(privateFolder: "\(dataDirectory)/\(Self.privateFolderName)") }
    }

    public let configuration: Configuration
    /// Waits for buffer intervals, delivery retries and `/_local/wait` (Swift's `Clock`; tests move a
    /// manual one). An existential, not a generic parameter as in Hummingbird's persist driver: every
    /// wait here is relative (an interval from a buffer's first record, a retry delay, a wait's
    /// timeout), so no instant is stored, and the API's types stay free of a clock parameter.
    package let clock: any Clock<Duration>
    /// Wall-clock time, for what is stamped with a date: arrivals (object keys), deliveries, streams.
    private let wallClock: @Sendable () -> Date
    let logger: Logger
    private let onDelivery: @Sendable (DeliveredObject) -> Void
    let streams = Mutex<[String: StreamEntry]>([:])
    let tracker = DeliveryTracker()
    /// The latest deliveries, for the live view (`/_local/events`).
    public let recentDeliveries = RecentDeliveries()
    private let observers = DeliveryObservers()
    private let failureObservers = Mutex<[@Sendable (UndeliveredStream) -> Void]>([])
    private let endpointObservers = Mutex<[@Sendable (HTTPEndpointEvent, String) -> Void]>([])
    private let strandedAtShutdown = Mutex<[UndeliveredStream]>([])
    /// Function invocations and HTTP endpoint requests: retries stop when shutdown begins, and what
    /// is under way is abandoned when shutdown is cancelled.
    private let outgoing = OutgoingWork()
    let quarantine = Mutex<[QuarantinedBuffer]>([])
    private let streamChanges = AsyncGate()
    /// Where every stream's objects go (`Configuration.destination`, `stores`).
    let destination: any ObjectDestination
    /// Whether streams' roles may write what they deliver, when the server checks it.
    package let deliveryRoles = DeliveryRoleGate()
    /// Recovered buffers whose delivery failed at start, retried until shutdown.
    let recoveryRetries = Mutex<[Task<Void, Never>]>([])
    /// Recovered buffers whose delivery failed and that are still staged.
    let pendingRecoveries = Mutex<[PendingRecovery]>([])
    /// One pass over `pendingRecoveries` at a time.
    let recoveryPasses = AsyncGate()

    /// Creates the data and staging directories.
    public init(
        configuration: Configuration, clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger,
        onDelivery: @escaping @Sendable (DeliveredObject) -> Void = { _ in }
    ) throws(SinkError) {
        self.configuration = configuration
        self.clock = clock
        self.wallClock = now
        self.logger = logger
        destination =
            configuration.destination
            ?? (configuration.stores.isEmpty
                ? DirectoryBucket(root: configuration.dataDirectory)
                : S3StoreDestination(
                    stores: configuration.stores, dataDirectory: configuration.dataDirectory,
                    transport: configuration.httpTransport, logger: logger))
        let tracker = tracker
        let observers = observers
        let recent = recentDeliveries
        self.onDelivery = { object in
            let deliveredAt = now()
            tracker.delivered(object, at: deliveredAt)
            recent.append(object, at: deliveredAt)
            for observer in observers.list.withLock({ $0 }) { observer(object, deliveredAt) }
            onDelivery(object)
        }
        do {
            try POSIX.makeDirectories(configuration.stagingDirectory)
        } catch {
            throw .storage(error)
        }
    }

    /// Calls `observer` with every delivered object and the time it was delivered.
    public func addDeliveryObserver(_ observer: @escaping @Sendable (DeliveredObject, Date) -> Void) {
        observers.list.withLock { $0.append(observer) }
    }

    /// Calls `observer` with every failed delivery attempt (the buffer stays staged and is retried).
    public func addDeliveryFailureObserver(_ observer: @escaping @Sendable (UndeliveredStream) -> Void) {
        failureObservers.withLock { $0.append(observer) }
    }

    /// A delivery attempt of `stream` failed: counted for `/_local/streams`, told to the observers.
    func deliveryFailed(stream: String, error: FileSystemError, stagedRecords: Int) {
        tracker.deliveryFailed(stream: stream, error: error.description, at: now())
        let failure = UndeliveredStream(stream: stream, error: error, stagedRecords: stagedRecords)
        for observer in failureObservers.withLock({ $0 }) { observer(failure) }
    }

    /// Calls `observer` with every request accepted, attempt failed and request given up by a
    /// stream's HTTP endpoint destination, and the stream's name.
    public func addEndpointObserver(_ observer: @escaping @Sendable (HTTPEndpointEvent, String) -> Void) {
        endpointObservers.withLock { $0.append(observer) }
    }

    private func endpointEvent(_ event: HTTPEndpointEvent, stream: String) {
        tracker.endpoint(event, stream: stream, at: now())
        for observer in endpointObservers.withLock({ $0 }) { observer(event, stream) }
    }

    /// Registers a stream. `record` defaults to one for a configuration-file stream, ACTIVE at once.
    public func createStream(_ settings: DeliveryStreamSettings, record: StreamRecord? = nil) throws(SinkError) {
        let record =
            record
            ?? StreamRecord(
                definition: settings.definition, versionID: settings.versionID, createTime: now(),
                origin: .configurationFile, activeAt: now())
        // The delivery stages take the settings whole: what the function gives back skips the
        // processors before it (`RecordPipeline.Input.transformed`).
        let backup = settings.backupStage.map { makeStage($0) }
        let stream = makeStage(
            settings, consumer: settings.destination.consumer(in: context(of: settings.name, s3: backup)))
        let source = settings.transformation.map { _ in makeSourceStage(settings.sourceStage, for: stream) }
        let inserted = streams.withLock { streams -> Bool in
            guard streams[settings.name] == nil else { return false }
            streams[settings.name] = StreamEntry(
                actor: stream, source: source, backup: backup, settings: settings, record: record)
            return true
        }
        guard inserted else { throw .streamExists(settings.name) }
        var metadata: Logger.Metadata = [
            "stream": .string(settings.name), "bucket": .string(settings.bucket),
            "compression": .string(settings.compression.rawValue),
            "buffer_bytes": .stringConvertible(settings.bufferSizeBytes),
            "buffer_seconds": .stringConvertible(settings.bufferIntervalSeconds),
            "origin": .string(record.origin.rawValue),
            "backup_bucket": .string(settings.backupStage?.bucket ?? "none"),
        ]
        if settings.compression == .gzip {
            metadata["gzip"] = .string("\(settings.gzipImplementation.rawValue) level \(settings.gzipLevel)")
        }
        logger.info("Delivery stream ready", metadata: metadata)
        logWarnings(of: settings)
    }

    private func logWarnings(of settings: DeliveryStreamSettings) {
        for warning in settings.warnings {
            logger.warning(
                "Delivery stream has a setting that cannot work here",
                metadata: ["stream": .string(settings.name), "warning": .string(warning)])
        }
    }

    /// The stages of a stream that deliver objects (or, with `transformation`, that stage source
    /// records for a `Lambda` processor and transform them into `transformation`'s stream).
    private func makeStage(_ settings: DeliveryStreamSettings, consumer: StagedBufferConsumer? = nil)
        -> DeliveryStream
    {
        DeliveryStream(
            settings: settings,
            destination: RoleCheckedDestination(
                inner: destination, stream: settings.name,
                roleARN: { [weak self, name = settings.name, isBackup = settings.isBackupStage] in
                    self?.streams.withLock { streams in
                        let current = streams[name]?.settings
                        return isBackup ? current?.backupStage?.deliveryRoleARN : current?.deliveryRoleARN
                    }
                }, gate: deliveryRoles),
            stagingDirectory: configuration.stagingDirectory, durability: configuration.durability,
            maxActivePartitions: configuration.maxActivePartitions,
            encodingBacklogBytes: configuration.encodingBacklogBytes, consumer: consumer,
            retryJitter: configuration.retryJitter, clock: clock,
            now: wallClock, logger: logger, onDelivery: onDelivery,
            onDeliveryFailure: { [weak self] error, staged in
                self?.deliveryFailed(stream: settings.name, error: error, stagedRecords: staged)
            },
            onDropped: { [tracker] records in tracker.dropped(records: records, stream: settings.name) })
    }

    /// What a stream's destination publishes its buffers with; `s3` is the stream's backup stage.
    private func context(of stream: String, s3: DeliveryStream?) -> DestinationContext {
        var logger = logger
        logger[metadataKey: "stream"] = .string(stream)
        return DestinationContext(
            s3Stage: s3, transport: configuration.httpTransport, clock: clock, now: wallClock,
            logger: logger, outgoing: outgoing, responseTimeout: configuration.endpointResponseTimeout,
            current: { [weak self] in self?.streams.withLock { $0[stream]?.settings.destination } },
            onEndpointEvent: { [weak self] event in self?.endpointEvent(event, stream: stream) })
    }

    /// The stage that stages a transformed stream's source records and transforms them into `delivery`.
    private func makeSourceStage(_ settings: DeliveryStreamSettings, for delivery: DeliveryStream) -> DeliveryStream {
        var logger = logger
        logger[metadataKey: "stream"] = .string(settings.name)
        let transformation = LambdaTransformation(
            downstream: delivery, now: wallClock, logger: logger,
            roleCheck: settings.processingRoleARN.map { (settings.name, $0, deliveryRoles) },
            onDropped: { [tracker] records in tracker.dropped(records: records, stream: settings.name) },
            transport: configuration.httpTransport, outgoing: outgoing)
        return makeStage(settings, consumer: transformation.consumer)
    }

    /// The sink's wall-clock time: what the API layer signs, activates and describes streams against.
    package func now() -> Date { wallClock() }

    public var streamNames: [String] { streams.withLock { $0.keys.sorted() } }

    public func settings(of name: String) -> DeliveryStreamSettings? {
        streams.withLock { $0[name]?.settings }
    }

    public func record(of name: String) -> StreamRecord? {
        streams.withLock { $0[name]?.record }
    }

    /// Whether `name`'s server-side encryption is on: asked by every put, so read in place rather
    /// than by copying the stream's record out.
    package func isEncrypted(_ name: String) -> Bool {
        streams.withLock { $0[name]?.record.encryptionInForce?.enabled == true }
    }

    // MARK: Control-plane changes
    //
    // Each is all-or-nothing: the stream's record is on disk (or gone from it) before the change is
    // visible, so a failed call leaves no trace and an acknowledged one survives a crash. Callers run
    // them inside `changingStreams`.

    /// Saves `record` durably, then registers the stream: CreateDeliveryStream.
    public func createSavedStream(_ settings: DeliveryStreamSettings, record: StreamRecord) async throws(SinkError) {
        if streams.withLock({ $0[settings.name] }) != nil { throw .streamExists(settings.name) }
        try await save(record)
        do {
            try createStream(settings, record: record)
        } catch {
            try? await removeSaved(settings.name)
            throw error
        }
    }

    /// Saves the new record, then delivers what the stream has buffered under its old settings and
    /// switches to `settings`. If that delivery fails, the old record is saved back.
    public func updateStream(_ settings: DeliveryStreamSettings, record: StreamRecord) async throws(SinkError) {
        guard let entry = streams.withLock({ $0[settings.name] }) else { throw .unknownStream(settings.name) }
        try await save(record)
        // A destination may deliver what its stage holds in the background instead
        // (`StreamDestination.deliversBeforeUpdate`).
        let deliversFirst = entry.settings.destination.deliversBeforeUpdate
        do {
            // Every stage delivers under the old settings first (what awaits the old function is
            // transformed by it); only then do they switch, which cannot fail, so a failure leaves
            // the stream wholly as it was.
            if let old = entry.source { _ = try await old.flush() }
            if deliversFirst { _ = try await entry.actor.flush() }
            _ = try await entry.backup?.flush()
        } catch {
            if entry.record.origin == .api {
                try? await save(entry.record)
            } else {
                try? await removeSaved(settings.name)
            }
            throw .storage(error)
        }
        _ = await entry.actor.adopt(settings, waitsForDelivery: deliversFirst)
        if let backup = entry.backup, let stage = settings.backupStage { _ = await backup.adopt(stage) }
        // A new source stage (nothing can fail from here on): the old one keeps what requests that
        // reached it meanwhile staged, transforms it with the function each buffer was staged for,
        // and retries a failure on its own timer (a restart recovers whatever it still holds).
        let source = settings.transformation.map { _ in makeSourceStage(settings.sourceStage, for: entry.actor) }
        // UpdateDestination may enable the backup (never disable it: refused by the API).
        let backup = settings.backupStage.map { stage in entry.backup ?? makeStage(stage) }
        streams.withLock {
            $0[settings.name]?.settings = settings
            $0[settings.name]?.record = record
            $0[settings.name]?.source = source
            $0[settings.name]?.backup = backup
        }
        logWarnings(of: settings)
        if let old = entry.source { _ = try? await old.flush() }
    }

    /// Saves the changed record (tags), then makes it visible.
    public func updateRecord(of name: String, _ change: (inout StreamRecord) -> Void) async throws(SinkError) {
        guard var record = streams.withLock({ $0[name]?.record }) else { throw .unknownStream(name) }
        change(&record)
        try await save(record)
        streams.withLock { $0[name]?.record = record }
    }

    /// Forgets the saved record, then removes the stream and discards whatever it had buffered (as
    /// AWS does).
    public func deleteStream(_ name: String) async throws(SinkError) {
        guard streams.withLock({ $0[name] }) != nil else { throw .unknownStream(name) }
        try await removeSaved(name)
        guard let entry = streams.withLock({ $0.removeValue(forKey: name) }) else { throw .unknownStream(name) }
        await entry.source?.discardAll()
        await entry.actor.discardAll()
        await entry.backup?.discardAll()
        tracker.removeStream(name)
        // Recovered buffers of an earlier run that still wait are not this stream's to discard: with
        // the stream gone they go to the quarantine folder now, as recovery would put them, and do
        // not count toward a stream of the same name made next.
        if pendingRecoveryFill(of: name).records > 0 { _ = await deliverPendingRecoveries(streams: [name]) }
        logger.info("Delivery stream deleted; its buffer was discarded", metadata: ["stream": .string(name)])
    }

    /// Runs `change` (a control-plane call: look at the registry, then change it with the calls above)
    /// once every change that arrived earlier has finished, so no two read-modify-writes interleave.
    public func changingStreams<Result, Failure: Error>(
        _ change: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await streamChanges.run(change)
    }

    private func save(_ record: StreamRecord) async throws(SinkError) {
        let catalog = configuration.catalog
        try await Self.blocking { () throws(FileSystemError) in try catalog.save(record) }
    }

    private func removeSaved(_ name: String) async throws(SinkError) {
        let catalog = configuration.catalog
        try await Self.blocking { () throws(FileSystemError) in try catalog.remove(name) }
    }

    /// Runs file work on the blocking-I/O thread.
    private static func blocking(_ work: @escaping @Sendable () throws(FileSystemError) -> Void) async throws(SinkError)
    {
        let failure = await BlockingIO.run { () -> FileSystemError? in
            do throws(FileSystemError) {
                try work()
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw .storage(failure) }
    }

    /// Streams saved by an earlier run (created or changed through the API). A catalog in the single
    /// file of earlier versions is converted to one file per stream first.
    public func loadPersistedStreams() throws(SinkError) -> [StreamRecord] {
        do {
            try configuration.catalog.convertLegacy()
        } catch {
            throw .storage(error)
        }
        return try Self.savedStreams(dataDirectory: configuration.dataDirectory)
    }

    /// The streams a server saved in `dataDirectory` (created or changed through the API), read
    /// without opening the directory as a sink (nothing is created or converted); none when it saved
    /// none.
    public static func savedStreams(dataDirectory: String) throws(SinkError) -> [StreamRecord] {
        do {
            return try Configuration(dataDirectory: dataDirectory).catalog.load()
        } catch {
            throw .storage(error)
        }
    }

    /// Buffers `records` in `stream`, stamped with the current time as their arrival.
    @discardableResult
    /// - Parameter reserveMemory: asked before a processor allocates what it makes of the records
    ///   (decompression); a refusal fails the put with `memorySpent`, storing nothing.
    public func put(
        _ records: RecordBatch, to stream: String, reserveMemory: @escaping @Sendable (Int) -> Bool = { _ in true }
    ) async throws(SinkError) -> [DeliveredObject] {
        guard let entry = streams.withLock({ $0[stream] }) else { throw .unknownStream(stream) }
        let arrival = now()
        // The backup stages the records as they came while the stream's first stage stages them:
        // the put is acknowledged once both hold them (a retry after a failure of either may back
        // records up twice, never lose them).
        let first = entry.source ?? entry.actor
        guard let backup = entry.backup, entry.settings.backsUpSourceRecords else {
            let delivered = try await first.append(records, arrival: arrival, reserveMemory: reserveMemory)
            tracker.received(records: records.count, bytes: records.totalBytes, stream: stream)
            return delivered
        }
        async let backedUp: Result<[DeliveredObject], SinkError> = Self.appending(records, to: backup, arrival)
        let delivered = try await first.append(records, arrival: arrival, reserveMemory: reserveMemory)
        let backupDelivered = try await backedUp.get()
        tracker.received(records: records.count, bytes: records.totalBytes, stream: stream)
        return delivered + backupDelivered
    }

    private static func appending(_ records: RecordBatch, to stage: DeliveryStream, _ arrival: Date) async -> Result<
        [DeliveredObject], SinkError
    > {
        do throws(SinkError) {
            return .success(try await stage.append(records, arrival: arrival))
        } catch {
            return .failure(error)
        }
    }

    /// Delivers every non-empty buffer (or only `stream`'s) and returns when the objects are on disk.
    public func flush(stream name: String? = nil, reason: DeliveredObject.Reason = .flush) async throws(SinkError)
        -> [DeliveredObject]
    {
        let targets: [(name: String, entry: StreamEntry)]
        if let name {
            guard let stream = streams.withLock({ $0[name] }) else { throw .unknownStream(name) }
            targets = [(name, stream)]
        } else {
            targets = streams.withLock { streams in streams.keys.sorted().map { ($0, streams[$0]!) } }
        }
        // One stream that cannot deliver does not keep the others from it.
        var delivered: [DeliveredObject] = []
        var failures: [UndeliveredStream] = []
        // Recovered buffers whose delivery failed at start are their streams' too: a flush tries them
        // again, in one pass (a store that failed is not tried again for every stream). Shutdown
        // does not: they stay staged, as they were, and fail it.
        let names = Set(targets.map(\.name))
        let recovered =
            reason == .shutdown
            ? (delivered: [], failures: pendingRecoveryFailures(streams: names))
            : await deliverPendingRecoveries(streams: names)
        delivered += recovered.delivered
        for (name, entry) in targets {
            var failure = recovered.failures[name]?.error
            let pendingRecords = recovered.failures[name]?.records ?? 0
            // A transformed stream's source records go through the function first, then out; what
            // the function gave back earlier is delivered even when that fails, and so is the
            // backup. Its stages publish in the background, so what it delivered meanwhile is what
            // the tracker saw.
            let recording = entry.source == nil ? nil : tracker.startRecording(stream: name)
            for stage in [entry.source, entry.actor, entry.backup].compactMap({ $0 }) {
                // A shutdown whose time is up starts no further delivery: what is staged stays for
                // the next start, and the process exits before the service group's short grace
                // for cancellation runs out.
                if reason == .shutdown, Task.isCancelled {
                    failure = failure ?? FileSystemError(operation: "deliver at shutdown", path: name, errno: ECANCELED)
                    continue
                }
                do {
                    let objects = try await stage.flush(reason: reason)
                    if recording == nil { delivered += objects }
                } catch {
                    failure = failure ?? error
                }
            }
            if let recording { delivered += tracker.stopRecording(recording) }
            if let failure {
                // The backup's records count too: a failure may be the backup's alone.
                let staged =
                    await entry.bufferFill.records + (await entry.backup?.bufferFill.records ?? 0) + pendingRecords
                failures.append(UndeliveredStream(stream: name, error: failure, stagedRecords: staged))
            }
        }
        if !failures.isEmpty { throw .undelivered(delivered: delivered, failures: failures) }
        return delivered
    }

    /// Delivers every buffer before the process exits. What could not be delivered stays staged for
    /// the next start, is logged per stream, and is kept in `undeliveredAtShutdown`. Cancelling the
    /// calling task (the server's shutdown time is up) abandons function invocations and HTTP
    /// endpoint requests under way: their records stay staged too.
    public func shutdown() async {
        outgoing.stopRetries()
        // What failed at start stays staged for the next one.
        for task in recoveryRetries.withLock({ $0 }) { task.cancel() }
        let flushed: Result<[DeliveredObject], SinkError> = await withTaskCancellationHandler {
            do throws(SinkError) {
                return .success(try await flush(reason: .shutdown))
            } catch {
                return .failure(error)
            }
        } onCancel: { [outgoing, logger] in
            let abandoned = outgoing.abandon()
            logger.warning(
                "Shutdown time is up: function invocations and HTTP endpoint requests under way are abandoned; their records stay staged for the next start",
                metadata: ["abandoned": .stringConvertible(abandoned)])
        }
        switch flushed {
        case .success(let delivered):
            logger.info(
                "Delivered all buffers for shutdown", metadata: ["objects": .stringConvertible(delivered.count)])
        case .failure(let error):
            let failures = error.undelivered?.failures ?? []
            for failure in failures {
                logger.error(
                    "Records stay staged: delivery failed at shutdown; the next start delivers them",
                    metadata: [
                        "stream": .string(failure.stream), "records": .stringConvertible(failure.stagedRecords),
                        "error": .string(failure.error.description),
                    ])
            }
            strandedAtShutdown.withLock { $0 = failures }
        }
    }

    /// Staged buffers of streams that do not exist, as the last recovery found them.
    public var quarantinedBuffers: [QuarantinedBuffer] { quarantine.withLock { $0 } }

    /// The streams whose buffers `shutdown()` could not deliver; empty when it delivered everything.
    public var undeliveredAtShutdown: [UndeliveredStream] { strandedAtShutdown.withLock { $0 } }

    /// A snapshot of one stream for `/_local/streams` and metrics.
    public struct StreamStatus: Sendable {
        public var settings: DeliveryStreamSettings
        public var record: StreamRecord
        public var bufferedRecords: Int
        public var bufferedBytes: Int
        /// Partitions with an open buffer (1 at most without dynamic partitioning).
        public var openPartitions: Int
        public var counters: StreamCounters
        /// The open buffers, oldest first.
        public var partitions: [OpenPartition] = []
    }

    /// An open buffer of one partition: what it holds and since when (its interval runs from there).
    public struct OpenPartition: Sendable, Equatable {
        /// Where its object will be written: the key up to the object's name.
        public var prefix: String
        /// Set for a partition of the error output.
        public var errorOutputType: String?
        public var records: Int
        /// Bytes before compression: what the size hint is measured against.
        public var bytes: Int
        public var firstArrival: Date
    }

    public func status(of name: String) async -> StreamStatus? {
        guard let entry = streams.withLock({ $0[name] }) else { return nil }
        let (records, bytes) = await entry.bufferFill
        let partitions = await entry.actor.openPartitionFill
        // Recovered buffers waiting for delivery are buffered records like the others.
        let recovered = pendingRecoveryFill(of: name)
        return StreamStatus(
            settings: entry.settings, record: entry.record, bufferedRecords: records + recovered.records,
            bufferedBytes: bytes + recovered.bytes,
            openPartitions: partitions.count, counters: tracker.counters(name), partitions: partitions)
    }

    public func statuses() async -> [StreamStatus] {
        var result: [StreamStatus] = []
        for name in streamNames {
            if let status = await status(of: name) { result.append(status) }
        }
        return result
    }

    /// Waits until `stream` (all streams when nil) has made `objects` deliveries since start
    /// (`deliveries`: objects, and requests an HTTP endpoint accepted). Returns false on timeout.
    public func waitForObjects(_ objects: Int, stream: String? = nil, timeout: Duration) async throws(SinkError)
        -> Bool
    {
        if let stream, streams.withLock({ $0[stream] }) == nil { throw .unknownStream(stream) }
        return await tracker.waitForObjects(objects, stream: stream, timeout: timeout, clock: clock)
    }

    /// Objects `stream` has written since start.
    public func objectsWritten(stream: String) -> Int { tracker.counters(stream).objectsWritten }

    /// What `waitForObjects` counts: objects written by `stream` (all streams when nil) since start,
    /// and requests an HTTP endpoint destination accepted.
    public func deliveries(stream: String? = nil) -> Int { tracker.deliveries(stream) }
}

final class DeliveryObservers: Sendable {
    let list = Mutex<[@Sendable (DeliveredObject, Date) -> Void]>([])
}
