public import FirehoseClient
import FirehoseWire
public import Foundation

extension Recorder {
    public typealias Durability = RecorderDurability
    public typealias Environment = RecorderEnvironment

    /// The knobs of `AWSFirehoseRecorder` and `AWSKinesisRecorder`, with limits that cannot produce
    /// a batch the service refuses.
    public struct Configuration: Sendable {
        /// Records older than this are dropped (on save and before each submit); nil keeps them forever.
        public var diskAgeLimit: Duration?
        /// Oldest records are evicted once the stored records (data and partition keys) exceed this
        /// many bytes. Default 5 MB, as AWS.
        public var diskByteLimit: Int
        /// A `thresholdCrossed` event fires when the stored bytes reach this; 0 turns it off.
        public var notificationByteThreshold: Int
        /// Most record bytes (data and partition keys) per request; never more than the service's
        /// limit (Firehose: 4 MiB; Kinesis: 10 MiB) whatever is set here. Default: Firehose's 4 MiB;
        /// for Kinesis 5 MiB (see `PutRecordsWire.defaultBatchBytes`).
        public var batchRecordsByteLimit: Int
        /// Most records per request; never more than the services' 500.
        public var batchRecordsCountLimit: Int
        /// A record that failed this many counted attempts (throttling, per-record failures, 5xx) is
        /// dropped and reported. Network and credentials failures are not counted.
        public var maxAttempts: Int
        /// How often one submit retries a batch after retryable failures before leaving the rest for
        /// the next submit (their attempts stay counted).
        public var maxRetriesPerSubmit: Int
        /// First retry delay; doubles each retry up to `retryMaxDelay`, with jitter.
        public var retryBaseDelay: Duration
        public var retryMaxDelay: Duration
        /// What a record whose `saveRecord` returned survives. Default `.appCrash`.
        public var durability: Durability
        /// Requests (PutRecordBatch, PutRecords) of a stream on the wire at once during a submit, after the first
        /// one has been delivered whole (one at a time before that and after any failure). 1 sends
        /// batches strictly one after the other, in the order records were saved.
        public var maxConcurrentRequests: Int

        public init(
            diskAgeLimit: Duration? = nil,
            diskByteLimit: Int = 5 * 1024 * 1024,
            notificationByteThreshold: Int = 0,
            batchRecordsByteLimit: Int = Wire.defaultBatchBytes,
            batchRecordsCountLimit: Int = Wire.maxBatchRecords,
            maxAttempts: Int = 10,
            maxRetriesPerSubmit: Int = 3,
            retryBaseDelay: Duration = .milliseconds(500),
            retryMaxDelay: Duration = .seconds(20),
            durability: Durability = .appCrash,
            maxConcurrentRequests: Int = 4
        ) {
            self.diskAgeLimit = diskAgeLimit
            self.diskByteLimit = diskByteLimit
            self.notificationByteThreshold = notificationByteThreshold
            self.batchRecordsByteLimit = batchRecordsByteLimit
            self.batchRecordsCountLimit = batchRecordsCountLimit
            self.maxAttempts = maxAttempts
            self.maxRetriesPerSubmit = maxRetriesPerSubmit
            self.retryBaseDelay = retryBaseDelay
            self.retryMaxDelay = retryMaxDelay
            self.durability = durability
            self.maxConcurrentRequests = maxConcurrentRequests
        }

        var effectiveConcurrency: Int { max(1, maxConcurrentRequests) }
        var effectiveBatchBytes: Int { max(1, min(batchRecordsByteLimit, Wire.maxBatchBytes)) }
        var effectiveBatchCount: Int { max(1, min(batchRecordsCountLimit, Wire.maxBatchRecords)) }
    }
}

/// What a record whose `saveRecord` returned survives. Either way the store is never corrupted
/// and never holds a record twice; the difference is what the last moments of saves survive.
public enum RecorderDurability: Sendable, Equatable {
    /// The app crashing, being killed or terminated by the OS: `saveRecord` returns once the
    /// record is written to the journal file, that is, in the OS's file cache. An OS crash or a
    /// power loss can lose the saves of about the last half minute (the OS's write-back delay),
    /// as with SQLite's WAL at `synchronous=NORMAL`, GRDB's default.
    case appCrash
    /// Also an OS crash or a power loss: `saveRecord` returns once the journal is synced to
    /// stable storage (`fdatasync`; `F_FULLFSYNC` on Apple platforms), and the store commits with
    /// `synchronous=FULL`. Concurrent saves share one sync, but a single saver waits a whole
    /// sync per record — milliseconds on most disks.
    case powerLoss
}

/// Time and randomness, injectable so tests neither sleep nor depend on chance.
public struct RecorderEnvironment: Sendable {
    public var now: @Sendable () -> Date
    /// Waits between retries (`sleep(for:)`); throwing (cancellation) ends the submit.
    public var clock: any Clock<Duration>
    /// A number in 0..<1 for backoff jitter.
    public var random: @Sendable () -> Double

    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        clock: any Clock<Duration> = ContinuousClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.now = now
        self.clock = clock
        self.random = random
    }

    public static var live: RecorderEnvironment { RecorderEnvironment() }
}

