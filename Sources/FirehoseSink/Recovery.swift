import DurableStorage
import FirehoseWire
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Acknowledged records staged for a stream that does not exist (it was deleted during a crash, or
/// left the configuration file): kept in `.firehose-local/quarantine/`, and delivered by the first
/// start at which a stream of that name exists again.
public struct QuarantinedBuffer: Sendable, Equatable {
    public var stream: String
    public var records: Int
    /// Record bytes, before compression.
    public var bytes: Int
    /// The data file, relative to the data directory.
    public var path: String
}

/// What start-up recovery found in the staging folder.
public struct RecoveryReport: Sendable, Equatable {
    /// Objects delivered from buffers a previous run had acknowledged but not delivered.
    public var delivered: [DeliveredObject] = []
    /// Buffers of streams that do not exist, kept in the quarantine folder.
    public var quarantined: [QuarantinedBuffer] = []
    /// Staging files left alone: their encoding is unknown, or delivering them failed (retried at the
    /// next start); named so a person can act.
    public var orphaned: [String] = []
    /// Staging files whose committed data failed to decode; moved aside with a `.corrupt` suffix.
    public var corrupt: [String] = []
    /// Staging files that held no committed record (the process stopped before acknowledging any).
    public var discarded = 0
    /// Source records that awaited their `Lambda` processor, staged for it again (it runs once the
    /// server runs, not during recovery).
    public var awaitingTransformation = 0
    /// Records that awaited an HTTP endpoint, staged for it again (sent once the server runs).
    public var awaitingDelivery = 0
    /// Buffers whose delivery failed (a store that was down, a folder that could not be written):
    /// the journals of `pending`, retried with backoff while the server runs, and at the next start.
    public var undelivered: [String] { pending.map(\.journal) }
    /// The same buffers with their streams, counts and the failure: until delivered they count,
    /// flush and fail as their stream's buffers (`FirehoseSink.pendingRecoveries`).
    var pending: [PendingRecovery] = []
    /// Buckets mapped to a store whose delivery failed in this pass: their other buffers wait for
    /// the retries instead of each trying (and, with a store that does not answer, timing out) in turn.
    var failedStoreBuckets: [String: FileSystemError] = [:]
}

/// A recovered buffer whose delivery failed. It stays staged, and until it is delivered it is its
/// stream's like any other buffer: `/_local/streams` counts its records, a flush delivers it (or
/// fails naming the stream), and shutdown fails on it.
struct PendingRecovery: Sendable, Equatable {
    var stream: String
    var journal: String
    var records: Int
    /// Record bytes, before compression.
    var bytes: Int
    var error: FileSystemError
}

extension FirehoseSink {
    /// Delivers every buffer a previous run left in the staging folder (after a crash or power loss),
    /// keeping exactly the records whose commit completed. Call after creating the streams and before
    /// accepting requests.
    public func recoverStagedBuffers() async -> RecoveryReport {
        var report = RecoveryReport()
        // Quarantined buffers first: those whose stream exists again are delivered like any other.
        let quarantineDirectory = configuration.quarantineDirectory
        for name in POSIX.listDirectory(quarantineDirectory).sorted() where name.hasSuffix(".journal") {
            let base = "\(quarantineDirectory)/\(name.dropLast(".journal".count))"
            await recover(journalPath: base + ".journal", dataPath: base + ".partial", into: &report)
        }
        let directory = configuration.stagingDirectory
        let names = POSIX.listDirectory(directory).sorted()
        for name in names where name.hasSuffix(".recovered") || name.hasSuffix(".object") || name.hasSuffix(".upload") {
            // An object encoded for delivery (by a recovery, or at a buffer's delivery) that was not
            // renamed into its bucket: the staging files it came from are still there. An S3 upload
            // that was not renamed into place was never acknowledged.
            POSIX.unlink("\(directory)/\(name)")
        }
        for name in names where name.hasSuffix(".journal") {
            let base = "\(directory)/\(name.dropLast(".journal".count))"
            let journalPath = base + ".journal"
            let dataPath = base + ".partial"
            await recover(journalPath: journalPath, dataPath: dataPath, into: &report)
        }
        // Data files without a journal never committed anything.
        for name in names where name.hasSuffix(".partial") {
            let base = String(name.dropLast(".partial".count))
            if !names.contains(base + ".journal") {
                POSIX.unlink("\(directory)/\(name)")
                report.discarded += 1
            }
        }
        if !report.delivered.isEmpty || !report.orphaned.isEmpty || !report.corrupt.isEmpty
            || !report.quarantined.isEmpty || report.awaitingTransformation > 0 || report.awaitingDelivery > 0
        {
            logger.notice(
                "Recovered staged buffers from a previous run",
                metadata: [
                    "objects": .stringConvertible(report.delivered.count),
                    "records": .stringConvertible(report.delivered.map(\.records).reduce(0, +)),
                    "quarantined": .stringConvertible(report.quarantined.count),
                    "orphaned": .stringConvertible(report.orphaned.count),
                    "corrupt": .stringConvertible(report.corrupt.count),
                    "awaiting_transformation": .stringConvertible(report.awaitingTransformation),
                    "awaiting_endpoint": .stringConvertible(report.awaitingDelivery),
                ])
        }
        quarantine.withLock { $0 = report.quarantined }
        pendingRecoveries.withLock { $0 = report.pending }
        if !report.pending.isEmpty { retryRecoveries() }
        return report
    }

    /// Records and bytes of `stream`'s recovered buffers that wait for delivery.
    func pendingRecoveryFill(of stream: String) -> (records: Int, bytes: Int) {
        pendingRecoveries.withLock { pending in
            pending.filter { $0.stream == stream }.reduce((0, 0)) { ($0.0 + $1.records, $0.1 + $1.bytes) }
        }
    }

    /// What recovered buffers still wait for delivery: per stream of `streams`, their last failure
    /// and records, without trying them again.
    func pendingRecoveryFailures(streams: Set<String>) -> [String: (error: FileSystemError, records: Int)] {
        Self.failuresByStream(pendingRecoveries.withLock { $0.filter { streams.contains($0.stream) } })
    }

    /// Per stream: the first buffer's failure and the records of all.
    private static func failuresByStream(_ buffers: [PendingRecovery]) -> [String: (
        error: FileSystemError, records: Int
    )] {
        var failures: [String: (error: FileSystemError, records: Int)] = [:]
        for buffer in buffers { failures[buffer.stream, default: (buffer.error, 0)].records += buffer.records }
        return failures
    }

    /// Tries again to deliver the recovered buffers still pending (of `streams`, or all), one pass at
    /// a time (a flush and the retries never deliver one buffer twice). Returns what was delivered
    /// and, per stream that still has some, the first failure and the records that stay staged.
    func deliverPendingRecoveries(streams: Set<String>? = nil) async
        -> (delivered: [DeliveredObject], failures: [String: (error: FileSystemError, records: Int)])
    {
        guard pendingRecoveries.withLock({ !$0.isEmpty }) else { return ([], [:]) }
        return await recoveryPasses.run {
            // They stay listed while the pass runs, so they count until they are delivered.
            let taken = pendingRecoveries.withLock { $0.filter { streams?.contains($0.stream) ?? true } }
            var report = RecoveryReport()
            for buffer in taken where POSIX.exists(buffer.journal) {
                let base = String(buffer.journal.dropLast(".journal".count))
                await recover(journalPath: buffer.journal, dataPath: base + ".partial", into: &report)
            }
            let retried = Set(taken.map(\.journal))
            pendingRecoveries.withLock { pending in
                pending.removeAll { retried.contains($0.journal) }
                pending += report.pending
            }
            // A stream deleted meanwhile: its buffers went to the quarantine folder.
            if !report.quarantined.isEmpty { quarantine.withLock { $0 += report.quarantined } }
            return (report.delivered, Self.failuresByStream(report.pending))
        }
    }

    /// Delivers again, with backoff (1 s doubling to 60 s, jittered), the recovered buffers whose
    /// delivery failed at start, until each is delivered or the sink shuts down: a store that was
    /// down when the server started must not keep them waiting for the next start.
    private func retryRecoveries() {
        let task = Task { [clock, jitter = configuration.retryJitter] in
            var failures = 0
            while pendingRecoveries.withLock({ !$0.isEmpty }) {
                failures += 1
                let delay = DeliveryBackoff.delay(seconds: DeliveryBackoff.seconds(after: failures), jitter: jitter)
                do { try await clock.sleep(for: delay) } catch { return }
                let (delivered, _) = await deliverPendingRecoveries()
                if !delivered.isEmpty {
                    logger.notice(
                        "Delivered recovered buffers that had failed at start",
                        metadata: [
                            "objects": .stringConvertible(delivered.count),
                            "left": .stringConvertible(pendingRecoveries.withLock { $0.count }),
                        ])
                }
            }
        }
        recoveryRetries.withLock { $0.append(task) }
    }

    /// Moves a staged buffer (data and journal) into the quarantine folder, durably; returns where its
    /// data file is now. A buffer already there, or one that cannot be moved, stays where it is.
    private func keepInQuarantine(journalPath: String, dataPath: String) -> String {
        let quarantine = configuration.quarantineDirectory
        guard !dataPath.hasPrefix(quarantine + "/") else { return dataPath }
        let name = String(dataPath[dataPath.index(after: dataPath.lastIndex(of: "/")!)...])
        let base = "\(quarantine)/\(name.dropLast(".partial".count))"
        // Whenever a crash stops this, one folder holds the data with its journal: the data is linked
        // in first (a leftover of an interrupted move is replaced), then the journal moves, and only
        // then does the staging name go (staging data without a journal is removed at start anyway).
        do throws(FileSystemError) {
            try POSIX.makeDirectories(quarantine)
            try POSIX.remove(base + ".partial")
            try POSIX.link(dataPath, base + ".partial")
            try POSIX.fsyncDirectory(quarantine)
            try POSIX.rename(journalPath, base + ".journal")
            try POSIX.fsyncDirectory(quarantine)
            try POSIX.remove(dataPath)
            try POSIX.fsyncDirectory(configuration.stagingDirectory)
            return base + ".partial"
        } catch {
            logger.error(
                "Could not move staged records to the quarantine folder; left in staging",
                metadata: ["file": .string(dataPath), "error": .string(error.description)])
            return dataPath
        }
    }

    /// Stages again source records that awaited the stream's `Lambda` processor, for it to transform
    /// them once the server runs. A stream that no longer has one takes them as its function would
    /// have given them back unchanged.
    private func restage(
        _ framed: [UInt8], of entry: StreamEntry, journal: StagingJournal.Header,
        files: (data: String, journal: String), into report: inout RecoveryReport
    ) async {
        if let partition = journal.partition, let type = partition.errorOutputType {
            // Error records a processor before the function made: not framed, staged as they are.
            let lines = ErrorOutput.lines(framed)
            do throws(SinkError) {
                if let source = entry.source {
                    try await source.restage(lines, partition: partition, arrival: journal.firstArrival)
                } else {
                    _ = try await entry.actor.append(errorRecords: lines, type: type, arrival: journal.firstArrival)
                }
                POSIX.unlink(files.journal)
                POSIX.unlink(files.data)
            } catch {
                report.orphaned.append(files.data)
            }
            return
        }
        guard let frames = SourceRecordFrame.parse(framed) else {
            logger.error(
                "Staged source records are not framed as firehose-local frames them; moved aside",
                metadata: ["file": .string(files.data), "stream": .string(journal.stream)])
            _ = try? POSIX.rename(files.data, files.data + ".corrupt")
            _ = try? POSIX.rename(files.journal, files.journal + ".corrupt")
            report.corrupt.append(files.data + ".corrupt")
            return
        }
        do throws(SinkError) {
            if let source = entry.source {
                var staged = RecordBatch()
                for frame in frames { staged.append(framed[frame.frame]) }
                try await source.restage(staged, arrival: journal.firstArrival)
            } else {
                var records = TransformedRecords()
                for frame in frames {
                    records.records.append(framed[frame.record])
                    records.partitionKeys.append([:])
                }
                _ = try await entry.actor.append(transformed: records, arrival: journal.firstArrival)
            }
            POSIX.unlink(files.journal)
            POSIX.unlink(files.data)
            report.awaitingTransformation += frames.count
        } catch {
            logger.error(
                "Could not stage recovered source records again; they stay staged for the next start",
                metadata: [
                    "stream": .string(journal.stream), "file": .string(files.data),
                    "records": .stringConvertible(frames.count), "error": .string(error.description),
                ])
            report.orphaned.append(files.data)
        }
    }

    private func recover(journalPath: String, dataPath: String, into report: inout RecoveryReport) async {
        guard let journalBytes = try? POSIX.readFile(journalPath), let journal = StagingJournal.parse(journalBytes)
        else {
            POSIX.unlink(journalPath)
            POSIX.unlink(dataPath)
            report.discarded += 1
            return
        }
        guard let data = try? POSIX.readFile(dataPath) else {
            // Renamed into the bucket already; only the journal's removal was missed.
            POSIX.unlink(journalPath)
            return
        }
        guard let commit = StagingJournal.lastIntactCommit(journal.entries, data: data) else {
            POSIX.unlink(journalPath)
            POSIX.unlink(dataPath)
            report.discarded += 1
            return
        }
        guard let entry = streams.withLock({ $0[journal.header.stream] }) else {
            let kept = keepInQuarantine(journalPath: journalPath, dataPath: dataPath)
            let relative = String(kept.dropFirst(configuration.dataDirectory.count + 1))
            logger.warning(
                "Staged records belong to a stream that does not exist; kept in quarantine until a stream of that name exists at a start",
                metadata: [
                    "stream": .string(journal.header.stream), "file": .string(kept),
                    "records": .stringConvertible(commit.records),
                ])
            report.quarantined.append(
                QuarantinedBuffer(
                    stream: journal.header.stream, records: commit.records, bytes: commit.uncompressedBytes,
                    path: relative))
            return
        }
        guard let stream = journal.header.backup == true ? entry.backup : entry.actor else {
            logger.error(
                "Staged records of a source-record backup belong to a stream that no longer backs records up; left in place",
                metadata: [
                    "stream": .string(journal.header.stream), "file": .string(dataPath),
                    "records": .stringConvertible(commit.records),
                ])
            report.orphaned.append(dataPath)
            return
        }
        let committed = Array(data[..<commit.storedBytes])
        guard let encoding = await stream.encoding(named: journal.header.encoding) else {
            logger.error(
                "Staged records were encoded in a format this firehose-local does not know; left in place",
                metadata: [
                    "stream": .string(journal.header.stream), "file": .string(dataPath),
                    "encoding": .string(journal.header.encoding), "records": .stringConvertible(commit.records),
                ])
            report.orphaned.append(dataPath)
            return
        }
        var objectEncoding: (any ObjectEncoding)?
        if let name = journal.header.objectEncoding {
            objectEncoding = await stream.encoding(named: name)
            guard objectEncoding != nil else {
                logger.error(
                    "Staged records are to be delivered in a format this firehose-local does not know; left in place",
                    metadata: [
                        "stream": .string(journal.header.stream), "file": .string(dataPath),
                        "encoding": .string(name), "records": .stringConvertible(commit.records),
                    ])
                report.orphaned.append(dataPath)
                return
            }
        }
        let raw = encoding.decodeStaged(committed, limit: commit.uncompressedBytes + 1)
        guard let raw, raw.count == commit.uncompressedBytes else {
            logger.error(
                "Staged buffer does not decode to what its journal says; moved aside",
                metadata: ["file": .string(dataPath), "stream": .string(journal.header.stream)])
            _ = try? POSIX.rename(dataPath, dataPath + ".corrupt")
            _ = try? POSIX.rename(journalPath, journalPath + ".corrupt")
            report.corrupt.append(dataPath + ".corrupt")
            return
        }
        if let destination = journal.header.consumingDestination {
            guard entry.settings.destination.consumesRecords, entry.settings.destination.name == destination else {
                logger.error(
                    "Staged records for a destination the stream no longer delivers to; left in place",
                    metadata: [
                        "stream": .string(journal.header.stream), "file": .string(dataPath),
                        "destination": .string(destination),
                    ])
                report.orphaned.append(dataPath)
                return
            }
            let partition = journal.header.partition ?? .whole
            // As the stage staged them: error records line by line, other records frame by frame.
            var staged = RecordBatch()
            if partition.errorOutputType != nil {
                staged = ErrorOutput.lines(raw)
            } else if let frames = SourceRecordFrame.parse(raw) {
                for frame in frames { staged.append(raw[frame.frame]) }
            } else {
                logger.error(
                    "Staged records for a destination are not framed as firehose-local frames them; left in place",
                    metadata: [
                        "stream": .string(journal.header.stream), "file": .string(dataPath),
                        "destination": .string(destination),
                    ])
                report.orphaned.append(dataPath)
                return
            }
            do throws(SinkError) {
                try await entry.actor.restage(staged, partition: partition, arrival: journal.header.firstArrival)
                POSIX.unlink(journalPath)
                POSIX.unlink(dataPath)
                report.awaitingDelivery += commit.records
            } catch {
                logger.error(
                    "Could not stage recovered records for a destination again; they stay staged for the next start",
                    metadata: [
                        "stream": .string(journal.header.stream), "destination": .string(destination),
                        "error": .string(error.description),
                    ])
                report.orphaned.append(dataPath)
            }
            return
        }
        if journal.header.awaitsTransformation == true {
            await restage(raw, of: entry, journal: journal.header, files: (dataPath, journalPath), into: &report)
            return
        }
        let bucket = (journal.header.backup == true ? entry.settings.backupStage?.bucket : entry.settings.bucket) ?? ""
        if let storeFailure = report.failedStoreBuckets[bucket] {
            report.pending.append(
                PendingRecovery(
                    stream: journal.header.stream, journal: journalPath, records: commit.records,
                    bytes: commit.uncompressedBytes, error: storeFailure))
            report.orphaned.append(dataPath)
            return
        }
        do {
            let object = try await stream.deliverRecovered(
                raw, records: commit.records, partition: journal.header.partition ?? .whole, key: journal.header.key,
                encoding: objectEncoding, firstArrival: journal.header.firstArrival,
                versionID: journal.header.versionID, stagingFiles: [dataPath, journalPath])
            report.delivered.append(object)
        } catch {
            report.pending.append(
                PendingRecovery(
                    stream: journal.header.stream, journal: journalPath, records: commit.records,
                    bytes: commit.uncompressedBytes, error: error))
            if configuration.stores[bucket] != nil { report.failedStoreBuckets[bucket] = error }
            logger.error(
                "Could not deliver recovered records; they stay staged and are retried",
                metadata: [
                    "stream": .string(journal.header.stream), "file": .string(dataPath),
                    "records": .stringConvertible(commit.records), "error": .string(error.description),
                ])
            deliveryFailed(stream: journal.header.stream, error: error, stagedRecords: commit.records)
            report.orphaned.append(dataPath)
        }
    }
}
