import FirehoseClient
import FirehoseTestSupport
import Foundation
import Testing

@testable import FirehoseRecorder

@Suite("Save journal and durability")
struct JournalTests {
    private func entry(_ id: Int64, _ text: String, stream: String = "events") -> RecordJournal.Entry {
        RecordJournal.Entry(id: id, stream: stream, data: Data(text.utf8), createdAt: 1_795_000_000 + Double(id))
    }

    @Test("Frames round-trip; a torn frame and whatever follows it are ignored")
    func tornTail() throws {
        let directory = try TestDirectory("journal")
        defer { directory.remove() }
        let url = directory.appending(RecordJournal.fileName)
        do {
            let (journal, entries, moved) = try RecordJournal.open(directory: directory.url, now: Date())
            #expect(entries.isEmpty && moved == nil)
            for id in 1...3 {
                _ = try journal.append(id: Int64(id), stream: "s\(id)", data: Data("data-\(id)".utf8), createdAt: 7.5)
            }
            _ = try journal.append(id: 4, stream: "s4", data: Data(count: 5_000), createdAt: 8)
        }
        // Cut the last frame short, as a write interrupted by a crash would leave it, and add junk.
        var bytes = try Data(contentsOf: url)
        bytes.removeLast(1_000)
        bytes.append(Data(repeating: 0xEE, count: 300))
        try bytes.write(to: url)
        let (_, entries, _) = try RecordJournal.open(directory: directory.url, now: Date())
        #expect(entries.map(\.id) == [1, 2, 3])
        #expect(entries.map(\.stream) == ["s1", "s2", "s3"])
        #expect(entries.map { String(decoding: $0.data, as: UTF8.self) } == ["data-1", "data-2", "data-3"])
        #expect(entries.allSatisfy { $0.createdAt == 7.5 })
    }

    @Test("A flipped bit anywhere in a frame makes it, and the frames after it, unreadable")
    func checksum() throws {
        let directory = try TestDirectory("journal-bits")
        defer { directory.remove() }
        let url = directory.appending(RecordJournal.fileName)
        do {
            let (journal, _, _) = try RecordJournal.open(directory: directory.url, now: Date())
            _ = try journal.append(id: 1, stream: "events", data: Data("first".utf8), createdAt: 1)
            _ = try journal.append(id: 2, stream: "events", data: Data("second record".utf8), createdAt: 2)
        }
        let original = try Data(contentsOf: url)
        let firstFrameEnd =
            RecordJournal.header.count + RecordJournal.frameHeaderLength
            + RecordJournal.bodyFixedLength + "events".utf8.count + "first".utf8.count
        for offset in firstFrameEnd..<original.count {
            var damaged = original
            damaged[offset] ^= 0x10
            let (entries, _) = RecordJournal.parse([UInt8](damaged))
            #expect(entries.map(\.id) == [1], "bit flipped at \(offset)")
        }
    }

    @Test("Records journaled by a process that died are in the store when the next one opens, once")
    func replay() async throws {
        let directory = try TestDirectory("journal-replay")
        defer { directory.remove() }
        // What a killed saver leaves: a store with some records and a journal holding later ones,
        // the first of them already moved into the store (killed between commit and the journal's reset).
        do {
            let (store, _) = try RecordStore.open(directory: directory.url, now: Date(), durability: .appCrash)
            _ = try store.insert(
                [entry(1, "one"), entry(2, "two")], expireBefore: nil, incoming: 0, byteLimit: .max, inFlight: [])
            store.close()
            let (journal, _, _) = try RecordJournal.open(directory: directory.url, now: Date())
            for item in [entry(2, "two"), entry(3, "three"), entry(4, "four")] {
                _ = try journal.append(id: item.id, stream: item.stream, data: item.data, createdAt: item.createdAt)
            }
        }
        // The journal's lock may outlive it a moment in a child another suite forks meanwhile.
        let harness = try await Harness.reopening(directory: directory)
        let stored = try await harness.recorder.storedRecords()
        #expect(stored.map(\.id) == [1, 2, 3, 4])
        #expect(stored.map { String(decoding: $0.data, as: UTF8.self) } == ["one", "two", "three", "four"])
        #expect(try await harness.recorder.saveRecord(Data("five".utf8), streamName: "events") == 5)
        // Nothing reported before the submit's summary: no recovery, no drop.
        _ = await harness.recorder.submitAllRecords()
        #expect(await harness.events.kinds(throughSubmit: 1) == ["submitFinished"])
    }

