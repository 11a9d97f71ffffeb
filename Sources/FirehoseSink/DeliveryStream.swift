import DurableStorage
import FirehoseKeyLayout
import FirehoseWire
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One object written into a bucket.
public struct DeliveredObject: Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// `SizeInMBs` reached.
        case size
        /// `IntervalInSeconds` passed since the buffer's first record.
        case interval
        /// An explicit flush (`/_local/flush`).
        case flush
        /// Graceful shutdown.
        case shutdown
        /// Re-delivered at start from a buffer staged before a crash.
        case recovery
    }

    public var stream: String
    public var bucket: String
    public var key: String
    /// Path of the object on disk.
    public var path: String
    public var records: Int
    /// Bytes before compression.
    public var bytes: Int
    /// Bytes of the object file.
    public var storedBytes: Int
    public var reason: Reason
    /// Arrival of the object's first record (the time in its key).
    public var firstArrival: Date
    /// Set for an object of the error output: its records' `!{firehose:error-output-type}`.
    public var errorOutputType: String? = nil
    /// Set for an object of a backup stage, in the backup's bucket: the source-record backup
    /// (`S3BackupMode: Enabled`), or an HTTP endpoint's `S3Configuration`.
    public var isBackup = false

    /// An object of the source-record backup: records as received, delivered a second time (not
    /// the error output a backup stage also writes, such as an HTTP endpoint's failures).
    public var isSourceBackup: Bool { isBackup && errorOutputType == nil }
}

/// How much `put` waits for before acknowledging.
public enum Durability: String, Sendable, CaseIterable {
    /// Records are fsynced before the put returns (group-committed across concurrent requests).
    case fsync
    /// Records are written to the staging file (they survive the process being killed, not a power
    /// loss) and the put returns without waiting for the disk.
    case none
}

