#if canImport(Glibc)
    package import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed file-system call, with the path and the errno text a person can act on.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32
    /// What went wrong when it is not said by `errno` alone (an object store's answer).
    public var detail: String?

    package init(operation: String, path: String, errno: Int32, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        "\(operation) \(path): \(detail ?? String(cString: strerror(errno)))"
    }
}

/// Small files replaced whole: the sink's stream catalog, the server's port file.
package enum AtomicFile {
    /// Writes `bytes` to `temporary` and renames it over `path`, so readers never see the file
    /// half-written. `durable` also fsyncs the file and then its folder, so the new contents survive
    /// a crash; without it nothing waits for the disk.
    /// - Parameter mode: the new file's permissions (`0o600` for one holding secrets).
    package static func replace(
        _ path: String, with bytes: [UInt8], temporary: String, durable: Bool, mode: mode_t = 0o644
    ) throws(FileSystemError) {
        let fd = try POSIX.open(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: mode)
        do {
            try POSIX.writeAll(fd, bytes, at: 0, path: temporary)
            if durable { try POSIX.fsync(fd, path: temporary) }
            POSIX.close(fd)
        } catch {
            POSIX.close(fd)
            POSIX.unlink(temporary)
            throw error
        }
        try POSIX.rename(temporary, path)
        if durable { try POSIX.fsyncParent(of: path) }
    }
}

