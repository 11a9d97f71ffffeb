import FirehoseClient
import Foundation

/// Keeps records on disk until Firehose has them, and says what happened to every one.
///
/// - `saveRecord` writes to SQLite (WAL, `synchronous=FULL`) and returns once the record is durable.
///   It never waits for the network: a submit in progress is suspended on its request, and the actor
///   runs the save meanwhile.
/// - `submitAllRecords` sends what was stored when it began, in PutRecordBatch calls that respect
///   Firehose's limits, classifies every outcome (see `docs/recorder.md`) and returns a summary.
///   Submits run one at a time; a second call waits for the first.
/// - Nothing is dropped silently: every drop is in the summary and in `events`.
///
/// One recorder per directory per process: two recorders on the same files would both send them.
public actor FirehoseRecorder {
    public let directory: URL
    public let client: FirehoseClient
    public private(set) var configuration: Configuration
    private let environment: Environment
    private let store: RecordStore

    /// Events, buffered (the newest 1,000) until read. One reader: iterate it from one task.
    public nonisolated let events: AsyncStream<RecorderEvent>
    private let eventSink: AsyncStream<RecorderEvent>.Continuation

    private var inFlight: Set<Int64> = []
    private var aboveThreshold = false
    private var submitting = false
    private var submitWaiters: [CheckedContinuation<Void, Never>] = []

    /// Opens the store in `directory` (created if missing). Choose a directory that the OS keeps —
    /// on iOS, Application Support — never a temporary or caches directory, which the OS may purge.
    ///
    /// A database that cannot be read is moved aside and replaced; `events` then starts with
    /// `.databaseRecovered`.
    public init(
        directory: URL, client: FirehoseClient, configuration: Configuration = Configuration(),
        environment: Environment = .live
    ) throws(RecorderError) {
        self.directory = directory
        self.client = client
        self.configuration = configuration
        self.environment = environment
        (events, eventSink) = AsyncStream.makeStream(of: RecorderEvent.self, bufferingPolicy: .bufferingNewest(1_000))
        do {
            let (store, recovery) = try RecordStore.open(directory: directory, now: environment.now())
            self.store = store
            if let recovery {
                eventSink.yield(.databaseRecovered(movedTo: recovery.movedTo, reason: recovery.reason))
            }
        } catch let error as RecorderError {
            throw error
        } catch {
            throw RecorderError(kind: .storage, message: "Cannot open the record store in \(directory.path): \(error)")
        }
    }

    deinit {
        eventSink.finish()
        store.close()
    }

    // MARK: Knobs

    public var diskAgeLimit: Duration? { configuration.diskAgeLimit }
    public var diskByteLimit: Int { configuration.diskByteLimit }
    public var notificationByteThreshold: Int { configuration.notificationByteThreshold }
    public var batchRecordsByteLimit: Int { configuration.batchRecordsByteLimit }
    public var maxAttempts: Int { configuration.maxAttempts }

    /// Changes the knobs; they apply from the next save or submit.
    public func configure(_ change: @Sendable (inout Configuration) -> Void) {
        change(&configuration)
        if let totals = try? store.totals() { updateThreshold(bytes: totals.bytes) }
    }

    // MARK: State

    /// Bytes of the stored records (data only; the SQLite files add page and WAL overhead).
    public var diskBytesUsed: Int {
        get throws(RecorderError) { try storage { try store.totals().bytes } }
    }

    public var recordCount: Int {
        get throws(RecorderError) { try storage { try store.totals().records } }
    }

    /// Every stored record, oldest first (for tools and tests; loads them all).
    public func storedRecords() throws(RecorderError) -> [(id: Int64, streamName: String, data: Data, attempts: Int)] {
        try storage { try store.all().map { ($0.id, $0.stream, $0.data, $0.attempts) } }
    }

    // MARK: Saving

    /// Stores a record for `streamName` and returns its id once it is durable on disk.
    ///
    /// - Throws: `.recordTooLarge` for records over 1,024,000 bytes (Firehose's limit) or over
    ///   `diskByteLimit`; `.invalidStreamName`; `.storage` when the disk write fails.
    @discardableResult
    public func saveRecord(_ data: Data, streamName: String) throws(RecorderError) -> Int64 {
        let violations = ServiceLimits.streamNameViolations(streamName)
        guard violations.isEmpty else {
            throw RecorderError(kind: .invalidStreamName, message: FirehoseError.validation(violations).message)
        }
        guard data.count <= ServiceLimits.maxRecordBytes else {
            throw .recordTooLarge(data.count, limit: ServiceLimits.maxRecordBytes, why: "Firehose's limit per record")
        }
        guard data.count <= configuration.diskByteLimit else {
            throw .recordTooLarge(data.count, limit: configuration.diskByteLimit, why: "diskByteLimit")
        }
        let now = environment.now()
        let result = try storage {
            try store.save(
                stream: streamName, data: data, createdAt: now, expireBefore: expiryCutoff(now),
                byteLimit: configuration.diskByteLimit, inFlight: inFlight)
        }
        report(result.expired, reason: .ageLimit, into: nil)
        report(result.evicted, reason: .diskByteLimit, into: nil)
        updateThreshold(bytes: result.bytesUsed)
        return result.id
    }

    /// Deletes every stored record (not reported as dropped: you asked).
    public func removeAllRecords() throws(RecorderError) {
        _ = try storage { try store.removeAll() }
        updateThreshold(bytes: 0)
    }

    // MARK: Submitting

    /// Sends every record stored when the call began and returns what happened. Always returns:
    /// retries are bounded (`maxRetriesPerSubmit`, with backoff) and offline or refused streams stop.
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
        summary.remainingRecords = (try? store.totals().records) ?? summary.remainingRecords
        if let totals = try? store.totals() { updateThreshold(bytes: totals.bytes) }
        eventSink.yield(.submitFinished(summary))
        return summary
    }

    private func runSubmit(_ summary: inout SubmitSummary) async throws {
        if let cutoff = expiryCutoff(environment.now()) {
            report(try store.expire(before: cutoff), reason: .ageLimit, into: &summary)
        }
        let maxID = try store.maxID()
        streams: for stream in try store.streams(upTo: maxID) {
            var cursor: Int64 = 0
            while true {
                if Task.isCancelled {
                    summary.status = .cancelled
                    break streams
                }
                let candidates = try store.candidates(
                    stream: stream, after: cursor, upTo: maxID, limit: configuration.effectiveBatchCount)
                guard !candidates.isEmpty else { break }
                // Limits are checked before adding a record; the first record always goes (alone if it
                // is over batchRecordsByteLimit, which is below Firehose's per-record limit).
                var chosen: [Int64] = []
                var bytes = 0
                for candidate in candidates {
                    if !chosen.isEmpty, bytes + candidate.size > configuration.effectiveBatchBytes { break }
                    chosen.append(candidate.id)
                    bytes += candidate.size
                }
                cursor = chosen.last!
                let records = try store.load(ids: chosen)
                guard !records.isEmpty else { continue }
                switch try await send(records, stream: stream, summary: &summary, round: 0) {
                case .next:
                    continue
                case .stopStream(let stop):
                    summary.stoppedStreams[stream] = stop
                    if case .completed = summary.status { summary.status = .streamsStopped }
                    continue streams
                case .stopAll(let error):
                    summary.status = .offline(error)
                    break streams
                case .cancelled:
                    summary.status = .cancelled
                    break streams
                }
            }
        }
    }

    enum BatchOutcome {
        case next
        case stopStream(StreamStop)
        case stopAll(FirehoseClientError)
        case cancelled
    }

    /// Sends one batch until each record is delivered, dropped or left for later.
    private func send(_ batch: [RecordStore.Pending], stream: String, summary: inout SubmitSummary, round: Int)
        async throws -> BatchOutcome
    {
        var pending = batch
        var retry = round
        while !pending.isEmpty {
            inFlight.formUnion(pending.map(\.id))
            summary.requests += 1
            let result: Result<PutRecordBatchOutput, FirehoseClientError>
            do {
                result = .success(try await client.putRecordBatch(pending.map(\.data), deliveryStreamName: stream))
            } catch {
                result = .failure(error)
            }
            inFlight.subtract(pending.map(\.id))

            var failed: [RecordStore.Pending] = []
            var lastCode = ""
            switch result {
            case .success(let output):
                var delivered: [Int64] = []
                for (record, entry) in zip(pending, output.entries) {
                    switch entry {
                    case .success: delivered.append(record.id)
                    case .failure(let code, _):
                        failed.append(record)
                        lastCode = code
                    }
                }
                _ = try store.delete(ids: delivered)
                let deliveredSet = Set(delivered)
                summary.sentRecords += delivered.count
                summary.sentBytes += pending.filter { deliveredSet.contains($0.id) }.reduce(0) { $0 + $1.data.count }
                if failed.isEmpty { return .next }
            case .failure(let error):
                if Task.isCancelled { return .cancelled }
                switch Self.classify(error) {
                case .offline:
                    return .stopAll(error)
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
                    if let stop = try countFailures(
                        failed, code: lastCode, error: error, summary: &summary, retry: retry)
                    {
                        return stop
                    }
                    pending = try stillStored(failed)
                    if pending.isEmpty { return .next }
                    retry += 1
                    do {
                        try await environment.sleep(backoff(retry: retry - 1))
                    } catch {
                        return .cancelled
                    }
                    continue
                }
            }
            // Per-record failures.
            let perRecordError = FirehoseClientError(
                kind: .service, code: lastCode, message: "\(failed.count) of \(pending.count) records failed.")
            if let stop = try countFailures(
                failed, code: lastCode, error: perRecordError, summary: &summary, retry: retry)
            {
                return stop
            }
            pending = try stillStored(failed)
            if pending.isEmpty { return .next }
            retry += 1
            do {
                try await environment.sleep(backoff(retry: retry - 1))
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
    }

    static func classify(_ error: FirehoseClientError) -> Classification {
        switch error.kind.classification {
        case .network, .credentials: return .offline
        case .invalidRequest: return .invalidBatch
        case .invalidResponse: return .retryable
        case .service: break
        }
        let code = error.code ?? ""
        if FirehoseClientError.expiredCredentialCodes.contains(code) { return .offline }
        if error.isRetryableServiceError { return .retryable }
        if code == "ResourceNotFoundException" { return .stopStream(.streamNotFound) }
        if FirehoseClientError.authorizationCodes.contains(code) || error.httpStatus == 401 || error.httpStatus == 403 {
            return .stopStream(.notAuthorized)
        }
        if FirehoseClientError.invalidRequestCodes.contains(code) || error.httpStatus == 413 {
            // A stream-level validation failure would otherwise drop every record one by one.
            if error.message.contains("deliveryStreamName") { return .stopStream(.refused) }
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
