import DurableStorage
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `saveRecord` makes a record durable before the record store has it: an append-only file of
/// checksummed frames, one `pwrite` per save. Records move from here to SQLite in batches (one
/// transaction for hundreds of saves instead of one each), after which the file is cut back to its
/// header. On open, frames that SQLite does not have yet are replayed into it.
///
/// A frame is safe once `pwrite` returns: the bytes are in the OS's file cache, which outlives the
/// process (a crash, a SIGKILL, iOS terminating the app). With `Durability.powerLoss` a save also
/// waits for the file to be synced (`JournalSyncer`).
///
/// Frames are written at `length`, the end of the last frame known to be whole, never with
/// O_APPEND: a failed or torn write is overwritten by the next one, so the whole frames are always
/// a prefix of the file and reading stops at the first frame that does not check out.
///
/// Only the recorder's actor uses it, except the file descriptor, which the syncer shares.
final class RecordJournal: @unchecked Sendable {
    static let fileName = "firehose-records.journal"
    /// File header: format name and version.
    static let header: [UInt8] = Array("FHRJRNL2".utf8)
    /// Version 1 (before partition keys): still read, so an upgrade loses no journaled save; the
    /// first reset after replaying it writes the version-2 header.
    static let headerVersion1: [UInt8] = Array("FHRJRNL1".utf8)
    /// Frame header: body length (UInt32) and checksum of the body (UInt64), little-endian.
    static let frameHeaderLength = 12
    /// Body before the stream name: id (Int64), created-at seconds (Float64 bits), stream name length
    /// (UInt16), partition key length (UInt16); then the stream name, the partition key and the data.
    static let bodyFixedLength = 20
    /// Version 1's: no partition key length, no partition key.
    static let bodyFixedLengthVersion1 = 18

    struct Entry: Sendable {
        var id: Int64
        var stream: String
        var data: Data
        var createdAt: Double
        /// Empty for Firehose.
        var partitionKey = ""
    }

    let url: URL
    let file: JournalFile
    /// End of the last whole frame.
    private(set) var length: Int
    /// Frames appended since the file was last cut back; each save's sequence number for the syncer.
    private(set) var sequence: UInt64 = 0
    private var frame: [UInt8] = []
    /// The file has a version-1 header (and frames): the next reset writes version 2's.
    private var upgradeHeader = false

    private init(url: URL, file: JournalFile, length: Int) {
        self.url = url
        self.file = file
        self.length = length
    }

