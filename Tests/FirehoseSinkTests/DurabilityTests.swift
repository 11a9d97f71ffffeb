import DurableStorage
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Logging
import Testing

@testable import FirehoseSink

#if canImport(Glibc)
    import Glibc
#endif

/// A second sink over the same data directory: what the next process sees after the first one died
/// without delivering. The first sink is simply abandoned, as a killed process would be.
func restartedSink(over directory: String, streams: [DeliveryStreamSettings], log: DeliveryLog? = nil) throws
    -> FirehoseSink
{
    let clock = ManualClock(date: fixedNow.addingTimeInterval(3600))
    let sink = try FirehoseSink(
        configuration: .init(dataDirectory: directory), clock: clock, now: clock.wallClock,
        logger: Logger(label: "restarted", factory: { _ in SwiftLogNoOpLogHandler() }),
        onDelivery: { object in log?.continuation.yield(object) })
    for stream in streams { try sink.createStream(stream) }
    return sink
}

func append(_ bytes: [UInt8], toFileAt path: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(bytes))
    try handle.close()
}

@Suite("Durability and recovery")
struct DurabilityTests {
    @Test(
        "Acknowledged records of a buffer that was never delivered are delivered at the next start",
        arguments: ["GZIP", "UNCOMPRESSED"])
    func recoversAcknowledgedRecords(compression: String) async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination(compression: compression, delimiter: true))
        try crashed.sink.createStream(stream)
        try await crashed.put(["first", "second"])
        crashed.clock.advance(by: .seconds(10))
        try await crashed.put([[0, 1, 2, 255], []])
        #expect(crashed.stagedFiles.count == 1)

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(report.delivered.count == 1)
        #expect(report.orphaned.isEmpty && report.corrupt.isEmpty)
        #expect(object.reason == .recovery)
        #expect(object.records == 4)
        var expected = Array("first\nsecond\n".utf8) + [0, 1, 2, 255, 10, 10]
        #expect(object.bytes == expected.count)
        // The key keeps the time of the buffer's first record, not the time of recovery.
        #expect(object.key.hasPrefix("2026/11/21/13/demo-1-2026-11-21-13-05-09-"))
        var stored = try crashed.contents(of: object)
        if compression == "GZIP" {
            #expect(object.key.hasSuffix(".gz"))
            stored = try Gzip.decompress(stored, limit: 1 << 20)
        }
        #expect(stored == expected)
        #expect(crashed.stagingIsEmpty)
        expected = []
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test(
        "Concurrent puts share writes: fewer journal commits than requests, every record recovered once",
        arguments: ["GZIP", "UNCOMPRESSED"])
    func concurrentPutsShareCommits(compression: String) async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination(compression: compression, delimiter: true))
        try crashed.sink.createStream(stream)
        let requests = 200
        try await withThrowingTaskGroup { group in
            for request in 0..<requests {
                group.addTask { _ = try await crashed.put(["r\(request)"]) }
            }
            try await group.waitForAll()
        }
        let journal = try #require(crashed.files(under: crashed.stagingDirectory).first { $0.hasSuffix(".journal") })
        let lines = String(decoding: try crashed.contents("\(crashed.stagingDirectory)/\(journal)"), as: UTF8.self)
            .split(separator: "\n")
        let commits = lines.filter { $0.hasPrefix("C ") }
        // A write and a journal line each without the shared write.
        #expect(commits.count < requests)
        #expect(commits.last.map { $0.split(separator: " ")[3] } == "\(requests)")

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(report.delivered.count == 1 && report.corrupt.isEmpty)
        var stored = try crashed.contents(of: object)
        if compression == "GZIP" { stored = try Gzip.decompress(stored, limit: 1 << 20) }
        let recovered = String(decoding: stored, as: UTF8.self).split(separator: "\n")
        #expect(recovered.count == requests)
        #expect(Set(recovered).count == requests)
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test("A torn write after the last commit is dropped; every committed record is kept whole")
    func tornTailIsDropped() async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination(compression: "GZIP"))
        try crashed.sink.createStream(stream)
        try await crashed.put(["alpha", "beta"])
        let base = "\(crashed.stagingDirectory)/\(try #require(crashed.stagedFiles.first).dropLast(".partial".count))"
        // A request that was being written when the process died: bytes without a journal line, and
        // a journal line cut short.
        try append([UInt8](repeating: 0x5A, count: 100), toFileAt: base + ".partial")
        try append(Array("C 9999 9".utf8), toFileAt: base + ".journal")

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(object.records == 2)
        #expect(try Gzip.decompress(crashed.contents(of: object), limit: 1 << 20) == Array("alphabeta".utf8))
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test("A commit whose bytes do not match their checksum ends what is recovered")
    func checksumMismatchStopsRecovery() async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination())
        try crashed.sink.createStream(stream)
        try await crashed.put(["one"])
        try await crashed.put(["two"])
        let base = "\(crashed.stagingDirectory)/\(try #require(crashed.stagedFiles.first).dropLast(".partial".count))"
        // Corrupt the second commit's byte on disk ("two" → "twX").
        let handle = try #require(FileHandle(forUpdatingAtPath: base + ".partial"))
        try handle.seek(toOffset: 5)
        try handle.write(contentsOf: Data("X".utf8))
        try handle.close()

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(object.records == 1)
        #expect(try crashed.contents(of: object) == Array("one".utf8))
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test("Staged records of a stream that does not exist are quarantined, then delivered once it exists again")
    func quarantinedUntilTheStreamExists() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        try crashed.sink.createStream(try settings(destination()))
        try await crashed.put(["kept-", "twice"])
        let quarantine = "\(crashed.directory)/.firehose-local/quarantine"

        let without = try restartedSink(
            over: crashed.directory, streams: [try settings(stream: "other", destination())])
        let report = await without.recoverStagedBuffers()
        #expect(report.delivered.isEmpty && report.orphaned.isEmpty)
        let kept = try #require(report.quarantined.first)
        #expect(report.quarantined.count == 1)
        #expect(kept.stream == "demo" && kept.records == 2 && kept.bytes == 10)
        #expect(kept.path.hasPrefix(".firehose-local/quarantine/") && kept.path.hasSuffix(".partial"))
        #expect(without.quarantinedBuffers == report.quarantined)
        #expect(crashed.stagedFiles.isEmpty)
        #expect(crashed.files(under: quarantine).count == 2)
        #expect(crashed.files(under: crashed.bucketPath()).isEmpty)

        // Still no such stream: it stays, and is reported again.
        let again = try restartedSink(over: crashed.directory, streams: [])
        #expect(await again.recoverStagedBuffers().quarantined == report.quarantined)

        let with = try restartedSink(over: crashed.directory, streams: [try settings(destination())])
        let delivered = await with.recoverStagedBuffers()
        #expect(delivered.quarantined.isEmpty && with.quarantinedBuffers.isEmpty)
        let object = try #require(delivered.delivered.first)
        #expect(try crashed.contents(of: object) == Array("kept-twice".utf8))
        #expect(crashed.files(under: quarantine).isEmpty)
    }

    @Test("A move into quarantine stopped by a crash after linking the data is finished by the next start")
    func interruptedQuarantineMove() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        try crashed.sink.createStream(try settings(destination()))
        try await crashed.put(["once"])
        let quarantine = "\(crashed.directory)/.firehose-local/quarantine"
        let data = try #require(crashed.stagedFiles.first { $0.hasSuffix(".partial") })
        try FileManager.default.createDirectory(atPath: quarantine, withIntermediateDirectories: true)
        try FileManager.default.linkItem(
            atPath: "\(crashed.stagingDirectory)/\(data)", toPath: "\(quarantine)/\(data)")

        let without = try restartedSink(over: crashed.directory, streams: [])
        #expect(await without.recoverStagedBuffers().quarantined.map(\.records) == [1])
        #expect(crashed.stagedFiles.isEmpty)
        let with = try restartedSink(over: crashed.directory, streams: [try settings(destination())])
        let report = await with.recoverStagedBuffers()
        #expect(report.delivered.map(\.records) == [1])
        #expect(crashed.files(under: crashed.bucketPath()).count == 1)
    }

    @Test("Buffers that committed nothing, and journals of buffers already delivered, are cleaned up")
    func nothingToRecover() async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination())
        try crashed.sink.createStream(stream)
        try await crashed.put(["x"])
        let journal = try #require(crashed.files(under: crashed.stagingDirectory).first { $0.hasSuffix(".journal") })
        let header = try #require(
            String(decoding: try crashed.contents("\(crashed.stagingDirectory)/\(journal)"), as: UTF8.self)
                .split(separator: "\n").first)
        // A buffer whose journal holds only its header (created, nothing committed) …
        FileManager.default.createFile(atPath: "\(crashed.stagingDirectory)/a.partial", contents: Data("junk".utf8))
        FileManager.default.createFile(
            atPath: "\(crashed.stagingDirectory)/a.journal", contents: Data((header + "\n").utf8))
        // … one whose data file was already renamed into the bucket …
        FileManager.default.createFile(
            atPath: "\(crashed.stagingDirectory)/b.journal", contents: Data((header + "\n").utf8))
        // … and a data file without any journal.
        FileManager.default.createFile(atPath: "\(crashed.stagingDirectory)/c.partial", contents: Data("junk".utf8))

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.delivered.map(\.records) == [1])
        #expect(report.discarded == 2)
        #expect(crashed.stagingIsEmpty)
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test("Buffers delivered before the crash are not delivered again")
    func deliveredBuffersAreNotDuplicated() async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination(sizeInMBs: 1, intervalInSeconds: 900))
        try crashed.sink.createStream(stream)
        let big = [UInt8](repeating: 0x41, count: 1_048_576)
        let delivered = try await crashed.put([big, Array("tail".utf8)])
        #expect(delivered.count == 1)

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.delivered.map(\.records) == [1])
        #expect(try crashed.contents(of: try #require(report.delivered.first)) == Array("tail".utf8))
        #expect(crashed.files(under: crashed.bucketPath()).count == 2)
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test(
        "With durability none, records are still in the staging file when put returns",
        arguments: ["GZIP", "UNCOMPRESSED"])
    func durabilityNoneStillStages(compression: String) async throws {
        let directory = try SinkHarness().directory
        let clock = ManualClock(date: fixedNow)
        let first = try FirehoseSink(
            configuration: .init(dataDirectory: directory, durability: .none), clock: clock, now: clock.wallClock,
            logger: Logger(label: "none", factory: { _ in SwiftLogNoOpLogHandler() }))
        let stream = try settings(destination(compression: compression))
        try first.createStream(stream)
        try await first.put(RecordBatch([Array("fast".utf8)]), to: "demo")
        let report = await try restartedSink(over: directory, streams: [stream]).recoverStagedBuffers()
        #expect(report.delivered.map(\.records) == [1])
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test("A recovered buffer whose delivery fails counts, flushes and fails as the stream's own buffers do")
    func recoveredBufferThatCannotBeDeliveredStaysTheStreams() async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination())
        try crashed.sink.createStream(stream)
        try await crashed.put(["kept", "safe"])
        // The bucket's folder is a file: the delivery at the next start fails.
        #expect(FileManager.default.createFile(atPath: crashed.bucketPath(), contents: Data("blocker".utf8)))

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.delivered.isEmpty && report.undelivered.count == 1)
        let status = try #require(await restarted.status(of: "demo"))
        #expect(status.bufferedRecords == 2 && status.bufferedBytes == 8)
        // A flush tries it again and fails naming the stream and its records (it answered 200 before).
        let error = await #expect(throws: SinkError.self) { try await restarted.flush() }
        let failure = try #require(error?.undelivered?.failures.first)
        #expect(failure.stream == "demo" && failure.stagedRecords == 2)
        #expect(failure.error.errno == ENOTDIR)
        await #expect(throws: SinkError.self) { try await restarted.flush(stream: "demo") }

        // With the blocker gone a flush delivers it, once.
        try FileManager.default.removeItem(atPath: crashed.bucketPath())
        let delivered = try await restarted.flush()
        #expect(delivered.map(\.records) == [2])
        #expect(try crashed.contents(of: try #require(delivered.first)) == Array("keptsafe".utf8))
        #expect(try #require(await restarted.status(of: "demo")).bufferedRecords == 0)
        #expect(try await restarted.flush().isEmpty)
        #expect(crashed.stagingIsEmpty)
    }

    @Test("A recovered buffer still waiting when its stream is deleted goes to quarantine, not to the next stream")
    func deletingAStreamQuarantinesItsPendingRecoveredBuffer() async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination())
        try crashed.sink.createStream(stream)
        try await crashed.put(["old", "run"])
        #expect(FileManager.default.createFile(atPath: crashed.bucketPath(), contents: Data("blocker".utf8)))
        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        _ = await restarted.recoverStagedBuffers()
        try await restarted.deleteStream("demo")
        #expect(restarted.quarantinedBuffers.map(\.records) == [2])
        try restarted.createStream(stream)
        #expect(try #require(await restarted.status(of: "demo")).bufferedRecords == 0)
        try FileManager.default.removeItem(atPath: crashed.bucketPath())
        #expect(try await restarted.flush().isEmpty)
    }

    @Test("Shutdown fails on a recovered buffer it cannot deliver, naming its stream")
    func shutdownFailsOnAPendingRecoveredBuffer() async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination())
        try crashed.sink.createStream(stream)
        try await crashed.put(["one", "two", "three"])
        #expect(FileManager.default.createFile(atPath: crashed.bucketPath(), contents: Data("blocker".utf8)))
        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        _ = await restarted.recoverStagedBuffers()
        await restarted.shutdown()
        #expect(restarted.undeliveredAtShutdown.map(\.stream) == ["demo"])
        #expect(restarted.undeliveredAtShutdown.first?.stagedRecords == 3)
        #expect(crashed.stagedFiles.count == 1)
    }

    @Test("Many concurrent fsync-durable puts into one stream all land exactly once")
    func concurrentDurablePuts() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(try settings(destination()))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<64 {
                    group.addTask {
                        for index in 0..<5 { try await h.put(["<\(task)-\(index)>"]) }
                    }
                }
                try await group.waitForAll()
            }
            let objects = try await h.sink.flush()
            let text = String(decoding: try h.contents(of: try #require(objects.first)), as: UTF8.self)
            let records = text.split(separator: ">").map { $0.dropFirst() }
            #expect(records.count == 320)
            #expect(Set(records).count == 320)
        }
    }

    @Test("A failed delivery is retried on a timer with backoff, without another put or flush")
    func failedDeliveryIsRetriedWithBackoff() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(try settings(destination(sizeInMBs: 1, intervalInSeconds: 0)))
            // A file where the bucket folder belongs makes delivery fail (root ignores permission bits).
            FileManager.default.createFile(atPath: h.bucketPath(), contents: Data())
            #expect(try await h.put(["patient"]).isEmpty)
            try await eventually("the retry timer to be armed") { h.clock.sleeperCount == 1 }
            h.clock.advance(by: .seconds(1))
            // First retry (after 1 s) fails again; the next waits 2 s.
            try await eventually("the second retry to be armed") { h.clock.sleeperCount == 1 && h.log.objects.isEmpty }
            try FileManager.default.removeItem(atPath: h.bucketPath())
            h.clock.advance(by: .seconds(1))
            #expect(h.log.objects.isEmpty)
            h.clock.advance(by: .seconds(1))
            let objects = try await h.log.wait(count: 1)
            #expect(objects.map(\.records) == [1])
            #expect(try h.contents(of: objects[0]) == Array("patient".utf8))
        }
    }

    @Test func journalParsingIgnoresATornLineAndStopsAtNonsense() throws {
        let header = StagingJournal.Header(
            stream: "s", versionID: 1, firstArrivalMilliseconds: 1, encoding: "GZIP")
        // The key journals were written with before encodings were a stage of their own.
        #expect(header.line.contains(#""compression":"GZIP""#))
        let good = header.line + "C 10 20 1 5\nC 30 40 2 6\n"
        #expect(StagingJournal.parse(Array((good + "C 50 6").utf8))?.entries.count == 2)
        #expect(StagingJournal.parse(Array((good + "C 20 60 3 7\nC 90 90 4 8\n").utf8))?.entries.count == 2)
        #expect(StagingJournal.parse(Array("FHL1 {\"str".utf8)) == nil)
        #expect(StagingJournal.parse(Array(good.utf8))?.header == header)
    }

    @Test("A journal names the destination that consumes its records; older ones said awaitsEndpoint")
    func journalNamesTheConsumingDestination() throws {
        var header = StagingJournal.Header(
            stream: "s", versionID: 1, firstArrivalMilliseconds: 1, encoding: "UNCOMPRESSED")
        #expect(header.consumingDestination == nil)
        header.destination = "TEST-MEMORY"
        let parsed = try #require(StagingJournal.parse(Array(header.line.utf8))?.header)
        #expect(parsed.consumingDestination == "TEST-MEMORY")
        let older =
            #"FHL1 {"stream":"s","versionID":1,"firstArrivalMilliseconds":1,"compression":"UNCOMPRESSED","awaitsEndpoint":true}"#
            + "\n"
        let legacy = try #require(StagingJournal.parse(Array(older.utf8))?.header)
        #expect(legacy.consumingDestination == "HttpEndpoint")
    }
}
