import Crypto
import Foundation
import KinesisStreams
import Testing

@Suite("Hash keys and shards, as Kinesis divides them")
struct HashKeySpaceTests {
    @Test("Three shards split 2^128 at AWS's boundaries; the last ends at 2^128 - 1")
    func threeShards() {
        let space = HashKeySpace(shardCount: 3)
        // The boundary AWS answered for a 3-shard stream (kinesalite's test, run against AWS).
        #expect(space.range(ofShard: 0) == 0...UInt128("113427455640312821154458202477256070484")!)
        #expect(space.range(ofShard: 1).lowerBound == UInt128("113427455640312821154458202477256070485")!)
        #expect(space.range(ofShard: 2).upperBound == UInt128.max)
        #expect(space.shard(for: UInt128("113427455640312821154458202477256070484")!) == 0)
        #expect(space.shard(for: UInt128("113427455640312821154458202477256070485")!) == 1)
        #expect(space.shard(for: .max) == 2)
    }

    @Test("One shard owns the whole space; powers of two split it evenly")
    func edges() {
        #expect(HashKeySpace(shardCount: 1).range(ofShard: 0) == 0...UInt128.max)
        #expect(HashKeySpace(shardCount: 1).shard(for: .max) == 0)
        let four = HashKeySpace(shardCount: 4)
        #expect(four.range(ofShard: 1) == (UInt128(1) << 126)...((UInt128(1) << 127) - 1))
        #expect(four.shard(for: (UInt128(1) << 127)) == 2)
    }

    @Test("A partition key's hash key is its MD5, big-endian")
    func md5() {
        // md5("a") = 0cc175b9c0f1b6a831c399e269772661
        #expect(HashKeySpace.hashKey(partitionKey: "a") == UInt128("0cc175b9c0f1b6a831c399e269772661", radix: 16)!)
    }

    @Test("ExplicitHashKey: the model's digits, inside 2^128")
    func explicitHashKey() {
        #expect(HashKeySpace.parse(explicitHashKey: "0") == 0)
        #expect(HashKeySpace.parse(explicitHashKey: String(UInt128.max)) == .max)
        #expect(HashKeySpace.parse(explicitHashKey: "340282366920938463463374607431768211456") == nil)
        #expect(HashKeySpace.isHashKeyText("340282366920938463463374607431768211456"))
        #expect(
            !HashKeySpace.isHashKeyText("01") && !HashKeySpace.isHashKeyText("") && !HashKeySpace.isHashKeyText("-1"))
    }
}

@Suite("Sequence numbers and shard iterators")
struct ShardPositionTests {
    @Test("56 digits that round-trip and grow with the position")
    func sequenceNumbers() {
        let number = SequenceNumber(stream: 7, shard: 2, position: 123_456)
        let text = number.description
        #expect(text.count == 56 && text.hasPrefix("49") && text.allSatisfy(\.isNumber))
        #expect(SequenceNumber(text) == number)
        #expect(SequenceNumber(stream: 7, shard: 2, position: 123_457).description > text)
        #expect(SequenceNumber("1") == nil && SequenceNumber(String(repeating: "9", count: 56)) == nil)
        #expect(SequenceNumber.isModelText("1") && !SequenceNumber.isModelText("01"))
    }

    @Test("An iterator round-trips under its log's key; a damaged one, or another key's, is refused")
    func iterators() {
        let seal = TokenSeal(key: Array(repeating: 7, count: 32))
        let token = ShardIteratorToken(stream: 3, shard: 1, position: 99, issuedMilliseconds: 1_795_266_309_000)
        let text = token.encoded(by: seal)
        #expect(text.hasPrefix("AAAAAAAAAAE"))
        #expect(ShardIteratorToken(decoding: text, by: seal) == token)
        var damaged = Array(text)
        damaged[20] = damaged[20] == "A" ? "B" : "A"
        #expect(ShardIteratorToken(decoding: String(damaged), by: seal) == nil)
        #expect(ShardIteratorToken(decoding: "not an iterator", by: seal) == nil)
        #expect(ShardIteratorToken(decoding: text, by: TokenSeal(key: Array(repeating: 8, count: 32))) == nil)
    }
}

