import FirehoseSink
import FirehoseWire
import KinesisStreams
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The source stage of `KinesisStreamAsSource` delivery streams: reads every shard of each one's
/// data stream from its checkpoint, hands the records to the delivery stream's pipeline (processors,
/// partitioning, buffers) and then moves the checkpoint, synced. At least once, as AWS: a crash
/// between the two hands the same records over again; nothing acknowledged to the data stream is
/// skipped. A delivery stream starts at the records that arrived from its creation on (AWS starts
/// at LATEST). KPL aggregates become their user records, as Firehose de-aggregates them for this
/// source before any processor. One pass runs at a time, so a flush and the poller never read a shard twice.
actor KinesisSourceReader {
    /// Records handed over at once: what a GetRecords call could answer, bounded by Firehose's own
    /// batch size so a pass holds little memory.
    static let pageRecords = 10_000
    static let pageBytes = 4 * 1024 * 1024

    private let log: StreamLog
    private let sink: FirehoseSink
    private let logger: Logger
    /// Told of the records handed to each delivery stream (its metrics).
    private let received: @Sendable (_ stream: String, _ records: Int, _ bytes: Int) -> Void
    private var pass: Task<Void, Never>?
    /// What was last logged about each delivery stream's source, so a lasting problem is said once.
    private var reported: [String: String] = [:]

    init(
        log: StreamLog, sink: FirehoseSink, logger: Logger,
        received: @escaping @Sendable (_ stream: String, _ records: Int, _ bytes: Int) -> Void = { _, _, _ in }
    ) {
        self.log = log
        self.sink = sink
        self.logger = logger
        self.received = received
    }

    /// Hands every record the data streams hold now to their delivery streams; returns when they
    /// are in the delivery streams' buffers. Waits for a pass under way, then makes its own.
    func readAvailable() async {
        while let running = pass { await running.value }
        let task = Task { await self.readAll() }
        pass = task
        await task.value
        pass = nil
    }

    /// The checkpoints of a delivery stream made through the API are kept under its name and
    /// creation instant, so a stream re-created under the same name starts afresh. A
    /// configuration-file stream is made anew at every start: its positions are kept under its name
    /// alone, so that a restart goes on where the last run stopped.
    static func consumer(of stream: String, record: StreamRecord) -> String {
        guard record.origin == .api else { return stream }
        return "\(stream)@\(Int64((record.createTime.timeIntervalSince1970 * 1000).rounded(.down)))"
    }

    /// Forgets the positions a deleted delivery stream saved.
    nonisolated func forget(_ consumer: String) throws(StreamLogError) {
        try log.deleteCheckpoints(consumer: consumer)
    }

    private func readAll() async {
        for name in sink.streamNames {
            guard let record = sink.record(of: name), record.definition.deliveryStreamType == "KinesisStreamAsSource",
                let source = record.definition.kinesisStreamSourceConfiguration, let dataStream = source.streamName
            else { continue }
            do throws(SourceFailure) {
                try await read(into: name, record: record, from: dataStream)
                report(name, nil)
            } catch {
                report(name, error)
            }
        }
    }

    private enum SourceFailure: Error, Equatable {
        case missingDataStream(String)
        case log(StreamLogError)
        case sink(String)
    }

    private func read(into name: String, record: StreamRecord, from dataStream: String) async throws(SourceFailure) {
        let log = log
        let consumer = Self.consumer(of: name, record: record)
        guard
            let stream = try await Self.blocking(
                writes: false, { () throws(StreamLogError) in try log.stream(named: dataStream) })
        else { throw .missingDataStream(dataStream) }
        let start = Int64((record.createTime.timeIntervalSince1970 * 1000).rounded(.down))
        for shard in 0..<stream.shardCount {
            var position = try await Self.blocking(writes: true) { () throws(StreamLogError) in
                if let saved = try log.checkpoint(consumer: consumer, stream: stream, shard: shard) { return saved }
                // The first read of this shard: from the delivery stream's creation, saved so that a
                // restart (a configuration-file stream is re-created at each start) keeps it.
                let first = try log.position(
                    stream: stream, shard: shard, arrivedAtOrAfter: start, cutoffMilliseconds: 0)
                try log.saveCheckpoint(consumer: consumer, stream: stream, shard: shard, position: first)
                return first
            }
            while true {
                let now = Int64((sink.now().timeIntervalSince1970 * 1000).rounded(.down))
                let from = position
                let page = try await Self.blocking(writes: false) { () throws(StreamLogError) in
                    try log.read(
                        stream: stream, shard: shard, from: from, limit: Self.pageRecords, maxBytes: Self.pageBytes,
                        cutoffMilliseconds: stream.retentionCutoff(nowMilliseconds: now))
                }
                guard !page.records.isEmpty else { break }
                var batch = RecordBatch()
                // KPL aggregates are taken apart first, as Firehose does for a Kinesis source.
                for record in page.records {
                    if let users = KPLAggregation.userRecords(in: record.data) {
                        for user in users { batch.append(user) }
                    } else {
                        batch.append(record.data)
                    }
                }
                do {
                    // Aggregates of no user records leave nothing to hand over.
                    if !batch.isEmpty { try await sink.put(batch, to: name) }
                } catch {
                    throw .sink("\(error)")
                }
                received(name, batch.count, batch.totalBytes)
                position = page.nextPosition
                try await Self.blocking(writes: true) { () throws(StreamLogError) in
                    try log.saveCheckpoint(
                        consumer: consumer, stream: stream, shard: shard, position: page.nextPosition)
                }
                logger.debug(
                    "Records read from a Kinesis data stream",
                    metadata: [
                        "stream": .string(name), "data_stream": .string(dataStream),
                        "shard": .string(ShardID.text(shard)), "records": .stringConvertible(page.records.count),
                    ])
                if page.oldestUnreadArrival == nil { break }
            }
        }
    }

    private static func blocking<Value: Sendable>(
        writes: Bool, _ work: @escaping @Sendable () throws(StreamLogError) -> Value
    ) async throws(SourceFailure) -> Value {
        let run = { @Sendable () -> Result<Value, StreamLogError> in
            Result { () throws(StreamLogError) in try work() }
        }
        do {
            return try await (writes ? BlockingIO.run(on: KinesisAPI.writeQueue, run) : BlockingIO.read(run)).get()
        } catch {
            throw .log(error)
        }
    }

    /// Logs a source's problem when it starts or changes, and its end.
    private func report(_ stream: String, _ failure: SourceFailure?) {
        let text = failure.map { "\($0)" }
        guard reported[stream] != text else { return }
        reported[stream] = text
        switch failure {
        case nil:
            logger.info("Reading the Kinesis data stream again", metadata: ["stream": .string(stream)])
        case .missingDataStream(let name)?:
            logger.notice(
                "Waiting for the Kinesis data stream of a KinesisStreamAsSource delivery stream; its records are read once it is created",
                metadata: ["stream": .string(stream), "data_stream": .string(name)])
        case .log(let error)?:
            logger.error(
                "The Kinesis stream log cannot be read: records stay in the data stream and are read again",
                metadata: ["stream": .string(stream), "cause": .string("\(error)")])
        case .sink(let cause)?:
            logger.error(
                "Records read from a Kinesis data stream could not be buffered: they stay in the data stream and are read again",
                metadata: ["stream": .string(stream), "cause": .string(cause)])
        }
    }
}

/// The Kinesis side's background work until the server shuts down: reads the data streams of
/// `KinesisStreamAsSource` delivery streams once a second, as Firehose polls each shard, and deletes
/// records past retention once a minute.
struct KinesisStreamsService: Service {
    let reader: KinesisSourceReader
    let kinesis: KinesisAPI
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    var interval: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await reader.readAvailable()
                let (kinesis, now) = (kinesis, now())
                await BlockingIO.run(on: KinesisAPI.writeQueue) { kinesis.trimExpired(now: now) }
                try? await clock.sleep(for: interval)
            }
        }
    }
}
