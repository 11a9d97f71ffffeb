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
import FirehoseWire

/// The open buffer of a delivery stream, kept as a file in the data directory's staging folder:
/// records are encoded (compressed) as they arrive and appended to the file, so memory holds only
/// the compressor's window and the current request's output, whatever the buffer size. Sealing
/// finishes the encoding and fsyncs; the file is then renamed into the bucket, which makes the
/// object appear atomically. Keeping the buffer on disk is also what lets it outlive the process.
final class StagingBuffer {
    let id: UUID
    let path: String
    /// Arrival time of the oldest record: fixes the object key's time and the interval deadline.
    let firstArrival: Date
    private(set) var recordCount = 0
    /// Bytes as delivered before compression (records plus delimiters): what `SizeInMBs` counts.
    private(set) var uncompressedBytes = 0
    private(set) var storedBytes = 0
    private var fd: Int32
    private let compressor: GzipCompressor?
    /// Encoded bytes not yet in the file.
    private var unwritten: [UInt8] = []

    init(directory: String, firstArrival: Date, compression: DeliveryStreamSettings.Compression, gzipLevel: Int32)
        throws(FileSystemError)
    {
        id = UUID()
        path = "\(directory)/\(id.uuidString.lowercased()).partial"
        self.firstArrival = firstArrival
        if compression == .gzip {
            do {
                compressor = try GzipCompressor(level: gzipLevel)
            } catch {
                throw FileSystemError(operation: "deflateInit", path: path, errno: ENOMEM)
            }
        } else {
            compressor = nil
        }
        fd = try POSIX.open(path, flags: O_WRONLY | O_CREAT | O_EXCL)
    }

    deinit {
        if fd >= 0 { POSIX.close(fd) }
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

    /// Writes what this request produced to the staging file. On failure the bytes are kept and the
    /// next call writes them again at the same offset, so a transient error (disk full) tears nothing.
    func writePending() throws(FileSystemError) {
        if let compressor {
            let produced = compressor.takeOutput()
            if unwritten.isEmpty { unwritten = produced } else { unwritten.append(contentsOf: produced) }
        }
        guard !unwritten.isEmpty else { return }
        try POSIX.writeAll(fd, unwritten, at: Int64(storedBytes), path: path)
        storedBytes += unwritten.count
        unwritten.removeAll(keepingCapacity: true)
    }

    private(set) var isSealed = false

    /// Completes the encoding, writes and fsyncs the file, and closes it. Safe to call again after a
    /// failure.
    func seal() throws(FileSystemError) {
        guard !isSealed else { return }
        compressor?.finish()
        try writePending()
        try POSIX.fsync(fd, path: path)
        POSIX.close(fd)
        fd = -1
        isSealed = true
    }

    /// Drops the staging file (a deleted stream discards its buffer, as in AWS).
    func discard() {
        if fd >= 0 {
            POSIX.close(fd)
            fd = -1
        }
        POSIX.unlink(path)
    }
}
