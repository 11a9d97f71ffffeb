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
import FirehoseKeyLayout
import FirehoseWire
import Logging

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
}

/// A delivery stream: one open staging buffer at a time, delivered as one object when its size or
/// interval hint is reached. An actor, so records of one stream keep their order and one buffer
/// never sees two writers.
actor DeliveryStream {
    let settings: DeliveryStreamSettings
    private let stagingDirectory: String
    private let dataDirectory: String
    private let clock: any SinkClock
    private let logger: Logger
    private let onDelivery: @Sendable (DeliveredObject) -> Void
    private var buffer: StagingBuffer?
    private var intervalTimer: Task<Void, Never>?
    private var random = SystemRandomNumberGenerator()

    init(
        settings: DeliveryStreamSettings, dataDirectory: String, stagingDirectory: String, clock: any SinkClock,
        logger: Logger, onDelivery: @escaping @Sendable (DeliveredObject) -> Void
    ) {
        self.settings = settings
        self.dataDirectory = dataDirectory
        self.stagingDirectory = stagingDirectory
        self.clock = clock
        var logger = logger
        logger[metadataKey: "stream"] = .string(settings.name)
        self.logger = logger
        self.onDelivery = onDelivery
    }

    /// Buffers the records (in order) and delivers every buffer that fills. Throws only when the
    /// records could not be staged; a failed delivery of an already staged buffer is logged and
    /// retried on the next append, flush or interval.
    func append(_ records: RecordBatch, arrival: Date) throws(FileSystemError) -> [DeliveredObject] {
        for index in 0..<records.count {
            let buffer = try openBuffer(arrival: arrival)
            buffer.append(records[index], newline: settings.appendsNewline)
            if buffer.uncompressedBytes >= settings.bufferSizeBytes {
                retire(buffer, reason: .size)
            }
        }
        try buffer?.writePending()
        if settings.bufferIntervalSeconds == 0, let buffer {
            retire(buffer, reason: .interval)
        }
        return publishLoggingFailure()
    }

    /// Delivers the open buffer, and any earlier one whose delivery failed, now.
    func flush(reason: DeliveredObject.Reason = .flush) throws(FileSystemError) -> [DeliveredObject] {
        if let buffer { retire(buffer, reason: reason) }
        return try publishRetired()
    }

    /// Drops the open buffer without delivering it.
    func discard() {
        intervalTimer?.cancel()
        intervalTimer = nil
        buffer?.discard()
        buffer = nil
    }

    var bufferedBytes: Int { buffer?.uncompressedBytes ?? 0 }
    var bufferedRecords: Int { buffer?.recordCount ?? 0 }

    private func openBuffer(arrival: Date) throws(FileSystemError) -> StagingBuffer {
        if let buffer { return buffer }
        let buffer = try StagingBuffer(
            directory: stagingDirectory, firstArrival: arrival, compression: settings.compression,
            gzipLevel: settings.gzipLevel)
        self.buffer = buffer
        if settings.bufferIntervalSeconds > 0 {
            let deadline = arrival.addingTimeInterval(TimeInterval(settings.bufferIntervalSeconds))
            let id = buffer.id
            intervalTimer = Task { [clock] in
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return
                }
                await self.deliverOnInterval(bufferID: id)
            }
        }
        return buffer
    }

    private func deliverOnInterval(bufferID: UUID) {
        guard let buffer, buffer.id == bufferID else { return }
        retire(buffer, reason: .interval)
        _ = publishLoggingFailure()
    }

    /// Closes the open buffer to new records and queues it for publishing.
    private func retire(_ buffer: StagingBuffer, reason: DeliveredObject.Reason) {
        intervalTimer?.cancel()
        intervalTimer = nil
        self.buffer = nil
        retired.append((buffer, reason))
    }

    /// Buffers closed to new records, oldest first, not yet in the bucket.
    private var retired: [(buffer: StagingBuffer, reason: DeliveredObject.Reason)] = []

    private func publishLoggingFailure() -> [DeliveredObject] {
        var delivered: [DeliveredObject] = []
        do {
            try publishRetired(into: &delivered)
        } catch {
            logger.error(
                "Delivery failed; the buffer stays staged and is retried on the next put or flush",
                metadata: ["error": .string(error.description), "pending_objects": .stringConvertible(retired.count)])
        }
        return delivered
    }

    private func publishRetired() throws(FileSystemError) -> [DeliveredObject] {
        var delivered: [DeliveredObject] = []
        try publishRetired(into: &delivered)
        return delivered
    }

    /// Seals each retired buffer and renames it to its key, in order. A failure leaves that buffer
    /// (and those after it) queued, so nothing acknowledged is dropped.
    private func publishRetired(into delivered: inout [DeliveredObject]) throws(FileSystemError) {
        while let (buffer, reason) = retired.first {
            let key = settings.keyLayout.objectKey(
                versionId: settings.versionID, firstArrival: buffer.firstArrival, objectID: UUID(),
                randomSource: &random)
            guard ObjectKeyLayout.isSafeRelativePath(key) else {
                throw FileSystemError(operation: "deliver", path: key, errno: EINVAL)
            }
            let path = "\(dataDirectory)/\(settings.bucket)/\(key)"
            let parent = String(path[..<path.lastIndex(of: "/")!])
            try buffer.seal()
            try POSIX.makeDirectories(parent)
            try POSIX.rename(buffer.path, path)
            try POSIX.fsyncDirectory(parent)
            retired.removeFirst()
            let object = DeliveredObject(
                stream: settings.name, bucket: settings.bucket, key: key, path: path, records: buffer.recordCount,
                bytes: buffer.uncompressedBytes, storedBytes: buffer.storedBytes, reason: reason)
            logger.info(
                "Delivered object",
                metadata: [
                    "bucket": .string(object.bucket), "key": .string(key),
                    "records": .stringConvertible(object.records), "bytes": .stringConvertible(object.bytes),
                    "stored_bytes": .stringConvertible(object.storedBytes), "reason": .string(reason.rawValue),
                ])
            onDelivery(object)
            delivered.append(object)
        }
    }
}
