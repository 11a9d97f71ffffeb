import Foundation
import Testing

@testable import FirehoseSink

@Suite("The data directory lock")
struct DataDirectoryLockTests {
    @Test("A second holder is refused with the owner's PID until the first releases the lock")
    func exclusive() throws {
        try SinkHarness.withDirectory { directory in
            var first: DataDirectoryLock? = try DataDirectoryLock.acquire(dataDirectory: directory)
            let lockFile = "\(directory)/.firehose-local/lock"
            #expect(first?.path == lockFile)
            #expect(try String(contentsOfFile: lockFile, encoding: .utf8) == "\(getpid())\n")
            // flock conflicts between descriptors even in one process, as between two servers.
            #expect {
                _ = try DataDirectoryLock.acquire(dataDirectory: directory)
            } throws: { error in
                guard case .held(let path, let pid)? = error as? DataDirectoryLock.Failure else { return false }
                return path == lockFile && pid == getpid()
            }
            first = nil
            let second = try DataDirectoryLock.acquire(dataDirectory: directory)
            #expect(second.path == lockFile)
        }
    }

    @Test("A directory that cannot be made is a storage failure, not a hang or a crash")
    func unusableDirectory() throws {
        try SinkHarness.withDirectory { directory in
            let file = "\(directory)/plain-file"
            FileManager.default.createFile(atPath: file, contents: Data())
            #expect {
                _ = try DataDirectoryLock.acquire(dataDirectory: file)
            } throws: { error in
                guard case .storage? = error as? DataDirectoryLock.Failure else { return false }
                return "\(error)".hasPrefix("cannot lock the data directory:")
            }
        }
    }
}
