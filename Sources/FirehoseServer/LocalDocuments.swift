import CivilTime
import FirehoseSink
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The documents `/_local` and the live view answer with, members in the order they are written.

/// `stream`, `bucket`, `key`, `records`, `bytes` and `storedBytes`: the members every listing of a
/// delivered object starts with (`/_local/flush`, `/_local/events`, the live view).
struct ObjectMembers: Encodable {
    var stream: String
    var bucket: String
    var key: String
    var records: Int
    var bytes: Int
    var storedBytes: Int

    init(_ object: DeliveredObject) {
        stream = object.stream
        bucket = object.bucket
        key = object.key
        records = object.records
        bytes = object.bytes
        storedBytes = object.storedBytes
    }
}

/// An object as `/_local/flush` lists it: an object of the error output names its error output
/// type, one of the source-record backup says so.
struct FlushedObject: Encodable {
    enum CodingKeys: CodingKey { case errorOutputType, backup }

    var members: ObjectMembers
    var errorOutputType: String?
    var backup: Bool?

    init(_ object: DeliveredObject) {
        members = ObjectMembers(object)
        errorOutputType = object.errorOutputType
        backup = object.isSourceBackup ? true : nil
    }

    func encode(to encoder: any Encoder) throws {
        try members.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(errorOutputType, forKey: .errorOutputType)
        try container.encodeIfPresent(backup, forKey: .backup)
    }
}

/// `/_local/flush`'s answer, and the delivered part of its 503.
struct FlushDocument: Encodable {
    var objects: [FlushedObject]

    init(_ objects: [DeliveredObject]) { self.objects = objects.map(FlushedObject.init) }
}

/// `/_local/flush`'s 503 members after the error's: what was delivered and, per stream, what was not.
struct UndeliveredDocument: Encodable {
    struct Failure: Encodable {
        var stream: String
        var error: String
        var stagedRecords: Int
    }

    var objects: [FlushedObject]
    var failures: [Failure]
}

/// `{"objects": N}`: `/_local/wait`'s answer, and the count its errors add.
struct ObjectCount: Encodable {
    var objects: Int
}

/// `{"status": "ok"}`.
struct HealthDocument: Encodable {
    var status = "ok"
}

/// `DELETE /_local/faults`'s answer.
struct RemovedFaults: Encodable {
    var removed: Int
}

/// `{"faults": [rule, ...]}`, in the order rules are tried: `/_local/faults`.
struct FaultsDocument<Listing: Encodable>: Encodable {
    var faults: [Listing]
}

/// `{"streams": [...], "quarantined": [...]}`: `/_local/streams`.
struct StreamsDocument: Encodable {
    var streams: [StreamState]
    /// Acknowledged records of streams that do not exist, kept until a stream of that name does.
    var quarantined: [Quarantined]

    struct Quarantined: Encodable {
        var stream: String
        var records: Int
        var bytes: Int
        var path: String
    }
}

/// One stream in `/_local/streams`.
struct StreamState: Encodable {
    struct Buffer: Encodable {
        var records: Int
        var bytes: Int
        var sizeLimitBytes: Int
        var intervalSeconds: Int
        var openPartitions: Int
        /// The oldest open buffers, each with when its interval closes it.
        var partitions: [Partition]
    }

    struct Partition: Encodable {
        var prefix: String
        var errorOutputType: Nullable<String>
        var records: Int
        var bytes: Int
        var firstArrival: String
        var closesAt: String
    }

    /// The source-record backup's objects, in its own bucket (not in `objectsWritten`).
    struct Backup: Encodable {
        var bucket: String
        var objectsWritten: Int
        var recordsDelivered: Int
    }

    /// Where the records go instead of a bucket; `bucket` is then its S3 configuration's.
    struct Endpoint: Encodable {
        var url: String
        var requestsAccepted: Int
        var recordsDelivered: Int
        var attemptsFailed: Int
        var recordsFailed: Int
    }

    struct LastDelivery: Encodable {
        var key: String
        var time: String
        var records: Int
        var bytes: Int
        var storedBytes: Int
        var reason: String
    }

    /// Whether something stays staged because delivery keeps failing, and why.
    struct Delivery: Encodable {
        struct LastError: Encodable {
            var message: String
            var time: String
        }

        var failing: Bool
        var failures: Int
        var lastError: Nullable<LastError>
    }

    var name: String
    var bucket: String
    var status: String
    var compression: String
    var buffer: Buffer
    var recordsReceived: Int
    var bytesReceived: Int
    var objectsWritten: Int
    var recordsDropped: Int
    var backup: Backup?
    var endpoint: Endpoint?
    /// Records delivered to the error output, by error output type.
    var errorRecords: [String: Int]
    /// Requests for this stream each fault rule fired on, by rule.
    var faults: [String: Int]
    var throttledRecords: Int
    var lastDelivery: Nullable<LastDelivery>
    var delivery: Delivery
    /// What the stream was created with that cannot work here (a function not mapped).
    var warnings: [String]
}