    /// Opens (creating if needed) the journal in `directory`, takes its lock, and returns the whole
    /// frames it holds. A file whose header is not ours is moved aside (`moved`) and a fresh one started.
    static func open(directory: URL, fileName: String = RecordJournal.fileName, now: Date) throws -> (
        RecordJournal, entries: [Entry], moved: URL?
    ) {
        let url = directory.appendingPathComponent(fileName)
        let existed = FileManager.default.fileExists(atPath: url.path)
        let file = try JournalFile(path: url.path)
        try file.lock()
        var moved: URL?
        let bytes = try file.readAll()
        var entries: [Entry] = []
        var length = header.count
        let version1 = bytes.count >= header.count && Array(bytes[0..<header.count]) == headerVersion1
        if bytes.count >= header.count, Array(bytes[0..<header.count]) == header || version1 {
            (entries, length) = parse(bytes)
        } else if !bytes.isEmpty {
            // Not a journal of this version: keep it for inspection rather than guess at its frames.
            let target = URL(fileURLWithPath: url.path + ".unreadable-\(Int(now.timeIntervalSince1970))")
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: url, to: target)
            moved = target
            length = 0
        } else {
            length = 0
        }
        let journal = RecordJournal(url: url, file: file, length: length)
        journal.upgradeHeader = version1
        if length == 0 {
            try file.truncate(to: 0)
            try file.write(header, at: 0)
            journal.length = header.count
        }
        if !existed {
            // The new name must survive a power loss as well as the frames written under it.
            try? JournalFile.syncDirectory(directory.path)
        }
        return (journal, entries, moved)
    }

    /// The whole frames of a journal's bytes (either version, by its header) and where they end.
    static func parse(_ bytes: [UInt8]) -> (entries: [Entry], length: Int) {
        var entries: [Entry] = []
        var offset = header.count
        let version1 = bytes.starts(with: headerVersion1)
        let fixed = version1 ? bodyFixedLengthVersion1 : bodyFixedLength
        bytes.withUnsafeBytes { raw in
            while offset + frameHeaderLength + fixed <= raw.count {
                let bodyLength = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                let checksum = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self))
                let bodyStart = offset + frameHeaderLength
                guard bodyLength >= fixed, bodyLength <= raw.count - bodyStart else { break }
                let body = UnsafeRawBufferPointer(rebasing: raw[bodyStart..<bodyStart + bodyLength])
                guard Self.checksum(body) == checksum else { break }
                let id = Int64(littleEndian: body.loadUnaligned(fromByteOffset: 0, as: Int64.self))
                let created = Double(
                    bitPattern: UInt64(littleEndian: body.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                let streamLength = Int(UInt16(littleEndian: body.loadUnaligned(fromByteOffset: 16, as: UInt16.self)))
                let keyLength =
                    version1 ? 0 : Int(UInt16(littleEndian: body.loadUnaligned(fromByteOffset: 18, as: UInt16.self)))
                guard fixed + streamLength + keyLength <= bodyLength else { break }
                let stream = String(decoding: body[fixed..<fixed + streamLength], as: UTF8.self)
                let keyStart = fixed + streamLength
                let partitionKey = String(decoding: body[keyStart..<keyStart + keyLength], as: UTF8.self)
                let data = Data(body[(keyStart + keyLength)...])
                entries.append(
                    Entry(id: id, stream: stream, data: data, createdAt: created, partitionKey: partitionKey))
                offset = bodyStart + bodyLength
            }
        }
        return (entries, offset)
    }

    /// Writes one record's frame; once this returns the record survives the process. Returns the
    /// frame's sequence number (for `JournalSyncer.wait`).
    func append(id: Int64, stream: String, partitionKey: String = "", data: Data, createdAt: Double) throws -> UInt64 {
        let streamBytes = stream.utf8
        let keyBytes = partitionKey.utf8
        let bodyLength = Self.bodyFixedLength + streamBytes.count + keyBytes.count + data.count
        frame.removeAll(keepingCapacity: true)
        frame.reserveCapacity(Self.frameHeaderLength + bodyLength)
        Self.appendLE(UInt32(bodyLength), to: &frame)
        Self.appendLE(UInt64(0), to: &frame)  // checksum, filled in below
        Self.appendLE(UInt64(bitPattern: id), to: &frame)
        Self.appendLE(createdAt.bitPattern, to: &frame)
        Self.appendLE(UInt16(streamBytes.count), to: &frame)
        Self.appendLE(UInt16(keyBytes.count), to: &frame)
        frame.append(contentsOf: streamBytes)
        frame.append(contentsOf: keyBytes)
        frame.append(contentsOf: data)
        frame.withUnsafeMutableBytes { raw in
            let sum = Self.checksum(UnsafeRawBufferPointer(rebasing: raw[Self.frameHeaderLength...]))
            raw.storeBytes(of: sum.littleEndian, toByteOffset: 4, as: UInt64.self)
        }
        try file.write(frame, at: length)
        length += frame.count
        sequence &+= 1
        return sequence
    }

    /// Cuts the file back to its header: every frame is in the record store now.
    func reset() throws {
        try file.truncate(to: Self.header.count)
        if upgradeHeader {
            try file.write(Self.header, at: 0)
            upgradeHeader = false
        }
        length = Self.header.count
    }

    var isEmpty: Bool { length == Self.header.count }

    private static func appendLE<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A 64-bit checksum, a word at a time: it only has to tell a whole frame from a torn or stale
    /// one, and must cost far less than the write it protects.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            hash = (hash ^ word) &* multiplier
            hash ^= hash >> 29
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < count {
            tail |= UInt64(bytes[index]) << shift
            shift += 8
            index += 1
        }
        hash = (hash ^ tail ^ 0x5A) &* multiplier
        hash ^= hash >> 32
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        return hash ^ (hash >> 33)
    }
}

