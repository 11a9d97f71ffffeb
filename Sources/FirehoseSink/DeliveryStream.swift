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

/// A delivery stream: the thin actor that drives a request's records through the stages — processing
/// and partitioning (`RecordPipeline`, in the request's own task), the open buffer of each partition
/// (`OpenBuffers`, `StagingBuffer`), encoding (`ObjectEncoding`), and the destination
/// (`StreamDestination`: objects placed by `ObjectDestination`, or its consumer) — and the state
/// machines that order them: `TicketOrdering` and `GroupCommit` for staging
/// (DeliveryStreamStaging.swift), `PublishQueue`, `WorkAhead` and `EncodingRoom` for publishing
/// (DeliveryStreamPublishing.swift). The actor feeds them events and does the I/O they call for. A
/// buffer is delivered as one object when its size or interval hint is reached. An actor, so records
/// of one stream keep their order and one buffer never sees two writers; fsyncs run off the actor so
/// concurrent requests share them.
///
/// A request takes two turns on the actor. `reserve` decides, in arrival order, which buffer each
/// of its records goes to and gives each share a *ticket*; small shares are encoded right there.
/// Large ones are encoded (compressed) by the request's own task in between, so concurrent requests
/// to one stream compress on every core. `finish` then writes segments strictly in ticket order —
/// a request whose turn has not come waits for the ones before it — and acknowledges once its own
/// are written (and fsynced, with durability fsync).
actor DeliveryStream {
    private(set) var settings: DeliveryStreamSettings
    let stagingDirectory: String
    /// The processing and partitioning stages of the latest settings, which requests run before they
    /// reach the actor.
    nonisolated let currentPipeline: Mutex<RecordPipeline>
    /// Where finished objects go, for a stage without a consumer.
    let objectDestination: any ObjectDestination
    /// Set for a stage whose buffers are not delivered as objects but consumed otherwise: a
    /// transformed stream's source stage, whose buffers the `Lambda` processor transforms into the
    /// stream's delivery stages, or a stage whose destination consumes records (an HTTP endpoint's).
    let consumer: StagedBufferConsumer?
    /// The stream was deleted (`discardAll`): nothing is staged any more, and a transformation under
    /// way stops.
    nonisolated let discarded = Atomic<Bool>(false)
    nonisolated let name: String
    let durability: Durability
    /// Beyond this many active partitions, records of a new one go to the error output.
    let maxActivePartitions: Int
    /// See `encodingBacklogLimit`.
    let encodingBacklogBytes: Int
    let clock: any Clock<Duration>
    /// A failed delivery's backoff is multiplied by a factor from this range (`retryJitter`).
    let retryJitterRange: ClosedRange<Double>
    let now: @Sendable () -> Date
    let logger: Logger
    let onDelivery: @Sendable (DeliveredObject) -> Void
    let onDeliveryFailure: @Sendable (FileSystemError, Int) -> Void
    /// Told how many records the processing stage dropped on purpose (CloudWatch Logs control messages).
    nonisolated let onDropped: @Sendable (Int) -> Void
    /// The open buffer of each partition with records.
    var buffers = OpenBuffers<StagingBuffer>()
    var random = SystemRandomNumberGenerator()

    /// Buffers closed to new records, oldest first, not yet in the bucket, and who publishes them when.
    var publishQueue = Publishing()
    /// What publishing a buffer delivered: its object, or for a source stage the objects its
    /// transformation delivered on the way (often none).
    typealias Publishing = PublishQueue<
        StagingBuffer, DeliveredObject.Reason, [DeliveredObject], CheckedContinuation<Void, Never>
    >
    /// The retry timer `publishQueue` armed, while it waits.
    var retryTask: Task<Void, Never>?
    /// The consumer's first halves under way or done, by buffer, until the buffer's publishing runs
    /// the second (`startConsuming`).
    var consuming: WorkAhead<StagingBuffer, ConsumingTask>
    typealias ConsumingTask = Task<Result<StagedBufferConsumer.Finish, FileSystemError>, Never>
    /// Delivery encodings under way or done, by buffer, until the buffer's publishing takes them.
    var deliveryEncodings = WorkAhead<StagingBuffer, DeliveryEncodingTask>(.whenReady)
    typealias DeliveryEncodingTask = Task<Result<Int, FileSystemError>, Never>
    /// Requests waiting for the buffers encoded at delivery to catch up (`waitForEncodingRoom`).
    var encodingRoom = EncodingRoom<CheckedContinuation<Void, Never>>()

    /// Every reserved segment gets the next ticket; segments are written in ticket order.
    var tickets = Tickets()
    typealias Tickets = TicketOrdering<
        StagingBuffer, EncodedSegment, CheckedContinuation<Void, Never>, FileSystemError
    >

    /// Below this much content a request's share is compressed on the actor by the buffer's serial
    /// deflater; above it, priming a fresh deflater with 32 KiB of history is cheap next to the work.
    static let parallelSegmentBytes = 64 * 1024

    // Group commit: every committed request gets the next sequence number; one fsync covers every
    // request committed before it started.
    var groupCommit = GroupCommit<CheckedContinuation<Void, any Error>>()
    var dirtyBuffers: [StagingBuffer] = []
    /// A request is about to write what has been staged (`finish`): requests that reach the actor
    /// meanwhile leave their segments to its write.
    var writeScheduled = false
    /// A request staging less content than this lets the requests queued behind it stage theirs
    /// before it writes, so they share a write and a journal line: with 100-byte PutRecords, a write
    /// each was most of a request's time on the actor (docs/benchmarks.md: 1.19–1.23 × the requests/s).
    /// A larger request writes at once: its write costs far more than the system call, and waiting
    /// for the queue (behind other requests' decoding) took uncompressed PutRecordBatch to 0.90 ×.
    static let sharedWriteBytes = 64 * 1024
    /// Retired buffers read by path whose descriptors close once the sync that covers them has taken
    /// its own (`releaseDescriptors`).
    var closingAfterSync: [StagingBuffer] = []
    /// A staging file was created since the last fsync: its directory entry must reach the disk too.
    var stagingDirectoryDirty = false

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
        self.objectDestination = destination
        self.consumer = consumer
        consuming = WorkAhead(.inOrder(ahead: consumer?.ahead ?? 1))
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
    nonisolated func append(
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

    /// Requests held back while this stream's delivery encodings catch up (`waitForEncodingRoom`).
    var requestsWaitingForEncodingRoom: Int { encodingRoom.waiting }

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

    /// The buffer's files were removed by someone else: what they held cannot be delivered. Drop the
    /// buffer so the next request starts a new one (recreating the staging folder) instead of failing
    /// forever.
    func abandon(_ buffer: StagingBuffer) {
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
        consuming.remove(buffer.id)
        buffer.discard()
        wakeEncodingRoomWaiters()
    }

    /// The open buffer of `partition`, opened now if it has none.
    func openBuffer(for partition: PartitionKey, arrival: Date) throws(FileSystemError) -> StagingBuffer {
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

    func makeBuffer(for partition: PartitionKey, arrival: Date) throws(FileSystemError) -> StagingBuffer {
        try StagingBuffer(directory: stagingDirectory, settings: settings, partition: partition, firstArrival: arrival)
    }

    func deliverOnInterval(bufferID: UUID) async {
        guard let buffer = buffers.buffer(withID: bufferID) else { return }
        retire(buffer, reason: .interval, byItsTimer: true)
        _ = await publishLoggingFailure()
    }

    /// Closes an open buffer to new records and queues it for publishing.
    func retire(_ buffer: StagingBuffer, reason: DeliveredObject.Reason, byItsTimer: Bool = false) {
        buffers.close(buffer, byItsTimer: byItsTimer)
        publishQueue.retire(buffer, reason: reason)
        releaseDescriptors(of: buffer)
    }

    /// A buffer that takes no more records and is fully committed, of a source stage or for a bucket
    /// in a store, is read by path when its turn comes, which may be long behind a slow function or
    /// a store that is down: its descriptors close now (with durability fsync, once a sync holds its
    /// own), so a backlog does not run the process out of them.
    func releaseDescriptors(of buffer: StagingBuffer) {
        guard consumer != nil || objectDestination.isRemote(bucket: buffer.settings.bucket),
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
        _ = consuming.removeAll()
        retryTask?.cancel()
        retryTask = nil
        wakeEncodingRoomWaiters()
    }
}
