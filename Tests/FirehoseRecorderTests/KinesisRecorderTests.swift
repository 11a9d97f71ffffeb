import FirehoseClient
import FirehoseTestSupport
import Foundation
import GRDB
import Testing

@testable import FirehoseRecorder

/// A KinesisRecorder on a fresh directory, talking to the fake endpoint as a Kinesis endpoint, on
/// the same hand-moved clock as `Harness`.
struct KinesisHarness {
    let directory: TestDirectory
    let endpoint = FakeFirehoseEndpoint(service: "kinesis")
    let clock = ManualClock(date: Date(timeIntervalSince1970: 1_795_000_000), advancesWhenSlept: true)
    let recorder: KinesisRecorder
    let events: EventLog

    init(_ configuration: KinesisRecorder.Configuration = .init(), directory: TestDirectory? = nil) throws {
        self.directory = try directory ?? TestDirectory("kinesis-recorder")
        let client = KinesisClient(
            endpoint: URL(string: "http://127.0.0.1:4573")!, region: "us-east-1",
            credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
            transport: endpoint)
        recorder = try KinesisRecorder(
            directory: self.directory.url, client: client, configuration: configuration,
            environment: .init(now: clock.wallClock, clock: clock, random: { 0.5 }))
        events = EventLog(recorder.events)
    }

    /// The records the endpoint stored, in arrival order.
    func delivered(_ stream: String = "clicks") -> [String] {
        endpoint.delivered(stream).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every record sent (stored or not) with its partition key, in the order sent.
    func sent(_ stream: String = "clicks") -> [(key: String, data: String)] {
        endpoint.requests.filter { $0.streamName == stream }.flatMap { request in
            zip(request.partitionKeys, request.records).map { ($0, String(decoding: $1, as: UTF8.self)) }
        }
    }
}

@Suite("KinesisRecorder: the recorder core on the PutRecords wire")
struct KinesisRecorderTests {
    @Test("Records go out in PutRecords with their partition keys (a UUID when none is given), once each")
    func partitionKeys() async throws {
        let harness = try KinesisHarness()
        defer { harness.directory.remove() }
        try await harness.recorder.saveRecord(Data("a".utf8), streamName: "clicks", partitionKey: "user-1")
        try await harness.recorder.saveRecord(Data("b".utf8), streamName: "clicks", partitionKey: "ключ-2")
        try await harness.recorder.saveRecord(Data("c".utf8), streamName: "clicks")
        let stored = try await harness.recorder.storedRecords()
        #expect(stored.map(\.partitionKey).prefix(2) == ["user-1", "ключ-2"])
        #expect(UUID(uuidString: stored[2].partitionKey) != nil)
        // Stored bytes count the keys, as Kinesis counts a record's size.
        #expect(try await harness.recorder.diskBytesUsed == 3 + "user-1".utf8.count + "ключ-2".utf8.count + 36)

        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.sentRecords == 3 && summary.requests == 1)
        #expect(harness.endpoint.requests.map(\.operation) == ["PutRecords"])
        #expect(harness.delivered() == ["a", "b", "c"])
        #expect(harness.sent().map(\.key) == stored.map(\.partitionKey))
        #expect(try await harness.recorder.recordCount == 0)
    }