@Suite("The stream log")
struct StreamLogTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "kinesis-\(UUID().uuidString)"
    }

    @Test("The log keeps its token key: what it sealed before reopening it still opens")
    func tokenKeyPersists() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/streams.sqlite"
        let sealed = try StreamLog(path: path).seal.seal([1, 2, 3])
        #expect(try StreamLog(path: path).seal.open(sealed, maxLength: 100) == [1, 2, 3])
    }

    @Test("Records appended are read back per shard in order, and survive reopening")
    func appendAndRead() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/streams.sqlite"
        do {
            let log = try StreamLog(path: path)
            let stream = try log.create(StreamDefinition(name: "s", shardCount: 2), nowMilliseconds: 1_000)
            let put = try log.append(
                [
                    RecordToAppend(shard: 0, partitionKey: "a", data: [1]),
                    RecordToAppend(shard: 1, partitionKey: "b", data: [2, 2]),
                    RecordToAppend(shard: 0, partitionKey: "c", data: []),
                ], to: stream, nowMilliseconds: 2_000)
            #expect(put == [1, 2, 3])
        }
        let log = try StreamLog(path: path)
        let stream = try #require(try log.stream(named: "s"))
        let shard0 = try log.read(
            stream: stream, shard: 0, from: 1, limit: 10, maxBytes: 1 << 20, cutoffMilliseconds: 0)
        #expect(shard0.records.map(\.partitionKey) == ["a", "c"])
        #expect(shard0.records.map(\.data) == [[1], []])
        #expect(shard0.records.map(\.arrivalMilliseconds) == [2_000, 2_000])
        #expect(shard0.nextPosition == 4 && shard0.oldestUnreadArrival == nil)
        let limited = try log.read(
            stream: stream, shard: 0, from: 1, limit: 1, maxBytes: 1 << 20, cutoffMilliseconds: 0)
        #expect(
            limited.records.map(\.position) == [1] && limited.nextPosition == 2 && limited.oldestUnreadArrival == 2_000)
        #expect(try log.endPosition() == 4)
        // Arrivals never go backwards, even when the clock does.
        let late = try log.append(
            [RecordToAppend(shard: 1, partitionKey: "d", data: [4])], to: stream, nowMilliseconds: 1_500)
        let read = try log.read(
            stream: stream, shard: 1, from: late[0], limit: 1, maxBytes: 1 << 20, cutoffMilliseconds: 0)
        #expect(read.records.map(\.arrivalMilliseconds) == [2_000])
    }

    @Test("Puts grouped in one transaction: each gets its positions in order; a deleted stream's put fails alone")
    func groupedAppend() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = try StreamLog(path: folder + "/streams.sqlite")
        let kept = try log.create(StreamDefinition(name: "kept", shardCount: 2), nowMilliseconds: 0)
        let gone = try log.create(StreamDefinition(name: "gone", shardCount: 1), nowMilliseconds: 0)
        try log.delete(name: "gone")
        let results = try log.append([
            AppendGroup(
                records: [RecordToAppend(shard: 0, partitionKey: "a", data: [1])], stream: kept, nowMilliseconds: 5),
            AppendGroup(
                records: [RecordToAppend(shard: 0, partitionKey: "b", data: [2])], stream: gone, nowMilliseconds: 5),
            AppendGroup(
                records: [
                    RecordToAppend(shard: 1, partitionKey: "c", data: [3]),
                    RecordToAppend(shard: 0, partitionKey: "d", data: [4]),
                ], stream: kept, nowMilliseconds: 6),
        ])
        #expect(try results[0].get() == [1])
        #expect(throws: StreamLogError.streamNotFound("gone")) { try results[1].get() }
        #expect(try results[2].get() == [2, 3])
        let shard0 = try log.read(stream: kept, shard: 0, from: 0, limit: 10, maxBytes: 1 << 20, cutoffMilliseconds: 0)
        #expect(shard0.records.map(\.partitionKey) == ["a", "d"])
        #expect(shard0.records.map(\.arrivalMilliseconds) == [5, 6])
    }

    @Test(
        "Group commit's state machine: one writer at a time, batches in arrival order, bounded, and the writer stops when idle"
    )
    func writeBatching() {
        var batching = WriteBatching<Int>(maxItems: 3)
        let started = batching.enqueue(1)  // no writer: start one
        #expect(started)
        let more = [2, 3, 4].map { batching.enqueue($0) }
        #expect(more == [false, false, false])
        var batch = batching.next()
        #expect(batch == [1, 2, 3])
        let whileWriting = batching.enqueue(5)  // the writer is still running
        #expect(!whileWriting)
        batch = batching.next()
        #expect(batch == [4, 5])
        batch = batching.next()
        #expect(batch.isEmpty)  // idle: the writer stops
        let again = batching.enqueue(6)  // and the next put starts another
        #expect(again && batching.waiting == 1)
        batch = batching.next()
        #expect(batch == [6])
    }

    @Test("Group commit's batches are bounded in bytes too; an item larger than the bound goes alone")
    func writeBatchingBytes() {
        var batching = WriteBatching<String>(maxItems: 10, maxBytes: 100)
        let started = batching.enqueue("a", bytes: 60)
        #expect(started)
        for (item, bytes) in [("b", 40), ("c", 1), ("huge", 500), ("d", 10), ("e", 95)] {
            let startsAnother = batching.enqueue(item, bytes: bytes)
            #expect(!startsAnother)
        }
        var batches: [[String]] = []
        while case let batch = batching.next(), !batch.isEmpty { batches.append(batch) }
        // 100 is at the bound; c + huge would pass it; huge goes alone; d + e is 105.
        #expect(batches == [["a", "b"], ["c"], ["huge"], ["d"], ["e"]])
    }

    @Test("Names are unique; a deleted stream's records go, and its positions are never reused")
    func lifecycle() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = try StreamLog(path: folder + "/streams.sqlite")
        let first = try log.create(StreamDefinition(name: "s", shardCount: 1), nowMilliseconds: 0)
        #expect(throws: StreamLogError.streamExists("s")) {
            try log.create(StreamDefinition(name: "s", shardCount: 1), nowMilliseconds: 0)
        }
        _ = try log.append([RecordToAppend(shard: 0, partitionKey: "k", data: [1])], to: first, nowMilliseconds: 0)
        try log.delete(name: "s")
        #expect(throws: StreamLogError.streamNotFound("s")) { try log.delete(name: "s") }
        #expect(throws: StreamLogError.streamNotFound("s")) {
            try log.append([RecordToAppend(shard: 0, partitionKey: "k", data: [1])], to: first, nowMilliseconds: 0)
        }
        // The deleted stream's record is deleted by the maintenance, a batch at a time.
        #expect(try log.trimAll(nowMilliseconds: 0) == 1)
        let second = try log.create(StreamDefinition(name: "s", shardCount: 1), nowMilliseconds: 0)
        #expect(second.id != first.id)
        #expect(
            try log.append([RecordToAppend(shard: 0, partitionKey: "k", data: [1])], to: second, nowMilliseconds: 0)
                == [2])
        #expect(try log.streams().map(\.name) == ["s"])
    }

    @Test("Retention: reads skip what is past it, trim deletes it, a timestamp finds the first kept record")
    func retention() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = try StreamLog(path: folder + "/streams.sqlite")
        let stream = try log.create(StreamDefinition(name: "s", shardCount: 1, retentionHours: 1), nowMilliseconds: 0)
        let hour: Int64 = 3_600_000
        for (index, at) in [0, hour / 2, hour * 2].enumerated() {
            _ = try log.append(
                [RecordToAppend(shard: 0, partitionKey: "k", data: [UInt8(index)])], to: stream, nowMilliseconds: at)
        }
        let now = hour * 2 + 1
        let cutoff = stream.retentionCutoff(nowMilliseconds: now)
        let kept = try log.read(
            stream: stream, shard: 0, from: 0, limit: 10, maxBytes: 1 << 20, cutoffMilliseconds: cutoff)
        #expect(kept.records.map(\.data) == [[2]])
        #expect(try log.position(stream: stream, shard: 0, arrivedAtOrAfter: 0, cutoffMilliseconds: cutoff) == 3)
        #expect(try log.position(stream: stream, shard: 0, arrivedAtOrAfter: hour * 3, cutoffMilliseconds: cutoff) == 4)
        #expect(try log.trimAll(nowMilliseconds: now) == 2)
        #expect(try log.size(of: stream).records == 1)
        #expect(try log.trimAll(nowMilliseconds: now) == 0)
        #expect(try log.autoVacuumMode() == 2)
    }

    @Test("A consumer's start is saved once; forgetting it drops its start and positions")
    func consumers() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = try StreamLog(path: folder + "/streams.sqlite")
        let stream = try log.create(StreamDefinition(name: "s", shardCount: 1), nowMilliseconds: 0)
        #expect(try log.registerConsumer("d", startMilliseconds: 100) == 100)
        #expect(try log.registerConsumer("d", startMilliseconds: 900) == 100)
        try log.saveCheckpoint(consumer: "d", stream: stream, shard: 0, position: 7)
        try log.forgetConsumer("d")
        #expect(try log.checkpoint(consumer: "d", stream: stream, shard: 0) == nil)
        #expect(try log.registerConsumer("d", startMilliseconds: 900) == 900)
    }

    @Test("A read stops after the record that reaches its byte budget")
    func byteBudget() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let log = try StreamLog(path: folder + "/streams.sqlite")
        let stream = try log.create(StreamDefinition(name: "s", shardCount: 1), nowMilliseconds: 0)
        _ = try log.append(
            (0..<5).map { _ in RecordToAppend(shard: 0, partitionKey: "k", data: [UInt8](repeating: 1, count: 100)) },
            to: stream, nowMilliseconds: 0)
        let page = try log.read(stream: stream, shard: 0, from: 0, limit: 10, maxBytes: 250, cutoffMilliseconds: 0)
        #expect(page.records.count == 3 && page.nextPosition == 4)
        // A pass's snapshot of the end bounds what it reads.
        let bounded = try log.read(
            stream: stream, shard: 0, from: 0, before: 3, limit: 10, maxBytes: 1 << 20, cutoffMilliseconds: 0)
        #expect(bounded.records.map(\.position) == [1, 2] && bounded.oldestUnreadArrival == nil)
    }
}