/// Thin wrappers over the POSIX calls the sink and the recorder need, each retrying EINTR and
/// reporting errno. The C functions are called through the `system…` functions at the end of the
/// file, because inside this enum their names mean its own members.
package enum POSIX {
    package static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(FileSystemError) -> Int32 {
        while true {
            let fd = systemOpen(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw FileSystemError(operation: "open", path: path, errno: errno) }
        }
    }

    /// `dup`, closed on exec as `open`'s descriptors are (a plain `dup` is not), so a command the
    /// server runs (a Lambda function's) holds none of its files. -1 on failure.
    package static func duplicate(_ fd: Int32) -> Int32 {
        fcntl(fd, F_DUPFD_CLOEXEC, 0)
    }

    /// Writes all of `bytes` at `offset` (pwrite), so a retried write lands on the same bytes.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int64, path: String) throws(FileSystemError)
    {
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += written
            }
        }
        if failure != 0 { throw FileSystemError(operation: "write", path: path, errno: failure) }
    }

    package static func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        while systemFsync(fd) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "fsync", path: path, errno: errno) }
        }
    }

    /// The file's data, and the size that reaches it, on stable storage: `fdatasync` where it exists.
    /// On Apple platforms fsync only hands the data to the drive, whose cache a power loss empties;
    /// `F_FULLFSYNC` flushes that too.
    package static func syncData(_ fd: Int32, path: String) throws(FileSystemError) {
        while true {
            #if canImport(Darwin)
                if fcntl(fd, F_FULLFSYNC) == 0 || systemFsync(fd) == 0 { return }
            #else
                if fdatasync(fd) == 0 { return }
            #endif
            if errno != EINTR { throw FileSystemError(operation: "sync", path: path, errno: errno) }
        }
    }

    package static func close(_ fd: Int32) {
        _ = systemClose(fd)
    }

    /// An exclusive advisory lock held for the life of the descriptor; `EWOULDBLOCK` when another
    /// descriptor holds it.
    package static func lockExclusively(_ fd: Int32, path: String) throws(FileSystemError) {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "lock", path: path, errno: errno) }
        }
    }

    package static func truncate(_ fd: Int32, to length: Int, path: String) throws(FileSystemError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "truncate", path: path, errno: errno) }
        }
    }

    /// Makes the directory entries of `directory` durable (a rename is not until its directory is synced).
    package static func fsyncDirectory(_ directory: String) throws(FileSystemError) {
        let fd = try open(directory, flags: O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: directory)
    }

    /// Makes the folder of `path` durable: a rename or a new entry in it survives a crash. A path
    /// without a folder is in the working directory.
    package static func fsyncParent(of path: String) throws(FileSystemError) {
        guard let slash = path.lastIndex(of: "/") else { return try fsyncDirectory(".") }
        try fsyncDirectory(slash == path.startIndex ? "/" : String(path[..<slash]))
    }

    /// Makes `path` (and its missing parents) unless it is a folder already, durably: its entry in
    /// its parent is synced.
    package static func makeDirectoriesDurably(_ path: String) throws(FileSystemError) {
        guard !isDirectory(path) else { return }
        try makeDirectories(path)
        try fsyncParent(of: path)
    }

    package static func rename(_ from: String, _ to: String) throws(FileSystemError) {
        if systemRename(from, to) != 0 {
            throw FileSystemError(operation: "rename", path: "\(from) -> \(to)", errno: errno)
        }
    }

    package static func unlink(_ path: String) {
        _ = systemUnlink(path)
    }

    /// A second name for the file at `from` (same file system).
    package static func link(_ from: String, _ to: String) throws(FileSystemError) {
        if systemLink(from, to) != 0 {
            throw FileSystemError(operation: "link", path: "\(from) -> \(to)", errno: errno)
        }
    }

    /// Unlinks `path`; false when it did not exist, an error for any other failure.
    @discardableResult
    package static func remove(_ path: String) throws(FileSystemError) -> Bool {
        if systemUnlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw FileSystemError(operation: "unlink", path: path, errno: errno)
    }

    /// `mkdir -p`: creates each missing component; an existing directory is fine.
    package static func makeDirectories(_ path: String) throws(FileSystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw FileSystemError(operation: "mkdir", path: current, errno: errno)
            }
        }
        guard isDirectory(path) else { throw FileSystemError(operation: "mkdir", path: path, errno: ENOTDIR) }
    }

    package static func readFile(_ path: String) throws(FileSystemError) -> [UInt8] {
        let fd = try open(path, flags: O_RDONLY)
        defer { close(fd) }
        return try readAll(fd, path: path)
    }

    /// Everything in the open file, read from its start (pread: the descriptor's offset is not moved).
    package static func readAll(_ fd: Int32, path: String) throws(FileSystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try read(fd, upTo: 1 << 16, at: Int64(bytes.count), path: path)
            if chunk.isEmpty { return bytes }
            bytes += chunk
        }
    }

    /// Up to `count` bytes of the open file from `offset` (pread): fewer only where the file ends.
    package static func read(_ fd: Int32, upTo count: Int, at offset: Int64, path: String) throws(FileSystemError)
        -> [UInt8]
    {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
            }
            if read < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "read", path: path, errno: errno)
            }
            if read == 0 { break }
            filled += read
        }
        if filled < count { bytes.removeLast(count - filled) }
        return bytes
    }

    /// Copies the open file `source`, from its start to its end, into `destination` from `offset`,
    /// 1 MiB at a time (pread and pwrite: neither descriptor's offset moves); returns the bytes copied.
    package static func copy(
        _ source: Int32, path sourcePath: String, into destination: Int32, at offset: Int64, path: String
    ) throws(FileSystemError) -> Int {
        var copied = 0
        while true {
            let chunk = try read(source, upTo: 1 << 20, at: Int64(copied), path: sourcePath)
            if chunk.isEmpty { return copied }
            try writeAll(destination, chunk, at: offset + Int64(copied), path: path)
            copied += chunk.count
        }
    }

    /// The open file's size in bytes.
    package static func size(_ fd: Int32, path: String) throws(FileSystemError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError(operation: "stat", path: path, errno: errno) }
        return Int(info.st_size)
    }

    /// Hard links of an open file: 0 once it was unlinked.
    package static func linkCount(_ fd: Int32) -> Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_nlink) : 0
    }

    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    package static func listDirectory(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

// The C calls under names of their own: inside `POSIX` the plain names are its members.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
private func systemLink(_ from: String, _ to: String) -> Int32 { link(from, to) }
