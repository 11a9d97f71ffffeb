import FirehoseWire

/// The processing stage (`ProcessingConfiguration.Processors`): what a stream makes of a request's
/// records before they are buffered. Runs in the request's own task, before the stream's actor, so
/// concurrent requests process on every core. A new processor is one type conforming to this, which
/// `DeliveryStreamSettings` picks for the definitions that name it.
package protocol RecordProcessor: Sendable {
    /// The records as the next stage sees them: one for each record given, in the same order.
    func process(_ records: RecordBatch) -> RecordBatch
}

/// `AppendDelimiterToRecord`: a newline after every record.
struct AppendDelimiterToRecord: RecordProcessor {
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