/// Protobuf as the KPL writes it, for building aggregates in tests.
private struct ProtobufWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func field(_ number: UInt64, varint value: UInt64) {
        varint(number << 3)
        varint(value)
    }

    mutating func field(_ number: UInt64, bytes value: [UInt8]) {
        varint(number << 3 | 2)
        varint(UInt64(value.count))
        bytes += value
    }
}

private func aggregate(_ records: [(key: UInt64, data: String)], keys: [String], digest: [UInt8]? = nil) -> [UInt8] {
    var message = ProtobufWriter()
    for key in keys { message.field(1, bytes: Array(key.utf8)) }
    for record in records {
        var inner = ProtobufWriter()
        inner.field(1, varint: record.key)
        inner.field(3, bytes: Array(record.data.utf8))
        message.field(3, bytes: inner.bytes)
    }
    return KPLAggregation.magic + message.bytes + (digest ?? Array(Insecure.MD5.hash(data: message.bytes)))
}

@Suite("KPL aggregates")
struct KPLAggregationTests {
    @Test("An aggregate gives back its user records in order")
    func userRecords() {
        let data = aggregate([(0, "first"), (1, "second"), (0, "third")], keys: ["a", "b"])
        #expect(
            KPLAggregation.userRecords(in: data)?.map { String(decoding: $0, as: UTF8.self) } == [
                "first", "second", "third",
            ])
        #expect(KPLAggregation.userRecords(in: aggregate([], keys: [])) == [])
    }

    @Test("Anything else is an ordinary record: no magic, a wrong MD5, broken protobuf, a key outside the table")
    func notAggregates() {
        #expect(KPLAggregation.userRecords(in: Array("plain record".utf8)) == nil)
        #expect(KPLAggregation.userRecords(in: KPLAggregation.magic) == nil)
        #expect(
            KPLAggregation.userRecords(in: aggregate([(0, "x")], keys: ["a"], digest: Array(repeating: 0, count: 16)))
                == nil)
        #expect(KPLAggregation.userRecords(in: aggregate([(1, "x")], keys: ["a"])) == nil)
        // A length running past the end, and a varint of eleven bytes.
        for message in [[0x1A, 0x7F, 0x01], [0x08] + Array(repeating: 0xFF, count: 10) + [0x01]] as [[UInt8]] {
            let data = KPLAggregation.magic + message + Array(Insecure.MD5.hash(data: message))
            #expect(KPLAggregation.userRecords(in: data) == nil)
        }
    }
}
