#if canImport(Glibc)
    import Glibc
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

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }
}

/// Small files replaced whole: the sink's stream catalog, the server's port file.
public enum AtomicFile {
    /// Writes `bytes` to `temporary` and renames it over `path`, so readers never see the file
    /// half-written. `durable` also fsyncs the file and then its folder, so the new contents survive
    /// a crash; without it nothing waits for the disk.
    public static func replace(_ path: String, with bytes: [UInt8], temporary: String, durable: Bool)
        throws(FileSystemError)
    {
        let fd = try POSIX.open(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
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
        if durable, let slash = path.lastIndex(of: "/") {
            try POSIX.fsyncDirectory(slash == path.startIndex ? "/" : String(path[..<slash]))
        }
    }
}

/// Thin wrappers over the POSIX calls the sink needs, each retrying EINTR and reporting errno.
enum POSIX {
    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(FileSystemError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw FileSystemError(operation: "open", path: path, errno: errno) }
        }
    }

    /// Writes all of `bytes` at `offset` (pwrite), so a retried write lands on the same bytes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int64, path: String) throws(FileSystemError) {
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

    static func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        while Glibc.fsync(fd) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "fsync", path: path, errno: errno) }
        }
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Makes the directory entries of `directory` durable (a rename is not until its directory is synced).
    static func fsyncDirectory(_ directory: String) throws(FileSystemError) {
        let fd = try open(directory, flags: O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: directory)
    }

    static func rename(_ from: String, _ to: String) throws(FileSystemError) {
        if Glibc.rename(from, to) != 0 {
            throw FileSystemError(operation: "rename", path: "\(from) -> \(to)", errno: errno)
        }
    }

    static func unlink(_ path: String) {
        _ = Glibc.unlink(path)
    }

    /// `mkdir -p`: creates each missing component; an existing directory is fine.
    static func makeDirectories(_ path: String) throws(FileSystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if Glibc.mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw FileSystemError(operation: "mkdir", path: current, errno: errno)
            }
        }
        guard isDirectory(path) else { throw FileSystemError(operation: "mkdir", path: path, errno: ENOTDIR) }
    }

    static func readFile(_ path: String) throws(FileSystemError) -> [UInt8] {
        let fd = try open(path, flags: O_RDONLY)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSystemError(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Hard links of an open file: 0 once it was unlinked.
    static func linkCount(_ fd: Int32) -> Int {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_nlink) : 0
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func listDirectory(_ path: String) -> [String] {
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
