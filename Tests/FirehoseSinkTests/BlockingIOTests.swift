import DurableStorage
import Foundation
import Testing

@testable import FirehoseSink

@Suite("BlockingIO: fsyncs of a group commit")
struct BlockingIOTests {
    @Test(
        "Every file is synced, over one thread or several; a failure is reported, naming its file",
        arguments: [3, BlockingIO.filesPerSyncThread * 5 + 1])
    func syncsAndClosesEveryFile(count: Int) async throws {
        let directory = try SinkHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var files: [(descriptor: Int32, path: String)] = []
        for index in 0..<count {
            let path = "\(directory)/f\(index)"
            let descriptor = try POSIX.open(path, flags: O_WRONLY | O_CREAT)
            try POSIX.writeAll(descriptor, Array("record \(index)".utf8), at: 0, path: path)
            files.append((descriptor, path))
        }
        #expect(await BlockingIO.fsyncAndClose(files) == nil)

        // A descriptor that is not open fails its fsync; the others are still synced. (That each is
        // closed cannot be checked here: tests running alongside reuse descriptor numbers at once.)
        var again: [(descriptor: Int32, path: String)] = try (0..<count).map { index in
            let path = "\(directory)/f\(index)"
            return (try POSIX.open(path, flags: O_WRONLY), path)
        }
        again[count / 2] = (-1, "\(directory)/not-open")
        let failure = await BlockingIO.fsyncAndClose(again)
        #expect(failure?.path == "\(directory)/not-open")
    }
}
