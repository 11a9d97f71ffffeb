#if canImport(Glibc)
    package import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file of lines, each on disk before `append` returns, rewritten whole when most of its lines are
/// no longer wanted: the Cognito endpoint's identities and issued credentials.
///
/// A crash can leave only the last line torn (each append is synced before the next starts): opening
/// the file drops a last line without its newline, and cuts it off so the next append starts clean.
/// Not thread-safe: its owner serializes calls.
package final class JSONLinesFile {
    package let path: String
    private let mode: mode_t
    private var fd: Int32
    private var size: Int

    /// Opens, or creates, the file at `path` (its folder must exist) and returns it with its complete
    /// lines, newline not included.
    /// - Parameter mode: permissions of a file created (`0o600` for one holding secrets).
    package static func open(_ path: String, mode: mode_t = 0o644) throws(FileSystemError) -> (
        file: JSONLinesFile, lines: [ArraySlice<UInt8>]
    ) {
        let fd = try POSIX.open(path, flags: O_RDWR | O_CREAT, mode: mode)
        do {
            let bytes = try POSIX.readAll(fd, path: path)
            let end = bytes.lastIndex(of: newline).map { $0 + 1 } ?? 0
            if end < bytes.count {
                try POSIX.truncate(fd, to: end, path: path)
                try POSIX.syncData(fd, path: path)
            }
            let lines = bytes[..<end].split(separator: newline)
            return (JSONLinesFile(path: path, mode: mode, fd: fd, size: end), lines)
        } catch {
            POSIX.close(fd)
            throw error
        }
    }

    private init(path: String, mode: mode_t, fd: Int32, size: Int) {
        self.path = path
        self.mode = mode
        self.fd = fd
        self.size = size
    }

    deinit { POSIX.close(fd) }

    private static let newline = UInt8(ascii: "\n")

    /// Appends `line` (which must not contain a newline) and its newline, and syncs them to disk.
    package func append(_ line: [UInt8]) throws(FileSystemError) {
        precondition(!line.contains(Self.newline), "a line holds no newline")
        do {
            try POSIX.writeAll(fd, line + [Self.newline], at: Int64(size), path: path)
            try POSIX.syncData(fd, path: path)
        } catch {
            // A partial line must not become the start of the next one.
            try? POSIX.truncate(fd, to: size, path: path)
            throw error
        }
        size += line.count + 1
    }

    /// Replaces the whole file with `lines`, atomically and durably. The new file is open before it
    /// takes the old one's place, so appends never go to a file that is no longer there.
    package func rewrite(_ lines: [[UInt8]]) throws(FileSystemError) {
        var bytes: [UInt8] = []
        for line in lines {
            precondition(!line.contains(Self.newline), "a line holds no newline")
            bytes += line
            bytes.append(Self.newline)
        }
        let temporary = path + ".tmp"
        let replacement = try POSIX.open(temporary, flags: O_RDWR | O_CREAT | O_TRUNC, mode: mode)
        do {
            try POSIX.writeAll(replacement, bytes, at: 0, path: temporary)
            try POSIX.fsync(replacement, path: temporary)
            try POSIX.rename(temporary, path)
        } catch {
            POSIX.close(replacement)
            POSIX.unlink(temporary)
            throw error
        }
        POSIX.close(fd)
        fd = replacement
        size = bytes.count
        // Until the folder is synced a crash finds the old file, whole; either is consistent.
        try POSIX.fsyncParent(of: path)
    }
}
