package import FirehoseKeyLayout
package import FirehoseWire

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Names one partition of a stream: the values its records' dynamic-partitioning keys took
/// (`partitionKeyFromQuery` / `partitionKeyFromLambda`), or the error output type of the failed
/// records it holds. Each partition has its own buffers, and its objects their own keys; staging
/// journals keep it so recovery delivers each buffer to its key.
package struct PartitionKey: Hashable, Sendable, Codable {
    package var values: PartitionValues
    /// Set for a partition of error records: what `!{firehose:error-output-type}` becomes.
    package var errorOutputType: String?

    package init(_ values: PartitionValues = .none, errorOutputType: String? = nil) {
        self.values = values
        self.errorOutputType = errorOutputType
    }

    /// The one partition of a stream without dynamic partitioning.
    package static let whole = PartitionKey()

    /// The partition of records that failed with `type` (e.g. `processing-failed`).
    package static func errorOutput(_ type: String) -> PartitionKey {
        PartitionKey(errorOutputType: type)
    }
}

/// A request's records of one partition, in arrival order.
package struct RecordPartition: Sendable {
    package var key: PartitionKey
    package var records: RecordBatch

    package init(key: PartitionKey, records: RecordBatch) {
        self.key = key
        self.records = records
    }
}

/// When a request's records are processed: what error records carry.
package struct RecordContext: Sendable {
    /// The request's arrival (`arrivalTimestamp`).
    package var arrival: Date
    /// When processing ran (`attemptEndingTimestamp`).
    package var now: Date
    /// Asked before a processor allocates what it makes of the records (the request's memory budget).
    package var reserveMemory: @Sendable (Int) -> Bool

    package init(arrival: Date, now: Date, reserveMemory: @escaping @Sendable (Int) -> Bool = { _ in true }) {
        self.arrival = arrival
        self.now = now
        self.reserveMemory = reserveMemory
    }
}

/// The partitioning stage: which partition each of a request's processed records goes to. A new
/// way of partitioning is one type conforming to this, which `DeliveryStreamSettings` picks.
package protocol RecordPartitioner: Sendable {
    /// The records grouped by partition, each group in arrival order, groups in the order of their
    /// first record; every record in exactly one group, or, when it cannot be partitioned, in
    /// `outcome` as an error record.
    /// - Parameter lambdaKeys: each record's `metadata.partitionKeys` from the `Lambda` processor
    ///   (nil without one).
    func partition(
        _ records: RecordBatch, lambdaKeys: [[String: String]]?, context: RecordContext,
        outcome: inout ProcessingOutcome
    ) -> [RecordPartition]
}

/// Without dynamic partitioning: every record in the stream's one partition.
struct WholeStream: RecordPartitioner {
    func partition(
        _ records: RecordBatch, lambdaKeys: [[String: String]]?, context: RecordContext,
        outcome: inout ProcessingOutcome
    ) -> [RecordPartition] {
        records.isEmpty ? [] : [RecordPartition(key: .whole, records: records)]
    }
}

/// What a request's records pass through before the buffers: the processing stage, the partitioning
/// stage, then the delimiter (`AppendDelimiterToRecord`) on every partition but the error output's,
/// as of one generation of the stream's settings (each `update(to:)` starts the next, whatever it
/// does to `VersionId`). The delimiter comes last so that queries and error records see each
/// record as the client sent it.
struct RecordPipeline: Sendable {
    /// Where records come from.
    enum Input: Sendable {
        /// A request's records, as the client sent them: every stage.
        case received(RecordBatch)
        /// What a `Lambda` processor gave back: the stages after it (partitioning, the delimiter),
        /// and its error records to the `processing-failed` error output.
        case transformed(TransformedRecords)
        /// Records staged by an earlier run, as they were staged: no stage, in their partition.
        case staged(RecordBatch, PartitionKey)
        /// Error records (one JSON line each) another stage made, for the error output of `type`.
        case errorRecords(RecordBatch, type: String)
    }

    /// A request's records after the stages, and the generation that made them.
    struct Prepared: Sendable {
        var input: Input
        /// The partitions, then those of the error output.
        var partitions: [RecordPartition]
        /// Records a stage dropped on purpose.
        var dropped: Int
        /// A processor was refused memory: the request must fail, nothing stored.
        var memorySpent: Bool
        var generation: Int
    }

    var generation: Int
    var processors: [any RecordProcessor]
    var partitioner: any RecordPartitioner
    var appendsNewline: Bool
    /// A stage whose buffers a consumer reads record by record (a transformed stream's source stage,
    /// a stage whose destination consumes records): records are framed with their arrival
    /// (`SourceRecordFrame`); error records stay as they are, to go on to an error output.
    var framesRecords: Bool

    init(_ settings: DeliveryStreamSettings, generation: Int) {
        self.generation = generation
        processors = settings.processors
        partitioner = settings.partitioner
        appendsNewline = settings.appendsNewline
        framesRecords = settings.isSourceStage || settings.destination.consumesRecords
    }

    func prepare(_ input: Input, context: RecordContext) -> Prepared {
        var outcome = ProcessingOutcome()
        var partitions: [RecordPartition]
        switch input {
        case .received(let raw):
            let processed = processors.reduce(raw) { records, processor in
                outcome.memorySpent ? records : processor.process(records, context: context, outcome: &outcome)
            }
            partitions = delimited(
                partitioner.partition(processed, lambdaKeys: nil, context: context, outcome: &outcome))
        case .transformed(let transformed):
            partitions = delimited(
                partitioner.partition(
                    transformed.records, lambdaKeys: transformed.partitionKeys, context: context, outcome: &outcome))
            if !transformed.failed.isEmpty {
                partitions.append(
                    RecordPartition(
                        key: .errorOutput(ErrorOutput.Failure.lambdaProcessingType), records: transformed.failed))
            }
        case .staged(let records, let partition):
            return Prepared(
                input: input, partitions: records.isEmpty ? [] : [RecordPartition(key: partition, records: records)],
                dropped: 0, memorySpent: false, generation: generation)
        case .errorRecords(let records, let type):
            partitions = records.isEmpty ? [] : [RecordPartition(key: .errorOutput(type), records: records)]
        }
        partitions += outcome.partitions
        if framesRecords, !outcome.memorySpent {
            // Framing is a copy the request's memory pays for: refused, the request fails (nothing staged).
            partitions = partitions.map { partition in
                guard partition.key.errorOutputType == nil else { return partition }
                return RecordPartition(
                    key: partition.key,
                    records: SourceRecordFraming().process(partition.records, context: context, outcome: &outcome))
            }
        }
        return Prepared(
            input: input, partitions: partitions, dropped: outcome.dropped, memorySpent: outcome.memorySpent,
            generation: generation)
    }

    private func delimited(_ partitions: [RecordPartition]) -> [RecordPartition] {
        guard appendsNewline else { return partitions }
        return partitions.map { RecordPartition(key: $0.key, records: AppendDelimiterToRecord().process($0.records)) }
    }
}
