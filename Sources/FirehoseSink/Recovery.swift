import DurableStorage
import FirehoseWire
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What start-up recovery found in the staging folder.
public struct RecoveryReport: Sendable, Equatable {
    /// Objects delivered from buffers a previous run had acknowledged but not delivered.
    public var delivered: [DeliveredObject] = []
    /// Staging files left alone because their stream is not configured (now); named so a person can act.
    public var orphaned: [String] = []
    /// Staging files whose committed data failed to decode; moved aside with a `.corrupt` suffix.
    public var corrupt: [String] = []
    /// Staging files that held no committed record (the process stopped before acknowledging any).
    public var discarded = 0
}

extension FirehoseSink {
    /// Delivers every buffer a previous run left in the staging folder (after a crash or power loss),
    /// keeping exactly the records whose commit completed. Call after creating the streams and before
    /// accepting requests.
    public func recoverStagedBuffers() async -> RecoveryReport {
        var report = RecoveryReport()
        let directory = configuration.stagingDirectory
        let names = POSIX.listDirectory(directory).sorted()
        for name in names where name.hasSuffix(".recovered") {
            // A recovery that stopped before its rename: the staging files it came from are still there.
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
        if !report.delivered.isEmpty || !report.orphaned.isEmpty || !report.corrupt.isEmpty {
            logger.notice(
                "Recovered staged buffers from a previous run",
                metadata: [
                    "objects": .stringConvertible(report.delivered.count),
                    "records": .stringConvertible(report.delivered.map(\.records).reduce(0, +)),
                    "orphaned": .stringConvertible(report.orphaned.count),
                    "corrupt": .stringConvertible(report.corrupt.count),
                ])
        }
        return report
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
        guard let stream = streams.withLock({ $0[journal.header.stream]?.actor }) else {
            logger.warning(
                "Staged records belong to a stream that is not configured; left in place",
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
        do {
            let object = try await stream.deliverRecovered(
                raw, records: commit.records, firstArrival: journal.header.firstArrival,
                versionID: journal.header.versionID, stagingFiles: [dataPath, journalPath])
            report.delivered.append(object)
        } catch {
            logger.error(
                "Could not deliver recovered records; they stay staged for the next start",
                metadata: [
                    "stream": .string(journal.header.stream), "file": .string(dataPath),
                    "records": .stringConvertible(commit.records), "error": .string(error.description),
                ])
            deliveryFailed(stream: journal.header.stream, error: error, stagedRecords: commit.records)
            report.orphaned.append(dataPath)
        }
    }
}
