import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs blocking file-system calls on Dispatch's threads rather than Swift's cooperative pool, which
/// has one thread per core: an fsync parked there would stall every request of every stream.
enum BlockingIO {
    private static let queue = DispatchQueue(label: "firehose-local.blocking-io", attributes: .concurrent)

    /// fsyncs each descriptor, then closes it. Returns the first failure, naming its file.
    static func fsyncAndClose(_ files: [(descriptor: Int32, path: String)]) async -> FileSystemError? {
        guard !files.isEmpty else { return nil }
        return await withCheckedContinuation { continuation in
            queue.async {
                var failure: FileSystemError?
                for (descriptor, path) in files {
                    do throws(FileSystemError) {
                        try POSIX.fsync(descriptor, path: path)
                    } catch {
                        failure = failure ?? error
                    }
                    POSIX.close(descriptor)
                }
                continuation.resume(returning: failure)
            }
        }
    }
}
