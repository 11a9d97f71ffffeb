import DurableStorage
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Delivery failures keep the data")
struct FailureTests {
    /// Puts a regular file where the bucket directory must go, so publishing fails with ENOTDIR.
    static func blockBucket(_ h: SinkHarness) throws {
        #expect(FileManager.default.createFile(atPath: h.bucketPath(), contents: Data("not a directory".utf8)))
    }

    static func unblockBucket(_ h: SinkHarness) throws {
        try FileManager.default.removeItem(atPath: h.bucketPath())
    }

    @Test("flush fails with a storage error, the records stay staged, and the retry delivers them once")
    func flushFailureThenRetry() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings())
            try Self.blockBucket(h)
            try await h.put(["keep-", "me-"])
            try await h.put(["safe"])

            let error = await #expect(throws: SinkError.self) { try await h.sink.flush() }
            let storage = try #require(error?.undelivered?.failures.first?.error)
            #expect(storage.operation == "deliver")
            #expect(storage.path.hasPrefix("demo-bucket/2026/"))
            #expect(storage.errno == ENOTDIR)
            #expect(storage.description.hasSuffix("'demo-bucket' is a file, not a bucket's folder"))
            #expect(error?.isUnknownStream == false)

            // Still staged, complete.
            let staged = h.stagedFiles
            #expect(staged.count == 1)
            #expect(try h.contents("\(h.stagingDirectory)/\(staged[0])") == Array("keep-me-safe".utf8))
            #expect(h.log.objects.isEmpty)

            // A second attempt while still blocked fails the same way and loses nothing.
            await #expect(throws: SinkError.self) { try await h.sink.flush(stream: "demo") }
            #expect(h.stagedFiles == staged)

            try Self.unblockBucket(h)
            let delivered = try await h.sink.flush()
            #expect(delivered.count == 1)
            #expect(try h.contents(of: delivered[0]) == Array("keep-me-safe".utf8))
            #expect(delivered[0].records == 3)
            #expect(delivered[0].key.matches(try keyPattern()))
            #expect(h.stagingIsEmpty)
            #expect(try await h.sink.flush().isEmpty)
            #expect(h.files(under: h.bucketPath()) == [delivered[0].key])
            #expect(try await h.log.wait(count: 1) == delivered)
        }
    }

    @Test("One stream that cannot deliver does not keep a flush from the others; its failure is reported per stream")
    func oneStreamFailing() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(stream: "broken"))
            try h.sink.createStream(settings(stream: "healthy", destination(bucket: "other-bucket")))
            let failures = Mutex<[UndeliveredStream]>([])
            h.sink.addDeliveryFailureObserver { failure in failures.withLock { $0.append(failure) } }
            try Self.blockBucket(h)
            try await h.put(["a", "b"], to: "broken")
            try await h.put(["c"], to: "healthy")
            let error = await #expect(throws: SinkError.self) { try await h.sink.flush() }
            let undelivered = try #require(error?.undelivered)
            #expect(undelivered.delivered.map(\.stream) == ["healthy"])
            #expect(try h.contents(of: undelivered.delivered[0]) == Array("c".utf8))
            #expect(undelivered.failures.map(\.stream) == ["broken"])
            #expect(undelivered.failures.first?.stagedRecords == 2)
            #expect(failures.withLock { $0.map(\.stream) } == ["broken"])
            let broken = try #require(await h.sink.status(of: "broken")).counters
            #expect(broken.deliveryFailing && broken.deliveryFailures == 1)
            #expect(broken.lastDeliveryError?.isEmpty == false)
            #expect(try #require(await h.sink.status(of: "healthy")).counters.deliveryFailing == false)

            // A flush of the broken stream alone says the same; once it can deliver, it is no longer failing.
            await #expect(throws: SinkError.self) { try await h.sink.flush(stream: "broken") }
            try Self.unblockBucket(h)
            let delivered = try await h.sink.flush()
            #expect(delivered.map(\.stream) == ["broken"])
            let recovered = try #require(await h.sink.status(of: "broken")).counters
            #expect(!recovered.deliveryFailing && recovered.deliveryFailures == 2)
        }
    }

    @Test("Shutdown keeps what it could not deliver, per stream, for the caller to report")
    func shutdownReportsStranded() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(stream: "broken"))
            try Self.blockBucket(h)
            try await h.put(["a", "b", "c"], to: "broken")
            await h.sink.shutdown()
            #expect(h.sink.undeliveredAtShutdown.map(\.stream) == ["broken"])
            #expect(h.sink.undeliveredAtShutdown.first?.stagedRecords == 3)
            try Self.unblockBucket(h)
        }
    }

    @Test("Records put after a failed flush go into a new object after the failed one, in order")
    func putsAfterFailure() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings())
            try Self.blockBucket(h)
            try await h.put(["old"])
            await #expect(throws: SinkError.self) { try await h.sink.flush() }
            h.clock.advance(by: .seconds(5))
            try await h.put(["new"])  // succeeds: the failed buffer is retried, logged, not thrown
            #expect(h.stagedFiles.count == 2)
            try Self.unblockBucket(h)
            let delivered = try await h.sink.flush()
            #expect(delivered.count == 2)
            #expect(try delivered.map { try h.contents(of: $0) } == [Array("old".utf8), Array("new".utf8)])
            #expect(delivered[0].key.matches(try keyPattern()))
            #expect(delivered[1].key.matches(try keyPattern(time: "2026-11-21-13-05-14")))
            #expect(h.stagingIsEmpty)
        }
    }

    @Test("A put that fills the buffer during a failure still succeeds; the object appears once the obstacle is gone")
    func sizeDeliveryDuringFailure() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 1, intervalInSeconds: 900)))
            try Self.blockBucket(h)
            var generator = SeededGenerator(seed: 9)
            let records = [generator.bytes(700_000), generator.bytes(700_000)]
            let delivered = try await h.put(records)
            #expect(delivered.isEmpty)
            #expect(h.log.objects.isEmpty)
            let staged = h.stagedFiles
            #expect(staged.count == 1)
            #expect(try h.contents("\(h.stagingDirectory)/\(staged[0])") == records.flatMap { $0 })

            try await h.put(["tail"])  // a new buffer; the retry inside this put fails again, quietly
            #expect(h.stagedFiles.count == 2)

            try Self.unblockBucket(h)
            let objects = try await h.sink.flush()
            #expect(objects.map(\.reason) == [.size, .flush])
            #expect(try h.contents(of: objects[0]) == records.flatMap { $0 })
            #expect(try h.contents(of: objects[1]) == Array("tail".utf8))
            #expect(h.stagingIsEmpty)
            #expect(h.files(under: h.bucketPath()).count == 2)
        }
    }

    @Test("An interval delivery that fails is retried by the next flush")
    func intervalFailure() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 5, intervalInSeconds: 60)))
            try Self.blockBucket(h)
            try await h.put(["late"])
            try await eventually("the timer") { h.clock.sleeperCount == 1 }
            h.clock.advance(by: .seconds(60))
            // The interval timer is gone the moment the clock passes it; the failed attempt then arms
            // the retry timer, which is how the test knows the attempt has happened.
            try await eventually("the failed attempt to arm the retry timer") { h.clock.sleeperCount == 1 }
            #expect(h.log.objects.isEmpty)
            #expect(h.stagedFiles.count == 1)
            try Self.unblockBucket(h)
            let objects = try await h.sink.flush()
            #expect(objects.map(\.reason) == [.interval])
            #expect(try h.contents(of: try #require(objects.first)) == Array("late".utf8))
        }
    }

    /// What `gzip -dc` recovers from a (possibly unfinished) gzip file.
    static func gunzipPrefix(_ path: String) throws -> [UInt8] {
        let gzip = try #require(
            ["/usr/bin/gzip", "/bin/gzip"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gzip)
        process.arguments = ["-dc", path]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](output)
    }

    @Test("GZIP: after each put the staging file already holds every acknowledged record")
    func gzipRecordsAreStagedPerRequest() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(compression: "GZIP")))
            try await h.put(["acknowledged-1;"])
            let staged = try #require(h.stagedFiles.first)
            #expect(try Self.gunzipPrefix("\(h.stagingDirectory)/\(staged)") == Array("acknowledged-1;".utf8))
            try await h.put(["acknowledged-2;"])
            #expect(
                try Self.gunzipPrefix("\(h.stagingDirectory)/\(staged)") == Array("acknowledged-1;acknowledged-2;".utf8)
            )
        }
    }
}

