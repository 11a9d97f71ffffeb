import FirehoseWire

/// Names one partition of a stream: the values its records' partition keys took (dynamic
/// partitioning's `partitionKeyFromQuery` / `partitionKeyFromLambda`); empty for a stream that does not
/// partition. Each partition has its own buffers. (Not yet in object keys or staging journals: the
/// partitioner that makes keys other than `whole` must add both.)
package struct PartitionKey: Hashable, Sendable {
    package var values: [String: String]

    package init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// The one partition of a stream without dynamic partitioning.
    package static let whole = PartitionKey()
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

/// The partitioning stage: which partition each of a request's processed records goes to. A new
/// way of partitioning is one type conforming to this, which `DeliveryStreamSettings` picks.
package protocol RecordPartitioner: Sendable {
    /// The records grouped by partition, each group in arrival order, groups in the order of their
    /// first record; every record in exactly one group.
    func partition(_ records: RecordBatch) -> [RecordPartition]
}

/// Without dynamic partitioning: every record in the stream's one partition.
struct WholeStream: RecordPartitioner {
    func partition(_ records: RecordBatch) -> [RecordPartition] {
        [RecordPartition(key: .whole, records: records)]
    }
}

/// What a request's records pass through before the buffers: the processing stage, then the
/// partitioning stage, as of one generation of the stream's settings (each `update(to:)` starts the
/// next, whatever it does to `VersionId`).
struct RecordPipeline: Sendable {
    /// A request's records after the stages, and the generation that made them.
    struct Prepared: Sendable {
        var raw: RecordBatch
        var partitions: [RecordPartition]
        var generation: Int
    }

    var generation: Int
    var processors: [any RecordProcessor]
    var partitioner: any RecordPartitioner

    init(_ settings: DeliveryStreamSettings, generation: Int) {
        self.generation = generation
        processors = settings.processors
        partitioner = settings.partitioner
    }

    func prepare(_ raw: RecordBatch) -> Prepared {
        let processed = processors.reduce(raw) { records, processor in processor.process(records) }
        return Prepared(raw: raw, partitions: partitioner.partition(processed), generation: generation)
    }
}