/// A delivery stream: the thin actor that drives a request's records through the stages — processing
/// and partitioning (`RecordPipeline`, in the request's own task), the open buffer of each partition
/// (`OpenBuffers`, `StagingBuffer`), encoding (`ObjectEncoding`), and the destination
/// (`StreamDestination`: objects placed by `ObjectDestination`, or its consumer) — and the state machines that order them (`TicketOrdering`, `GroupCommit`,
/// `PublishQueue`). A buffer is delivered as one object when its size or interval hint is reached.
/// An actor, so records of one stream keep their order and one buffer never sees two writers; fsyncs
/// run off the actor so concurrent requests share them.
///
/// A request takes two turns on the actor. `reserve` decides, in arrival order, which buffer each
/// of its records goes to and gives each share a *ticket*; small shares are encoded right there.
/// Large ones are encoded (compressed) by the request's own task in between, so concurrent requests
/// to one stream compress on every core. `finish` then writes segments strictly in ticket order —
/// a request whose turn has not come waits for the ones before it — and acknowledges once its own
/// are written (and fsynced, with durability fsync).
actor DeliveryStream {
    private(set) var settings: DeliveryStreamSettings
    private let stagingDirectory: String
    /// The processing and partitioning stages of the latest settings, which requests run before they
    /// reach the actor.
    private nonisolated let currentPipeline: Mutex<RecordPipeline>
    /// Where finished objects go.
    private let destination: any ObjectDestination
    /// Set for a stage whose buffers are not delivered as objects but consumed otherwise: a
    /// transformed stream's source stage, whose buffers the `Lambda` processor transforms into the
    /// stream's delivery stages.
    private let consumer: StagedBufferConsumer?
    /// The stream was deleted (`discardAll`): nothing is staged any more, and a transformation under
    /// way stops.
    private nonisolated let discarded = Atomic<Bool>(false)
    private nonisolated let name: String
    private let durability: Durability
    /// Beyond this many active partitions, records of a new one go to the error output.
    private let maxActivePartitions: Int
    /// See `encodingBacklogLimit`.
    private let encodingBacklogBytes: Int
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let onDelivery: @Sendable (DeliveredObject) -> Void
    private let onDeliveryFailure: @Sendable (FileSystemError, Int) -> Void
    /// Told how many records the processing stage dropped on purpose (CloudWatch Logs control messages).
    private nonisolated let onDropped: @Sendable (Int) -> Void
    /// The open buffer of each partition with records.
    private var buffers = OpenBuffers<StagingBuffer>()
    private var random = SystemRandomNumberGenerator()

    /// Buffers closed to new records, oldest first, not yet in the bucket, and who publishes them when.
    private var publishQueue = Publishing()
    /// What publishing a buffer delivered: its object, or for a source stage the objects its
    /// transformation delivered on the way (often none).
    typealias Publishing = PublishQueue<
        StagingBuffer, DeliveredObject.Reason, [DeliveredObject], CheckedContinuation<Void, Never>
    >
    private var retryTask: Task<Void, Never>?
    /// A source stage's publishing started by a request (`publishAfterRequest`), while it runs.
    private var backgroundPublisher: Task<Void, Never>?
    /// The consumer's first halves under way or done, by buffer, until the buffer's publishing runs
    /// the second (`startConsuming`).
    private var consuming: [UUID: Task<Result<StagedBufferConsumer.Finish, FileSystemError>, Never>] = [:]
    /// Delivery encodings under way or done, by buffer, until the buffer's publishing takes them.
    private var deliveryEncodings: [UUID: DeliveryEncodingTask] = [:]
    typealias DeliveryEncodingTask = Task<Result<Int, FileSystemError>, Never>
    /// Requests waiting for the buffers encoded at delivery to catch up (`waitForEncodingRoom`).
    private var encodingRoomWaiters: [CheckedContinuation<Void, Never>] = []

    /// Every reserved segment gets the next ticket; segments are written in ticket order.
    private var tickets = Tickets()
    typealias Tickets = TicketOrdering<
        StagingBuffer, EncodedSegment, CheckedContinuation<Void, Never>, FileSystemError
    >

    /// Below this much content a request's share is compressed on the actor by the buffer's serial
    /// deflater; above it, priming a fresh deflater with 32 KiB of history is cheap next to the work.
    static let parallelSegmentBytes = 64 * 1024

    // Group commit: every committed request gets the next sequence number; one fsync covers every
    // request committed before it started.
    private var groupCommit = GroupCommit<CheckedContinuation<Void, any Error>>()
    private var dirtyBuffers: [StagingBuffer] = []
    /// A request is about to write what has been staged (`finish`): requests that reach the actor
    /// meanwhile leave their segments to its write.
    private var writeScheduled = false
    /// A request staging less content than this lets the requests queued behind it stage theirs
    /// before it writes, so they share a write and a journal line: with 100-byte PutRecords, a write
    /// each was most of a request's time on the actor (docs/benchmarks.md: 1.19–1.23 × the requests/s).
    /// A larger request writes at once: its write costs far more than the system call, and waiting
    /// for the queue (behind other requests' decoding) took uncompressed PutRecordBatch to 0.90 ×.
    static let sharedWriteBytes = 64 * 1024
    /// Retired buffers read by path whose descriptors close once the sync that covers them has taken
    /// its own (`releaseDescriptors`).
    private var closingAfterSync: [StagingBuffer] = []
    /// A staging file was created since the last fsync: its directory entry must reach the disk too.
    private var stagingDirectoryDirty = false

    init(
        settings: DeliveryStreamSettings, destination: any ObjectDestination, stagingDirectory: String,
        durability: Durability, maxActivePartitions: Int = 500, encodingBacklogBytes: Int = 32 << 20,
        consumer: StagedBufferConsumer? = nil,
        retryJitter: ClosedRange<Double> = DeliveryStream.retryJitter,
        clock: any Clock<Duration>, now: @escaping @Sendable () -> Date, logger: Logger,
        onDelivery: @escaping @Sendable (DeliveredObject) -> Void,
        onDeliveryFailure: @escaping @Sendable (_ error: FileSystemError, _ stagedRecords: Int) -> Void = { _, _ in },
        onDropped: @escaping @Sendable (_ records: Int) -> Void = { _ in }
    ) {
        self.settings = settings
        self.name = settings.name
        self.destination = destination
        self.consumer = consumer
        currentPipeline = Mutex(RecordPipeline(settings, generation: 0))
        self.stagingDirectory = stagingDirectory
        self.durability = durability
        self.maxActivePartitions = maxActivePartitions
        self.encodingBacklogBytes = encodingBacklogBytes
        self.retryJitterRange = retryJitter
        self.clock = clock
        self.now = now
        var logger = logger
        logger[metadataKey: "stream"] = .string(settings.name)
        self.logger = logger
        self.onDelivery = onDelivery
        self.onDeliveryFailure = onDeliveryFailure
        self.onDropped = onDropped
    }

    /// Buffers the records (in order), delivers every buffer that fills, and returns once the records
    /// are as durable as configured. Throws when they could not be staged, or when what processors
    /// made of them did not fit `reserveMemory` (nothing staged); a failed delivery of an already
    /// staged buffer is logged and retried with backoff.
    @concurrent
    nonisolated func append(
        _ records: RecordBatch, arrival: Date, reserveMemory: @escaping @Sendable (Int) -> Bool = { _ in true }
    ) async throws(SinkError) -> [DeliveredObject] {
        try await append(.received(records), arrival: arrival, reserveMemory: reserveMemory)
    }

    /// Buffers what a `Lambda` processor gave back (through the stages after it), as `append` does.
    /// - Parameter arrival: the arrival of the oldest source record.
    @concurrent
    nonisolated func append(transformed records: TransformedRecords, arrival: Date) async throws(SinkError)
        -> [DeliveredObject]
    {
        try await append(.transformed(records), arrival: arrival)
    }

    /// Stages again, as they were staged, records an earlier run staged (source records that await
    /// their transformation), without publishing anything before returning.
    @concurrent
    nonisolated func restage(_ records: RecordBatch, partition: PartitionKey = .whole, arrival: Date)
        async throws(SinkError)
    {
        _ = try await append(.staged(records, partition), arrival: arrival)
    }

    /// Buffers error records another stage made (an HTTP endpoint's failures) in the error output
    /// of `type`, as `append` does.
    @concurrent
    nonisolated func append(errorRecords records: RecordBatch, type: String, arrival: Date) async throws(SinkError)
        -> [DeliveredObject]
    {
        try await append(.errorRecords(records, type: type), arrival: arrival)
    }

    @concurrent
    private nonisolated func append(
        _ input: RecordPipeline.Input, arrival: Date, reserveMemory: @escaping @Sendable (Int) -> Bool = { _ in true }
    ) async throws(SinkError) -> [DeliveredObject] {
        // A request that found the stream just before it was deleted.
        guard !discarded.load(ordering: .relaxed) else { throw .unknownStream(name) }
        // Off the actor, as the large segments' encoding is.
        let context = RecordContext(arrival: arrival, now: now(), reserveMemory: reserveMemory)
        let prepared = currentPipeline.withLock { $0 }.prepare(input, context: context)
        if prepared.memorySpent { throw .memorySpent }
        if prepared.dropped > 0 { onDropped(prepared.dropped) }
        let reservation: Reservation
        do {
            reservation = try await reserve(prepared, context: context)
        } catch {
            throw .storage(error)
        }
        switch reservation {
        case .finished(let delivered):
            return delivered
        case .memorySpent:
            throw .memorySpent
        case .streamDeleted:
            throw .unknownStream(name)
        case .encode(let tickets, let jobs):
            // Off the actor: this is where one stream's compression spreads over the cores.
            let segments = jobs.map { (ticket: $0.ticket, segment: $0.job.encode()) }
            do {
                return try await finish(tickets, encoded: segments, sharesWrite: false)
            } catch {
                throw .storage(error)
            }
        }
    }

    enum Reservation: Sendable {
        case finished([DeliveredObject])
        case encode(tickets: Range<UInt64>, jobs: [(ticket: UInt64, job: SegmentJob)])
        /// Processing again under new settings was refused memory: nothing was reserved.
        case memorySpent
        /// The stream was deleted while the request waited for room (`waitForEncodingRoom`).
        case streamDeleted
    }

    private func reserve(_ request: RecordPipeline.Prepared, context: RecordContext) async throws(FileSystemError)
        -> Reservation
    {
        await waitForEncodingRoom()
        // Deleted while the request waited: nothing of it may be staged (a new buffer would outlive
        // the stream).
        guard !discarded.load(ordering: .relaxed) else { return .streamDeleted }
        let arrival = context.arrival
        var partitions = request.partitions
        let current = currentPipeline.withLock { $0 }
        if request.generation != current.generation {
            // Prepared just before an update: every open buffer is under the new settings now.
            let again = current.prepare(request.input, context: context)
            // Its partitions are incomplete: fail the request before anything of it is staged.
            guard !again.memorySpent else { return .memorySpent }
            partitions = again.partitions
        }
        let first = tickets.nextTicket
        var jobs: [(ticket: UInt64, job: SegmentJob)] = []
        // The active partitions, gathered once per request (only when a new partition appears).
        var active: Set<PartitionKey>?
        var overflowed = 0
        var stagedBytes = 0
        for var partition in partitions {
            if partition.key.errorOutputType == nil, buffers[partition.key] == nil {
                if active == nil { active = activePartitions() }
                if active!.contains(partition.key) || active!.count < maxActivePartitions {
                    active!.insert(partition.key)
                } else {
                    overflowed += partition.records.count
                    partition = overflow(partition, context: context, appendsNewline: current.appendsNewline)
                }
            }
            let records = partition.records
            var index = 0
            while index < records.count {
                let buffer: StagingBuffer
                do {
                    buffer = try openBuffer(for: partition.key, arrival: arrival)
                } catch {
                    // Shares already reserved must still be written: later tickets may build on them.
                    for (ticket, job) in jobs { tickets.encoded(job.encode(), for: ticket) }
                    drain()
                    _ = tickets.collectFailure(first..<tickets.nextTicket)
                    _ = await publishAfterRequest()
                    throw error
                }
                var end = index
                var bytes = buffer.reservedBytes
                while end < records.count && bytes < buffer.settings.bufferSizeBytes {
                    bytes += records.range(of: end).count
                    end += 1
                }
                let run = RecordRun(records: records, range: index..<end)
                stagedBytes += run.contentLength
                let ticket = tickets.reserve(for: buffer)
                switch buffer.reserve(run, inParallel: bytes - buffer.reservedBytes >= Self.parallelSegmentBytes) {
                case .ready(let segment): tickets.encoded(segment, for: ticket)
                case .job(let job): jobs.append((ticket, job))
                }
                if buffer.reservedBytes >= buffer.settings.bufferSizeBytes { retire(buffer, reason: .size) }
                index = end
            }
        }
        if overflowed > 0 {
            logger.warning(
                "Active partition limit reached; records of new partitions went to the error output",
                metadata: ["limit": .stringConvertible(maxActivePartitions), "records": .stringConvertible(overflowed)])
        }
        if settings.bufferIntervalSeconds == 0 {
            for buffer in buffers.all { retire(buffer, reason: .interval) }
        }
        let reserved = first..<tickets.nextTicket
        if jobs.isEmpty {
            return .finished(
                try await finish(reserved, encoded: [], sharesWrite: stagedBytes < Self.sharedWriteBytes))
        }
        return .encode(tickets: reserved, jobs: jobs)
    }

    /// Content of retired buffers still to be encoded at delivery beyond which a request waits before
    /// it stages anything (`waitForEncodingRoom`): the configured bytes (32 MiB), and at least twice
    /// the size hint, so that one full buffer being encoded never holds requests back.
    private func encodingBacklogLimit() -> Int {
        max(encodingBacklogBytes, 2 * settings.bufferSizeBytes)
    }

    /// Holds a request to a stream whose objects are encoded whole at delivery (GZIP by libdeflate)
    /// back while the buffers waiting to be encoded hold more content than `encodingBacklogLimit`,
    /// this stream's or every stream's encodings under way. (A partitioned stream's buffers, encoded
    /// a chunk at a time, do not wait: its ~120 partitions retire in bursts of ~120 MiB, and waiting
    /// for a burst to drain took its p99.9 from 0.6 to 2.1 s.) Staging as they are takes
    /// records in far faster than the encodings on their own threads compress them, so without this
    /// the backlog, its files and descriptors, and the time a flush or a shutdown takes would grow as
    /// long as the load lasts; with it, intake runs at the rate objects are delivered, as it does when
    /// records are compressed as they arrive. Only where this stream publishes into a folder itself:
    /// an upload to a store, a function or an endpoint may be down for long, and staging durably
    /// while it is, is the point. Never while publishing fails (the retry timer has the backlog then).
    private func waitForEncodingRoom() async {
        guard settings.encoding is any WholeObjectEncoding, !receiverMayBeAway else { return }
        while !discarded.load(ordering: .relaxed), publishQueue.consecutiveFailures == 0 {
            var backlog = 0
            for (buffer, _) in publishQueue.retired where buffer.encodesAtDelivery {
                backlog += buffer.uncompressedBytes
            }
            if backlog > encodingBacklogLimit() {
                await withCheckedContinuation { encodingRoomWaiters.append($0) }
                continue
            }
            // Every stream's encodings share the cores (`DeliveryEncoding.gate`): with a backlog each,
            // a stream's next object would wait behind all of theirs.
            await DeliveryEncoding.waitForRoom(below: encodingBacklogLimit())
            return
        }
    }

    /// Lets waiting requests look again (`waitForEncodingRoom`): a buffer left the queue, publishing
    /// failed, or the stream went.
    private func wakeEncodingRoomWaiters() {
        let waiters = encodingRoomWaiters
        encodingRoomWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// The partitions with records not yet delivered (their buffers open, or retired and not yet
    /// published): AWS counts a partition as active until its data is delivered (buffering.html).
    private func activePartitions() -> Set<PartitionKey> {
        var active = Set<PartitionKey>()
        for buffer in buffers.all + publishQueue.retired.map(\.buffer) where buffer.partition.errorOutputType == nil {
            active.insert(buffer.partition)
        }
        return active
    }

    /// The records of a partition beyond the limit, as error records (AWS delivers them "to the
    /// specified S3 error bucket prefix (activePartitionExceeded)", buffering.html).
    private func overflow(_ partition: RecordPartition, context: RecordContext, appendsNewline: Bool)
        -> RecordPartition
    {
        let failure = ErrorOutput.Failure.activePartitionExceeded
        let message =
            "The Firehose stream has \(maxActivePartitions) active partitions, its limit; records of another partition go to the error output until one is delivered."
        var outcome = ProcessingOutcome()
        for index in 0..<partition.records.count {
            // The record as sent: without the delimiter the pipeline appended.
            let record = partition.records[index].dropLast(appendsNewline ? 1 : 0)
            outcome.fail(record, type: failure.type, code: failure.code, message: message, context: context)
        }
        return outcome.partitions.first ?? RecordPartition(key: .errorOutput(failure.type), records: RecordBatch())
    }

    /// Takes the request's encoded segments, writes every segment whose turn has come, waits for the
    /// request's own to be written and made durable, and returns the objects delivered on the way.
    /// `sharesWrite`: the request is small; see `sharedWriteBytes`.
    private func finish(
        _ own: Range<UInt64>, encoded segments: [(ticket: UInt64, segment: EncodedSegment)], sharesWrite: Bool
    ) async throws(FileSystemError) -> [DeliveredObject] {
        for (ticket, segment) in segments { tickets.encoded(segment, for: ticket) }
        if writeScheduled {
            // A request before this one writes once the queue has reached the actor; this one's
            // segments (large ones too) go with it, and it waits for them as it waits for earlier
            // tickets.
        } else if sharesWrite {
            // The requests already queued on the actor stage their segments first, and this one
            // writes them all: one write and one journal line for many small requests.
            writeScheduled = true
            await Task.yield()
            writeScheduled = false
            drain()
        } else {
            drain()
        }
        let delivered = await publishAfterRequest()
        await waitUntilWritten(below: own.upperBound)
        if let failure = tickets.collectFailure(own) { throw failure }
        if durability == .fsync {
            let sequence = groupCommit.written + 1
            groupCommit.wrote(sequence)
            try await waitUntilDurable(sequence)
        }
        return delivered
    }

    /// Returns once every ticket below `end` is written.
    private func waitUntilWritten(below end: UInt64) async {
        guard tickets.nextToWrite < end else { return }
        await withCheckedContinuation { continuation in
            tickets.wait(untilWrittenBelow: end, continuation)?.resume()
        }
    }

    /// Writes and commits every encoded segment whose turn has come and wakes the requests they
    /// complete. Buffers that no longer wait for anything are then published by the caller.
    private func drain() {
        let writes = tickets.takeWritable()
        guard !writes.isEmpty else { return }
        var touched: [(buffer: StagingBuffer, tickets: [UInt64])] = []
        for write in writes {
            let buffer = write.buffer
            guard !buffer.isAbandoned else {
                buffer.dropReservation()
                tickets.failed(write.ticket, FileSystemError(operation: "commit", path: buffer.dataPath, errno: ENOENT))
                continue
            }
            buffer.stage(write.segment)
            if let position = touched.firstIndex(where: { $0.buffer === buffer }) {
                touched[position].tickets.append(write.ticket)
            } else {
                touched.append((buffer, [write.ticket]))
            }
        }
        for (buffer, written) in touched {
            do {
                try commit(buffer)
            } catch {
                for ticket in written { tickets.failed(ticket, error) }
            }
            releaseDescriptors(of: buffer)
        }
        for waiter in tickets.releaseWritten() { waiter.resume() }
    }

    /// Delivers the open buffers, and any earlier one whose delivery failed, now: everything
    /// acknowledged before the call is in the returned objects' files when it returns.
    func flush(reason: DeliveredObject.Reason = .flush) async throws(FileSystemError) -> [DeliveredObject] {
        for buffer in buffers.all { retire(buffer, reason: reason) }
        // Requests still encoding into these buffers must be written first; new ones go to a new
        // buffer. Objects published meanwhile by others are kept for this flush to report.
        let awaited = publishQueue.beginFlush()
        await waitUntilWritten(below: tickets.nextTicket)
        let outcome = await publishReady(waitingForOthers: true)
        let delivered = publishQueue.endFlush(awaited: awaited, own: outcome.delivered).flatMap { $0 }
        if let failure = outcome.failure {
            onDeliveryFailure(failure, bufferFill.records)
            scheduleRetry()
            throw failure
        }
        return delivered
    }

    /// Drops the open buffers without delivering them.
    func discard() {
        for buffer in buffers.closeAll() { buffer.discard() }
    }

    /// Partitions (the error output's included) with an open buffer.
    var openPartitions: Int { buffers.all.count }

    /// The open buffers, oldest first, as the live view shows them.
    var openPartitionFill: [FirehoseSink.OpenPartition] {
        buffers.all.map { buffer in
            let key = buffer.objectKey
            let prefix = key.lastIndex(of: "/").map { String(key[...$0]) } ?? ""
            return FirehoseSink.OpenPartition(
                prefix: prefix, errorOutputType: buffer.partition.errorOutputType, records: buffer.recordCount,
                bytes: buffer.uncompressedBytes, firstArrival: buffer.firstArrival)
        }
    }

    /// Records and bytes (before compression) waiting in the open and retired buffers.
    var bufferFill: (records: Int, bytes: Int) {
        let all = publishQueue.retired.map(\.buffer) + buffers.all
        return (all.reduce(0) { $0 + $1.recordCount }, all.reduce(0) { $0 + $1.uncompressedBytes })
    }

    private func commit(_ buffer: StagingBuffer) throws(FileSystemError) {
        do {
            try buffer.commit()
        } catch {
            if buffer.isUnlinked { abandon(buffer) }
            throw error
        }
        if durability == .fsync, !dirtyBuffers.contains(where: { $0 === buffer }) { dirtyBuffers.append(buffer) }
    }

    /// The buffer's files were removed by someone else: what they held cannot be delivered. Drop the
    /// buffer so the next request starts a new one (recreating the staging folder) instead of failing
    /// forever.
    private func abandon(_ buffer: StagingBuffer) {
        logger.error(
            "The staging files of a buffer were removed from outside firehose-local; its records are lost",
            metadata: [
                "file": .string(buffer.dataPath), "records": .stringConvertible(buffer.recordCount),
                "bytes": .stringConvertible(buffer.uncompressedBytes),
            ])
        buffers.close(buffer)
        publishQueue.remove(buffer)
        dirtyBuffers.removeAll { $0 === buffer }
        dropDeliveryEncoding(of: buffer)
        consuming.removeValue(forKey: buffer.id)
        buffer.discard()
        wakeEncodingRoomWaiters()
    }

    /// The open buffer of `partition`, opened now if it has none.
    private func openBuffer(for partition: PartitionKey, arrival: Date) throws(FileSystemError) -> StagingBuffer {
        if let buffer = buffers[partition] { return buffer }
        let buffer: StagingBuffer
        do {
            buffer = try makeBuffer(for: partition, arrival: arrival)
        } catch  where error.errno == ENOENT {
            // The staging folder vanished (someone cleaned the data directory): make it again.
            try POSIX.makeDirectories(stagingDirectory)
            buffer = try makeBuffer(for: partition, arrival: arrival)
        }
        if durability == .fsync { stagingDirectoryDirty = true }
        var timer: Task<Void, Never>?
        if settings.bufferIntervalSeconds > 0 {
            // The interval runs from the buffer's first record, stamped before this call.
            let remaining = arrival.addingTimeInterval(TimeInterval(settings.bufferIntervalSeconds))
                .timeIntervalSince(now())
            let id = buffer.id
            timer = Task { [clock] in
                do {
                    try await clock.sleep(for: .milliseconds(Int64((max(0, remaining) * 1000).rounded(.up))))
                } catch {
                    return
                }
                await self.deliverOnInterval(bufferID: id)
            }
        }
        buffers.open(buffer, timer: timer)
        return buffer
    }

    private func makeBuffer(for partition: PartitionKey, arrival: Date) throws(FileSystemError) -> StagingBuffer {
        try StagingBuffer(directory: stagingDirectory, settings: settings, partition: partition, firstArrival: arrival)
    }

    private func deliverOnInterval(bufferID: UUID) async {
        guard let buffer = buffers.buffer(withID: bufferID) else { return }
        retire(buffer, reason: .interval, byItsTimer: true)
        _ = await publishLoggingFailure()
    }

    /// Closes an open buffer to new records and queues it for publishing.
    private func retire(_ buffer: StagingBuffer, reason: DeliveredObject.Reason, byItsTimer: Bool = false) {
        buffers.close(buffer, byItsTimer: byItsTimer)
        publishQueue.retire(buffer, reason: reason)
        releaseDescriptors(of: buffer)
    }

    /// A buffer that takes no more records and is fully committed, of a source stage or for a bucket
    /// in a store, is read by path when its turn comes, which may be long behind a slow function or
    /// a store that is down: its descriptors close now (with durability fsync, once a sync holds its
    /// own), so a backlog does not run the process out of them.
    private func releaseDescriptors(of buffer: StagingBuffer) {
        guard consumer != nil || destination.isRemote(bucket: buffer.settings.bucket),
            buffers[buffer.partition] !== buffer, buffer.isFullyCommitted
        else { return }
        if dirtyBuffers.contains(where: { $0 === buffer }) {
            if !closingAfterSync.contains(where: { $0 === buffer }) { closingAfterSync.append(buffer) }
        } else {
            buffer.close()
        }
    }

    /// Delivers what is buffered under the current settings, then switches to `newSettings`
    /// (UpdateDestination). Returns the objects delivered on the way.
    func update(to newSettings: DeliveryStreamSettings) async throws(FileSystemError) -> [DeliveredObject] {
        let delivered = try await flush(reason: .flush)
        return delivered + (await adopt(newSettings))
    }

    /// Switches to `newSettings` without delivering first (the caller flushed): what arrived since
    /// is delivered under the settings it was buffered with.
    /// - Parameter waitsForDelivery: false: what is retired is published in the background (an HTTP
    ///   endpoint's stage, whose delivery may retry for as long as `RetryOptions` says).
    func adopt(_ newSettings: DeliveryStreamSettings, waitsForDelivery: Bool = true) async -> [DeliveredObject] {
        // Requests that arrived while the flush waited opened buffers under the old settings; they
        // are delivered under them (each buffer keeps its own), and the next ones use the new.
        for buffer in buffers.all { retire(buffer, reason: .flush) }
        settings = newSettings
        currentPipeline.withLock { $0 = RecordPipeline(newSettings, generation: $0.generation + 1) }
        guard waitsForDelivery else {
            Task { _ = await publishLoggingFailure() }
            return []
        }
        return await publishLoggingFailure()
    }

    /// Drops every buffer without delivering it (DeleteDeliveryStream discards buffered data, as AWS).
    func discardAll() {
        discarded.store(true, ordering: .relaxed)
        discard()
        for buffer in publishQueue.discardAll() {
            dropDeliveryEncoding(of: buffer)
            buffer.discard()
        }
        consuming.removeAll()
        retryTask?.cancel()
        retryTask = nil
        wakeEncodingRoomWaiters()
    }

    // MARK: Durability

    private func waitUntilDurable(_ sequence: UInt64) async throws(FileSystemError) {
        guard groupCommit.durable < sequence else { return }
        do {
            try await withCheckedThrowingContinuation { continuation in
                switch groupCommit.wait(for: sequence, continuation) {
                case .resume(let waiter): waiter.resume()
                case .wait: break
                case .startSync: startSync()
                }
            }
        } catch let error as FileSystemError {
            throw error
        } catch {
            throw FileSystemError(operation: "fsync", path: stagingDirectory, errno: EIO)
        }
    }

    /// fsyncs every staging file written since the last sync (and the staging folder, if a file was
    /// created there), which covers every request committed so far.
    private func startSync() {
        var files = dirtyBuffers.flatMap { $0.syncDescriptors() }
        // The sync holds duplicates of these now.
        for buffer in closingAfterSync { buffer.close() }
        closingAfterSync.removeAll()
        if stagingDirectoryDirty, let directory = try? POSIX.open(stagingDirectory, flags: O_RDONLY | O_DIRECTORY) {
            files.append((directory, stagingDirectory))
            stagingDirectoryDirty = false
        }
        dirtyBuffers.removeAll()
        Task {
            let failure = await BlockingIO.fsyncAndClose(files)
            self.syncFinished(failure: failure)
        }
    }

    private func syncFinished(failure: FileSystemError?) {
        let outcome = failure == nil ? groupCommit.syncSucceeded() : groupCommit.syncFailed()
        for waiter in outcome.resume { waiter.resume() }
        if let failure { for waiter in outcome.fail { waiter.resume(throwing: failure) } }
        if outcome.startSync != nil { startSync() }
    }

    // MARK: Publishing

    /// Publishes what a request made ready. A source stage's publishing runs the function, which may
    /// take minutes: the request is not kept waiting for it, and it runs in a task of its own. So
    /// does the publishing of a transformed stream's delivery stages, which that one task feeds: it
    /// must not wait for their buffers to be compressed and delivered before it transforms the next.
    private func publishAfterRequest() async -> [DeliveredObject] {
        // A rename into a folder is delivered in the request that filled the buffer; an upload to a
        // store, a function or an endpoint in the background, so no put waits for them. So is an
        // object encoded whole at delivery: the request that filled its buffer would wait for the
        // whole object's compression, queued behind every other stream's (eight libdeflate streams:
        // p99 421 ms, where records compressed as they arrive gave 123).
        // (Not with `IntervalInSeconds: 0`, which promises the object by the time the put returns.)
        guard receiverMayBeAway || (settings.encoding is any WholeObjectEncoding && settings.bufferIntervalSeconds > 0)
        else {
            return await publishLoggingFailure()
        }
        // A buffer retired behind one being consumed starts its consumption now.
        if consumer != nil { startConsuming() }
        // After a failure the retry timer publishes, with backoff: a request must not run the
        // function again for every put meanwhile (but does once a publishing succeeded: a stream whose
        // intake waits for its encodings would otherwise wait for the timer).
        if !publishQueue.isEmpty, backgroundPublisher == nil, !publishQueue.awaitsRetry {
            backgroundPublisher = Task {
                _ = await self.publishLoggingFailure()
                self.backgroundPublisherEnded()
            }
        }
        return []
    }

    /// The buffers go to a function, an endpoint or a store, any of which may be down for long: they
    /// are published in the background, and requests go on staging while the receiver is away.
    private var receiverMayBeAway: Bool {
        consumer != nil || settings.transformation != nil || destination.isRemote(bucket: settings.bucket)
    }

    private func backgroundPublisherEnded() {
        backgroundPublisher = nil
    }

    /// Publishes what is ready; a failure is logged and retried with backoff.
    private func publishLoggingFailure() async -> [DeliveredObject] {
        let outcome = await publishReady(waitingForOthers: false)
        if let failure = outcome.failure {
            onDeliveryFailure(failure, bufferFill.records)
            logger.error(
                "Delivery failed; the buffer stays staged and is retried",
                metadata: [
                    "error": .string(failure.description),
                    "pending_objects": .stringConvertible(publishQueue.retired.count),
                    "retry_in_seconds": .stringConvertible(publishQueue.nextRetryDelay),
                ])
            scheduleRetry()
        }
        return outcome.delivered.flatMap(\.object)
    }

    /// Retries failed deliveries with exponential backoff (1 s, 2 s, 4 s … 60 s).
    /// A retry waits its backoff times a factor drawn from this range, so streams that failed
    /// together (a store that was down) do not all come back at once.
    package static let retryJitter: ClosedRange<Double> = 0.5...1.0
    private let retryJitterRange: ClosedRange<Double>

    private func scheduleRetry() {
        defer { wakeEncodingRoomWaiters() }  // they stage while publishing fails
        guard case .arm(let seconds) = publishQueue.failed() else { return }
        let delay = DeliveryBackoff.delay(seconds: seconds, jitter: retryJitterRange)
        retryTask = Task { [clock] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            await self.retryDelivery()
        }
    }

    private func retryDelivery() async {
        retryTask = nil
        publishQueue.retryFired()
        if publishQueue.isEmpty {
            for buffer in buffers.all where buffer.recordCount > 0 && buffer.settings.bufferIntervalSeconds == 0 {
                retire(buffer, reason: .interval)
            }
        }
        guard !publishQueue.isEmpty else { return }
        _ = await publishLoggingFailure()
    }

    struct PublishOutcome {
        var delivered: [(id: UUID, object: [DeliveredObject])] = []
        var failure: FileSystemError?
    }

    /// Publishes the retired buffers in order — completes the encoding, hands the data file to the
    /// destination, removes the staging files — stopping at one that still waits for reserved
    /// segments. The destination runs on the blocking-I/O thread, so the stream keeps accepting
    /// meanwhile. One publisher at a time: a caller that finds one under way
    /// returns at once (that one goes on to whatever else became ready), unless `waitingForOthers`.
    /// A failure leaves that buffer (and those after it) queued, so nothing acknowledged is dropped.
    private func publishReady(waitingForOthers: Bool) async -> PublishOutcome {
        // Nearly every request passes here; a buffer being published stays queued until done.
        turn: while true {
            switch publishQueue.requestTurn(waitingForOthers: waitingForOthers) {
            case .nothingToPublish, .leftToOtherPublisher: return PublishOutcome()
            case .waitForOtherPublisher: await withCheckedContinuation { publishQueue.waitForTurn($0) }
            case .publish: break turn
            }
        }
        defer {
            for waiter in publishQueue.endTurn() { waiter.resume() }
            wakeEncodingRoomWaiters()
        }
        var outcome = PublishOutcome()
        publishing: while let (buffer, reason) = publishQueue.next, buffer.pendingSegments == 0 {
            // Buffers retired while this turn runs start encoding too, so encodings keep every core busy.
            startDeliveryEncodings()
            if buffer.isUnlinked {
                abandon(buffer)
                continue
            }
            if let consumer {
                do {
                    try await consume(buffer, with: consumer, into: &outcome)
                } catch {
                    outcome.failure = error
                    break publishing
                }
                continue
            }
            let settings = buffer.settings
            let key = buffer.objectKey
            let staged: StagedObject
            let storedBytes: Int
            do {
                try buffer.finishEncoding()
                if buffer.encodesAtDelivery {
                    let started = deliveryEncodings.removeValue(forKey: buffer.id) ?? startDeliveryEncoding(buffer)
                    var result = await started.value
                    if case .failure = result, !buffer.isAbandoned {
                        // Started a while ago, perhaps before a transient failure (a full disk) passed.
                        result = await startDeliveryEncoding(buffer).value
                    }
                    guard !buffer.isAbandoned else {
                        // The stream was deleted meanwhile: nothing of it is delivered.
                        publishQueue.remove(buffer)
                        POSIX.unlink(buffer.encodedPath)
                        continue publishing
                    }
                    storedBytes = try result.get()
                    staged = StagedObject(
                        path: buffer.encodedPath, descriptor: try POSIX.open(buffer.encodedPath, flags: O_RDONLY))
                } else {
                    staged = StagedObject(path: buffer.dataPath, descriptor: try buffer.duplicateDataDescriptor())
                    storedBytes = buffer.storedBytes
                }
            } catch {
                outcome.failure = error
                break publishing
            }
            // Staged as it was, the content outlives the object's delivery by a moment: removed after
            // the journal, so a crash in between leaves nothing or a journal that delivers it again.
            let stagingFiles = [buffer.journalPath] + (buffer.encodesAtDelivery ? [buffer.dataPath] : [])
            let delivery: Result<String, FileSystemError>
            do throws(FileSystemError) {
                let path = try await destination.deliver(staged, bucket: buffer.settings.bucket, key: key)
                // The object is at its destination for good: the journal has done its job (and a
                // copy that was not renamed away goes with it).
                await BlockingIO.run {
                    POSIX.close(staged.descriptor)
                    for file in stagingFiles + [staged.path] { POSIX.unlink(file) }
                }
                delivery = .success(path)
            } catch {
                POSIX.close(staged.descriptor)
                delivery = .failure(error)
            }
            // The stream was deleted meanwhile: its buffers are gone, whatever this one became.
            guard !buffer.isAbandoned else {
                publishQueue.remove(buffer)
                continue
            }
            let path: String
            switch delivery {
            case .success(let delivered): path = delivered
            case .failure(let failure):
                if buffer.encodesAtDelivery {
                    // Its object file stays: the retry sends it as it is, not encoded again.
                    deliveryEncodings[buffer.id] = Task { .success(storedBytes) }
                }
                outcome.failure = failure
                break publishing
            }
            buffer.close()
            let object = DeliveredObject(
                stream: settings.name, bucket: buffer.settings.bucket, key: key, path: path,
                records: buffer.recordCount,
                bytes: buffer.uncompressedBytes, storedBytes: storedBytes, reason: reason,
                firstArrival: buffer.firstArrival, errorOutputType: buffer.partition.errorOutputType,
                isBackup: settings.isBackupStage)
            publishQueue.published(buffer, as: [object])
            if buffer.encodesAtDelivery { wakeEncodingRoomWaiters() }
            announce(object)
            outcome.delivered.append((buffer.id, [object]))
        }
        return outcome
    }

    /// Publishes a buffer of a stage with a consumer: the consumer's first half (started ahead, or
    /// now), then its second, in buffer order; then the buffer's staging files go.
    private func consume(
        _ buffer: StagingBuffer, with consumer: StagedBufferConsumer, into outcome: inout PublishOutcome
    ) async throws(FileSystemError) {
        try buffer.finishEncoding()
        // Registered until the buffer is done, second half included: a request meanwhile starts the
        // next buffers' first halves beside it, never this one's again.
        let started = consuming[buffer.id] ?? startConsuming(buffer, with: consumer)
        consuming[buffer.id] = started
        // A second half that fails keeps what the first made, so a retry stages it again rather
        // than invoke the function, or send to the endpoint, once more.
        var firstToKeep: Task<Result<StagedBufferConsumer.Finish, FileSystemError>, Never>?
        defer {
            if let firstToKeep, !buffer.isAbandoned {
                consuming[buffer.id] = firstToKeep
            } else {
                consuming.removeValue(forKey: buffer.id)
            }
        }
        startConsuming()
        var first = await started.value
        if case .failure = first, !buffer.isAbandoned {
            // Started a while ago, perhaps before a transient failure passed.
            let again = startConsuming(buffer, with: consumer)
            consuming[buffer.id] = again
            first = await again.value
        }
        let result: Result<[DeliveredObject], FileSystemError>
        switch first {
        case .success(let finish):
            result = buffer.isAbandoned ? .success([]) : await finish()
            if case .failure = result { firstToKeep = Task { .success(finish) } }
        case .failure(let error): result = .failure(error)
        }
        guard !buffer.isAbandoned else {
            // The stream was deleted meanwhile.
            publishQueue.remove(buffer)
            return
        }
        let objects = try result.get()
        // What the consumer made of the records is staged further on: the buffer is done.
        let files = [buffer.journalPath, buffer.dataPath]
        await BlockingIO.run { for file in files { POSIX.unlink(file) } }
        buffer.close()
        publishQueue.published(buffer, as: objects)
        outcome.delivered.append((buffer.id, objects))
    }

    /// Starts the consumer's first half, off the actor, for the next retired buffers that hold all
    /// their content, up to its `ahead`; their second halves run in order.
    private func startConsuming() {
        guard let consumer else { return }
        for (buffer, _) in publishQueue.retired where consuming.count < consumer.ahead {
            guard consuming[buffer.id] == nil, !buffer.isAbandoned else { continue }
            // In order: a buffer still being written holds back the ones after it (an HTTP endpoint
            // gets its requests in the order the records came).
            guard buffer.pendingSegments == 0, (try? buffer.finishEncoding()) != nil else { return }
            consuming[buffer.id] = startConsuming(buffer, with: consumer)
        }
    }

    private func startConsuming(_ buffer: StagingBuffer, with consumer: StagedBufferConsumer)
        -> Task<Result<StagedBufferConsumer.Finish, FileSystemError>, Never>
    {
        let staged = StagedBufferConsumer.Staged(
            path: buffer.dataPath, length: buffer.uncompressedBytes, contentCRC: buffer.contentCRC,
            firstArrival: buffer.firstArrival, settings: buffer.settings, partition: buffer.partition)
        let isStopped: @Sendable () -> Bool = { [weak self] in self?.discarded.load(ordering: .relaxed) ?? true }
        return Task { await consumer.start(staged, isStopped) }
    }

    /// Starts encoding, off the actor, each retired buffer that is encoded at delivery and holds all
    /// its content (no reserved segment left to write), so the buffers of many partitions encode on
    /// every core while the oldest is published.
    private func startDeliveryEncodings() {
        for (buffer, _) in publishQueue.retired
        where buffer.encodesAtDelivery && buffer.pendingSegments == 0 && deliveryEncodings[buffer.id] == nil {
            // A failure to write what is staged is met again, and reported, when the buffer's turn comes.
            guard (try? buffer.finishEncoding()) != nil else { continue }
            deliveryEncodings[buffer.id] = startDeliveryEncoding(buffer)
        }
    }

    /// Encodes a buffer staged as it is into its object file (`StagingBuffer.encodedPath`).
    /// - Precondition: every segment of the buffer is written (`finishEncoding`).
    private func startDeliveryEncoding(_ buffer: StagingBuffer) -> DeliveryEncodingTask {
        let (source, length, crc, encoding, destination) = (
            buffer.dataPath, buffer.uncompressedBytes, buffer.contentCRC, buffer.settings.encoding, buffer.encodedPath
        )
        return Task {
            do throws(FileSystemError) {
                return .success(
                    try await DeliveryEncoding.encode(
                        source, length: length, contentCRC: crc, with: encoding, into: destination))
            } catch {
                return .failure(error)
            }
        }
    }

    /// A buffer dropped before its delivery encoding was used: its object file goes once written.
    private func dropDeliveryEncoding(of buffer: StagingBuffer) {
        guard let task = deliveryEncodings.removeValue(forKey: buffer.id) else { return }
        let path = buffer.encodedPath
        Task {
            _ = await task.value
            POSIX.unlink(path)
        }
    }

    /// Delivers records recovered from a crashed run's staging files as one object, encoded with the
    /// stream's current settings, then removes the staging files.
    /// - Parameter key: the key the journal fixed when the buffer opened; nil (older journals): one
    ///   made with the stream's current settings.
    /// - Parameter encoding: the encoding the journal fixed with the key; nil (older journals): the
    ///   stream's current one.
    func deliverRecovered(
        _ raw: [UInt8], records: Int, partition: PartitionKey, key fixedKey: String?,
        encoding fixedEncoding: (any ObjectEncoding)? = nil, firstArrival: Date, versionID: Int, stagingFiles: [String]
    ) async throws(FileSystemError) -> DeliveredObject {
        let key =
            fixedKey
            ?? settings.objectKey(
                for: partition, versionID: versionID, firstArrival: firstArrival, randomSource: &random)
        // A key made now goes with the current encoding; a fixed key with the encoding fixed with it.
        let encoding = fixedKey == nil ? settings.encoding : (fixedEncoding ?? settings.encoding)
        let encoded = try encoding.encodeWhole(raw)
        let temporary = "\(stagingDirectory)/\(UUID().uuidString.lowercased()).recovered"
        let fd = try POSIX.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL)
        defer {
            POSIX.close(fd)
            POSIX.unlink(temporary)
        }
        try POSIX.writeAll(fd, encoded, at: 0, path: temporary)
        let path = try await destination.deliver(
            StagedObject(path: temporary, descriptor: fd), bucket: settings.bucket, key: key)
        for file in stagingFiles { POSIX.unlink(file) }
        let object = DeliveredObject(
            stream: settings.name, bucket: settings.bucket, key: key, path: path, records: records, bytes: raw.count,
            storedBytes: encoded.count, reason: .recovery, firstArrival: firstArrival,
            errorOutputType: partition.errorOutputType, isBackup: settings.isBackupStage)
        announce(object)
        return object
    }

    /// The encoding that staged a buffer, by the name its journal gives: the stream's own, or the
    /// built-in one of that name (the stream's compression changed since).
    func encoding(named name: String) -> (any ObjectEncoding)? {
        if settings.encoding.name == name { return settings.encoding }
        return DeliveryStreamSettings.Compression(rawValue: name)?.encoding(
            gzipLevel: settings.gzipLevel, implementation: settings.gzipImplementation)
    }

    func announce(_ object: DeliveredObject) {
        var metadata: Logger.Metadata = [
            "bucket": .string(object.bucket), "key": .string(object.key),
            "records": .stringConvertible(object.records), "bytes": .stringConvertible(object.bytes),
            "stored_bytes": .stringConvertible(object.storedBytes), "reason": .string(object.reason.rawValue),
        ]
        if object.isSourceBackup { metadata["backup"] = "source records" }
        if let type = object.errorOutputType { metadata["error_output_type"] = .string(type) }
        logger.info(
            object.isSourceBackup ? "Delivered source-record backup object" : "Delivered object", metadata: metadata)
        onDelivery(object)
    }
}
