import FirehoseClient
import FirehoseWire
public import Foundation

/// Keeps records on disk until the service has them, and says what happened to every one: the one
/// core of `FirehoseRecorder` and `KinesisRecorder`, which differ only in their `RecorderWire`.
///
/// - `saveRecord` appends the record to a journal file and returns once it is durable — by default,
///   once it would survive the app crashing or being killed; with `Durability.powerLoss`, once it is
///   synced to stable storage (see `Configuration.durability`). Journaled records move into SQLite
///   (WAL) in batches of hundreds, one transaction each. A save never waits for the network: a submit
///   in progress is suspended on its requests, and the actor runs the save meanwhile.
/// - `submitAllRecords` sends what was stored when it began, in requests (PutRecordBatch, PutRecords)
///   that respect the service's limits, up to `maxConcurrentRequests` of them at a time once the
///   first has gone through, classifies every outcome (see `docs/recorder.md`) and returns a
///   summary. Submits run one at a time; a second call waits for the first.
/// - Nothing is dropped silently: every drop is in the summary and in `events`.
///
/// One recorder per directory and service: a second one on the same directory (in this process or
/// another) fails to open with a `.storage` error until the first is released.
public actor Recorder<Wire: RecorderWire> {
    public let directory: URL
    public nonisolated let wire: Wire
    public private(set) var configuration: Configuration
    private let environment: Environment
    let store: RecordStore
    private let journal: RecordJournal

    /// Events, buffered (the newest 1,000) until read. One reader: iterate it from one task.
    public nonisolated let events: AsyncStream<RecorderEvent>
    private let eventSink: AsyncStream<RecorderEvent>.Continuation

    /// Saves in the journal that the store does not have yet, oldest first.
    private var pending: [RecordJournal.Entry] = []
    private var pendingBytes = 0
    private var oldestPending = Double.infinity
    /// The id the next save gets: ids only grow, and the store remembers the highest one it had.
    private var nextID: Int64
    /// Stream names already validated (checking one costs more than the rest of a save).
    private var validStreams: Set<String> = []
    /// The last failure to move journaled records into the store, and when to try again (saves
    /// keep succeeding meanwhile: their records are in the journal).
    private var flushFailure: RecorderError?
    private var retryFlushAt = 0
    /// Present while `durability` is `.powerLoss` and the store commits with `synchronous=FULL`.
    private var syncer: JournalSyncer?

    private var inFlight: Set<Int64> = []
    private var aboveThreshold = false
    private var submitting = false
    private var submitWaiters: [CheckedContinuation<Void, Never>] = []

    /// Records moved from the journal to the store per transaction: enough that the commit's cost
    /// is spread thin, few enough that the save which triggers it is not noticeably slow.
    static var flushRecords: Int { 512 }
    static var flushBytes: Int { 1 << 20 }
    /// Past this much unflushed data (the store failing meanwhile), saves are refused.
    static var maxPendingBytes: Int { 32 << 20 }

    /// Opens the store in `directory` (created if missing), to deliver through `wire`. Choose a
    /// directory that the OS keeps — on iOS, Application Support — never a temporary or caches
    /// directory, which the OS may purge.
    ///
    /// Records that an earlier process journaled but did not move into the database yet are moved now.
    /// A database that cannot be read is moved aside and replaced; `events` then starts with
    /// `.databaseRecovered`.
    public init(
        directory: URL, wire: Wire, configuration: Configuration = Configuration(), environment: Environment = .live
    ) throws(RecorderError) {
        self.directory = directory
        self.wire = wire
        self.configuration = configuration
        self.environment = environment
        (events, eventSink) = AsyncStream.makeStream(of: RecorderEvent.self, bufferingPolicy: .bufferingNewest(1_000))
        do {
            let now = environment.now()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // The journal first: its lock keeps a second recorder away from both files.
            let (journal, entries, unreadableJournal) = try RecordJournal.open(
                directory: directory, fileName: Wire.fileStem + ".journal", now: now)
            let (store, recovery) = try RecordStore.open(
                directory: directory, fileName: Wire.fileStem + ".sqlite", now: now,
                durability: configuration.durability)
            if !entries.isEmpty {
                _ = try store.insert(entries, expireBefore: nil, incoming: 0, byteLimit: .max, inFlight: [])
            }
            if recovery != nil { try store.seedIDs(above: Int64(now.timeIntervalSince1970 * 1_000_000)) }
            try journal.reset()
            self.journal = journal
            self.store = store
            nextID = store.snapshot.highestID + 1
            if configuration.durability == .powerLoss { syncer = JournalSyncer(file: journal.file) }
            if let recovery {
                eventSink.yield(.databaseRecovered(movedTo: recovery.movedTo, reason: recovery.reason))
            }
            if let unreadableJournal {
                eventSink.yield(
                    .databaseRecovered(
                        movedTo: unreadableJournal, reason: "the save journal is not in a format this version reads"))
            }
        } catch let error as RecorderError {
            throw error
        } catch {
            throw RecorderError(kind: .storage, message: "Cannot open the record store in \(directory.path): \(error)")
        }
    }

    deinit {
        eventSink.finish()
        // Leave nothing to replay when possible; if this fails, the next open replays the journal.
        if !pending.isEmpty,
            (try? store.insert(pending, expireBefore: nil, incoming: 0, byteLimit: .max, inFlight: [])) != nil
        {
            try? journal.reset()
        }
        store.close()
    }

    /// Syncs of the journal so far (tests: concurrent saves share them).
    var journalSyncCount: Int { syncer?.syncCount ?? 0 }

    // MARK: Knobs

    public var diskAgeLimit: Duration? { configuration.diskAgeLimit }
    public var diskByteLimit: Int { configuration.diskByteLimit }
    public var notificationByteThreshold: Int { configuration.notificationByteThreshold }
    public var batchRecordsByteLimit: Int { configuration.batchRecordsByteLimit }
    public var maxAttempts: Int { configuration.maxAttempts }
    public var durability: Durability { configuration.durability }

    /// Changes the knobs; they apply from the next save or submit.
    public func configure(_ change: @Sendable (inout Configuration) -> Void) {
        let before = configuration.durability
        change(&configuration)
        if configuration.durability != before {
            do {
                try store.setDurability(configuration.durability)
                syncer = configuration.durability == .powerLoss ? JournalSyncer(file: journal.file) : nil
            } catch {
                // Keep the promise the store can keep: stronger only if the store commits with FULL.
                configuration.durability = before
            }
        }
        updateThreshold(bytes: bytesUsed)
    }

    // MARK: State

    /// Bytes of the stored records: data and partition keys, as `diskByteLimit` counts them (the
    /// SQLite files add page and WAL overhead).
    public var diskBytesUsed: Int {
        get throws(RecorderError) { bytesUsed }
    }

    public var recordCount: Int {
        get throws(RecorderError) { store.snapshot.records + pending.count }
    }

    private var bytesUsed: Int { store.snapshot.bytes + pendingBytes }

    /// Every stored record, oldest first (for tools and tests; loads them all).
    public func storedRecords() throws(RecorderError) -> [(
        id: Int64, streamName: String, data: Data, attempts: Int, partitionKey: String
    )] {
        let stored = try storage { try store.all() }
        return stored.map { ($0.id, $0.stream, $0.data, $0.attempts, $0.partitionKey) }
            + pending.map { ($0.id, $0.stream, $0.data, 0, $0.partitionKey) }
    }

    // MARK: Saving

    /// Stores a record and returns its id once it is durable: `saveRecord` of each service.
    ///
    /// `saveRecord` of each service calls this; a wire of your own calls it directly (`partitionKey`
    /// empty for services without one).
    public func save(_ data: Data, streamName: String, partitionKey: String) async throws(RecorderError) -> Int64 {
        if !validStreams.contains(streamName) {
            if let problem = Wire.streamNameProblem(streamName) {
                throw RecorderError(kind: .invalidStreamName, message: problem)
            }
            if validStreams.count >= 1_000 { validStreams.removeAll() }
            validStreams.insert(streamName)
        }
        let recordBytes = data.count + partitionKey.utf8.count
        guard recordBytes <= Wire.maxRecordBytes else {
            throw .recordTooLarge(
                recordBytes, limit: Wire.maxRecordBytes, why: "\(Wire.serviceName)'s limit per record")
        }
        guard recordBytes <= configuration.diskByteLimit else {
            throw .recordTooLarge(recordBytes, limit: configuration.diskByteLimit, why: "diskByteLimit")
        }
        let now = environment.now()
        let cutoff = expiryCutoff(now)
        let snapshot = store.snapshot
        let expiring = cutoff.map {
            min(snapshot.oldestCreatedAt ?? .infinity, oldestPending) < $0.timeIntervalSince1970
        }
        if expiring == true || snapshot.bytes + pendingBytes + recordBytes > configuration.diskByteLimit {
            // Make room (and drop what is too old) before the record is written, in one transaction
            // with the journaled records; if that fails, the record is not saved and the caller knows.
            try storage { try flush(expireBefore: cutoff, incoming: recordBytes) }
        } else if pendingBytes > Self.maxPendingBytes, let flushFailure {
            throw RecorderError(
                kind: .storage, message: "The record store cannot take records (\(flushFailure.message)); not saved.")
        }

        let id = nextID
        nextID += 1
        let sequence = try storage {
            try journal.append(
                id: id, stream: streamName, partitionKey: partitionKey, data: data, createdAt: now.timeIntervalSince1970
            )
        }
        // Durable now (or once synced, below); whatever happens to the store from here on, the
        // record is in the journal and the save has succeeded.
        pending.append(
            RecordJournal.Entry(
                id: id, stream: streamName, data: data, createdAt: now.timeIntervalSince1970, partitionKey: partitionKey
            ))
        pendingBytes += recordBytes
        oldestPending = min(oldestPending, now.timeIntervalSince1970)
        if pending.count >= Self.flushRecords || pendingBytes >= Self.flushBytes, pending.count >= retryFlushAt {
            do {
                try flush(expireBefore: nil)
            } catch {
                flushFailure = error as? RecorderError ?? RecorderError(kind: .storage, message: "\(error)")
                retryFlushAt = pending.count + Self.flushRecords
            }
        }
        updateThreshold(bytes: bytesUsed)
        if let syncer {
            syncer.written(sequence)
            do {
                try await syncer.wait(for: sequence)
            } catch {
                throw RecorderError(
                    kind: .storage,
                    message: "Record \(id) was written but could not be synced to stable storage: \(error)")
            }
        }
        return id
    }

    /// Moves the journaled records into the store in one transaction that also drops records past
    /// the age limit and evicts the oldest until `incoming` more bytes fit under `diskByteLimit`;
    /// then cuts the journal back.
    private func flush(expireBefore: Date?, incoming: Int = 0) throws {
        let result = try store.insert(
            pending, expireBefore: expireBefore, incoming: incoming, byteLimit: configuration.diskByteLimit,
            inFlight: inFlight)
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
        oldestPending = .infinity
        flushFailure = nil
        retryFlushAt = 0
        // A FULL commit made every journaled frame durable, synced or not.
        syncer?.durable(through: journal.sequence)
        // If this fails the frames stay, and a replay skips them: the store has their ids.
        try? journal.reset()
        report(result.expired, reason: .ageLimit, into: nil)
        report(result.evicted, reason: .diskByteLimit, into: nil)
    }

    /// Deletes every stored record (not reported as dropped: you asked).
    public func removeAllRecords() throws(RecorderError) {
        _ = try storage { try store.removeAll(highestID: nextID - 1) }
        pending.removeAll()
        pendingBytes = 0
        oldestPending = .infinity
        syncer?.durable(through: journal.sequence)
        try? journal.reset()
        updateThreshold(bytes: 0)
    }

    // MARK: Submitting

    /// Sends every record stored when the call began and returns what happened. Always returns:
    /// retries are bounded (`maxRetriesPerSubmit`, with backoff) and offline or refused streams stop.
    ///
    /// Batches of a stream go out `maxConcurrentRequests` at a time once one has been delivered
    /// whole (until then, and again after any failure, one at a time), so their records can arrive
    /// in another order than they were saved — as with any two PutRecordBatch or PutRecords calls,
    /// neither service orders records across requests.
    public func submitAllRecords() async -> SubmitSummary {
        await acquireSubmit()
        defer { releaseSubmit() }
        var summary = SubmitSummary()
        do {
            try await runSubmit(&summary)
        } catch let error as RecorderError {
            summary.status = .storageFailed(error)
        } catch {
            summary.status = .storageFailed(RecorderError(kind: .storage, message: "Record store failed: \(error)"))
        }
        summary.remainingRecords = store.snapshot.records + pending.count
        updateThreshold(bytes: bytesUsed)
        eventSink.yield(.submitFinished(summary))
        return summary
    }

    private func runSubmit(_ summary: inout SubmitSummary) async throws {
        if !pending.isEmpty { try flush(expireBefore: nil) }
        if let cutoff = expiryCutoff(environment.now()) {
            report(try store.expire(before: cutoff), reason: .ageLimit, into: &summary)
        }
        let maxID = try store.maxID()
        streams: for stream in try store.streams(upTo: maxID) {
            switch try await submit(stream: stream, upTo: maxID, summary: &summary) {
            case .next:
                continue
            case .stopStream(let stop):
                summary.stoppedStreams[stream] = stop
                if case .completed = summary.status { summary.status = .streamsStopped }
            case .stopAll(let error):
                summary.status = .offline(error)
                break streams
            case .cancelled:
                summary.status = .cancelled
                break streams
            }
        }
    }

    /// Sends the records of one stream, batch after batch, keeping up to `maxConcurrentRequests`
    /// batches on the wire — but one at a time until one is delivered whole, and again after any
    /// failure, so that a stream that is missing, refused, throttled or offline costs one request,
    /// not a volley. A batch that stops the stream (or everything) stops new batches; those already
    /// sent are seen through, so their outcome is recorded.
    private func submit(stream: String, upTo maxID: Int64, summary: inout SubmitSummary) async throws -> BatchOutcome {
        var window = 1
        var cursor: Int64 = 0
        var exhausted = false
        var outcome = BatchOutcome.next
        try await withThrowingTaskGroup(of: Delivery.self) { group in
            var running = 0
            while true {
                while !exhausted, case .next = outcome, running < window {
                    if Task.isCancelled {
                        outcome = .cancelled
                        break
                    }
                    let batch: [RecordStore.Pending]
                    do {
                        batch = try await store.nextBatch(
                            stream: stream, after: cursor, upTo: maxID, count: configuration.effectiveBatchCount,
                            bytes: configuration.effectiveBatchBytes)
                    } catch is CancellationError {
                        outcome = .cancelled
                        break
                    }
                    guard let last = batch.last else {
                        exhausted = true
                        break
                    }
                    cursor = last.id
                    group.addTask { try await self.deliver(batch, stream: stream) }
                    running += 1
                }
                guard running > 0, let delivery = try await group.next() else { break }
                running -= 1
                summary.merge(delivery.summary)
                window = delivery.clean ? configuration.effectiveConcurrency : 1
                outcome = outcome.combined(with: delivery.outcome)
            }
        }
        return outcome
    }

    enum BatchOutcome: Sendable {
        case next
        case stopStream(StreamStop)
        case stopAll(FirehoseClientError)
        case cancelled

        /// Of two batches' outcomes, the one that stops more.
        func combined(with other: BatchOutcome) -> BatchOutcome {
            func rank(_ outcome: BatchOutcome) -> Int {
                switch outcome {
                case .next: return 0
                case .stopStream: return 1
                case .stopAll: return 2
                case .cancelled: return 3
                }
            }
            return rank(other) > rank(self) ? other : self
        }
    }

    struct Delivery: Sendable {
        var outcome: BatchOutcome
        var summary: SubmitSummary
        /// Delivered whole by its first request: the endpoint is taking requests.
        var clean: Bool
    }

    private func deliver(_ batch: [RecordStore.Pending], stream: String) async throws -> Delivery {
        var summary = SubmitSummary()
        let outcome = try await send(batch, stream: stream, summary: &summary, round: 0)
        var clean = false
        if case .next = outcome {
            clean = summary.requests == 1 && summary.failedAttempts == 0 && summary.dropped.isEmpty
        }
        return Delivery(outcome: outcome, summary: summary, clean: clean)
    }

    /// Sends one batch until each record is delivered, dropped or left for later.
    private func send(_ batch: [RecordStore.Pending], stream: String, summary: inout SubmitSummary, round: Int)
        async throws -> BatchOutcome
    {
        var pending = batch
        var retry = round
        var refreshedCredentials = false
        while !pending.isEmpty {
            inFlight.formUnion(pending.map(\.id))
            summary.requests += 1
            let result: Result<[PutOutcome], FirehoseClientError>
            do {
                result = .success(
                    try await wire.put(
                        pending.map { OutgoingRecord(data: $0.data, partitionKey: $0.partitionKey) },
                        streamName: stream))
            } catch {
                result = .failure(error)
            }

            var failed: [RecordStore.Pending] = []
            var lastCode = ""
            var requestFailure: FirehoseClientError?
            switch result {
            case .success(let outcomes):
                var delivered: [Int64] = []
                for (record, outcome) in zip(pending, outcomes) {
                    switch outcome {
                    case .stored: delivered.append(record.id)
                    case .failed(let code):
                        failed.append(record)
                        lastCode = code
                    }
                }
                // Off the actor (saves and other batches go on meanwhile); the records count as on
                // the wire until they are gone, so an eviction meanwhile does not pick them.
                do {
                    try await store.deleteDelivered(ids: delivered)
                } catch {
                    inFlight.subtract(pending.map(\.id))
                    throw error
                }
                inFlight.subtract(pending.map(\.id))
                let deliveredSet = Set(delivered)
                summary.sentRecords += delivered.count
                summary.sentBytes += pending.filter { deliveredSet.contains($0.id) }.reduce(0) { $0 + $1.data.count }
                if failed.isEmpty { return .next }
            case .failure(let error):
                inFlight.subtract(pending.map(\.id))
                if Task.isCancelled { return .cancelled }
                switch Self.classify(error) {
                case .offline:
                    return .stopAll(error)
                case .refreshCredentials:
                    if refreshedCredentials { return .stopAll(error) }
                    refreshedCredentials = true
                    summary.credentialRefreshes += 1
                    continue
                case .stopStream(let reason):
                    return .stopStream(StreamStop(reason: reason, error: error))
                case .invalidBatch:
                    if pending.count == 1 {
                        let dropped = try store.delete(ids: [pending[0].id])
                        report(
                            dropped, reason: .rejected(code: error.code ?? "\(error.kind)", message: error.message),
                            into: &summary)
                        return .next
                    }
                    // Split to find the bad records; the good ones go through.
                    let middle = pending.count / 2
                    for half in [Array(pending[..<middle]), Array(pending[middle...])] {
                        let outcome = try await send(half, stream: stream, summary: &summary, round: retry)
                        if case .next = outcome { continue }
                        return outcome
                    }
                    return .next
                case .retryable:
                    failed = pending
                    lastCode = error.code ?? "HTTP \(error.httpStatus ?? 0)"
                    if case .invalidResponse = error.kind.classification { lastCode = "InvalidResponse" }
                    requestFailure = error
                }
            }
            // Records to send again: the whole request failed retryably, or some of its records did.
            let failure =
                requestFailure
                ?? FirehoseClientError(
                    kind: .service, code: lastCode, message: "\(failed.count) of \(pending.count) records failed.")
            if let stop = try countFailures(failed, code: lastCode, error: failure, summary: &summary, retry: retry) {
                return stop
            }
            pending = try stillStored(failed)
            if pending.isEmpty { return .next }
            retry += 1
            do {
                try await environment.clock.sleep(for: backoff(retry: retry - 1))
            } catch {
                return .cancelled
            }
        }
        return .next
    }

    /// Counts a failed attempt for `records`, drops those at `maxAttempts`, and says whether this
    /// submit should leave the rest for later.
    private func countFailures(
        _ records: [RecordStore.Pending], code: String, error: FirehoseClientError, summary: inout SubmitSummary,
        retry: Int
    ) throws -> BatchOutcome? {
        let counted = try store.countAttempt(ids: records.map(\.id))
        summary.failedAttempts += counted.count
        let exhausted = counted.filter { $0.attempts >= configuration.maxAttempts }.map(\.id)
        report(try store.delete(ids: exhausted), reason: .maxAttemptsExceeded(lastErrorCode: code), into: &summary)
        if retry + 1 > configuration.maxRetriesPerSubmit, counted.count > exhausted.count {
            return .stopStream(StreamStop(reason: .retryLater, error: error))
        }
        return nil
    }

    private func stillStored(_ records: [RecordStore.Pending]) throws -> [RecordStore.Pending] {
        let present = Set(try store.load(ids: records.map(\.id)).map(\.id))
        return records.filter { present.contains($0.id) }
    }

    /// Exponential backoff with "equal jitter": half fixed, half random, so never zero.
    func backoff(retry: Int) -> Duration {
        let base = configuration.retryBaseDelay
        let cap = configuration.retryMaxDelay
        var delay = base
        for _ in 0..<min(retry, 30) where delay < cap { delay *= 2 }
        if delay > cap { delay = cap }
        return delay / 2 + delay / 2 * environment.random()
    }

    // MARK: Classification

    enum Classification: Equatable {
        /// Keep, count an attempt, back off and retry.
        case retryable
        /// Keep, count nothing, stop the whole submit.
        case offline
        /// Keep, stop this stream.
        case stopStream(StreamStop.Reason)
        /// The batch is invalid: split it to find the record(s) to drop.
        case invalidBatch
        /// The credentials expired: send again at once with fresh ones (the client made its provider
        /// drop the expired ones), counting nothing; expired again, stop the whole submit.
        case refreshCredentials
    }

    static func classify(_ error: FirehoseClientError) -> Classification {
        switch error.kind.classification {
        case .network, .credentials: return .offline
        case .invalidRequest: return .invalidBatch
        case .invalidResponse: return .retryable
        case .service: break
        }
        let code = error.code ?? ""
        if FirehoseClientError.expiredCredentialCodes.contains(code) { return .refreshCredentials }
        if error.isRetryableServiceError { return .retryable }
        if code == "ResourceNotFoundException" { return .stopStream(.streamNotFound) }
        if FirehoseClientError.authorizationCodes.contains(code) || error.httpStatus == 401 || error.httpStatus == 403 {
            return .stopStream(.notAuthorized)
        }
        if FirehoseClientError.invalidRequestCodes.contains(code) || error.httpStatus == 413 {
            // A stream-level validation failure would otherwise drop every record one by one.
            // The member as a validation message names it: a stream's own name cannot hold quotes.
            if error.message.contains("at '\(Wire.streamNameMember)'") { return .stopStream(.refused) }
            return .invalidBatch
        }
        return .stopStream(.refused)
    }

    // MARK: Helpers

    private func expiryCutoff(_ now: Date) -> Date? {
        guard let limit = configuration.diskAgeLimit else { return nil }
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return now.addingTimeInterval(-seconds)
    }

    private func report(_ rows: [RecordStore.Row], reason: DropReason, into summary: inout SubmitSummary) {
        for drop in Self.group(rows, reason: reason) {
            summary.dropped.append(drop)
            eventSink.yield(.recordsDropped(drop))
        }
    }

    private func report(_ rows: [RecordStore.Row], reason: DropReason, into _: Void?) {
        for drop in Self.group(rows, reason: reason) { eventSink.yield(.recordsDropped(drop)) }
    }

    private static func group(_ rows: [RecordStore.Row], reason: DropReason) -> [DroppedRecords] {
        var order: [String] = []
        var byStream: [String: DroppedRecords] = [:]
        for row in rows {
            if byStream[row.stream] == nil {
                order.append(row.stream)
                byStream[row.stream] = DroppedRecords(streamName: row.stream, reason: reason, recordIDs: [], bytes: 0)
            }
            byStream[row.stream]!.recordIDs.append(row.id)
            byStream[row.stream]!.bytes += row.size
        }
        return order.map { byStream[$0]! }
    }

    private func updateThreshold(bytes: Int) {
        let threshold = configuration.notificationByteThreshold
        guard threshold > 0 else {
            aboveThreshold = false
            return
        }
        if bytes >= threshold {
            if !aboveThreshold {
                aboveThreshold = true
                eventSink.yield(.thresholdCrossed(bytesUsed: bytes, threshold: threshold))
            }
        } else {
            aboveThreshold = false
        }
    }

    private func storage<T>(_ body: () throws -> T) throws(RecorderError) -> T {
        do {
            return try body()
        } catch let error as RecorderError {
            throw error
        } catch {
            throw RecorderError(kind: .storage, message: "Record store failed: \(error)")
        }
    }

    private func acquireSubmit() async {
        if !submitting {
            submitting = true
            return
        }
        await withCheckedContinuation { submitWaiters.append($0) }
    }

    private func releaseSubmit() {
        if submitWaiters.isEmpty {
            submitting = false
        } else {
            submitWaiters.removeFirst().resume()
        }
    }
}

extension FirehoseClientError.Kind {
    enum Classification { case service, network, credentials, invalidRequest, invalidResponse }

    var classification: Classification {
        switch self {
        case .network: return .network
        case .credentials: return .credentials
        case .invalidRequest: return .invalidRequest
        case .invalidResponse: return .invalidResponse
        default: return .service
        }
    }
}
