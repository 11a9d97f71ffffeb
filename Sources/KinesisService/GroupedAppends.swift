import Dispatch
import KinesisStreams
import Synchronization

/// Puts' records written to the log by group commit: each put waits (suspended, holding no thread)
/// while the transaction before it is written, then goes into the next one with every put that
/// arrived meanwhile — one commit and one fsync for all of them. The decisions are
/// `WriteBatching`'s; the transactions run on the Kinesis write queue, one batch per work item, so
/// stream changes and maintenance queued there take their turn between batches.
final class GroupedAppends: Sendable {
    private struct Waiting: Sendable {
        var group: AppendGroup
        var continuation: CheckedContinuation<Result<[Int64], StreamLogError>, Never>
    }

    private let log: StreamLog
    private let queue: DispatchQueue
    private let state = Mutex(WriteBatching<Waiting>())

    init(log: StreamLog, queue: DispatchQueue) {
        self.log = log
        self.queue = queue
    }

    /// Appends `group` and returns its positions once the transaction that holds it is durable.
    /// Runs to the end whatever happens to the calling task: once queued, the records are written.
    func append(_ group: AppendGroup) async throws(StreamLogError) -> [Int64] {
        let result = await withCheckedContinuation { continuation in
            let bytes = group.records.reduce(0) { $0 + $1.data.count + $1.partitionKey.utf8.count }
            if state.withLock({ $0.enqueue(Waiting(group: group, continuation: continuation), bytes: bytes) }) {
                queue.async { self.writeNext() }
            }
        }
        return try result.get()
    }

    private func writeNext() {
        let batch = state.withLock { $0.next() }
        guard !batch.isEmpty else { return }
        let results: [Result<[Int64], StreamLogError>]
        do {
            results = try log.append(batch.map(\.group))
        } catch {
            results = Array(repeating: .failure(error), count: batch.count)
        }
        // One result per put, so every waiting put is resumed exactly once.
        precondition(results.count == batch.count, "a result for every put of the batch")
        for (waiting, result) in zip(batch, results) { waiting.continuation.resume(returning: result) }
        // Another work item rather than a loop, so what else waits on the queue goes first.
        queue.async { self.writeNext() }
    }
}
