package import FirehoseSink
import FirehoseWire
package import KinesisStreams
package import Logging

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
/// at LATEST); that instant is saved when the stream is first known, so a configuration-file stream
/// (made anew at every start) keeps the one of its first start. KPL aggregates become their user
/// records, as Firehose de-aggregates them for this source before any processor.
///
/// One job runs at a time (a pass over the data streams, or a stream's reset when it is created or
/// deleted), so a flush, the poller and the control plane never read or move a shard's position
/// together. A pass reads up to the log's end as it was when the pass began, so it ends.
package actor KinesisSourceReader {
    /// Records handed over at once: what a GetRecords call could answer, bounded by Firehose's own
    /// batch size so a pass holds little memory.
    static let pageRecords = 10_000
    static let pageBytes = 4 * 1024 * 1024

    private let log: StreamLog
    private let sink: FirehoseSink
    private let logger: Logger
    /// Told of the records handed to each delivery stream (its metrics).
    private let received: @Sendable (_ stream: String, _ records: Int, _ bytes: Int) -> Void
    /// The job under way; it clears this itself as its last step, so a waiter never finds a job
    /// that has ended.
    private var job: Task<Void, Never>?
    /// What was last logged about each delivery stream's source, so a lasting problem is said once.
    private var reported: [String: String] = [:]
    /// The last pass's failures, by delivery stream (not waiting for a data stream: that is no failure).
    private var failures: [String: String] = [:]

    package init(
        log: StreamLog, sink: FirehoseSink, logger: Logger,
        received: @escaping @Sendable (_ stream: String, _ records: Int, _ bytes: Int) -> Void = { _, _, _ in }
    ) {
        self.log = log
        self.sink = sink
        self.logger = logger
        self.received = received
        // The streams of the configuration file and those saved from the API: their start is saved
        // now, before any record of this run could be missed.
        for name in sink.streamNames {
            guard let record = sink.record(of: name), record.definition.kinesisStreamSourceConfiguration != nil
            else { continue }
            do {
                try log.registerConsumer(name, startMilliseconds: record.createTime.epochMilliseconds)
            } catch {
                logger.error(
                    "The start of a KinesisStreamAsSource delivery stream could not be saved; it is saved at its first read",
                    metadata: ["stream": .string(name), "cause": .string("\(error)")])
            }
        }
    }

    /// Hands every record the data streams held when it began to their delivery streams; returns
    /// when they are in the delivery streams' buffers, with the delivery streams whose source could
    /// not be read, and why.
    @discardableResult
    package func readAvailable() async -> [String: String] {
        await exclusively { reader in await reader.readAll() }
        return failures
    }

    /// A delivery stream was made (`record`) or deleted (nil) under `name`: its saved positions
    /// go, and a new stream reads from its own creation.
    package func reset(_ name: String, to record: StreamRecord?) async {
        await exclusively { reader in
            let log = reader.log
            do throws(SourceFailure) {
                try await Self.blocking(writes: true) { () throws(StreamLogError) in
                    try log.forgetConsumer(name)
                    if let record {
                        try log.registerConsumer(name, startMilliseconds: record.createTime.epochMilliseconds)
                    }
                }
            } catch {
                reader.logger.error(
                    "The positions of a KinesisStreamAsSource delivery stream could not be reset",
                    metadata: ["stream": .string(name), "cause": .string("\(error)")])
            }
        }
    }

    /// Runs `work` when no other job runs; cancelling the caller cancels it.
    private func exclusively(_ work: @escaping @Sendable (isolated KinesisSourceReader) async -> Void) async {
        while let running = job { await running.value }
        let task = Task { await self.perform(work) }
        job = task
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func perform(_ work: @Sendable (isolated KinesisSourceReader) async -> Void) async {
        await work(self)
        job = nil
    }

    private func readAll() async {
        failures = [:]
        let log = log
        let end: Int64
        do throws(SourceFailure) {
            end = try await Self.blocking(writes: false) { () throws(StreamLogError) in try log.endPosition() }
        } catch {
            for name in sink.streamNames where sink.record(of: name)?.definition.kinesisStreamSourceConfiguration != nil
            {
                failures[name] = "\(error)"
                report(name, error)
            }
            return
        }
        for name in sink.streamNames {
            guard !Task.isCancelled else { return }
            guard let record = sink.record(of: name), record.definition.deliveryStreamType == "KinesisStreamAsSource",
                let source = record.definition.kinesisStreamSourceConfiguration, let dataStream = source.streamName
            else { continue }
            do throws(SourceFailure) {
                try checkRole(of: name, source: source)
                try await read(into: name, record: record, from: dataStream, before: end)
                report(name, nil)
            } catch {
                if case .missingDataStream = error {} else { failures[name] = "\(error)" }
                report(name, error)
            }
        }
    }

    private enum SourceFailure: Error, Equatable, CustomStringConvertible {
        case missingDataStream(String)
        case log(StreamLogError)
        case sink(String)
        /// The source's role may not read the data stream (`CheckDeliveryRoles`).
        case accessDenied(String)

        var description: String {
            switch self {
            case .missingDataStream(let name): "the data stream \(name) does not exist"
            case .log(let error): "\(error)"
            case .sink(let cause): cause
            case .accessDenied(let message): message
            }
        }
    }

    /// What Firehose calls on a source data stream, each needing the source's role to allow it
    /// (firehose/latest/dev/controlling-access.html#using-iam-s3).
    static let readActions = [
        "kinesis:DescribeStream", "kinesis:GetShardIterator", "kinesis:GetRecords", "kinesis:ListShards",
    ]

    /// The message AWS's error log gives a refused read (`Kinesis.AccessDenied`, as Firehose logs it),
    /// then firehose-local's reason.
    static func accessDenied(_ reason: String) -> String {
        "Kinesis.AccessDenied: Access was denied when calling Kinesis. Ensure the access policy on the IAM role used allows access to the appropriate Kinesis APIs. (\(reason))"
    }

    /// Refuses the read when roles are checked and the source's role may not make one of Firehose's calls.
    private func checkRole(of name: String, source: KinesisStreamSourceConfiguration) throws(SourceFailure) {
        guard let roleARN = source.roleARN, let streamARN = source.kinesisStreamARN else { return }
        for action in Self.readActions {
            let refusal = sink.deliveryRoles.refusal {
                DeliveryRoleRequest(stream: name, roleARN: roleARN, action: action, resource: streamARN)
            }
            if let refusal {
                throw .accessDenied(Self.accessDenied(refusal.reason))
            }
        }
    }

    private func read(into name: String, record: StreamRecord, from dataStream: String, before end: Int64)
        async throws(SourceFailure)
    {
        let log = log
        guard
            let stream = try await Self.blocking(
                writes: false, { () throws(StreamLogError) in try log.stream(named: dataStream) })
        else { throw .missingDataStream(dataStream) }
        let created = record.createTime.epochMilliseconds
        for shard in 0..<stream.shardCount {
            // A known position is read beside the puts; only a shard's first position is written.
            let saved = try await Self.blocking(writes: false) { () throws(StreamLogError) in
                try log.checkpoint(consumer: name, stream: stream, shard: shard)
            }
            var position: Int64
            if let saved {
                position = saved
            } else {
                position = try await Self.blocking(writes: true) { () throws(StreamLogError) in
                    // The first read of this shard: from the stream's saved start (its first creation).
                    let start = try log.registerConsumer(name, startMilliseconds: created)
                    let first = try log.position(
                        stream: stream, shard: shard, arrivedAtOrAfter: start, cutoffMilliseconds: 0)
                    try log.saveCheckpoint(consumer: name, stream: stream, shard: shard, position: first)
                    return first
                }
            }
            while !Task.isCancelled {
                let now = sink.now().epochMilliseconds
                let from = position
                let page = try await Self.blocking(writes: false) { () throws(StreamLogError) in
                    try log.read(
                        stream: stream, shard: shard, from: from, before: end, limit: Self.pageRecords,
                        maxBytes: Self.pageBytes, cutoffMilliseconds: stream.retentionCutoff(nowMilliseconds: now))
                }
                guard !page.records.isEmpty else { break }
                var batch = RecordBatch()
                // KPL aggregates are taken apart first, as Firehose does for a Kinesis source.
                for item in page.records {
                    if let users = KPLAggregation.userRecords(in: item.data) {
                        for user in users { batch.append(user) }
                    } else {
                        batch.append(item.data)
                    }
                }
                // The delivery stream may have been deleted, or made anew, since the pass began:
                // its records are not the new one's.
                guard sink.record(of: name)?.createTime == record.createTime else { return }
                do {
                    // Aggregates of no user records leave nothing to hand over.
                    if !batch.isEmpty { try await sink.put(batch, to: name) }
                } catch {
                    throw .sink("\(error)")
                }
                received(name, batch.count, batch.totalBytes)
                position = page.nextPosition
                try await Self.blocking(writes: true) { () throws(StreamLogError) in
                    try log.saveCheckpoint(consumer: name, stream: stream, shard: shard, position: page.nextPosition)
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
        do {
            return try await BlockingIO.perform(on: writes ? StreamLog.writeQueue : nil, work)
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
        case .accessDenied(let message)?:
            logger.error(
                "The source's role may not read its Kinesis data stream: records stay in the data stream and are read again",
                metadata: ["stream": .string(stream), "error": .string(message)])
        }
    }
}
