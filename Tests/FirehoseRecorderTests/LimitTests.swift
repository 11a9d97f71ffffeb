import FirehoseClient
import FirehoseTestSupport
import Foundation
import Testing

@testable import FirehoseRecorder

@Suite("Disk, age and threshold limits")
struct LimitTests {
    @Test("Over diskByteLimit the oldest records are evicted until under it, and the count reported")
    func diskLimitEvictsOldest() async throws {
        let harness = try Harness(.init(diskByteLimit: 1_000))
        defer { harness.directory.remove() }
        let saved = try await harness.save(15, size: 100)
        #expect(try await harness.recorder.diskBytesUsed == 1_000)
        let stored = try await harness.recorder.storedRecords()
        #expect(stored.map(\.data) == Array(saved.suffix(10)))
        await harness.events.wait { _ in harness.events.drops.count == 5 }
        let drops = harness.events.drops
        #expect(drops.map(\.count) == [1, 1, 1, 1, 1])
        #expect(drops.allSatisfy { $0.reason == .diskByteLimit && $0.streamName == "events" && $0.bytes == 100 })

        // A larger record evicts as many as it needs to, in one report.
        try await harness.recorder.saveRecord(Data(count: 450), streamName: "events")
        await harness.events.wait { _ in harness.events.drops.count == 6 }
        #expect(harness.events.drops.last?.count == 5)
        #expect(try await harness.recorder.diskBytesUsed == 950)
    }

    @Test("Eviction spares records that are on the wire while others remain")
    func evictionSparesInFlight() async throws {
        let endpoint = FakeFirehoseEndpoint()
        let harness = try Harness(.init(diskByteLimit: 500, batchRecordsCountLimit: 2), endpoint: endpoint)
        defer { harness.directory.remove() }
        let saved = try await harness.save(5, size: 100)
        let recorder = harness.recorder
        endpoint.onRequest { number in
            guard number == 0 else { return }
            // Records 0 and 1 are in flight: saving one more must evict record 2, not 0.
            do {
                try await recorder.saveRecord(Data(repeating: 7, count: 100), streamName: "events")
            } catch {
                Issue.record("save during submit failed: \(error)")
            }
        }
        let summary = await recorder.submitAllRecords()
        #expect(summary.sentRecords == 4)
        #expect(harness.delivered() == [saved[0], saved[1], saved[3], saved[4]])
        await harness.events.wait { _ in !harness.events.drops.isEmpty }
        #expect(harness.events.drops.first?.recordIDs == [3])
    }

    @Test("The age limit drops old records on save and before submit")
    func ageLimit() async throws {
        let harness = try Harness(.init(diskAgeLimit: .seconds(3600)))
        defer { harness.directory.remove() }
        try await harness.save(3, prefix: "old")
        harness.clock.advance(by: .seconds(1800))
        try await harness.save(2, prefix: "mid")
        harness.clock.advance(by: .seconds(1801))
        // On save: the three "old" ones are past the limit.
        try await harness.save(1, prefix: "new")
        #expect(
            try await harness.recorder.storedRecords().map { String(decoding: $0.data, as: UTF8.self) } == [
                "mid-0", "mid-1", "new-0",
            ])
        await harness.events.wait { _ in harness.events.drops.count == 1 }
        #expect(harness.events.drops.first?.count == 3)
        #expect(harness.events.drops.first?.reason == .ageLimit)
        // Before submit: the "mid" ones are now too old and are not sent.
        harness.clock.advance(by: .seconds(1800))
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.dropped.map(\.count) == [2])
        #expect(summary.dropped.first?.reason == .ageLimit)
        #expect(harness.delivered() == [Data("new-0".utf8)])
    }

    @Test("The threshold event fires once per crossing")
    func thresholdOncePerCrossing() async throws {
        let harness = try Harness(.init(notificationByteThreshold: 500))
        defer { harness.directory.remove() }
        // Crosses at the 5th record (500 bytes, not at the 4th's 400), stays above for the 6th and 7th.
        try await harness.save(7, size: 100)
        _ = await harness.recorder.submitAllRecords()  // back to zero
        #expect(await harness.events.kinds(throughSubmit: 1) == ["thresholdCrossed", "submitFinished"])
        try await harness.save(5, size: 100)  // crosses again, at the 5th
        _ = await harness.recorder.submitAllRecords()
        #expect(
            await harness.events.kinds(throughSubmit: 2) == [
                "thresholdCrossed", "submitFinished", "thresholdCrossed", "submitFinished",
            ])
        for event in harness.events.all {
            guard case .thresholdCrossed(let bytes, let threshold) = event else { continue }
            #expect(bytes == 500)
            #expect(threshold == 500)
        }
    }

    @Test("Knobs can be changed on a live recorder")
    func configure() async throws {
        let harness = try Harness()
        defer { harness.directory.remove() }
        await harness.recorder.configure {
            $0.diskByteLimit = 300; $0.maxAttempts = 2
        }
        #expect(await harness.recorder.diskByteLimit == 300)
        #expect(await harness.recorder.maxAttempts == 2)
        try await harness.save(5, size: 100)
        #expect(try await harness.recorder.diskBytesUsed == 300)
    }
}
