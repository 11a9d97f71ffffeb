import ArgumentParser
import Histogram
import LoadSupport
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@main
struct FirehoseLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firehose-load",
        abstract:
            "Closed-loop load against a Firehose (or Kinesis) endpoint on this machine, with pre-signed requests.",
        discussion: """
            Every request is built and SigV4-signed before the timed phase (signatures stay valid for \
            5 minutes), then each connection sends one request at a time over a keep-alive \
            connection. Only loopback endpoints are accepted.
            """)

    @Option(help: "Endpoint URL; loopback only (127.0.0.0/8, localhost, [::1]).")
    var endpoint = "http://127.0.0.1:4573"

    @Option(help: "Keep-alive connections, each with one request in flight (1-256).")
    var connections = 16

    @Option(help: "Records per PutRecordBatch request (1-500).")
    var recordsPerBatch = 500

    @Option(help: "Record profile: app-events (JSON, 300-1,000 B) or small (100 B).")
    var recordProfile: RecordProfile = .appEvents

    @Option(help: "PutRecord or PutRecordBatch (Firehose), or PutRecords (Kinesis Data Streams; streams named alike).")
    var operation: LoadOperation = .putRecordBatch

    @Option(help: "Delivery streams to spread requests over (named <stream-prefix>-0 ...).")
    var streams = 1

    @Option(help: "Stream name prefix.")
    var streamPrefix = "bench"

    @Option(help: "Seconds of measured load (1-120).")
    var duration: Double = 10

    @Option(help: "Seconds of unmeasured load first (0-30).")
    var warmup: Double = 2

    @Option(help: "Seed of the record generator.")
    var seed: UInt64 = 1

    @Option(help: "Distinct pre-built requests to cycle through (at least one per stream).")
    var distinctRequests = 32

    @Option(help: "Event-loop threads of the generator.")
    var threads = 1

    @Option(help: "Process whose CPU time and peak RSS to report (read from /proc).")
    var serverPid: Int32?

    @Option(help: "Free-form label copied into the report.")
    var label = ""

    @Flag(help: "Print the report as JSON instead of a table.")
    var json = false

    @Option(help: "Print this many records of the profile (one per line) and exit.")
    var sampleRecords: Int?

    func validate() throws {
        guard (1...256).contains(connections) else { throw ValidationError("--connections must be 1-256") }
        guard (1...500).contains(recordsPerBatch) else { throw ValidationError("--records-per-batch must be 1-500") }
        guard (1...1_000).contains(streams) else { throw ValidationError("--streams must be 1-1000") }
        guard (1...120).contains(duration) else { throw ValidationError("--duration must be 1-120 seconds") }
        guard (0...30).contains(warmup) else { throw ValidationError("--warmup must be 0-30 seconds") }
        guard (1...4).contains(threads) else { throw ValidationError("--threads must be 1-4") }
        guard (1...4_096).contains(distinctRequests) else {
            throw ValidationError("--distinct-requests must be 1-4096")
        }
        do { _ = try LoopbackEndpoint(endpoint) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        if let sampleRecords {
            for record in recordProfile.records(count: min(sampleRecords, 100_000), seed: seed) {
                print(String(decoding: record, as: UTF8.self))
            }
            return
        }
        let target = try LoopbackEndpoint(endpoint)
        let perRequest = operation == .putRecord ? 1 : recordsPerBatch
        let requestCount = max(distinctRequests, streams)
        let pool = RecordPool.records(
            profile: recordProfile, seed: seed, distinctRequests: requestCount, recordsPerRequest: perRequest)
        let factory = RequestFactory(hostHeader: target.hostHeader)
        let rendered = factory.requests(
            operation, streams: StreamNames.names(prefix: streamPrefix, count: streams), pool: pool,
            recordsPerRequest: perRequest, count: requestCount)
        let requests = RequestSet(
            wire: rendered.map { ByteBuffer(bytes: $0.wireBytes) }, records: rendered.map(\.records),
            payloadBytes: rendered.map(\.payloadBytes))

        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let phase = RunPhase()
        let collector = ResultCollector()
        let connectionCount = connections
        var workers: [NIOLoopBound<LoadWorker>] = []
        for index in 0..<connections {
            let loop = group.next()
            let (host, port) = (target.host, target.port)
            let worker = try await loop.submit {
                NIOLoopBound(
                    LoadWorker(
                        eventLoop: loop, host: host, port: port, requests: requests, phase: phase,
                        collector: collector, index: index, count: connectionCount),
                    eventLoop: loop)
            }.get()
            try await loop.flatSubmit { worker.value.connect() }.get()
            workers.append(worker)
        }

        for worker in workers { worker.eventLoop.execute { worker.value.start() } }
        try await Task.sleep(for: .milliseconds(Int(warmup * 1_000)))

        let serverBefore = serverPid.flatMap(ProcessStats.read(pid:))
        let generatorBefore = ownCPUSeconds()
        let started = ContinuousClock.now
        phase.set(.measuring)
        try await Task.sleep(for: .milliseconds(Int(duration * 1_000)))
        phase.set(.stopping)
        let measured = ContinuousClock.now - started
        let windowEndedAt = Date().timeIntervalSince1970
        let serverAfter = serverPid.flatMap(ProcessStats.read(pid:))
        let generatorCPU = ownCPUSeconds() - generatorBefore

        // Each worker stops after its in-flight request; a server that never answers is cut off.
        let deadline = ContinuousClock.now + .seconds(30)
        while collector.count < connections && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        for worker in workers { worker.eventLoop.execute { worker.value.finish() } }
        while collector.count < connections && ContinuousClock.now < deadline + .seconds(2) {
            try await Task.sleep(for: .milliseconds(5))
        }
        try? await group.shutdownGracefully()

        let report = LoadReport(
            label: label, endpoint: endpoint, operation: operation.rawValue, recordProfile: recordProfile.rawValue,
            connections: connections, recordsPerRequest: perRequest, streams: streams, seed: seed,
            seconds: Double(measured.components.seconds) + Double(measured.components.attoseconds) / 1e18,
            windowEndedAt: windowEndedAt,
            connectionsStats: collector.all, generatorCPUSeconds: generatorCPU, serverPID: serverPid,
            serverBefore: serverBefore, serverAfter: serverAfter)
        print(json ? report.json() : report.table())
        if report.requests == 0 || report.successfulRequests == 0 { throw ExitCode(2) }
    }
}

extension RecordProfile: ExpressibleByArgument {}
extension LoadOperation: ExpressibleByArgument {}
