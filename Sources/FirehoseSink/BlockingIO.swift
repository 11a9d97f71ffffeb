import Dispatch
import DurableStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs blocking file-system calls on a thread of their own rather than Swift's cooperative pool,
/// which has one thread per core: an fsync parked there would stall every request of every stream.
enum BlockingIO {
    // A serial queue, not a concurrent one: on Linux a concurrent queue runs its blocks on the same
    // width-limited root queue threads as Swift's tasks, so fsyncs of eight streams at once parked
    // both of this machine's task threads (the server used 1.83 of 2 cores; with this queue, 1.93).
    // A serial queue gets a thread outside that limit. Group commits of different streams then run
    // one after another, which measured no slower than side by side (docs/benchmarks.md).
    private static let queue = DispatchQueue(label: "firehose-local.blocking-io")

    /// Runs `body` on the blocking-I/O thread and returns its result.
    static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// fsyncs each descriptor, then closes it. Returns the first failure, naming its file.
    static func fsyncAndClose(_ files: [(descriptor: Int32, path: String)]) async -> FileSystemError? {
        guard !files.isEmpty else { return nil }
        return await run {
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
}
