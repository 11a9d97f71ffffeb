public import FirehoseSink
import FirehoseWire
public import Prometheus
import Synchronization

/// The server's metrics, served as Prometheus text at `GET /_local/metrics`.
///
/// Every instance owns its own `PrometheusCollectorRegistry` (the global `MetricsSystem` is never
/// bootstrapped), so several APIs can live in one process — tests do that — without sharing counters.
///
/// | name | type | labels |
/// |---|---|---|
/// | `firehose_local_requests_total` | counter | `operation`, `code` (`OK` for success, else the AWS error code) |
/// | `firehose_local_request_duration_seconds` | histogram | `operation` |
/// | `firehose_local_records_received_total` | counter | `stream` |
/// | `firehose_local_bytes_received_total` | counter | `stream` |
/// | `firehose_local_buffer_records`, `firehose_local_buffer_bytes` | gauge | `stream` (read at scrape time) |
/// | `firehose_local_flushes_total` | counter | `stream`, `reason` (size, interval, flush, shutdown, recovery) |
/// | `firehose_local_delivery_latency_seconds` | histogram | `stream` (first record's arrival → object on disk) |
/// | `firehose_local_objects_written_total` | counter | `stream` |
/// | `firehose_local_error_records_total` | counter | `stream`, `type` (the error output type, e.g. `metadata-extraction-failed`) |
/// | `firehose_local_delivery_failures_total` | counter | `stream` (failed delivery attempts; each retry counts) |
/// | `firehose_local_delivery_failing` | gauge | `stream` (1 while the latest attempt failed and records stay staged) |
/// | `firehose_local_endpoint_requests_total` | counter | `stream`, `outcome` (`accepted`, or `failed` for each failed attempt) |
/// | `firehose_local_endpoint_records_total` | counter | `stream`, `outcome` (`delivered`, or `failed`: sent to `http-endpoint-failed`) |
/// | `firehose_local_faults_injected_total` | counter | `rule`, `stream` (empty for requests that name none) |
/// | `firehose_local_throttled_records_total` | counter | `stream` (records refused for being over the stream's quota) |
///
/// Label values are bounded: operations are the X-Amz-Target operations (anything else is `unknown`),
/// codes the AWS error codes the server itself produces or its fault rules name, streams the existing
/// ones, rules those defined since the start (`/_local` answers only this machine).
public final class FirehoseMetrics: Sendable {
    /// `code` label of a request that succeeded. AWS error codes never take this value.
    public static let successCode = "OK"
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static let requestDurationBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    /// Up to the longest buffering interval AWS allows (900 s), and beyond for recovered buffers.
    static let deliveryLatencyBuckets: [Double] = [
        0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 900, 3600,
    ]

    /// The series of one operation (nil: an unknown X-Amz-Target), made on first use so a scrape shows
    /// only what was seen, then found without building or hashing label strings.
    private struct OperationSeries {
        var succeeded: Counter?
        var failed: [String: Counter] = [:]
        var duration: ValueHistogram
    }

    /// The per-stream series, made once so the request path only touches atomics.
    private struct StreamSeries: Sendable {
        var recordsReceived: Counter
        var bytesReceived: Counter
        var objectsWritten: Counter
        var deliveryFailures: Counter
        var latency: ValueHistogram
    }

    private struct StreamGauges {
        var records: Gauge
        var bytes: Gauge
        var failing: Gauge
    }

    private struct State {
        var operations: [FirehoseOperation?: OperationSeries] = [:]
        var streams: [String: StreamSeries] = [:]
        var flushes: [String: [DeliveredObject.Reason: Counter]] = [:]
        /// The counters `counter(_:help:labels:)` made, by name and label values.
        var labelledCounters: [String: Counter] = [:]
        /// Gauges of the streams seen at the last scrape; a deleted stream's gauges are dropped.
        var bufferGauges: [String: StreamGauges] = [:]
    }

    public let registry: PrometheusCollectorRegistry
    private let state = Mutex(State())

    public init() {
        registry = PrometheusCollectorRegistry()
    }

