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

// Staging: a request's records reserve their place in the open buffers in arrival order
// (`TicketOrdering`), are encoded, written in ticket order and committed to each buffer's journal,
// then made durable by a group commit (`GroupCommit`) before the request is acknowledged.
extension DeliveryStream {
    enum Reservation: Sendable {
        case finished([DeliveredObject])
        case encode(tickets: Range<UInt64>, jobs: [(ticket: UInt64, job: SegmentJob)])
        /// Processing again under new settings was refused memory: nothing was reserved.
        case memorySpent
        /// The stream was deleted while the request waited for room (`waitForEncodingRoom`).
        case streamDeleted
    }

    func reserve(_ request: RecordPipeline.Prepared, context: RecordContext) async throws(FileSystemError)
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

    /// The partitions with records not yet delivered (their buffers open, or retired and not yet
    /// published): AWS counts a partition as active until its data is delivered (buffering.html).
    func activePartitions() -> Set<PartitionKey> {
        var active = Set<PartitionKey>()
        for buffer in buffers.all + publishQueue.retired.map(\.buffer) where buffer.partition.errorOutputType == nil {
            active.insert(buffer.partition)
        }
        return active
    }

    /// The records of a partition beyond the limit, as error records (AWS delivers them "to the
    /// specified S3 error bucket prefix (activePartitionExceeded)", buffering.html).
    func overflow(_ partition: RecordPartition, context: RecordContext, appendsNewline: Bool)
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
    func finish(
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
    func waitUntilWritten(below end: UInt64) async {
        guard tickets.nextToWrite < end else { return }
        await withCheckedContinuation { continuation in
            tickets.wait(untilWrittenBelow: end, continuation)?.resume()
        }
    }

    /// Writes and commits every encoded segment whose turn has come and wakes the requests they
    /// complete. Buffers that no longer wait for anything are then published by the caller.
    func drain() {
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

    func commit(_ buffer: StagingBuffer) throws(FileSystemError) {
        do {
            try buffer.commit()
        } catch {
            if buffer.isUnlinked { abandon(buffer) }
            throw error
        }
        if durability == .fsync, !dirtyBuffers.contains(where: { $0 === buffer }) { dirtyBuffers.append(buffer) }
    }

    // MARK: Durability

    func waitUntilDurable(_ sequence: UInt64) async throws(FileSystemError) {
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
    func startSync() {
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

    func syncFinished(failure: FileSystemError?) {
        let outcome = failure == nil ? groupCommit.syncSucceeded() : groupCommit.syncFailed()
        for waiter in outcome.resume { waiter.resume() }
        if let failure { for waiter in outcome.fail { waiter.resume(throwing: failure) } }
        if outcome.startSync != nil { startSync() }
    }
}
