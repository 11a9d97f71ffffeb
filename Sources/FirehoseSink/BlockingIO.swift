package import Dispatch
import DurableStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs blocking file-system calls on a thread of their own rather than Swift's cooperative pool,
/// which has one thread per core: an fsync parked there would stall every request of every stream.
package enum BlockingIO {
    // A serial queue, not a concurrent one: on Linux a concurrent queue runs its blocks on the same
    // width-limited root queue threads as Swift's tasks, so fsyncs of eight streams at once parked
    // both of this machine's task threads (the server used 1.83 of 2 cores; with this queue, 1.93).
    // A serial queue gets a thread outside that limit. Group commits of different streams then run
    // one after another, which measured no slower than side by side (docs/benchmarks.md).
    private static let queue = DispatchQueue(label: "firehose-local.blocking-io")

    /// The blocking-I/O thread, for callers that choose a thread (`run(on:)`).
    package static var writes: DispatchQueue { queue }

    /// Reads for clients (the S3 API's listings and object bodies) on a thread of their own, so
    /// they neither wait behind a group commit's fsync nor hold one up.
    private static let readQueue = DispatchQueue(label: "firehose-local.reads")

    /// Runs `body` on the reading thread and returns its result.
    package static func read<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            readQueue.async { continuation.resume(returning: body()) }
        }
    }

    /// Runs `body` on the blocking-I/O thread and returns its result.
    package static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Runs `body` on `queue` (a caller's own serial thread) and returns its result.
    package static func run<Result: Sendable>(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Result) async
        -> Result
    {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Runs `work` on `queue` (a caller's own serial thread), or on the reading thread when nil, and
    /// returns its value or throws its error.
    package static func perform<Value: Sendable, Failure: Error>(
        on queue: DispatchQueue?, _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let body = { @Sendable () -> Result<Value, Failure> in Result { () throws(Failure) in try work() } }
        guard let queue else { return try await read(body).get() }
        return try await run(on: queue, body).get()
    }

    /// Threads for the fsyncs of one group commit when it has many files (a partitioned stream's
    /// open buffers): the device takes several flushes at once, so 240 files synced over 8 threads
    /// took 14–16 ms against 56–66 ms one after another (`Benchmarks/fsync-probe.py`). Serial queues
    /// again, each a thread outside the cooperative pool's limit.
    private static let syncQueues = (0..<8).map { DispatchQueue(label: "firehose-local.fsync-\($0)") }

    /// Below this many files, one thread syncs them all: handing off costs more than it saves.
    static let filesPerSyncThread = 16

    /// fsyncs each descriptor, then closes it. Returns the first failure, naming its file.
    static func fsyncAndClose(_ files: [(descriptor: Int32, path: String)]) async -> FileSystemError? {
        guard !files.isEmpty else { return nil }
        let threads = min(syncQueues.count, (files.count + filesPerSyncThread - 1) / filesPerSyncThread)
        guard threads > 1 else { return await run { syncAndClose(files) } }
        return await withTaskGroup(of: FileSystemError?.self) { group in
            for thread in 0..<threads {
                let share = Array(files[thread...].striding(by: threads))
                group.addTask {
                    await withCheckedContinuation { continuation in
                        syncQueues[thread].async { continuation.resume(returning: syncAndClose(share)) }
                    }
                }
            }
            var failure: FileSystemError?
            for await result in group { failure = failure ?? result }
            return failure
        }
    }

    private static func syncAndClose(_ files: [(descriptor: Int32, path: String)]) -> FileSystemError? {
        var failure: FileSystemError?
        for (descriptor, path) in files {
            do throws(FileSystemError) {
                try POSIX.fsync(descriptor, path: path)
            } catch {
                failure = failure ?? error
            }
            POSIX.close(descriptor)
        }
        return failure
    }
}

extension ArraySlice {
    /// Every `step`th element, from the first.
    fileprivate func striding(by step: Int) -> [Element] {
        stride(from: startIndex, to: endIndex, by: step).map { self[$0] }
    }
}
