package import HTTPTransports
package import Logging

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The destination stage: where a stream's buffers go. Every destination gets the same buffers,
/// journals, publishing order and retries; what differs between them is here, so the rest of the
/// sink never asks which destination a stream has.
///
/// - `BucketDestination`, every S3 stream's: each buffer becomes an object of the stage's bucket,
///   placed by the sink's `ObjectDestination` — the bucket's folder (`DirectoryBucket`) or the
///   S3-compatible store the bucket is mapped to (`S3StoreDestination`). Folder or store is a
///   property of the bucket, not of the stream: a stream's backup may go to a store while its
///   records go to a folder.
/// - `HTTPEndpointDestination`: each buffer's records are sent to an HTTP endpoint, and the records
///   no attempt got accepted go to the stream's S3 configuration.
///
/// The source-record backup is a second stage of the stream with a `BucketDestination` of its own
/// (`DeliveryStreamSettings.backupStage`).
package protocol StreamDestination: Sendable {
    /// Names the destination in the staging journal of a buffer whose records it consumes, so that
    /// a restart gives them back only to a stream that still delivers to a destination of this name.
    var name: String { get }

    /// Whether the stage's buffers hold records one by one for `consumer` (framed with their
    /// arrival, `SourceRecordFrame`) rather than the content of an object: no delimiter is appended
    /// to them, and a restart stages a crashed run's buffers again rather than deliver them as objects.
    var consumesRecords: Bool { get }

    /// Whether, when the stream has a backup stage, every record goes to it as received
    /// (`S3BackupMode: Enabled`), rather than only the records the destination could not take.
    var backsUpEveryRecord: Bool { get }

    /// Whether UpdateDestination first delivers what the stage holds under its old settings. A
    /// destination that may retry for long (an endpoint) delivers it in the background instead,
    /// under the settings in force at each attempt (`DestinationContext.current`), so that an
    /// update neither waits for it nor misses what waits to be retried.
    var deliversBeforeUpdate: Bool { get }

    /// What publishes the stage's buffers; nil: each buffer is an object of the stage's bucket. A
    /// consumer gets the stage's error-output buffers too (`Staged.partition.errorOutputType`: error
    /// records a processor made, one JSON line each, not framed): they belong in an error output
    /// (an HTTP endpoint's go to its S3 configuration), never to the receiver.
    func consumer(in context: DestinationContext) -> StagedBufferConsumer?
}

extension StreamDestination {
    package var consumesRecords: Bool { false }
    package var backsUpEveryRecord: Bool { true }
    package var deliversBeforeUpdate: Bool { true }
    package func consumer(in context: DestinationContext) -> StagedBufferConsumer? { nil }
}

/// Objects of the stage's bucket: an S3 destination (`ExtendedS3DestinationConfiguration`), the
/// source-record backup, and a destination's S3 configuration.
package struct BucketDestination: StreamDestination {
    package var name: String { "S3" }

    package init() {}
}

/// What the sink gives a destination to publish a stream's buffers with.
package struct DestinationContext: Sendable {
    /// The stream's second stage, the bucket of its S3 configuration (its backup), when it has
    /// one: where a destination puts the records it could not deliver, in an error output.
    var s3Stage: DeliveryStream?
    /// How HTTP requests are sent (tests plug in another).
    package var transport: any HTTPTransport
    package var clock: any Clock<Duration>
    package var now: @Sendable () -> Date
    /// With the stream's name in its metadata.
    package var logger: Logger
    /// Where requests run: retries stop when shutdown begins, and what is under way is abandoned
    /// when shutdown is cancelled.
    var outgoing: OutgoingWork
    /// How long an endpoint has to answer each attempt.
    package var responseTimeout: Duration
    /// The stream's destination in force now (it may have been updated since a buffer was staged);
    /// nil once the stream is deleted.
    package var current: @Sendable () -> (any StreamDestination)?
    /// Counts a request accepted, an attempt failed or a request given up, for `/_local/streams`,
    /// the metrics and the live view.
    package var onEndpointEvent: @Sendable (HTTPEndpointEvent) -> Void
}