    private static func descriptor(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "firehose_local", metricName: name, unitName: unit, helpText: help)
    }

    /// One Firehose API request answered: `operation` is the X-Amz-Target operation (nil: "unknown"),
    /// `errorCode` nil for success.
    func requestFinished(operation: FirehoseOperation?, errorCode: String?, durationSeconds: Double) {
        let (counter, histogram) = state.withLock { state -> (Counter, ValueHistogram) in
            if let series = state.operations[operation] {
                let existing: Counter?
                if let errorCode { existing = series.failed[errorCode] } else { existing = series.succeeded }
                if let existing { return (existing, series.duration) }
            }
            // The first request of this operation, or of this outcome.
            var series = state.operations[operation] ?? OperationSeries(duration: makeDurationHistogram(operation))
            let counter = makeRequestCounter(operation, code: errorCode ?? Self.successCode)
            if let errorCode { series.failed[errorCode] = counter } else { series.succeeded = counter }
            state.operations[operation] = series
            return (counter, series.duration)
        }
        counter.increment()
        histogram.record(max(0, durationSeconds))
    }

    /// The other services the port serves, each counted in `firehose_local_<name>_requests_total`.
    enum Service: String {
        case s3
        case cognitoIdentity = "cognito_identity"
        case iam
        case sts
        case kinesis

        var title: String {
            switch self {
            case .s3: "S3"
            case .cognitoIdentity: "Cognito Identity"
            case .iam: "IAM"
            case .sts: "STS"
            case .kinesis: "Kinesis Data Streams"
            }
        }
    }

    /// One request of another service answered, by operation and error code (OK for success).
    func requestFinished(_ service: Service, operation: String, code: String) {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "\(service.rawValue)_requests", unit: "total",
                help: "\(service.title) API requests answered, by operation and error code (OK for success)."),
            labels: [("operation", operation), ("code", code)]
        ).increment()
    }

    private static func label(_ operation: FirehoseOperation?) -> String { operation?.rawValue ?? "unknown" }

    private func makeDurationHistogram(_ operation: FirehoseOperation?) -> ValueHistogram {
        registry.makeValueHistogram(
            descriptor: Self.descriptor(
                "request_duration", unit: "seconds",
                help: "Time from a Firehose API request's arrival (body read) to its answer."),
            labels: [("operation", Self.label(operation))], buckets: Self.requestDurationBuckets)
    }

    private func makeRequestCounter(_ operation: FirehoseOperation?, code: String) -> Counter {
        registry.makeCounter(
            descriptor: Self.descriptor(
                "requests", unit: "total",
                help: "Firehose API requests answered, by operation and error code (OK for success)."),
            labels: [("operation", Self.label(operation)), ("code", code)])
    }

    func recordsReceived(stream: String, records: Int, bytes: Int) {
        let series = self.series(stream)
        series.recordsReceived.increment(by: Int64(records))
        series.bytesReceived.increment(by: Int64(bytes))
    }

    /// `latencySeconds`: from the arrival of the object's first record to the object being on disk.
    func objectDelivered(_ object: DeliveredObject, latencySeconds: Double) {
        // The source-record backup delivers the stream's records a second time: counted apart.
        guard !object.isSourceBackup else {
            backupRecords(stream: object.stream).increment(by: Int64(object.records))
            return
        }
        let series = self.series(object.stream)
        let flushes = state.withLock { state -> Counter in
            if let counter = state.flushes[object.stream]?[object.reason] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.descriptor(
                    "flushes", unit: "total",
                    help:
                        "Buffers delivered as objects, by reason: size, interval, flush (/_local/flush), shutdown, recovery."
                ),
                labels: [("stream", object.stream), ("reason", object.reason.rawValue)])
            state.flushes[object.stream, default: [:]][object.reason] = counter
            return counter
        }
        flushes.increment()
        if let type = object.errorOutputType {
            errorRecords(stream: object.stream, type: type).increment(by: Int64(object.records))
        }
        series.objectsWritten.increment()
        series.latency.record(max(0, latencySeconds))
    }

    /// A counter of `firehose_local_<name>_total` with these label values, made on first use. For the
    /// counters off the request path (deliveries, faults, throttling), where a lookup by text is cheap.
    private func counter(_ name: String, help: String, labels: [(String, String)]) -> Counter {
        let key = ([name] + labels.map(\.1)).joined(separator: "\u{0}")
        return state.withLock { state in
            if let counter = state.labelledCounters[key] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.descriptor(name, unit: "total", help: help), labels: labels)
            state.labelledCounters[key] = counter
            return counter
        }
    }

    private func backupRecords(stream: String) -> Counter {
        counter(
            "backup_records",
            help: "Records delivered to the source-record backup (S3BackupMode Enabled), as received.",
            labels: [("stream", stream)])
    }

    private func errorRecords(stream: String, type: String) -> Counter {
        counter(
            "error_records", help: "Records delivered to the error output (ErrorOutputPrefix), by error output type.",
            labels: [("stream", stream), ("type", type)])
    }

    /// A fault rule fired on a request for `stream` ("" for a request that names none).
    func faultInjected(rule: String, stream: String) {
        counter(
            "faults_injected",
            help: "Requests a fault rule fired on (latency, an error, failed records, a reset or a hang).",
            labels: [("rule", rule), ("stream", stream)]
        ).increment()
    }

    /// Records of `stream` refused for being over its throughput quota.
    func recordsThrottled(stream: String, records: Int) {
        counter(
            "throttled_records", help: "Records refused because the stream was over its throughput quota (Quotas).",
            labels: [("stream", stream)]
        ).increment(by: Int64(records))
    }

    func deliveryFailed(stream: String) {
        series(stream).deliveryFailures.increment()
    }

    /// A request to `stream`'s HTTP endpoint destination accepted, failed or given up.
    func endpoint(_ event: HTTPEndpointEvent, stream: String) {
        switch event {
        case .accepted(let records):
            endpointCounter(stream: stream, metric: "requests", outcome: "accepted").increment()
            endpointCounter(stream: stream, metric: "records", outcome: "delivered").increment(by: Int64(records))
        case .attemptFailed:
            endpointCounter(stream: stream, metric: "requests", outcome: "failed").increment()
            deliveryFailed(stream: stream)
        case .gaveUp(let records):
            endpointCounter(stream: stream, metric: "records", outcome: "failed").increment(by: Int64(records))
        }
    }

    private func endpointCounter(stream: String, metric: String, outcome: String) -> Counter {
        let help =
            metric == "requests"
            ? "Requests to the stream's HTTP endpoint destination: accepted, or failed (each failed attempt counts)."
            : "Records the HTTP endpoint destination accepted (delivered), or that no attempt got accepted (failed, sent to the http-endpoint-failed error output)."
        return counter("endpoint_\(metric)", help: help, labels: [("stream", stream), ("outcome", outcome)])
    }

    /// Objects `stream` delivered before these metrics observed its deliveries.
    func objectsDeliveredEarlier(_ objects: Int, stream: String) {
        guard objects > 0 else { return }
        series(stream).objectsWritten.increment(by: Int64(objects))
    }

    private func series(_ stream: String) -> StreamSeries {
        state.withLock { state in
            if let series = state.streams[stream] { return series }
            let labels = [("stream", stream)]
            let series = StreamSeries(
                recordsReceived: registry.makeCounter(
                    descriptor: Self.descriptor(
                        "records_received", unit: "total", help: "Records accepted by PutRecord and PutRecordBatch."),
                    labels: labels),
                bytesReceived: registry.makeCounter(
                    descriptor: Self.descriptor(
                        "bytes_received", unit: "total", help: "Record bytes accepted (decoded, before compression)."),
                    labels: labels),
                objectsWritten: registry.makeCounter(
                    descriptor: Self.descriptor(
                        "objects_written", unit: "total",
                        help:
                            "Objects written into the data directory since the server started (including recovered ones)."
                    ),
                    labels: labels),
                deliveryFailures: registry.makeCounter(
                    descriptor: Self.descriptor(
                        "delivery_failures", unit: "total",
                        help: "Failed delivery attempts; the buffer stays staged and is retried (each retry counts)."),
                    labels: labels),
                latency: registry.makeValueHistogram(
                    descriptor: Self.descriptor(
                        "delivery_latency", unit: "seconds",
                        help: "Time from the arrival of an object's first record to the object being on disk."),
                    labels: labels, buckets: Self.deliveryLatencyBuckets))
            state.streams[stream] = series
            return series
        }
    }

    /// Prometheus text exposition of every metric. `streams` (the sink's current statuses) sets the
    /// buffer gauges and makes every stream's counters appear, at zero when it saw no traffic yet.
    public func render(streams: [FirehoseSink.StreamStatus]) -> [UInt8] {
        for status in streams {
            let name = status.settings.name
            _ = series(name)
            let gauges = state.withLock { state -> StreamGauges in
                if let gauges = state.bufferGauges[name] { return gauges }
                let labels = [("stream", name)]
                let gauges = StreamGauges(
                    records: registry.makeGauge(
                        descriptor: Self.descriptor(
                            "buffer_records", unit: "",
                            help: "Records waiting in the stream's buffer, not yet delivered."),
                        labels: labels),
                    bytes: registry.makeGauge(
                        descriptor: Self.descriptor(
                            "buffer_bytes", unit: "",
                            help: "Bytes (before compression) waiting in the stream's buffer, not yet delivered."),
                        labels: labels),
                    failing: registry.makeGauge(
                        descriptor: Self.descriptor(
                            "delivery_failing", unit: "",
                            help:
                                "1 while the stream's latest delivery attempt failed: records stay staged until one succeeds."
                        ),
                        labels: labels)
                )
                state.bufferGauges[name] = gauges
                return gauges
            }
            gauges.records.set(Double(status.bufferedRecords))
            gauges.bytes.set(Double(status.bufferedBytes))
            gauges.failing.set(status.counters.deliveryFailing ? 1.0 : 0.0)
        }
        let current = Set(streams.map(\.settings.name))
        let gone = state.withLock { state -> [StreamGauges] in
            let names = state.bufferGauges.keys.filter { !current.contains($0) }
            return names.compactMap { state.bufferGauges.removeValue(forKey: $0) }
        }
        for gauges in gone {
            registry.unregisterGauge(gauges.records)
            registry.unregisterGauge(gauges.bytes)
            registry.unregisterGauge(gauges.failing)
        }
        return Self.sorted(registry.emitToBuffer())
    }

    /// The registry emits families in hash order; sort them by name, and each family's samples by
    /// label set (keeping a histogram's buckets, sum and count in their order), so a scrape reads
    /// the same way every time.
    static func sorted(_ exposition: [UInt8]) -> [UInt8] {
        var families: [(name: String, lines: [Substring])] = []
        let text = String(decoding: exposition, as: UTF8.self)
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# ") {
                let name = line.split(separator: " ", maxSplits: 3).dropFirst(2).first.map(String.init) ?? ""
                if families.last?.name != name { families.append((name, [])) }
            } else if families.isEmpty {
                families.append(("", []))
            }
            families[families.count - 1].lines.append(line)
        }
        var output = ""
        output.reserveCapacity(exposition.count)
        for family in families.sorted(by: { $0.name < $1.name }) {
            let comments = family.lines.filter { $0.hasPrefix("#") }
            let samples = family.lines.enumerated().filter { !$0.element.hasPrefix("#") }
                .map { (key: seriesKey($0.element), index: $0.offset, line: $0.element) }
                .sorted { ($0.key, $0.index) < ($1.key, $1.index) }
            for line in comments + samples.map(\.line) {
                output += line
                output += "\n"
            }
        }
        return Array(output.utf8)
    }

    /// A sample's label set without `le`: `stream="a",reason="flush"` of `x_total{stream="a",...} 1`.
    private static func seriesKey(_ line: Substring) -> String {
        guard let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") else { return "" }
        let labels = line[line.index(after: open)..<close]
        if labels.hasPrefix("le=\"") { return "" }
        guard let le = labels.firstRange(of: ",le=\"") else { return String(labels) }
        return String(labels[..<le.lowerBound])
    }
}