    @Test("A journal that is not one is kept aside and reported; the recorder starts afresh")
    func foreignJournal() async throws {
        let directory = try TestDirectory("journal-foreign")
        defer { directory.remove() }
        try Data("not a journal at all".utf8).write(to: directory.appending(RecordJournal.fileName))
        let harness = try Harness(directory: directory)
        await harness.events.wait { $0.contains { if case .databaseRecovered = $0 { true } else { false } } }
        guard case .databaseRecovered(let movedTo, _) = harness.events.all.first else {
            Issue.record("no recovery event: \(harness.events.all)")
            return
        }
        #expect(try Data(contentsOf: movedTo) == Data("not a journal at all".utf8))
        try await harness.recorder.saveRecord(Data([1]), streamName: "events")
        #expect(try await harness.recorder.recordCount == 1)
    }

    @Test("Saves across many journal batches are all stored, in order, across a reopen")
    func manyBatches() async throws {
        let directory = try TestDirectory("journal-batches")
        defer { directory.remove() }
        let count = FirehoseRecorder.flushRecords * 3 + 17
        var ids: [Int64] = []
        let saved: [Data]
        do {
            let harness = try Harness(.init(diskByteLimit: 50_000_000), directory: directory)
            saved = (0..<count).map { Data("record-\($0)".utf8) }
            for data in saved { ids.append(try await harness.recorder.saveRecord(data, streamName: "events")) }
            #expect(try await harness.recorder.recordCount == count)
            #expect(try await harness.recorder.diskBytesUsed == saved.reduce(0) { $0 + $1.count })
        }
        #expect(ids == Array(1...Int64(count)))
        let reopened = try await Harness.reopening(.init(diskByteLimit: 50_000_000), directory: directory)
        let stored = try await reopened.recorder.storedRecords()
        #expect(stored.map(\.id) == ids)
        #expect(stored.map(\.data) == saved)
        let summary = await reopened.recorder.submitAllRecords()
        #expect(summary.sentRecords == count)
        #expect(Set(reopened.delivered()) == Set(saved))
    }

    @Test("A second recorder on an open directory is refused; once the first is gone it opens")
    func oneRecorderPerDirectory() async throws {
        let directory = try TestDirectory("journal-lock")
        defer { directory.remove() }
        do {
            let first = try Harness(directory: directory)
            try await first.save(2)
            let error = #expect(throws: RecorderError.self) { _ = try Harness(directory: directory) }
            #expect(error?.kind == .storage)
            #expect(error?.message.contains("in use by another FirehoseRecorder") == true)
        }
        let second = try await Harness.reopening(directory: directory)
        #expect(try await second.recorder.recordCount == 2)
    }

    @Test("removeAllRecords also forgets journaled records, for good")
    func removeAllForgetsJournal() async throws {
        let directory = try TestDirectory("journal-remove")
        defer { directory.remove() }
        do {
            let harness = try Harness(directory: directory)
            try await harness.save(5)
            try await harness.recorder.removeAllRecords()
            #expect(try await harness.recorder.recordCount == 0)
        }
        let reopened = try await Harness.reopening(directory: directory)
        #expect(try await reopened.recorder.recordCount == 0)
    }

    @Test("powerLoss: concurrent saves share syncs, and every returned save is stored")
    func powerLossGroupCommit() async throws {
        let directory = try TestDirectory("journal-sync")
        defer { directory.remove() }
        let savers = 8
        let perSaver = 40
        var all: [Int64: Data] = [:]
        do {
            let harness = try Harness(.init(durability: .powerLoss), directory: directory)
            let recorder = harness.recorder
            let results = try await withThrowingTaskGroup(of: [(Int64, Data)].self) { group in
                for saver in 0..<savers {
                    group.addTask {
                        var saved: [(Int64, Data)] = []
                        for index in 0..<perSaver {
                            let data = Data("saver-\(saver)-\(index)".utf8)
                            saved.append((try await recorder.saveRecord(data, streamName: "events"), data))
                        }
                        return saved
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            for (id, data) in results { all[id] = data }
            let syncs = await recorder.journalSyncCount
            // One sync each would be savers × perSaver; savers waiting together share one.
            #expect(syncs > 0)
            #expect(syncs < savers * perSaver)
            print("powerLoss: \(savers * perSaver) concurrent saves, \(syncs) journal syncs")
        }
        #expect(all.count == savers * perSaver)
        let reopened = try await Harness.reopening(directory: directory)
        let stored = try await reopened.recorder.storedRecords()
        #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.data) }) == all)
    }

    @Test("Durability can be changed on a live recorder, and saves go on")
    func changeDurability() async throws {
        let harness = try Harness()
        defer { harness.directory.remove() }
        try await harness.save(3)
        #expect(await harness.recorder.durability == .appCrash)
        await harness.recorder.configure { $0.durability = .powerLoss }
        #expect(await harness.recorder.durability == .powerLoss)
        try await harness.save(3, prefix: "synced")
        #expect(await harness.recorder.journalSyncCount == 3)
        await harness.recorder.configure { $0.durability = .appCrash }
        try await harness.save(3, prefix: "after")
        #expect(try await harness.recorder.recordCount == 9)
    }
}
