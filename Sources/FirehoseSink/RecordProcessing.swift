package import FirehoseWire

/// The processing stage (`ProcessingConfiguration.Processors`): what a stream makes of a request's
/// records before they are partitioned. Runs in the request's own task, before the stream's actor, so
/// concurrent requests process on every core. A new processor is one type conforming to this, which
/// `DeliveryStreamSettings` picks for the definitions that name it.
package protocol RecordProcessor: Sendable {
    /// The records as the next stage sees them, in order. A record may become several (or none);
    /// one that fails goes to `outcome` as an error record instead.
    func process(_ records: RecordBatch, context: RecordContext, outcome: inout ProcessingOutcome) -> RecordBatch
}

/// What the stages did besides passing records on: the error records they made, by error output
/// type (in the order each type first failed), and the records they dropped on purpose.
package struct ProcessingOutcome: Sendable {
    package private(set) var errors: [(type: String, records: RecordBatch)] = []
    /// Records a stage dropped as AWS does (CloudWatch Logs control messages).
    package var dropped = 0
    /// A stage was refused memory for its output (`RecordContext.reserveMemory`): the request fails
    /// as a whole (503, retried by clients) and nothing of it is stored.
    package var memorySpent = false

    package init() {}

    /// Adds the error record of `raw` (the record as the failing stage got it) under `type`.
    package mutating func fail(
        _ raw: some Collection<UInt8>, type: String, code: String, message: String, context: RecordContext
    ) {
        let index =
            errors.firstIndex { $0.type == type }
            ?? {
                errors.append((type, RecordBatch()))
                return errors.count - 1
            }()
        ErrorOutput.append(raw, code: code, message: message, context: context, to: &errors[index].records)
    }

    /// The error records as partitions of the error output.
    var partitions: [RecordPartition] {
        errors.map { RecordPartition(key: .errorOutput($0.type), records: $0.records) }
    }
}

/// `AppendDelimiterToRecord`: a newline after every record. Runs last, after partitioning, on every
/// partition but the error output's.
struct AppendDelimiterToRecord {
    func process(_ records: RecordBatch) -> RecordBatch {
        guard !records.isEmpty else { return records }
        var ends = [Int]()
        ends.reserveCapacity(records.count)
        let storage = records.storage.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: records.totalBytes + records.count) { typed, initialized in
                let target = UnsafeMutableRawBufferPointer(typed)
                var offset = 0
                for index in 0..<records.count {
                    let record = records.range(of: index)
                    UnsafeMutableRawBufferPointer(rebasing: target[offset..<offset + record.count])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[record]))
                    offset += record.count
                    target[offset] = UInt8(ascii: "\n")
                    offset += 1
                    ends.append(offset)
                }
                initialized = offset
            }
        }
        return RecordBatch(storage: storage, ends: ends)
    }
}
