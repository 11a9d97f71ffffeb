#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
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
