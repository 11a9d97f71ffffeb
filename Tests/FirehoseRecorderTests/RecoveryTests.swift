import FirehoseClient
import FirehoseTestSupport
import Foundation
import GRDB
import Testing

@testable import FirehoseRecorder

@Suite("Corrupt database recovery")
struct RecoveryTests {
    private func recoveredEvent(_ events: EventLog) async -> (URL, String)? {
        await events.wait { $0.contains { if case .databaseRecovered = $0 { return true } else { return false } } }
        for event in events.all {
            if case .databaseRecovered(let movedTo, let reason) = event { return (movedTo, reason) }
        }
        return nil
    }

    @Test("A file that is not a database is moved aside and a fresh store created, with an event")
    func notADatabase() async throws {
        let directory = try TestDirectory("corrupt")
        defer { directory.remove() }
        let file = directory.appending("firehose-records.sqlite")
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: file)
        let harness = try Harness(directory: directory)
        let recovered = try #require(await recoveredEvent(harness.events))
        #expect(recovered.0.lastPathComponent.hasPrefix("firehose-records.sqlite.corrupt-"))
        #expect(try Data(contentsOf: recovered.0) == garbage)
        #expect(!recovered.1.isEmpty)
        // The fresh store works, and its ids start above anything the lost one could have used.
        let id = try await harness.recorder.saveRecord(Data([1]), streamName: "events")
        #expect(id > 1_000_000_000)
        #expect(await harness.recorder.submitAllRecords().sentRecords == 1)
    }

    @Test("Damaged pages inside a real database are caught at open")
    func damagedPages() async throws {
        let directory = try TestDirectory("corrupt-pages")
        defer { directory.remove() }
        do {
            let harness = try Harness(directory: directory)
            try await harness.save(400, size: 300)
        }
        // Checkpoint the WAL into the main file so the damage hits real b-tree pages.
        let path = directory.appending("firehose-records.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try await queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try queue.close()
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        // Scribble over the middle pages (b-tree headers and cells), leaving the file header intact.
        for offset in stride(from: UInt64(4096 * 2), to: size - 4096, by: 4096) {
            try handle.seek(toOffset: offset)
            handle.write(Data(repeating: 0xA5, count: 64))
        }
        try handle.close()
        let harness = try Harness(directory: directory)
        let recovered = try #require(await recoveredEvent(harness.events))
        #expect(FileManager.default.fileExists(atPath: recovered.0.path))
        #expect(try await harness.recorder.recordCount == 0)
        try await harness.recorder.saveRecord(Data([1]), streamName: "events")
        #expect(try await harness.recorder.recordCount == 1)
    }

    @Test("A healthy database opens without any recovery")
    func healthy() async throws {
        let directory = try TestDirectory("recorder")
        defer { directory.remove() }
        do {
            let harness = try Harness(directory: directory)
            try await harness.save(3)
        }
        let reopened = try await Harness.reopening(directory: directory)
        #expect(try await reopened.recorder.recordCount == 3)
        _ = await reopened.recorder.submitAllRecords()
        #expect(await reopened.events.kinds(throughSubmit: 1) == ["submitFinished"])
    }
}
