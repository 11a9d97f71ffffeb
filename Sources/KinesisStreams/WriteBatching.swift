/// Group commit of Kinesis puts, as a state machine: puts that arrive while a transaction is being
/// written wait together and go into the next one, so concurrent puts share a commit (and its
/// fsync) instead of taking one each in turn. Pure: the caller holds it under a lock, starts a
/// writer when `enqueue` says so, and writes what `next` hands out until it hands out nothing.
public struct WriteBatching<Item> {
    private var queued: [Item] = []
    private var writing = false
    /// Most items one transaction takes: bounds a commit's size and so the wait of its first put.
    public let maxItems: Int

    public init(maxItems: Int = 64) {
        precondition(maxItems > 0)
        self.maxItems = maxItems
    }

    /// Queues `item`. True when no writer is running: the caller must start one.
    public mutating func enqueue(_ item: Item) -> Bool {
        queued.append(item)
        if writing { return false }
        writing = true
        return true
    }

    /// The items the writer writes next, oldest first, at most `maxItems`. Empty when nothing is
    /// queued: the writer then stops, and the next `enqueue` starts another.
    public mutating func next() -> [Item] {
        guard !queued.isEmpty else {
            writing = false
            return []
        }
        let count = min(maxItems, queued.count)
        let batch = Array(queued.prefix(count))
        queued.removeFirst(count)
        return batch
    }

    /// Items waiting for a transaction.
    public var waiting: Int { queued.count }
}