extension StreamState {
    /// - Parameters:
    ///   - listedPartitions: how many of the oldest open buffers are listed.
    ///   - faultsFired: how often each fault rule fired on the stream's requests, by rule.
    ///   - throttledRecords: the stream's records refused for being over its quota.
    init(
        _ status: FirehoseSink.StreamStatus, now: Date, listedPartitions: Int, faultsFired: [String: Int],
        throttledRecords: Int
    ) {
        let settings = status.settings
        let counters = status.counters
        name = settings.name
        bucket = settings.bucket
        self.status = status.record.isActive(at: now) ? "ACTIVE" : "CREATING"
        compression = settings.compression.rawValue
        buffer = Buffer(
            records: status.bufferedRecords, bytes: status.bufferedBytes, sizeLimitBytes: settings.bufferSizeBytes,
            intervalSeconds: settings.bufferIntervalSeconds, openPartitions: status.openPartitions,
            partitions: status.partitions.prefix(listedPartitions).map { partition in
                Partition(
                    prefix: partition.prefix, errorOutputType: Nullable(partition.errorOutputType),
                    records: partition.records, bytes: partition.bytes,
                    firstArrival: ISO8601Timestamp.format(partition.firstArrival),
                    closesAt: ISO8601Timestamp.format(
                        partition.firstArrival.addingTimeInterval(Double(settings.bufferIntervalSeconds))))
            })
        recordsReceived = counters.recordsReceived
        bytesReceived = counters.bytesReceived
        objectsWritten = counters.objectsWritten
        recordsDropped = counters.recordsDropped
        if settings.backsUpSourceRecords, let stage = settings.backupStage {
            backup = Backup(
                bucket: stage.bucket, objectsWritten: counters.backupObjectsWritten,
                recordsDelivered: counters.backupRecordsDelivered)
        }
        if let endpoint = settings.httpEndpoint {
            self.endpoint = Endpoint(
                url: endpoint.url.absoluteString, requestsAccepted: counters.endpoint.requestsAccepted,
                recordsDelivered: counters.endpoint.recordsDelivered, attemptsFailed: counters.endpoint.attemptsFailed,
                recordsFailed: counters.endpoint.recordsFailed)
        }
        errorRecords = counters.errorRecords
        faults = faultsFired
        self.throttledRecords = throttledRecords
        lastDelivery = Nullable(
            counters.lastDelivery.map { last in
                LastDelivery(
                    key: last.key, time: ISO8601Timestamp.format(counters.lastDeliveryTime ?? last.firstArrival),
                    records: last.records, bytes: last.bytes, storedBytes: last.storedBytes,
                    reason: last.reason.rawValue)
            })
        delivery = Delivery(
            failing: counters.deliveryFailing, failures: counters.deliveryFailures,
            lastError: Nullable(
                counters.lastDeliveryError.map {
                    Delivery.LastError(
                        message: $0, time: ISO8601Timestamp.format(counters.lastDeliveryErrorTime ?? now))
                }))
        warnings = settings.warnings
    }
}

/// `{"boot": B, "objects": [...], "missed": N}`: the live view's deliveries, each as `/_local/flush`
/// lists objects, with its number, time and kind.
struct LiveDeliveries: Encodable {
    var boot: String
    var objects: [LiveDelivery]
    var missed: UInt64
}

struct LiveDelivery: Encodable {
    enum CodingKeys: CodingKey { case sequence, time, reason, errorOutputType, backup }

    var sequence: UInt64
    var time: String
    var members: ObjectMembers
    var reason: String
    var errorOutputType: Nullable<String>
    var backup: Bool

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(time, forKey: .time)
        try members.encode(to: encoder)
        try container.encode(reason, forKey: .reason)
        try container.encode(errorOutputType, forKey: .errorOutputType)
        try container.encode(backup, forKey: .backup)
    }
}

/// A page of an object's records, as the live view shows them.
struct RecordsPage: Encodable {
    struct Record: Encodable {
        var index: Int
        var offset: Int
        var length: Int
        /// The record's (first) bytes as text, or as `base64` when they are not UTF-8.
        var text: String?
        var base64: Base64Blob?
        var truncated: Bool
    }

    var bucket: String
    var key: String
    var stream: Nullable<String>
    var storedBytes: Int
    var contentBytes: Int
    var split: String
    var total: Int
    /// False when the object holds more records than can be paged to: `total` is then a floor.
    var complete: Bool
    var start: Int
    var records: [Record]
    var next: Nullable<Int>
}