@Suite("Concurrency")
struct ConcurrencyTests {
    /// Fixed-width record "tNNrMMMM;" padded to `width` bytes, so objects can be split without delimiters.
    static func record(task: Int, sequence: Int, width: Int = 9) -> [UInt8] {
        let t = String(task).count < 2 ? "0\(task)" : String(task)
        let s = String(repeating: "0", count: 4 - String(sequence).count) + String(sequence)
        return Array("t\(t)r\(s);".utf8) + [UInt8](repeating: 0x2E, count: width - 9)
    }

    static func parse(_ bytes: [UInt8], width: Int = 9) -> [(task: Int, sequence: Int)] {
        stride(from: 0, to: bytes.count, by: width).map { start in
            let text = String(decoding: bytes[start..<min(start + 9, bytes.count)], as: UTF8.self)
            let task = Int(text.dropFirst(1).prefix(2)) ?? -1
            let sequence = Int(text.dropFirst(4).prefix(4)) ?? -1
            return (task, sequence)
        }
    }

    static func check(_ entries: [(task: Int, sequence: Int)], tasks: Int, perTask: Int) {
        #expect(entries.count == tasks * perTask)
        var next = [Int](repeating: 0, count: tasks)
        for (task, sequence) in entries {
            guard (0..<tasks).contains(task) else {
                Issue.record("garbled record for task \(task)")
                return
            }
            // Exactly once and in order: each task's records appear as 0, 1, 2, ...
            #expect(sequence == next[task], "task \(task)")
            next[task] = sequence + 1
        }
        #expect(next == [Int](repeating: perTask, count: tasks))
    }

