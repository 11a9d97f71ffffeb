import Dispatch
import DurableStorage
import FirehoseWire
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The encoding stage run at delivery, for buffers staged as they are
/// (`DeliveryStreamSettings.encodesAtDelivery`): reads the staged content a chunk at a time and
/// writes the object beside it, so memory holds one chunk and one encoder whatever the buffer size,
/// and one warm compressor sees megabytes at a time. A `WholeObjectEncoding` gets the content whole:
/// memory then holds it and its object, at most one of each per core (`gate`).
enum DeliveryEncoding {
    /// Content encoded per step. The task yields between steps: a 128 MiB buffer must not hold one of
    /// the cooperative threads, which serve requests too, for seconds.
    static let chunkBytes = 1 << 20

    /// Objects encoded at once, across every stream: one per core uses them all and bounds memory
    /// (a chunk and an encoder each) however many partitions deliver together.
    static let gate = AsyncGate(width: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Threads of their own for whole objects, one per place in `gate`: a whole object is one call
    /// that cannot yield (libdeflate takes about 70 ms for 5 MiB, 1.8 s for 128 MiB), which on the
    /// cooperative pool's threads, one per core, would stop every request while it runs.
    private static let wholeObjectThreads = ThreadShelf(
        (0..<gate.width).map { DispatchQueue(label: "firehose-local.whole-object-\($0)") })

    /// Serial queues lent one at a time; the gate lets no more borrowers in than there are queues.
    private final class ThreadShelf: Sendable {
        private let free: Mutex<[DispatchQueue]>

        init(_ queues: [DispatchQueue]) {
            free = Mutex(queues)
        }

        func take() -> DispatchQueue {
            guard let queue = free.withLock({ $0.popLast() }) else {
                preconditionFailure("more whole-object encodings than places in the gate")
            }
            return queue
        }

        func put(_ queue: DispatchQueue) {
            free.withLock { $0.append(queue) }
        }
    }

    /// Content of the whole-object encodings started and not yet finished, across every stream, and
    /// the requests waiting for it to shrink, in arrival order (`waitForRoom`).
    private static let backlog = Mutex(Backlog())

    private struct Backlog {
        var bytes = 0
        var waiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The waiters whose turn has come, oldest first: each goes once the content under way is
        /// within its limit, and none before an older one.
        mutating func ready() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = waiters.first, bytes <= first.limit {
                ready.append(first.continuation)
                waiters.removeFirst()
            }
            return ready
        }
    }

    /// Content of the encodings under way or queued, across every stream.
    static var backlogBytes: Int { backlog.withLock { $0.bytes } }

    /// Requests waiting in `waitForRoom` now.
    static var requestsWaitingForRoom: Int { backlog.withLock { $0.waiters.count } }

    /// Returns once the encodings under way or queued hold at most `limit` bytes of content and every
    /// request that began waiting earlier has gone (in order: a request that just arrived does not
    /// pass one that has waited, which under a steady load could wait for seconds).
    static func waitForRoom(below limit: Int) async {
        await withCheckedContinuation { continuation in
            let waits = backlog.withLock { backlog -> Bool in
                guard !backlog.waiters.isEmpty || backlog.bytes > limit else { return false }
                backlog.waiters.append((limit, continuation))
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// Writes `encoding` of the first `length` bytes of the file `source`, whose CRC-32 must be
    /// `contentCRC` (what was staged: anything else is refused, EIO, rather than delivered), to
    /// `destination` (replaced if it exists; removed on failure). Returns the object's length.
    @concurrent
    static func encode(
        _ source: String, length: Int, contentCRC expectedCRC: UInt32, with encoding: any ObjectEncoding,
        into destination: String
    ) async throws(FileSystemError) -> Int {
        // Only whole objects count: those are the encodings whose streams' requests wait for room
        // (a partitioned stream's bursts, encoded a chunk at a time, would hold them back for long).
        let whole = encoding as? any WholeObjectEncoding
        let counted = whole == nil ? 0 : length
        backlog.withLock { $0.bytes += counted }
        defer {
            let ready = backlog.withLock { backlog in
                backlog.bytes -= counted
                return backlog.ready()
            }
            for waiter in ready { waiter.resume() }
        }
        return try await gate.run { () async throws(FileSystemError) -> Int in
            let input = try POSIX.open(source, flags: O_RDONLY)
            defer { POSIX.close(input) }
            let output = try POSIX.open(destination, flags: O_WRONLY | O_CREAT | O_TRUNC)
            defer { POSIX.close(output) }
            do throws(FileSystemError) {
                if let whole {
                    let thread = wholeObjectThreads.take()
                    defer { wholeObjectThreads.put(thread) }
                    return try await BlockingIO.perform(on: thread) { () throws(FileSystemError) -> Int in
                        let content = try POSIX.read(input, upTo: length, at: 0, path: source)
                        // Shorter than its journal says, or changed since it was written: from outside.
                        guard content.count == length, CRC32.checksum(content[...]) == expectedCRC else {
                            throw FileSystemError(operation: "read", path: source, errno: EIO)
                        }
                        let object = try whole.encodeObject(content, contentCRC: expectedCRC)
                        try POSIX.writeAll(output, object, at: 0, path: destination)
                        return object.count
                    }
                }
                let encoder = encoding.makeSegmentEncoder()
                var written = 0
                func write(_ bytes: [UInt8]) throws(FileSystemError) {
                    try POSIX.writeAll(output, bytes, at: Int64(written), path: destination)
                    written += bytes.count
                }
                try write(encoder.header)
                var offset = 0
                var contentCRC: UInt32 = 0
                while offset < length {
                    let wanted = min(chunkBytes, length - offset)
                    let chunk = try POSIX.read(input, upTo: wanted, at: Int64(offset), path: source)
                    // Shorter than its journal says: the staged file was cut from outside.
                    guard chunk.count == wanted else {
                        throw FileSystemError(operation: "read", path: source, errno: EIO)
                    }
                    let segment = encoder.encodeHere(
                        RecordRun(records: RecordBatch(storage: chunk, ends: [chunk.count]), range: 0..<1))
                    contentCRC = CRC32.combine(contentCRC, segment.contentCRC, secondLength: segment.contentLength)
                    try write(segment.stored)
                    offset += wanted
                    await Task.yield()
                }
                // The staged file was changed from outside since it was written.
                guard contentCRC == expectedCRC else {
                    throw FileSystemError(operation: "read", path: source, errno: EIO)
                }
                try write(encoder.trailer(contentCRC: contentCRC, contentLength: length, storedLength: written))
                return written
            } catch {
                POSIX.unlink(destination)
                throw error
            }
        }
    }
}
