import FirehoseClient
import FirehoseTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirehoseRecorder

@Suite("Saving while submitting")
struct ConcurrencyTests {
    @Test("Saves made while a request is on the wire complete during it, and are neither lost nor sent twice")
    func saveDuringRequest() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let harness = try Harness(.init(batchRecordsCountLimit: 10), endpoint: endpoint)
        defer { harness.directory.remove() }
        var saved = try await harness.save(50, prefix: "before")
        let recorder = harness.recorder
        let duringSaves = SavedLog()
        endpoint.onRequest { number in
            for index in 0..<3 {
                let data = Data("during-\(number)-\(index)".utf8)
                do {
                    try await recorder.saveRecord(data, streamName: "events")
                    duringSaves.append(data)
                } catch {
                    Issue.record("save failed: \(error)")
                }
            }
        }
        let first = await recorder.submitAllRecords()
        // The submit sent what existed when it began; the saves made meanwhile are stored.
        #expect(first.sentRecords == 50)
        #expect(first.remainingRecords == 15)
        endpoint.onRequest(nil)
        let second = await recorder.submitAllRecords()
        #expect(second.sentRecords == 15)
        saved += duringSaves.all
        #expect(harness.delivered().count == saved.count)
        #expect(Set(harness.delivered()) == Set(saved))
    }

    @Test("Concurrent savers and repeated submits with random failures deliver every record exactly once")
    func stress() async throws {
        let endpoint = FakeFirehoseEndpoint()
        // Mixed: per-record failures, 503s and successes; never a fate-unknown drop, so no duplicates allowed.
        var script: [FakeFirehoseEndpoint.Behavior] = []
        var generator = SeededBytes(seed: 42)
        for _ in 0..<200 {
            switch generator.next() % 4 {
            case 0: script.append(.failRecords([0: "ServiceUnavailableException", 2: "InternalFailure"]))
            case 1: script.append(.error(status: 503, code: "ServiceUnavailableException", message: "Slow down."))
            default: script.append(.accept)
            }
        }
        endpoint.enqueue(script)
        let harness = try Harness(.init(batchRecordsCountLimit: 7, maxAttempts: 1_000), endpoint: endpoint)
        defer { harness.directory.remove() }
        let recorder = harness.recorder
        let savers = (0..<4).map { saver in
            Task {
                var saved: [Data] = []
                for index in 0..<100 {
                    let data = Data("saver-\(saver)-\(index)".utf8)
                    try await recorder.saveRecord(data, streamName: index % 2 == 0 ? "even" : "odd")
                    saved.append(data)
                    if index % 10 == 0 { await Task.yield() }
                }
                return saved
            }
        }
        let submitter = Task {
            // Submits keep running while the savers save.
            for _ in 0..<30 {
                _ = await recorder.submitAllRecords()
                await Task.yield()
            }
        }
        var all: [Data] = []
        for saver in savers { all += try await saver.value }
        await submitter.value
        // Drain whatever is left.
        for _ in 0..<50 where try await recorder.recordCount > 0 { _ = await recorder.submitAllRecords() }
        let delivered = harness.delivered("even") + harness.delivered("odd")
        #expect(delivered.count == all.count)
        #expect(Set(delivered) == Set(all))
        #expect(try await recorder.recordCount == 0)
    }

    @Test("Overlapping submitAllRecords calls run one after the other, never sending a record twice")
    func overlappingSubmits() async throws {
        let endpoint = FakeFirehoseEndpoint()
        endpoint.setDefault(.slow(.milliseconds(5), then: .accept))
        let harness = try Harness(.init(batchRecordsCountLimit: 5), endpoint: endpoint)
        defer { harness.directory.remove() }
        let saved = try await harness.save(60)
        let recorder = harness.recorder
        let summaries = await withTaskGroup(of: SubmitSummary.self) { group in
            for _ in 0..<4 { group.addTask { await recorder.submitAllRecords() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(summaries.reduce(0) { $0 + $1.sentRecords } == 60)
        // Batches overlap on the wire, so the order across them is not the saving order.
        #expect(harness.delivered().count == saved.count)
        #expect(Set(harness.delivered()) == Set(saved))
    }
}

final class SavedLog: Sendable {
    private final class Storage: Sendable {
        let items = Mutex<[Data]>([])
    }
    private let storage = Storage()
    func append(_ data: Data) { storage.items.withLock { $0.append(data) } }
    var all: [Data] { storage.items.withLock { $0 } }
}