    @Test("32 concurrent tasks into one stream: every record exactly once, each task's order kept")
    func concurrentPuts() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings())
            let tasks = 32
            let puts = 10
            let perPut = 5
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for put in 0..<puts {
                            let batch = (0..<perPut).map { Self.record(task: task, sequence: put * perPut + $0) }
                            try await h.put(batch)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let objects = try await h.sink.flush()
            #expect(objects.count == 1)
            Self.check(
                Self.parse(try h.contents(of: try #require(objects.first))), tasks: tasks, perTask: puts * perPut)
        }
    }

    @Test("Concurrent puts across size deliveries: objects in delivery order hold every record once, in order")
    func concurrentPutsWithSizeDeliveries() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(sizeInMBs: 1, intervalInSeconds: 900)))
            let tasks = 32
            let perTask = 400
            let width = 256
            let total = tasks * perTask * width  // 3,276,800 bytes: several 1 MiB objects
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for chunk in stride(from: 0, to: perTask, by: 50) {
                            let batch = (chunk..<chunk + 50).map { Self.record(task: task, sequence: $0, width: width) }
                            try await h.put(batch)
                        }
                    }
                }
                try await group.waitForAll()
            }
            _ = try await h.sink.flush()
            try await eventually("all bytes reported") { h.log.objects.map(\.bytes).reduce(0, +) >= total }
            let objects = h.log.objects
            #expect(objects.count >= 4)
            #expect(
                objects.dropLast().allSatisfy {
                    $0.reason == .size && $0.bytes >= 1_048_576 && $0.bytes < 1_048_576 + width
                })
            var all: [UInt8] = []
            for object in objects { all += try h.contents(of: object) }
            #expect(all.count == total)
            Self.check(Self.parse(all, width: width), tasks: tasks, perTask: perTask)
        }
    }
}
