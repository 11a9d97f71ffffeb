import DurableStorage
import FirehoseWire

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

/// One buffer of a delivery stream's partition (open, then retired until published), kept as files in
/// the data directory's staging folder.
///
/// Records are encoded by the stream's encoding stage (`SegmentEncoder`) as they arrive and appended
/// to `<id>.partial`, after the encoder's header, so memory holds only the compressor's window whatever
/// the buffer size. Each request's share is a *segment*. Segments are written in the order they were
/// reserved, and each write ends with a
/// *commit*: a line appended to `<id>.journal` saying how many stored bytes (and their CRC-32) hold
/// how many records. Once both files are fsynced the request's records survive a crash: recovery
/// keeps exactly the committed prefix, so a torn write never yields a torn record. Delivery finishes
/// the encoding (the encoder's trailer) and hands the data file to the destination stage.
final class StagingBuffer: Identifiable {
    let id: UUID
    let dataPath: String
    let journalPath: String
    /// The buffer is staged as it is and its object encoded at delivery, into `encodedPath`
    /// (`DeliveryStreamSettings.stagingEncoding`).
    let encodesAtDelivery: Bool
    let encodedPath: String
    /// The settings the buffer was opened under; it is delivered under them even after an update.
    let settings: DeliveryStreamSettings
    /// The partition whose records the buffer holds.
    let partition: PartitionKey
    /// Arrival time of the oldest record: fixes the object key's time and the interval deadline.
    let firstArrival: Date
    /// The key the buffer is delivered at, fixed when it opens (under the settings it opens with) and
    /// kept in the journal, so recovery delivers it there whatever the stream's settings are by then.
    let objectKey: String
    /// Content bytes reserved by requests, written or not: what the size hint is checked against.
    private(set) var reservedBytes = 0
    /// Reserved segments not yet handed to `stage`.
    var pendingSegments = 0
    /// The files were removed or the stream deleted: segments for it must fail, not be written.
    private(set) var isAbandoned = false
    private(set) var recordCount = 0
    /// Bytes as delivered before compression (records plus delimiters): what `SizeInMBs` counts.
    private(set) var uncompressedBytes = 0
    /// Bytes in the data file.
    private(set) var storedBytes = 0
    private var dataFD: Int32
    private var journalFD: Int32
    private var journalBytes = 0
    /// Encoded bytes not yet in the data file, with their CRC-32s.
    private var unwritten: [(bytes: [UInt8], crc: UInt32)] = []
    /// CRC-32 of the content so far (the trailer's).
    private(set) var contentCRC: UInt32 = 0
    /// The encoding stage of this buffer; nil once the encoding is finished.
    private var encoder: (any SegmentEncoder)?
    /// What the last journal line recorded.
    private var committed = (storedBytes: 0, uncompressedBytes: 0, records: 0)
    /// CRC-32 of the stored bytes after the last journaled commit.
    private var uncommittedCRC: UInt32 = 0

