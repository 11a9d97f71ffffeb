/// A buffer that holds records of one partition (`StagingBuffer`; tests use their own).
protocol PartitionBuffer: AnyObject, Identifiable {
    var partition: PartitionKey { get }
}

extension StagingBuffer: PartitionBuffer {}

/// The buffers stage: the open buffer of each active partition of a stream, with the timer that
/// closes it when its interval is up, kept in the order the buffers were opened (the order a flush
/// delivers them in). No I/O: the stream's actor makes the buffers and their timers.
struct OpenBuffers<Buffer: PartitionBuffer> {
    private var byPartition: [PartitionKey: (buffer: Buffer, timer: Task<Void, Never>?)] = [:]
    private var order: [PartitionKey] = []

    subscript(partition: PartitionKey) -> Buffer? { byPartition[partition]?.buffer }

    /// Every open buffer, oldest first.
    var all: [Buffer] { order.map { byPartition[$0]!.buffer } }

    func buffer(withID id: Buffer.ID) -> Buffer? {
        byPartition.values.first { $0.buffer.id == id }?.buffer
    }

    /// `buffer` becomes its partition's open buffer.
    mutating func open(_ buffer: Buffer, timer: Task<Void, Never>?) {
        precondition(byPartition[buffer.partition] == nil, "a partition has one open buffer")
        byPartition[buffer.partition] = (buffer, timer)
        order.append(buffer.partition)
    }

    /// Closes `buffer` to new records, cancelling its timer unless the timer is what closes it (its
    /// task goes on to publish the buffer, which must not run cancelled); false when it was not open.
    @discardableResult
    mutating func close(_ buffer: Buffer, byItsTimer: Bool = false) -> Bool {
        guard let entry = byPartition[buffer.partition], entry.buffer === buffer else { return false }
        if !byItsTimer { entry.timer?.cancel() }
        byPartition[buffer.partition] = nil
        order.removeAll { $0 == buffer.partition }
        return true
    }

    /// Closes every open buffer; returns them, oldest first.
    mutating func closeAll() -> [Buffer] {
        let buffers = all
        for buffer in buffers { close(buffer) }
        return buffers
    }
}
