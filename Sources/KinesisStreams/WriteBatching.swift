/// Group commit of Kinesis puts, as a state machine: puts that arrive while a transaction is being
/// written wait together and go into the next one, so concurrent puts share a commit (and its
/// fsync) instead of taking one each in turn. Pure: the caller holds it under a lock, starts a
/// writer when `enqueue` says so, and writes what `next` hands out until it hands out nothing.
public struct WriteBatching<Item> {
    private var queued: [(item: Item, bytes: Int)] = []
    private var writing = false
    /// Most items one transaction takes: bounds a commit's size and so the wait of its first put.
    public let maxItems: Int
    /// Most bytes one transaction takes (an item larger alone goes alone): 64 puts of 10 MiB would
    /// otherwise make one 640 MiB transaction, and a write-ahead log as large.
    public let maxBytes: Int

    public init(maxItems: Int = 64, maxBytes: Int = 32 * 1024 * 1024) {
        precondition(maxItems > 0 && maxBytes > 0)
        self.maxItems = maxItems
        self.maxBytes = maxBytes
    }

    /// Queues `item` of `bytes` bytes. True when no writer is running: the caller must start one.
    public mutating func enqueue(_ item: Item, bytes: Int = 0) -> Bool {
        queued.append((item, bytes))
        if writing { return false }
        writing = true
        return true
    }

    /// The items the writer writes next, oldest first: at most `maxItems`, and at most `maxBytes`
    /// unless the first alone is larger. Empty when nothing is queued: the writer then stops, and
    /// the next `enqueue` starts another.
    public mutating func next() -> [Item] {
        guard !queued.isEmpty else {
            writing = false
            return []
        }
        var count = 1
        var bytes = queued[0].bytes
        while count < min(maxItems, queued.count), bytes + queued[count].bytes <= maxBytes {
            bytes += queued[count].bytes
            count += 1
        }
        let batch = queued.prefix(count).map(\.item)
        queued.removeFirst(count)
        return batch
    }

    /// Items waiting for a transaction.
    public var waiting: Int { queued.count }
}