    init(directory: String, settings: DeliveryStreamSettings, partition: PartitionKey, firstArrival: Date)
        throws(FileSystemError)
    {
        id = UUID()
        let base = "\(directory)/\(id.uuidString.lowercased())"
        dataPath = base + ".partial"
        journalPath = base + ".journal"
        encodedPath = base + ".object"
        self.settings = settings
        self.partition = partition
        self.firstArrival = firstArrival
        var random = SystemRandomNumberGenerator()
        objectKey = settings.objectKey(
            for: partition, versionID: settings.versionID, firstArrival: firstArrival, randomSource: &random)
        let stagingEncoding = settings.stagingEncoding
        encodesAtDelivery = stagingEncoding.name != settings.encoding.name
        let encoder = stagingEncoding.makeSegmentEncoder()
        self.encoder = encoder
        let header = encoder.header
        if !header.isEmpty { unwritten = [(header, header.withUnsafeBytes { CRC32.checksum($0) })] }
        dataFD = try POSIX.open(dataPath, flags: O_WRONLY | O_CREAT | O_EXCL)
        do {
            journalFD = try POSIX.open(journalPath, flags: O_WRONLY | O_CREAT | O_EXCL)
            let header = StagingJournal.Header(
                stream: settings.name, versionID: settings.versionID,
                firstArrivalMilliseconds: firstArrival.epochMilliseconds,
                encoding: stagingEncoding.name, partition: partition == .whole ? nil : partition,
                key: objectKey, objectEncoding: settings.encoding.name,
                awaitsTransformation: settings.isSourceStage ? true : nil, backup: settings.isBackupStage ? true : nil,
                destination: settings.destination.consumesRecords ? settings.destination.name : nil)
            let line = Array(header.line.utf8)
            try POSIX.writeAll(journalFD, line, at: 0, path: journalPath)
            journalBytes = line.count
        } catch {
            POSIX.close(dataFD)
            POSIX.unlink(dataPath)
            POSIX.unlink(journalPath)
            throw error
        }
    }

    deinit {
        if dataFD >= 0 { POSIX.close(dataFD) }
        if journalFD >= 0 { POSIX.close(journalFD) }
    }

    /// Reserves `run` as the buffer's next segment and has the encoder encode it, here or (large
    /// runs, `inParallel`) as a job for the caller.
    func reserve(_ run: RecordRun, inParallel parallel: Bool) -> PlannedSegment {
        guard let encoder else { preconditionFailure("segment reserved in a buffer whose encoding is finished") }
        reservedBytes += run.contentLength
        pendingSegments += 1
        return encoder.encode(run, inParallel: parallel)
    }

    /// Queues an encoded segment (in reservation order) for the next `commit`.
    func stage(_ segment: EncodedSegment) {
        pendingSegments -= 1
        recordCount += segment.records
        uncompressedBytes += segment.contentLength
        contentCRC = CRC32.combine(contentCRC, segment.contentCRC, secondLength: segment.contentLength)
        if !segment.stored.isEmpty { unwritten.append((segment.stored, segment.storedCRC)) }
    }

    /// A reserved segment that will never be staged (its buffer was abandoned).
    func dropReservation() {
        pendingSegments -= 1
    }

    /// Writes everything staged so far and journals it. Not durable until `syncDescriptors` are
    /// fsynced (or the data file is, as delivery does). On failure nothing is journaled and the bytes
    /// are kept, so the next commit writes them again at the same offset: a transient error (disk
    /// full) tears nothing.
    func commit() throws(FileSystemError) {
        guard recordCount != committed.records else { return }
        try writePending()
        // The CRC covers every byte since the last journaled commit, including bytes written by a
        // commit whose journal line failed (disk full): recovery checks exactly that range.
        let line = StagingJournal.Entry(
            storedBytes: storedBytes, uncompressedBytes: uncompressedBytes, records: recordCount,
            segmentCRC: uncommittedCRC
        ).line
        try POSIX.writeAll(journalFD, Array(line.utf8), at: Int64(journalBytes), path: journalPath)
        // Someone removed the staging files (e.g. the data directory): nothing written here can be
        // delivered, so it must not be acknowledged.
        if POSIX.linkCount(dataFD) == 0 || POSIX.linkCount(journalFD) == 0 {
            throw FileSystemError(operation: "commit", path: dataPath, errno: ENOENT)
        }
        journalBytes += line.utf8.count
        committed = (storedBytes, uncompressedBytes, recordCount)
        uncommittedCRC = 0
    }

    /// True once the staging files were removed from under the buffer.
    var isUnlinked: Bool {
        (dataFD >= 0 && POSIX.linkCount(dataFD) == 0) || !POSIX.exists(dataPath)
    }