/// The journal's file descriptor, closed when the last user (journal or syncer) lets go. Its calls
/// are DurableStorage's POSIX layer, their failures turned into the recorder's storage errors.
final class JournalFile: Sendable {
    let descriptor: Int32
    let path: String

    init(path: String) throws {
        descriptor = try Self.storage { () throws(FileSystemError) in
            try POSIX.open(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        }
        self.path = path
    }

    deinit {
        POSIX.close(descriptor)
    }

    /// An exclusive advisory lock for the life of the descriptor: a second recorder on the same
    /// directory would write frames over this one's.
    func lock() throws {
        do {
            try POSIX.lockExclusively(descriptor, path: path)
        } catch  where error.errno == EWOULDBLOCK {
            throw RecorderError(
                kind: .storage,
                message:
                    "\(path) is in use by another FirehoseRecorder or KinesisRecorder (one recorder per directory and service)."
            )
        } catch {
            throw Self.recorderError(error)
        }
    }

    func readAll() throws -> [UInt8] {
        try Self.storage { () throws(FileSystemError) in try POSIX.readAll(descriptor, path: path) }
    }

    func write(_ bytes: [UInt8], at offset: Int) throws {
        try Self.storage { () throws(FileSystemError) in
            try POSIX.writeAll(descriptor, bytes, at: Int64(offset), path: path)
        }
    }

    func truncate(to length: Int) throws {
        try Self.storage { () throws(FileSystemError) in try POSIX.truncate(descriptor, to: length, path: path) }
    }

    /// Data (and the size that reaches it) on stable storage.
    func sync() throws {
        try Self.storage { () throws(FileSystemError) in try POSIX.syncData(descriptor, path: path) }
    }

    static func syncDirectory(_ path: String) throws {
        try storage { () throws(FileSystemError) in try POSIX.fsyncDirectory(path) }
    }

    private static func storage<Result>(_ call: () throws(FileSystemError) -> Result) throws -> Result {
        do {
            return try call()
        } catch {
            throw recorderError(error)
        }
    }

    static func recorderError(_ error: FileSystemError) -> RecorderError {
        RecorderError(kind: .storage, message: "Cannot \(error) (errno \(error.errno))")
    }
}

/// Group commit for `Durability.powerLoss`: a save waits until a sync that began after its frame
/// was written has finished. One sync runs at a time, on its own thread; the saves that arrive
/// meanwhile share the next one, so concurrent savers pay about one sync each round, not one each.
/// The decisions are `GroupCommit`'s; this class performs them.
final class JournalSyncer: Sendable {
    private let file: JournalFile
    private let state = Mutex(GroupCommit<CheckedContinuation<Void, any Error>>())
    private let queue = DispatchQueue(label: "FirehoseRecorder.journal-sync")
    /// Syncs performed (tests check that concurrent saves share them).
    private let syncs = Atomic<Int>(0)

    init(file: JournalFile) {
        self.file = file
    }

    var syncCount: Int { syncs.load(ordering: .relaxed) }

    func written(_ sequence: UInt64) {
        state.withLock { $0.wrote(sequence) }
    }

    /// Frames up to `sequence` are durable another way (the record store committed them with a sync).
    func durable(through sequence: UInt64) {
        for waiter in state.withLock({ $0.madeDurable(through: sequence) }) { waiter.resume() }
    }

    /// Returns once frame `sequence` is on stable storage; throws if the sync failed.
    func wait(for sequence: UInt64) async throws {
        if state.withLock({ $0.durable >= sequence }) { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            switch state.withLock({ $0.wait(for: sequence, continuation) }) {
            case .resume(let waiter): waiter.resume()
            case .wait: break
            case .startSync: queue.async { self.sync() }
            }
        }
    }

    /// Syncs until no save waits any more.
    private func sync() {
        while true {
            var failure: (any Error)?
            do {
                try file.sync()
                syncs.add(1, ordering: .relaxed)
            } catch {
                failure = error
            }
            let outcome = state.withLock { failure == nil ? $0.syncSucceeded() : $0.syncFailed() }
            for waiter in outcome.resume { waiter.resume() }
            if let failure { for waiter in outcome.fail { waiter.resume(throwing: failure) } }
            if outcome.startSync == nil { return }
        }
    }
}
