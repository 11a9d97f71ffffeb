import ArgumentParser
import FirehoseClient
import Foundation
import LoadSupport

/// How fast a data stream's records can be read back: every shard from its start to its end, one
/// consumer per shard, as Kinesis consumers read (GetShardIterator TRIM_HORIZON, then GetRecords
/// pages of `--limit`). Run after `firehose-load --operation PutRecords` has filled the stream.
@main
struct KinesisReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kinesis-read",
        abstract: "GetRecords payload MB/s: reads every shard of a Kinesis data stream on this machine to its end.")

    @Option(help: "Endpoint URL; loopback only (127.0.0.0/8, localhost, [::1]).")
    var endpoint = "http://127.0.0.1:4573"

    @Option(help: "The data stream to read.")
    var stream = "bench-0"

    @Option(help: "GetRecords Limit (1-10000).")
    var limit = 10_000

    @Option(help: "Stop after this many seconds even if the shards are not read to their end (1-600).")
    var timeout: Double = 300

    @Flag(help: "Print the report as JSON instead of a line of text.")
    var json = false

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be 1-10000") }
        guard (1...600).contains(timeout) else { throw ValidationError("--timeout must be 1-600 seconds") }
        do { _ = try LoopbackEndpoint(endpoint) } catch { throw ValidationError(error.description) }
    }

    struct ShardFigures: Sendable {
        var records = 0
        var payloadBytes = 0
        var requests = 0
        var complete = false
    }

    func run() async throws {
        let client = KinesisClient(
            endpoint: URL(string: endpoint)!, region: "us-east-1",
            credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"))
        let shards = try await Self.decode(
            ShardList.self,
            try await client.send(operation: "ListShards", body: Self.body(["StreamName": stream])).body
        ).Shards.map(\.ShardId)
        let cpuBefore = ownCPUSeconds()
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(timeout * 1_000))
        let (stream, limit) = (stream, limit)
        let figures = try await withThrowingTaskGroup(of: ShardFigures.self) { group in
            for shard in shards {
                group.addTask {
                    try await Self.read(shard: shard, of: stream, client: client, limit: limit, until: deadline)
                }
            }
            var all: [ShardFigures] = []
            for try await one in group { all.append(one) }
            return all
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let records = figures.reduce(0) { $0 + $1.records }
        let bytes = figures.reduce(0) { $0 + $1.payloadBytes }
        let report: [String: Any] = [
            "stream": stream, "shards": shards.count, "records": records, "payloadBytes": bytes,
            "requests": figures.reduce(0) { $0 + $1.requests }, "seconds": seconds,
            "payloadMBPerSecond": Double(bytes) / 1e6 / seconds, "recordsPerSecond": Double(records) / seconds,
            "readerCPUSeconds": ownCPUSeconds() - cpuBefore, "complete": figures.allSatisfy(\.complete),
        ]
        if json {
            print(
                String(
                    decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self)
            )
        } else {
            print(
                "\(stream): \(records) records, \(bytes) payload bytes from \(shards.count) shards in "
                    + String(
                        format: "%.2f s: %.1f MB/s, %.0f records/s", seconds, Double(bytes) / 1e6 / seconds,
                        Double(records) / seconds))
        }
        if records == 0 || !figures.allSatisfy(\.complete) { throw ExitCode(2) }
    }

    /// One consumer: the shard from TRIM_HORIZON until a page is empty and nothing is behind.
    static func read(
        shard: String, of stream: String, client: KinesisClient, limit: Int, until deadline: ContinuousClock.Instant
    )
        async throws -> ShardFigures
    {
        var figures = ShardFigures()
        var iterator = try await decode(
            IteratorAnswer.self,
            try await client.send(
                operation: "GetShardIterator",
                body: body(["StreamName": stream, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"])
            ).body
        ).ShardIterator
        while ContinuousClock.now < deadline {
            let page = try decode(
                RecordsPage.self,
                try await client.send(
                    operation: "GetRecords", body: body(["ShardIterator": iterator, "Limit": limit])
                ).body)
            figures.requests += 1
            figures.records += page.Records.count
            figures.payloadBytes += page.Records.reduce(0) { $0 + $1.Data.count }
            guard let next = page.NextShardIterator, !page.Records.isEmpty || (page.MillisBehindLatest ?? 0) > 0 else {
                figures.complete = true
                break
            }
            iterator = next
        }
        return figures
    }

    static func body(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

// Member names are AWS's.
// swift-format-ignore: AlwaysUseLowerCamelCase
struct ShardList: Decodable {
    struct Shard: Decodable { var ShardId: String }
    var Shards: [Shard]
}

// swift-format-ignore: AlwaysUseLowerCamelCase
struct IteratorAnswer: Decodable {
    var ShardIterator: String
}

// swift-format-ignore: AlwaysUseLowerCamelCase
struct RecordsPage: Decodable {
    struct Record: Decodable { var Data: Data }
    var Records: [Record]
    var NextShardIterator: String?
    var MillisBehindLatest: Int?
}