    @Test("Batches hold at most 500 records and 5 MiB of data and partition keys by default")
    func batchLimits() async throws {
        let harness = try KinesisHarness(.init(diskByteLimit: 64 << 20, maxConcurrentRequests: 1))
        defer { harness.directory.remove() }
        let key = String(repeating: "k", count: 256)
        // 1,200 small records (261 bytes with their keys), then 30 of 400,256: 500, 500, then the last
        // 200 small and 12 large (5,218,272 bytes; a 13th would pass 5 MiB), then 13 and 5 large.
        for index in 0..<1_200 {
            try await harness.recorder.saveRecord(Data("s\(index)".utf8), streamName: "clicks", partitionKey: key)
        }
        let large = Data(repeating: 0x61, count: 400_000)
        for _ in 0..<30 { try await harness.recorder.saveRecord(large, streamName: "clicks", partitionKey: key) }
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.sentRecords == 1_230)
        let requests = harness.endpoint.requests
        #expect(requests.map(\.records.count) == [500, 500, 212, 13, 5])
        for request in requests {
            let bytes =
                request.records.reduce(0) { $0 + $1.count } + request.partitionKeys.reduce(0) { $0 + $1.utf8.count }
            #expect(bytes <= PutRecordsWire.defaultBatchBytes)
        }
    }

    @Test(
        "Per-record ProvisionedThroughputExceededException and InternalFailure are retried and counted; each record arrives once"
    )
    func perRecordRetries() async throws {
        let harness = try KinesisHarness()
        defer { harness.directory.remove() }
        for index in 0..<10 {
            try await harness.recorder.saveRecord(
                Data("r\(index)".utf8), streamName: "clicks", partitionKey: "p\(index)")
        }
        harness.endpoint.enqueue(
            .failRecords([1: "ProvisionedThroughputExceededException", 4: "InternalFailure", 7: "InternalFailure"]),
            .failRecords([0: "ProvisionedThroughputExceededException"]))
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "completed")
        #expect(summary.sentRecords == 10 && summary.requests == 3 && summary.failedAttempts == 4)
        #expect(harness.delivered().sorted() == (0..<10).map { "r\($0)" }.sorted())
        // A retried record keeps its partition key (so its shard).
        #expect(harness.sent().count == 14)
        #expect(harness.sent().allSatisfy { "p" + $0.data.dropFirst() == $0.key })
        #expect(harness.endpoint.requests[1].partitionKeys == ["p1", "p4", "p7"])
    }

    @Test("A record that keeps failing is dropped after maxAttempts with its last code")
    func maxAttempts() async throws {
        let harness = try KinesisHarness(.init(maxAttempts: 2, maxRetriesPerSubmit: 5))
        defer { harness.directory.remove() }
        let id = try await harness.recorder.saveRecord(Data("x".utf8), streamName: "clicks", partitionKey: "k")
        harness.endpoint.setDefault(.failAllRecords(code: "ProvisionedThroughputExceededException"))
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.dropped.map(\.recordIDs) == [[id]])
        #expect(
            summary.dropped.first?.reason
                == .maxAttemptsExceeded(lastErrorCode: "ProvisionedThroughputExceededException"))
        #expect(try await harness.recorder.recordCount == 0)
    }

    @Test("diskByteLimit counts partition keys: the oldest record is evicted when data and keys would pass it")
    func diskLimitCountsKeys() async throws {
        let harness = try KinesisHarness(.init(diskByteLimit: 100))
        defer { harness.directory.remove() }
        let key = String(repeating: "k", count: 40)
        var ids: [Int64] = []
        for index in 0..<3 {
            ids.append(
                try await harness.recorder.saveRecord(
                    Data("record-\(index)!!".utf8), streamName: "clicks", partitionKey: key))
        }
        // 50 bytes each with its key: two fit in 100, the third evicts the first.
        #expect(try await harness.recorder.storedRecords().map(\.id) == Array(ids[1...]))
        await harness.events.wait { _ in !harness.events.drops.isEmpty }
        #expect(harness.events.drops.map(\.recordIDs) == [[ids[0]]] && harness.events.drops.first?.bytes == 50)
        #expect(try await harness.recorder.diskBytesUsed == 100)
    }

    @Test("A missing data stream stops that stream, its records kept; others still go")
    func missingStream() async throws {
        let harness = try KinesisHarness()
        defer { harness.directory.remove() }
        harness.endpoint.setKnownStreams(["clicks"])
        try await harness.recorder.saveRecord(Data("lost".utf8), streamName: "nowhere", partitionKey: "k")
        try await harness.recorder.saveRecord(Data("kept".utf8), streamName: "clicks", partitionKey: "k")
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.status.name == "streamsStopped")
        #expect(summary.stoppedStreams["nowhere"]?.reason == .streamNotFound)
        #expect(harness.delivered() == ["kept"])
        #expect(try await harness.recorder.storedRecords().map(\.streamName) == ["nowhere"])
    }

    @Test("A stream-name validation answer stops the stream; a record-level one drops only that record")
    func classification() {
        func error(_ message: String) -> FirehoseClientError {
            FirehoseClientError(kind: .service, code: "ValidationException", message: message, httpStatus: 400)
        }
        let streamLevel = error(
            "1 validation error detected: Value 'a b' at 'streamName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
        )
        let recordLevel = error(
            "1 validation error detected: Value '' at 'records.2.member.partitionKey' failed to satisfy constraint: Member must have length greater than or equal to 1"
        )
        #expect(KinesisRecorder.classify(streamLevel) == .stopStream(.refused))
        #expect(KinesisRecorder.classify(recordLevel) == .invalidBatch)
        // Firehose's own member name is not Kinesis's, and the other way round.
        #expect(FirehoseRecorder.classify(streamLevel) == .invalidBatch)
        let firehoseStreamLevel = error(
            "1 validation error detected: Value 'a b' at 'deliveryStreamName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
        )
        #expect(KinesisRecorder.classify(firehoseStreamLevel) == .invalidBatch)
        #expect(FirehoseRecorder.classify(firehoseStreamLevel) == .stopStream(.refused))
        // A stream whose name holds the member's name: the record is still found and dropped alone
        // (firehose-local's text for a record over the stream's maximum names the stream).
        let namedAlike = FirehoseClientError(
            kind: .service, code: "InvalidArgumentException",
            message:
                "Record size 1100001 bytes (data and partition key) exceeds the maximum record size of stream app_streamName_logs, 1024 KiB.",
            httpStatus: 400)
        #expect(KinesisRecorder.classify(namedAlike) == .invalidBatch)
        let throttled = FirehoseClientError(
            kind: .service, code: "ProvisionedThroughputExceededException", message: "Rate exceeded", httpStatus: 400)
        #expect(KinesisRecorder.classify(throttled) == .retryable)
        let kmsThrottled = FirehoseClientError(
            kind: .service, code: "KMSThrottlingException", message: "Rate exceeded", httpStatus: 400)
        #expect(KinesisRecorder.classify(kmsThrottled) == .retryable)
    }

    @Test("Saves refuse what Kinesis would: partition keys of 0 or 257 characters, a bad stream name, over 10 MiB")
    func saveChecks() async throws {
        let harness = try KinesisHarness(.init(diskByteLimit: 64 << 20))
        defer { harness.directory.remove() }
        for key in ["", String(repeating: "é", count: 257)] {
            await #expect(throws: RecorderError.self) {
                try await harness.recorder.saveRecord(Data("x".utf8), streamName: "clicks", partitionKey: key)
            }
        }
        do {
            try await harness.recorder.saveRecord(Data("x".utf8), streamName: "clicks", partitionKey: "")
            Issue.record("an empty partition key was saved")
        } catch {
            #expect(error.kind == .invalidPartitionKey)
            #expect(error.message.contains("'partitionKey'"))
        }
        // 256 characters of two bytes each are fine: Kinesis counts characters.
        try await harness.recorder.saveRecord(
            Data("x".utf8), streamName: "clicks", partitionKey: String(repeating: "é", count: 256))
        do {
            try await harness.recorder.saveRecord(Data("x".utf8), streamName: "a b", partitionKey: "k")
            Issue.record("a bad stream name was saved")
        } catch {
            #expect(error.kind == .invalidStreamName)
            #expect(error.message.contains("'streamName'"))
        }
        do {
            try await harness.recorder.saveRecord(
                Data(count: KinesisClient.Limits.maxRecordBytes), streamName: "clicks", partitionKey: "k")
            Issue.record("a record over 10 MiB with its key was saved")
        } catch {
            #expect(error.kind == .recordTooLarge)
            #expect(error.message.contains("Kinesis's limit per record"))
        }
        #expect(try await harness.recorder.recordCount == 1)
    }

    @Test("A FirehoseRecorder and a KinesisRecorder share a directory, each with its own files")
    func sharedDirectory() async throws {
        let kinesis = try KinesisHarness()
        defer { kinesis.directory.remove() }
        let firehose = try Harness(directory: kinesis.directory)
        try await kinesis.recorder.saveRecord(Data("k".utf8), streamName: "clicks", partitionKey: "p")
        try await firehose.recorder.saveRecord(Data("f".utf8), streamName: "events")
        #expect(try await kinesis.recorder.storedRecords().map(\.data) == [Data("k".utf8)])
        #expect(try await firehose.recorder.storedRecords().map(\.data) == [Data("f".utf8)])
        let names = try FileManager.default.contentsOfDirectory(atPath: kinesis.directory.url.path)
        #expect(names.contains("kinesis-records.journal") && names.contains("firehose-records.journal"))
    }
}

