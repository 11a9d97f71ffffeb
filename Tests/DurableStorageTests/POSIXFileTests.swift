import Foundation
import Testing

@testable import DurableStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file layer the sink and the recorder share, against a real temporary directory.
@Suite("POSIX file layer")
final class POSIXFileTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("posix-\(UUID().uuidString)").path
        try POSIX.makeDirectories(directory + "/nested/deeper")
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test("AtomicFile replaces a file whole and leaves no temporary behind")
    func atomicReplace() throws {
        let path = directory + "/catalog.json"
        for (round, text) in ["first version", "second, longer version", "3"].enumerated() {
            try AtomicFile.replace(path, with: Array(text.utf8), temporary: path + ".tmp", durable: round != 1)
            #expect(try POSIX.readFile(path) == Array(text.utf8))
        }
        #expect(POSIX.listDirectory(directory).sorted() == ["catalog.json", "nested"])
    }

    @Test("A replace that cannot write keeps the old file and names the path that failed")
    func atomicReplaceFailure() throws {
        let path = directory + "/kept.json"
        try AtomicFile.replace(path, with: Array("old".utf8), temporary: path + ".tmp", durable: false)
        let missing = directory + "/no-such-folder/kept.json.tmp"
        let error = #expect(throws: FileSystemError.self) {
            try AtomicFile.replace(path, with: Array("new".utf8), temporary: missing, durable: true)
        }
        #expect(error?.errno == ENOENT)
        #expect(error?.path == missing)
        #expect(try POSIX.readFile(path) == Array("old".utf8))
    }

    @Test("Writes land at their offset, a read returns the whole file, truncate cuts it back")
    func writeReadTruncate() throws {
        let path = directory + "/journal"
        let fd = try POSIX.open(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        defer { POSIX.close(fd) }
        try POSIX.writeAll(fd, Array("header".utf8), at: 0, path: path)
        try POSIX.writeAll(fd, Array(repeating: 7, count: 200_000), at: 6, path: path)
        try POSIX.syncData(fd, path: path)
        let bytes = try POSIX.readAll(fd, path: path)
        #expect(bytes.count == 200_006)
        #expect(Array(bytes[0..<6]) == Array("header".utf8))
        try POSIX.truncate(fd, to: 6, path: path)
        #expect(try POSIX.readAll(fd, path: path) == Array("header".utf8))
    }

    @Test("A second exclusive lock on one file is refused with EWOULDBLOCK")
    func exclusiveLock() throws {
        let path = directory + "/locked"
        let first = try POSIX.open(path, flags: O_RDWR | O_CREAT)
        defer { POSIX.close(first) }
        try POSIX.lockExclusively(first, path: path)
        let second = try POSIX.open(path, flags: O_RDWR)
        defer { POSIX.close(second) }
        let error = #expect(throws: FileSystemError.self) { try POSIX.lockExclusively(second, path: path) }
        #expect(error?.errno == EWOULDBLOCK)
    }

    @Test("makeDirectories accepts what exists and refuses a file in the way")
    func makeDirectories() throws {
        try POSIX.makeDirectories(directory + "/nested/deeper")
        #expect(POSIX.isDirectory(directory + "/nested/deeper"))
        try AtomicFile.replace(directory + "/file", with: [1], temporary: directory + "/file.tmp", durable: false)
        #expect(throws: FileSystemError.self) { try POSIX.makeDirectories(directory + "/file/below") }
    }
}