/// Why records left the store without being delivered.
public enum DropReason: Sendable, Equatable, CustomStringConvertible {
    /// Evicted, oldest first, to keep the store under `diskByteLimit`.
    case diskByteLimit
    /// Older than `diskAgeLimit`.
    case ageLimit
    /// Failed `maxAttempts` counted attempts; the last failure's code.
    case maxAttemptsExceeded(lastErrorCode: String)
    /// The service refused the record itself (found by splitting the rejected batch).
    case rejected(code: String, message: String)

    public var description: String {
        switch self {
        case .diskByteLimit: return "evicted to stay under diskByteLimit"
        case .ageLimit: return "older than diskAgeLimit"
        case .maxAttemptsExceeded(let code): return "failed maxAttempts times (last: \(code))"
        case .rejected(let code, let message): return "rejected by the service: \(code): \(message)"
        }
    }
}

/// Records of one stream dropped for one reason.
public struct DroppedRecords: Sendable, Equatable {
    public var streamName: String
    public var reason: DropReason
    /// The ids `saveRecord` returned for them.
    public var recordIDs: [Int64]
    public var bytes: Int
    public var count: Int { recordIDs.count }
}

/// Why a submit left a stream's records in the store.
public struct StreamStop: Sendable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// `ResourceNotFoundException`: the stream does not exist (yet).
        case streamNotFound
        /// Access denied, bad signature or unknown key: fix the credentials or policy.
        case notAuthorized
        /// Retryable failures persisted for `maxRetriesPerSubmit` retries: try again later.
        case retryLater
        /// Another client error the recorder cannot fix by retrying or dropping.
        case refused
    }

    public var reason: Reason
    public var error: FirehoseClientError

    public var description: String { "\(reason): \(error)" }
}

/// What one `submitAllRecords()` did.
public struct SubmitSummary: Sendable {
    public enum Status: Sendable {
        /// Every record present when the submit began was delivered or dropped.
        case completed
        /// Some streams were stopped (see `stoppedStreams`); their records are kept.
        case streamsStopped
        /// The network or the credentials failed: nothing more was tried, records are kept and no
        /// attempt was counted. Submit again when online.
        case offline(FirehoseClientError)
        /// The calling task was cancelled; what was not yet sent is kept.
        case cancelled
        /// The record store failed (disk full, I/O error); what was not yet sent is kept if it can be.
        case storageFailed(RecorderError)
    }

    public var status: Status = .completed
    public var sentRecords = 0
    public var sentBytes = 0
    /// Requests made (PutRecordBatch, PutRecords).
    public var requests = 0
    /// Record attempts that failed retryably and were counted.
    public var failedAttempts = 0
    /// Requests sent again at once, with fresh credentials, after the service said the credentials
    /// had expired (`ExpiredTokenException`); not counted as failed attempts.
    public var credentialRefreshes = 0
    public var dropped: [DroppedRecords] = []
    public var stoppedStreams: [String: StreamStop] = [:]
    /// Records in the store when the submit finished (including ones saved during it).
    public var remainingRecords = 0

    public var droppedCount: Int { dropped.reduce(0) { $0 + $1.count } }

    /// Adds what one batch's delivery did (the status and remaining count are the submit's own).
    mutating func merge(_ other: SubmitSummary) {
        sentRecords += other.sentRecords
        sentBytes += other.sentBytes
        requests += other.requests
        failedAttempts += other.failedAttempts
        credentialRefreshes += other.credentialRefreshes
        dropped += other.dropped
    }

    public var isOffline: Bool {
        if case .offline = status { return true }
        return false
    }

    public init() {}
}

/// Something the app may want to know; read them from `Recorder.events`.
public enum RecorderEvent: Sendable {
    /// The stored bytes reached `notificationByteThreshold` (once per crossing: the store must fall
    /// below it again before the next one).
    case thresholdCrossed(bytesUsed: Int, threshold: Int)
    case recordsDropped(DroppedRecords)
    case submitFinished(SubmitSummary)
    /// The database could not be read; it was moved to `movedTo` and a new one started.
    case databaseRecovered(movedTo: URL, reason: String)
}

/// Why `saveRecord` refused a record, or the store failed.
public struct RecorderError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case recordTooLarge
        case invalidStreamName
        /// A Kinesis partition key that is empty or over 256 characters.
        case invalidPartitionKey
        case storage
    }

    public var kind: Kind
    public var message: String

    public var description: String { message }

    static func recordTooLarge(_ size: Int, limit: Int, why: String) -> RecorderError {
        RecorderError(
            kind: .recordTooLarge,
            message: "Record of \(size) bytes refused: \(why) is \(limit) bytes.")
    }
}
