import Histogram
import LoadSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The figures of one run. MB are 10^6 bytes of record payload (before base64); latency is from the
/// first byte written to the last byte of the response read.
struct LoadReport: Encodable {
    struct Latency: Encodable {
        var p50Ms: Double
        var p99Ms: Double
        var p999Ms: Double
        var maxMs: Double
        var meanMs: Double
    }

    struct Server: Encodable {
        var pid: Int32
        /// CPU seconds the server used during the measured phase.
        var cpuSeconds: Double
        /// `cpuSeconds` over the measured wall time (2.0 = both cores of this machine).
        var cores: Double
        var peakRSSMiB: Double
        var rssMiB: Double
    }

    var label: String
    var endpoint: String
    var operation: String
    var recordProfile: String
    var connections: Int
    var recordsPerRequest: Int
    var streams: Int
    var seed: UInt64
    var seconds: Double
    /// When the measured phase ended, in seconds since 1970: a backlog the server delivers later (records
    /// encoded at delivery, a slow function) is timed from here.
    var windowEndedAt: Double
    var requests: Int
    var successfulRequests: Int
    var records: Int
    var payloadBytes: Int
    var requestsPerSecond: Double
    var recordsPerSecond: Double
    var payloadMBPerSecond: Double
    var latency: Latency
    var errors: Int
    var errorsByStatus: [String: Int]
    var connectionErrors: Int
    /// New connections opened during the measured phase (servers that close after each response).
    var reconnects: Int
    var generatorCPUSeconds: Double
    var server: Server?

    init(
        label: String, endpoint: String, operation: String, recordProfile: String, connections: Int,
        recordsPerRequest: Int, streams: Int, seed: UInt64, seconds: Double, windowEndedAt: Double,
        connectionsStats: [ConnectionStats],
        generatorCPUSeconds: Double, serverPID: Int32?, serverBefore: ProcessStats?, serverAfter: ProcessStats?
    ) {
        var histogram = Histogram<UInt64>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
        var byStatus: [String: Int] = [:]
        var requests = 0, records = 0, payload = 0, connectionErrors = 0, reconnects = 0
        for stats in connectionsStats {
            histogram.add(stats.latencyMicros)
            requests += stats.requests
            records += stats.records
            payload += stats.payloadBytes
            connectionErrors += stats.connectionErrors
            reconnects += stats.reconnects
            for (status, count) in stats.errorsByStatus { byStatus[String(status), default: 0] += count }
        }
        let errors = byStatus.values.reduce(0, +)
        self.label = label
        self.endpoint = endpoint
        self.operation = operation
        self.recordProfile = recordProfile
        self.connections = connections
        self.recordsPerRequest = recordsPerRequest
        self.streams = streams
        self.seed = seed
        self.seconds = seconds
        self.windowEndedAt = windowEndedAt
        self.requests = requests
        self.successfulRequests = requests - errors
        self.records = records
        self.payloadBytes = payload
        self.requestsPerSecond = Double(requests - errors) / seconds
        self.recordsPerSecond = Double(records) / seconds
        self.payloadMBPerSecond = Double(payload) / seconds / 1e6
        func ms(_ micros: UInt64) -> Double { Double(micros) / 1_000 }
        self.latency = Latency(
            p50Ms: ms(histogram.valueAtPercentile(50)), p99Ms: ms(histogram.valueAtPercentile(99)),
            p999Ms: ms(histogram.valueAtPercentile(99.9)), maxMs: ms(histogram.max),
            meanMs: histogram.totalCount == 0 ? 0 : histogram.mean / 1_000)
        self.errors = errors
        self.errorsByStatus = byStatus
        self.connectionErrors = connectionErrors
        self.reconnects = reconnects
        self.generatorCPUSeconds = generatorCPUSeconds
        if let serverPID, let before = serverBefore, let after = serverAfter {
            server = Server(
                pid: serverPID, cpuSeconds: after.cpuSeconds - before.cpuSeconds,
                cores: (after.cpuSeconds - before.cpuSeconds) / seconds,
                peakRSSMiB: Double(after.peakResidentBytes) / 1_048_576, rssMiB: Double(after.residentBytes) / 1_048_576
            )
        }
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    func table() -> String {
        var rows: [(String, String)] = [
            ("endpoint", endpoint),
            (
                "load",
                "\(operation), \(recordsPerRequest) \(recordProfile) record(s) per request, \(connections) connections, "
                    + "\(streams) stream(s)"
            ),
            ("measured", fixed(seconds, 2) + " s"),
            ("requests/s", fixed(requestsPerSecond, 1)),
            ("records/s", fixed(recordsPerSecond, 0)),
            ("payload MB/s", fixed(payloadMBPerSecond, 2)),
            (
                "latency ms",
                "p50 \(fixed(latency.p50Ms, 2))  p99 \(fixed(latency.p99Ms, 2))  p99.9 \(fixed(latency.p999Ms, 2))  "
                    + "max \(fixed(latency.maxMs, 2))"
            ),
            (
                "errors",
                "\(errors) HTTP"
                    + (errorsByStatus.isEmpty
                        ? ""
                        : " ("
                            + errorsByStatus.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                            .joined(separator: ", ") + ")")
                    + ", \(connectionErrors) connection"
            ),
            ("reconnects", String(reconnects)),
            ("generator CPU s", fixed(generatorCPUSeconds, 2)),
        ]
        if let server {
            rows.append(("server CPU s", "\(fixed(server.cpuSeconds, 2)) (\(fixed(server.cores, 2)) cores)"))
            rows.append(("server RSS MiB", "peak \(fixed(server.peakRSSMiB, 1)), now \(fixed(server.rssMiB, 1))"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1 }
            .joined(separator: "\n")
    }
}