@Suite("Record store and journal written before partition keys")
struct RecorderUpgradeTests {
    @Test("A version-1 database gains an empty partition key column; its records are kept and delivered")
    func storeVersion1() async throws {
        let directory = try TestDirectory("store-v1")
        defer { directory.remove() }
        do {
            let queue = try DatabaseQueue(path: directory.appending(RecordStore.fileName).path)
            try await queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE record (
                            id INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, data BLOB NOT NULL,
                            size INTEGER NOT NULL, created_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0);
                        CREATE INDEX record_by_stream ON record(stream, id);
                        CREATE INDEX record_by_age ON record(created_at);
                        CREATE TABLE totals (singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                            bytes INTEGER NOT NULL, records INTEGER NOT NULL);
                        INSERT INTO totals VALUES (1, 0, 0);
                        CREATE TRIGGER record_added AFTER INSERT ON record BEGIN
                            UPDATE totals SET bytes = bytes + NEW.size, records = records + 1; END;
                        CREATE TRIGGER record_removed AFTER DELETE ON record BEGIN
                            UPDATE totals SET bytes = bytes - OLD.size, records = records - 1; END;
                        PRAGMA user_version = 1;
                        """)
                try db.execute(
                    sql:
                        "INSERT INTO record (id, stream, data, size, created_at) VALUES (7, 'events', 'old', 3, 1795000000)"
                )
            }
            try queue.close()
        }
        let harness = try Harness(directory: directory)
        let stored = try await harness.recorder.storedRecords()
        #expect(stored.map(\.id) == [7] && stored.map(\.partitionKey) == [""])
        #expect(try await harness.recorder.saveRecord(Data("new".utf8), streamName: "events") == 8)
        let summary = await harness.recorder.submitAllRecords()
        #expect(summary.sentRecords == 2)
        #expect(harness.delivered().map { String(decoding: $0, as: UTF8.self) } == ["old", "new"])
        let version = try await harness.recorder.storeVersion()
        #expect(version == RecordStore.schemaVersion)
    }

    @Test("A version-1 journal left by a killed process is replayed, then rewritten as version 2")
    func journalVersion1() async throws {
        let directory = try TestDirectory("journal-v1")
        defer { directory.remove() }
        // Version 1's frame: length, checksum, id, created-at, stream length, stream, data.
        var file = RecordJournal.headerVersion1
        for (id, text) in [(Int64(1), "first"), (2, "second")] {
            var body: [UInt8] = []
            withUnsafeBytes(of: id.littleEndian) { body += $0 }
            withUnsafeBytes(of: (1_795_000_000.0).bitPattern.littleEndian) { body += $0 }
            withUnsafeBytes(of: UInt16(6).littleEndian) { body += $0 }
            body += Array("events".utf8) + Array(text.utf8)
            withUnsafeBytes(of: UInt32(body.count).littleEndian) { file += $0 }
            let sum = body.withUnsafeBytes { RecordJournal.checksum($0) }
            withUnsafeBytes(of: sum.littleEndian) { file += $0 }
            file += body
        }
        try Data(file).write(to: directory.appending(RecordJournal.fileName))
        do {
            let harness = try Harness(directory: directory)
            #expect(
                try await harness.recorder.storedRecords().map(\.data) == [Data("first".utf8), Data("second".utf8)])
            try await harness.recorder.saveRecord(Data("third".utf8), streamName: "events")
            // Replayed and cut back under a version-2 header, which the new save's frame follows.
            let bytes = try Data(contentsOf: directory.appending(RecordJournal.fileName))
            #expect(Array(bytes.prefix(8)) == RecordJournal.header)
            let (entries, _) = RecordJournal.parse([UInt8](bytes))
            #expect(entries.map(\.data) == [Data("third".utf8)])
        }
        let reopened = try await Harness.reopening(directory: directory)
        #expect(try await reopened.recorder.storedRecords().count == 3)
    }
}

extension Recorder {
    /// The store's schema version (tests of the upgrade).
    func storeVersion() throws -> Int {
        try store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
    }
}
