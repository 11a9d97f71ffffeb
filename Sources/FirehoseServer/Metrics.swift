import FirehoseSink

/// The server's metrics. (Placeholder for the Prometheus implementation: same API, records nothing.)
public final class FirehoseMetrics: Sendable {
    public init() {}

    /// One Firehose API request answered: `operation` is the X-Amz-Target operation (or "unknown"),
    /// `errorCode` nil for success.
    func requestFinished(operation: String, errorCode: String?, durationSeconds: Double) {}

    func recordsReceived(stream: String, records: Int, bytes: Int) {}

    /// `latencySeconds`: from the arrival of the object's first record to the object being on disk.
    func objectDelivered(_ object: DeliveredObject, latencySeconds: Double) {}

    /// Prometheus text exposition of every metric.
    public func render(streams: [FirehoseSink.StreamStatus]) -> [UInt8] { [] }
}
