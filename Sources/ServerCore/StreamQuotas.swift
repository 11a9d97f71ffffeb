import Synchronization

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// A throughput quota: a Firehose Direct PUT stream's (PutRecord and PutRecordBatch together, per
/// stream), or a Kinesis shard's writes (`KinesisAPI`, per shard).
package struct StreamQuota: Sendable, Equatable {
    package var recordsPerSecond: Int
    package var requestsPerSecond: Int
    package var bytesPerSecond: Int

    package init(recordsPerSecond: Int, requestsPerSecond: Int, bytesPerSecond: Int) {
        self.recordsPerSecond = recordsPerSecond
        self.requestsPerSecond = requestsPerSecond
        self.bytesPerSecond = bytesPerSecond
    }

    /// Regions where a stream takes five times the bytes (limits.html, "Amazon Data Firehose Quota").
    package static let largeQuotaRegions: Set<String> = ["us-east-1", "us-west-2", "eu-west-1"]

    /// AWS's default in `region`: 500,000 records/s, 2,000 requests/s and 5 MiB/s in US East
    /// (N. Virginia), US West (Oregon) and Europe (Ireland); 100,000 records/s, 1,000 requests/s and
    /// 1 MiB/s elsewhere.
    package static func awsDefault(region: String) -> StreamQuota {
        largeQuotaRegions.contains(region)
            ? StreamQuota(recordsPerSecond: 500_000, requestsPerSecond: 2_000, bytesPerSecond: 5 << 20)
            : StreamQuota(recordsPerSecond: 100_000, requestsPerSecond: 1_000, bytesPerSecond: 1 << 20)
    }
}

/// One stream's quota as token buckets: each holds at most one second of its rate (AWS does not say
/// how much burst it tolerates; a second is what its per-second quotas allow) and refills
/// continuously. A pure state machine: time comes in as an argument.
package struct QuotaBuckets: Sendable, Equatable {
    package let quota: StreamQuota
    private var records: Double
    private var requests: Double
    private var bytes: Double
    private var refilled: Date

    package init(quota: StreamQuota, now: Date) {
        self.quota = quota
        records = Double(quota.recordsPerSecond)
        requests = Double(quota.requestsPerSecond)
        bytes = Double(quota.bytesPerSecond)
        refilled = now
    }

    /// Admits a request carrying records of these sizes, in order: returns how many of them fit (a
    /// prefix, as AWS fails a throttled batch's later records), taking their tokens and the
    /// request's. 0 when the request itself is over the quota (then nothing is taken).
    package mutating func admit(sizes: [Int], now: Date) -> Int {
        refill(now: now)
        guard requests >= 1 else { return 0 }
        requests -= 1
        var admitted = 0
        for size in sizes {
            guard records >= 1, bytes >= Double(size) else { break }
            records -= 1
            bytes -= Double(size)
            admitted += 1
        }
        return admitted
    }

    private mutating func refill(now: Date) {
        let elapsed = max(0, now.timeIntervalSince(refilled))
        refilled = max(refilled, now)
        records = min(Double(quota.recordsPerSecond), records + elapsed * Double(quota.recordsPerSecond))
        requests = min(Double(quota.requestsPerSecond), requests + elapsed * Double(quota.requestsPerSecond))
        bytes = min(Double(quota.bytesPerSecond), bytes + elapsed * Double(quota.bytesPerSecond))
    }
}

/// The quota of every stream (or shard), shared by the requests: buckets per name behind a lock, and
/// how many records each had throttled.
package final class StreamQuotas: Sendable {
    package let quota: StreamQuota
    private struct State {
        var buckets: [String: QuotaBuckets] = [:]
        var throttledRecords: [String: Int] = [:]
    }
    private let state = Mutex(State())

    package init(quota: StreamQuota) { self.quota = quota }

    /// Admits a request for `stream` (one that exists: buckets are kept by name); returns how many
    /// of the records fit, as `QuotaBuckets.admit`.
    package func admit(stream: String, sizes: [Int], now: Date) -> Int {
        state.withLock { state in
            state.buckets[stream, default: QuotaBuckets(quota: quota, now: now)].admit(sizes: sizes, now: now)
        }
    }

    /// Counts records refused for being over the quota, once their answer is certain.
    package func noteThrottled(stream: String, records: Int) {
        state.withLock { $0.throttledRecords[stream, default: 0] += records }
    }

    package func throttledRecords(stream: String) -> Int {
        state.withLock { $0.throttledRecords[stream] ?? 0 }
    }
}

/// What the configuration file's `Quotas` asks for: AWS's defaults for the server's region, or
/// rates of one's own (AWS's default for any left out).
package struct QuotaSetting: Sendable, Equatable {
    package var recordsPerSecond: Int?
    package var requestsPerSecond: Int?
    package var bytesPerSecond: Int?

    package init(recordsPerSecond: Int? = nil, requestsPerSecond: Int? = nil, bytesPerSecond: Int? = nil) {
        self.recordsPerSecond = recordsPerSecond
        self.requestsPerSecond = requestsPerSecond
        self.bytesPerSecond = bytesPerSecond
    }

    package func quota(region: String) -> StreamQuota {
        let aws = StreamQuota.awsDefault(region: region)
        return StreamQuota(
            recordsPerSecond: recordsPerSecond ?? aws.recordsPerSecond,
            requestsPerSecond: requestsPerSecond ?? aws.requestsPerSecond,
            bytesPerSecond: bytesPerSecond ?? aws.bytesPerSecond)
    }
}