    /// Duplicates of the two descriptors, for an fsync that runs off the stream's executor while the
    /// buffer goes on accepting (and may even be published and closed). The caller closes them.
    func syncDescriptors() -> [(descriptor: Int32, path: String)] {
        guard dataFD >= 0 else { return [] }
        return [(POSIX.duplicate(dataFD), dataPath), (POSIX.duplicate(journalFD), journalPath)].filter {
            $0.descriptor >= 0
        }
    }

    /// Segments joined into one write up to this many bytes.
    static let joinedWriteBytes = 256 * 1024

    /// Writes the staged bytes, extending the CRC of the not yet journaled range. Stops at the first
    /// failure, keeping what was not written.
    private func writePending() throws(FileSystemError) {
        guard !unwritten.isEmpty else { return }
        // A buffer whose descriptors were released while it waited writes its trailer by path.
        let reopened = dataFD < 0
        let file = reopened ? try POSIX.open(dataPath, flags: O_WRONLY) : dataFD
        defer { if reopened { POSIX.close(file) } }
        while !unwritten.isEmpty {
            // Consecutive segments go out in one write (requests that share a commit: a PutRecord's is
            // ~100 bytes); a large one alone, rather than be copied.
            var count = 1
            var length = unwritten[0].bytes.count
            while count < unwritten.count, length + unwritten[count].bytes.count <= Self.joinedWriteBytes {
                length += unwritten[count].bytes.count
                count += 1
            }
            let bytes = count == 1 ? unwritten[0].bytes : Array(unwritten[..<count].map(\.bytes).joined())
            try POSIX.writeAll(file, bytes, at: Int64(storedBytes), path: dataPath)
            for index in 0..<count {
                uncommittedCRC = CRC32.combine(
                    uncommittedCRC, unwritten[index].crc, secondLength: unwritten[index].bytes.count)
            }
            storedBytes += length
            unwritten.removeFirst(count)
        }
    }

    /// Completes the encoding (its trailer) and writes everything staged, so the data file is the
    /// object. Safe to call again after a failure.
    func finishEncoding() throws(FileSystemError) {
        if let encoder {
            let trailer = encoder.trailer(
                contentCRC: contentCRC, contentLength: uncompressedBytes,
                storedLength: storedBytes + unwritten.reduce(0) { $0 + $1.bytes.count })
            if !trailer.isEmpty { unwritten.append((trailer, trailer.withUnsafeBytes { CRC32.checksum($0) })) }
            // Finishing again after a failed write must not add a second trailer.
            self.encoder = nil
        }
        try writePending()
    }

    /// A duplicate of the data file's descriptor, for the fsync that publishing does off the
    /// stream's executor. The caller closes it.
    func duplicateDataDescriptor() throws(FileSystemError) -> Int32 {
        if dataFD < 0 { return try POSIX.open(dataPath, flags: O_RDONLY) }
        let descriptor = POSIX.duplicate(dataFD)
        guard descriptor >= 0 else { throw FileSystemError(operation: "dup", path: dataPath, errno: errno) }
        return descriptor
    }

    /// Every reserved segment is written and journaled: nothing more will be written to the files.
    var isFullyCommitted: Bool {
        pendingSegments == 0 && unwritten.isEmpty && committed.records == recordCount
    }

    /// Once the data file is in the bucket: closes both files; no more syncs are needed. Also, for a
    /// closed buffer whose content is read by path (a source stage's), once it is fully committed and
    /// its last sync has the descriptors it needs, so that buffers waiting for a slow function do not
    /// hold two descriptors each.
    func close() {
        if dataFD >= 0 { POSIX.close(dataFD) }
        if journalFD >= 0 { POSIX.close(journalFD) }
        dataFD = -1
        journalFD = -1
    }

    /// Drops both files (a deleted stream discards its buffer, as in AWS).
    func discard() {
        isAbandoned = true
        close()
        POSIX.unlink(dataPath)
        POSIX.unlink(journalPath)
        POSIX.unlink(encodedPath)
    }
}
