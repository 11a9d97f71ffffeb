import DurableStorage
import FirehoseKeyLayout
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Logging
import Synchronization
import Testing

@testable import FirehoseSink

/// A stream that backs its source records up to `backup-bucket`, under `source/`.
func backedUpSettings(
    _ stream: DeliveryStreamSettings, compression: String = "GZIP", intervalSeconds: Int = 900
) throws -> DeliveryStreamSettings {
    var stream = stream
    stream.backUp(
        with: try settings(
            destination(
                bucket: "backup-bucket", prefix: "source/", sizeInMBs: 128, intervalInSeconds: intervalSeconds,
                compression: compression)))
    return stream
}

@Suite("Source-record backup: every record as received, in the backup's own bucket")
struct BackupTests {
    @Test("The backup holds the records as received (no delimiter), beside the stream's own objects")
    func backsUpRecordsAsReceived() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try backedUpSettings(try settings(destination(delimiter: true))))
            try await harness.put(["alpha", "beta"])
            try await harness.put([[0, 255]])
            let objects = try await harness.sink.flush()
            #expect(objects.count == 2)
            let backup = try #require(objects.first { $0.isBackup })
            #expect(backup.bucket == "backup-bucket")
            #expect(backup.records == 3)
            #expect(backup.key.matches(try keyPattern(prefix: "source/2026/11/21/13/", ext: ".gz")))
            #expect(
                try Gzip.decompress(try harness.contents(of: backup), limit: 1 << 20) == Array("alphabeta".utf8) + [
                    0, 255,
                ])
            let delivered = try #require(objects.first { !$0.isBackup })
            #expect(delivered.bucket == "demo-bucket")
            #expect(try harness.contents(of: delivered) == Array("alpha\nbeta\n".utf8) + [0, 255, 10])
            // Counted apart: objectsWritten is the destination's.
            let counters = harness.sink.tracker.counters("demo")
            #expect(counters.objectsWritten == 1 && counters.recordsDelivered == 3)
            #expect(counters.backupObjectsWritten == 1 && counters.backupRecordsDelivered == 3)
            #expect(harness.sink.objectsWritten(stream: "demo") == 1)
        }
    }

    @Test("The backup buffers on its own interval")
    func buffersOnItsOwnInterval() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(
                try backedUpSettings(try settings(destination(intervalInSeconds: 900)), intervalSeconds: 60))
            try await harness.put(["one"])
            try await eventually("both stages' timers") { harness.clock.sleeperCount == 2 }
            harness.clock.advance(by: .seconds(61))
            let backup = try #require(await harness.log.wait(count: 1).first)
            #expect(backup.isBackup && backup.reason == .interval)
            #expect(harness.sink.tracker.counters("demo").objectsWritten == 0)
        }
    }

    @Test("A backup buffer left by a killed process is delivered to the backup's bucket at the next start")
    func backupBufferIsRecovered() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        let stream = try backedUpSettings(try settings(destination()), compression: "UNCOMPRESSED")
        try crashed.sink.createStream(stream)
        try await crashed.put(["kept", "safe"])
        #expect(crashed.stagedFiles.count == 2)

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.delivered.count == 2 && report.orphaned.isEmpty)
        let backup = try #require(report.delivered.first { $0.isBackup })
        #expect(backup.bucket == "backup-bucket" && backup.key.hasPrefix("source/2026/11/21/13/demo-1-"))
        #expect(try crashed.contents(of: backup) == Array("keptsafe".utf8))
        #expect(crashed.stagingIsEmpty)

        // A stream that no longer backs records up leaves a backup buffer staged, and says so.
        let again = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: again.directory) }
        try again.sink.createStream(stream)
        try await again.put(["orphan"])
        let withoutBackup = try restartedSink(over: again.directory, streams: [try settings(destination())])
        let second = await withoutBackup.recoverStagedBuffers()
        #expect(second.delivered.map(\.isBackup) == [false])
        #expect(second.orphaned.count == 1)
    }

    @Test("A backup that cannot deliver keeps its records staged and says how many; the destination still delivers")
    func backupFailure() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try backedUpSettings(try settings(destination())))
            // A file where the backup's bucket folder would go.
            #expect(FileManager.default.createFile(atPath: harness.bucketPath("backup-bucket"), contents: Data()))
            try await harness.put(["kept"])
            do throws(SinkError) {
                _ = try await harness.sink.flush()
                Issue.record("the flush reported no failure")
            } catch {
                let (delivered, failures) = try #require(error.undelivered)
                #expect(delivered.map(\.bucket) == ["demo-bucket"])
                #expect(failures.map(\.stagedRecords) == [1])
            }
            try FileManager.default.removeItem(atPath: harness.bucketPath("backup-bucket"))
            let retried = try await harness.sink.flush()
            #expect(retried.map(\.isBackup) == [true])
        }
    }

    @Test("Deleting the stream discards the backup's buffer too")
    func deleteDiscardsTheBackup() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try backedUpSettings(try settings(destination())))
            try await harness.put(["gone"])
            try await harness.sink.deleteStream("demo")
            #expect(harness.stagingIsEmpty)
            #expect(harness.files(under: harness.bucketPath("backup-bucket")).isEmpty)
        }
    }
}

@Suite("A stage with a consumer (StagedBufferConsumer)")
struct StagedBufferConsumerTests {
    @Test("A second half that fails keeps what the first made: the retry stages again, it does not consume again")
    func failedSecondHalfKeepsTheFirst() async throws {
        try await SinkHarness.with { harness in
            let firstHalves = Atomic<Int>(0)
            let secondHalves = Atomic<Int>(0)
            let consumer = StagedBufferConsumer(ahead: 1) { staged, _ in
                firstHalves.add(1, ordering: .relaxed)
                return .success {
                    // The first attempt to stage fails (a full disk, say); the next succeeds.
                    secondHalves.add(1, ordering: .relaxed).oldValue == 0
                        ? .failure(FileSystemError(operation: "stage", path: staged.path, errno: ENOSPC)) : .success([])
                }
            }
            var stage = try settings(destination())
            stage.transform(
                with: LambdaTransformationSettings(
                    function: .command(["true"]), functionARN: functionARN, deliveryStreamARN: streamARN,
                    region: "us-east-1"))
            let stream = DeliveryStream(
                settings: stage.sourceStage, destination: DirectoryBucket(root: harness.directory),
                stagingDirectory: harness.stagingDirectory, durability: .fsync, consumer: consumer,
                clock: harness.clock, now: harness.clock.wallClock,
                logger: Logger(label: "consumer-tests", factory: { _ in SwiftLogNoOpLogHandler() }),
                onDelivery: { _ in })
            _ = try await stream.append(RecordBatch([Array("one".utf8)]), arrival: harness.clock.date)
            await #expect(throws: FileSystemError.self) { _ = try await stream.flush() }
            #expect(harness.stagedFiles.count == 1)
            _ = try await stream.flush()
            #expect(firstHalves.load(ordering: .relaxed) == 1)
            #expect(secondHalves.load(ordering: .relaxed) == 2)
            #expect(harness.stagingIsEmpty)
        }
    }
}
