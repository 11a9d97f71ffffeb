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

/// The open buffer of a delivery stream, kept as files in the data directory's staging folder.
///
/// Records are encoded (compressed) as they arrive and appended to `<id>.partial`, so memory holds
/// only the compressor's window whatever the buffer size. Each request ends with a *commit*: the
/// encoder is flushed to a byte boundary, the bytes are written, and a line is appended to
/// `<id>.journal` saying how many stored bytes (and their CRC-32) hold how many records. Once both
/// files are fsynced the request's records survive a crash: recovery keeps exactly the committed
/// prefix, so a torn write never yields a torn record. Delivery finishes the encoding, fsyncs and
/// renames the data file to its key, which makes the object appear atomically.
final class StagingBuffer {
    let id: UUID
    let dataPath: String
    let journalPath: String
    /// Arrival time of the oldest record: fixes the object key's time and the interval deadline.
    let firstArrival: Date
    private(set) var recordCount = 0
    /// Bytes as delivered before compression (records plus delimiters): what `SizeInMBs` counts.
    private(set) var uncompressedBytes = 0
    /// Bytes in the data file.
    private(set) var storedBytes = 0
    private(set) var isSealed = false
    private var dataFD: Int32
    private var journalFD: Int32
    private var journalBytes = 0
    private let compressor: GzipCompressor?
    /// Encoded bytes not yet in the data file.
    private var unwritten: [UInt8] = []
    /// What the last journal line recorded.
    private var committed = (storedBytes: 0, uncompressedBytes: 0, records: 0)

    init(
        directory: String, streamName: String, versionID: Int, firstArrival: Date,
        compression: DeliveryStreamSettings.Compression, gzipLevel: Int32
    ) throws(FileSystemError) {
        id = UUID()
        let base = "\(directory)/\(id.uuidString.lowercased())"
        dataPath = base + ".partial"
        journalPath = base + ".journal"
        self.firstArrival = firstArrival
        if compression == .gzip {
            do {
                compressor = try GzipCompressor(level: gzipLevel)
            } catch {
                throw FileSystemError(operation: "deflateInit", path: dataPath, errno: ENOMEM)
            }
        } else {
            compressor = nil
        }
        dataFD = try POSIX.open(dataPath, flags: O_WRONLY | O_CREAT | O_EXCL)
        do {
            journalFD = try POSIX.open(journalPath, flags: O_WRONLY | O_CREAT | O_EXCL)
            let header = StagingJournal.Header(
                stream: streamName, versionID: versionID,
                firstArrivalMilliseconds: Int64((firstArrival.timeIntervalSince1970 * 1000).rounded()),
                compression: compression)
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

    func append(_ record: ArraySlice<UInt8>, newline: Bool) {
        recordCount += 1
        uncompressedBytes += record.count + (newline ? 1 : 0)
        if let compressor {
            compressor.append(record)
            if newline { compressor.append(CollectionOfOne(UInt8(ascii: "\n"))) }
        } else {
            unwritten.append(contentsOf: record)
            if newline { unwritten.append(UInt8(ascii: "\n")) }
        }
    }

    /// Writes everything appended so far and journals it. Not durable until `syncDescriptors` are
    /// fsynced (or `seal` runs). On failure nothing is journaled and the bytes are kept, so the next
    /// commit writes them again at the same offset: a transient error (disk full) tears nothing.
    func commit() throws(FileSystemError) {
        guard recordCount != committed.records else { return }
        compressor?.syncFlush()
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

    /// CRC-32 of the stored bytes after the last journaled commit.
    private var uncommittedCRC: UInt32 = 0

    /// True once the staging files were removed from under the buffer.
    var isUnlinked: Bool {
        (dataFD >= 0 && POSIX.linkCount(dataFD) == 0) || !POSIX.exists(dataPath)
    }

    /// Duplicates of the two descriptors, for an fsync that runs off the stream's executor while the
    /// buffer goes on accepting (and may even be sealed and closed). The caller closes them.
    func syncDescriptors() -> [(descriptor: Int32, path: String)] {
        guard !isSealed else { return [] }
        return [(dup(dataFD), dataPath), (dup(journalFD), journalPath)].filter { $0.descriptor >= 0 }
    }

    /// Writes the pending bytes, extending the CRC of the not yet journaled range.
    private func writePending() throws(FileSystemError) {
        if let compressor {
            let produced = compressor.takeOutput()
            if unwritten.isEmpty { unwritten = produced } else { unwritten.append(contentsOf: produced) }
        }
        guard !unwritten.isEmpty else { return }
        try POSIX.writeAll(dataFD, unwritten, at: Int64(storedBytes), path: dataPath)
        uncommittedCRC = Gzip.crc32(unwritten[...], continuing: uncommittedCRC)
        storedBytes += unwritten.count
        // An uncompressed 4 MiB batch must not pin 4 MiB per stream for the buffer's lifetime.
        if unwritten.capacity > 1 << 16 { unwritten = [] } else { unwritten.removeAll(keepingCapacity: true) }
    }

    /// Completes the encoding, writes and fsyncs the data file, and closes both files. Safe to call
    /// again after a failure.
    func seal() throws(FileSystemError) {
        guard !isSealed else { return }
        compressor?.finish()
        try writePending()
        try POSIX.fsync(dataFD, path: dataPath)
        POSIX.close(dataFD)
        POSIX.close(journalFD)
        dataFD = -1
        journalFD = -1
        isSealed = true
    }

    /// After the data file has been renamed into the bucket: the journal has done its job.
    func removeJournal() {
        POSIX.unlink(journalPath)
    }

    /// Drops both files (a deleted stream discards its buffer, as in AWS).
    func discard() {
        if dataFD >= 0 { POSIX.close(dataFD) }
        if journalFD >= 0 { POSIX.close(journalFD) }
        dataFD = -1
        journalFD = -1
        POSIX.unlink(dataPath)
        POSIX.unlink(journalPath)
    }
}
