import FirehoseClient
import FirehoseTestSupport
import Foundation
import Testing

@testable import FirehoseRecorder

@Suite("Saving")
struct SavingTests {
    @Test("A saved record is on disk: a new recorder on the directory sees it")
    func durableAcrossReopen() async throws {
        let directory = try TestDirectory("recorder")
        defer { directory.remove() }
        let saved: [Data]
        do {
            let harness = try Harness(directory: directory)
            saved = try await harness.save(3)
        }
        let reopened = try await Harness.reopening(directory: directory)
        let stored = try await reopened.recorder.storedRecords()
        #expect(stored.map(\.data) == saved)
        #expect(stored.map(\.streamName) == ["events", "events", "events"])
        #expect(try await reopened.recorder.diskBytesUsed == saved.reduce(0) { $0 + $1.count })
        #expect(FileManager.default.fileExists(atPath: directory.appending("firehose-records.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: directory.appending("firehose-records.sqlite-wal").path))
        #expect(FileManager.default.fileExists(atPath: directory.appending("firehose-records.journal").path))
    }

    @Test("Saving never touches the network")
    func saveIsLocal() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.slow(.seconds(60), then: .accept))
        let harness = try Harness(endpoint: endpoint)
        defer { harness.directory.remove() }
        try await harness.save(50)
        #expect(endpoint.requestCount == 0)
    }

    @Test("Ids are never reused: not after delivery, not after removeAllRecords, not after reopening")
    func idsNeverReused() async throws {
        let directory = try TestDirectory("recorder")
        defer { directory.remove() }
        var ids: [Int64] = []
        do {
            let harness = try Harness(directory: directory)
            for index in 0..<3 {
                ids.append(try await harness.recorder.saveRecord(Data([UInt8(index)]), streamName: "events"))
            }
            _ = await harness.recorder.submitAllRecords()
            ids.append(try await harness.recorder.saveRecord(Data([9]), streamName: "events"))
            try await harness.recorder.removeAllRecords()
            #expect(try await harness.recorder.recordCount == 0)
            ids.append(try await harness.recorder.saveRecord(Data([10]), streamName: "events"))
        }
        let reopened = try await Harness.reopening(directory: directory)
        try await reopened.recorder.removeAllRecords()
        ids.append(try await reopened.recorder.saveRecord(Data([11]), streamName: "events"))
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }

    @Test("Records over 1,024,000 bytes are refused at save time with a clear error")
    func tooLarge() async throws {
        let harness = try Harness(.init(diskByteLimit: 10 * 1024 * 1024))
        defer { harness.directory.remove() }
        let error = await #expect(throws: RecorderError.self) {
            try await harness.recorder.saveRecord(Data(count: 1_024_001), streamName: "events")
        }
        #expect(error?.kind == .recordTooLarge)
        #expect(error?.message == "Record of 1024001 bytes refused: Firehose's limit per record is 1024000 bytes.")
        try await harness.recorder.saveRecord(Data(count: 1_024_000), streamName: "events")
        #expect(try await harness.recorder.recordCount == 1)
    }

    @Test("A record larger than diskByteLimit is refused rather than evicting everything")
    func overDiskLimit() async throws {
        let harness = try Harness(.init(diskByteLimit: 100))
        defer { harness.directory.remove() }
        try await harness.save(2, size: 40)
        let error = await #expect(throws: RecorderError.self) {
            try await harness.recorder.saveRecord(Data(count: 101), streamName: "events")
        }
        #expect(error?.message.contains("diskByteLimit") == true)
        #expect(try await harness.recorder.recordCount == 2)
    }

    @Test("Invalid stream names are refused at save time")
    func badStreamName() async throws {
        let harness = try Harness()
        defer { harness.directory.remove() }
        for name in ["", "has space", String(repeating: "a", count: 65), "slash/no"] {
            let error = await #expect(throws: RecorderError.self) {
                try await harness.recorder.saveRecord(Data([1]), streamName: name)
            }
            #expect(error?.kind == .invalidStreamName)
        }
    }
}
