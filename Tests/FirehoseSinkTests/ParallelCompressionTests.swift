import FirehoseTestSupport
import FirehoseWire
import Foundation
import Synchronization
import Testing

@testable import FirehoseSink

/// A record that names its request and position, padded with compressible text (so deflate finds
/// back-references into earlier requests' segments).
private func record(request: Int, index: Int, size: Int, generator: inout SeededGenerator) -> [UInt8] {
    let words = ["alpha", "beta", "gamma", "delta", "screen", "tap", "purchase", "{\"k\":", "1,"]
    var out = Array("<\(request)-\(index)>".utf8)
    while out.count < size { out += Array(words.randomElement(using: &generator)!.utf8) }
    return Array(out.prefix(size))
}

/// The gzip trailer's CRC and size must describe the whole content: true only for a single member.
private func isOneMember(_ stored: [UInt8], content: [UInt8]) -> Bool {
    let trailer = Array(stored.suffix(8))
    let crc = trailer[0..<4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    let size = trailer[4..<8].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    return Gzip.hasMagic(stored) && crc == content.withUnsafeBytes { CRC32.checksum($0) }
        && size == UInt32(truncatingIfNeeded: content.count)
}

/// Request ids in the order their records appear, checking each request's records are contiguous
/// and in order.
private func requestOrder(_ content: [UInt8], recordsPerRequest: Int) -> [Int]? {
    var order: [Int] = []
    var expectedIndex = 0
    for line in content.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
        let tag = String(decoding: line.prefix { $0 != UInt8(ascii: ">") }.dropFirst(), as: UTF8.self)
        let fields = tag.split(separator: "-").compactMap { Int($0) }
        guard fields.count == 2 else { return nil }
        if expectedIndex == 0 { order.append(fields[0]) }
        guard fields[0] == order.last, fields[1] == expectedIndex else { return nil }
        expectedIndex = (expectedIndex + 1) % recordsPerRequest
    }
    return expectedIndex == 0 ? order : nil
}

private final class Tally: Sendable {
    let acknowledged = Mutex<Set<Int>>([])
    let delivered = Mutex<[DeliveredObject]>([])
}

@Suite("One stream compressing on every core")
struct ParallelCompressionTests {
    @Test("Concurrent large puts to one GZIP stream give one gzip member with each request whole and in order")
    func concurrentLargePuts() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(try settings(destination(compression: "GZIP", delimiter: true)))
            let requests = 16
            let recordsPerRequest = 200
            let batches = (0..<requests).map { request in
                var generator = SeededGenerator(seed: UInt64(request))
                return RecordBatch(
                    (0..<recordsPerRequest).map {
                        record(request: request, index: $0, size: 300 + ($0 * 37) % 700, generator: &generator)
                    })
            }
            #expect(batches.allSatisfy { $0.totalBytes >= DeliveryStream.parallelSegmentBytes })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for batch in batches { group.addTask { try await h.sink.put(batch, to: "demo") } }
                try await group.waitForAll()
            }
            let object = try #require(try await h.sink.flush().first)
            let stored = try h.contents(of: object)
            let content = try Gzip.decompress(stored, limit: 1 << 26)
            let order = try #require(requestOrder(content, recordsPerRequest: recordsPerRequest))
            #expect(order.sorted() == Array(0..<requests))
            #expect(isOneMember(stored, content: content))
            #expect(object.records == requests * recordsPerRequest)
            #expect(object.bytes == content.count)
            #expect(object.storedBytes == stored.count)
            // Each request's share, rebuilt in delivery order, is exactly what was sent.
            let expected = order.flatMap { request in
                (0..<recordsPerRequest).flatMap { batches[request][$0] + [UInt8(ascii: "\n")] }
            }
            #expect(content == expected)
        }
    }

    @Test("Small and large puts interleaved: the serial deflater is re-primed after parallel segments")
    func interleavedSizes() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(try settings(destination(compression: "GZIP", delimiter: true)))
            var generator = SeededGenerator(seed: 7)
            // The same records again and again, so nearly everything is a back-reference into
            // earlier segments: history out of step with the stream would decode to other bytes.
            let pool = (0..<12).map { record(request: 0, index: $0, size: 2_000, generator: &generator) }
            var expected: [UInt8] = []
            for step in 0..<30 {
                let count = [1, 3, 60, 2, 45, 1][step % 6]
                let records = (0..<count).map { pool[(step * 7 + $0) % pool.count] }
                try await h.put(records)
                expected += records.flatMap { $0 + [UInt8(ascii: "\n")] }
            }
            let object = try #require(try await h.sink.flush().first)
            let stored = try h.contents(of: object)
            let content = try Gzip.decompress(stored, limit: 1 << 26)
            #expect(content == expected)
            #expect(isOneMember(stored, content: content))
            #expect(stored.count < expected.count / 10)
        }
    }

    @Test(
        "A large put crossing the size hint splits where record-by-record appending would",
        arguments: ["GZIP", "UNCOMPRESSED"])
    func splitAtSizeHint(compression: String) async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(try settings(destination(sizeInMBs: 1, compression: compression)))
            var generator = SeededGenerator(seed: 3)
            let records = (0..<900).map { record(request: 1, index: $0, size: 3_000 + $0 % 7, generator: &generator) }
            var delivered: [DeliveredObject] = []
            for start in stride(from: 0, to: records.count, by: 300) {
                delivered += try await h.put(Array(records[start..<start + 300]))
            }
            delivered += try await h.sink.flush()
            // Expected cuts: a buffer closes after the record that takes it to 1 MiB or more.
            var sizes: [Int] = []
            var current = 0
            for record in records {
                current += record.count
                if current >= 1 << 20 {
                    sizes.append(current)
                    current = 0
                }
            }
            if current > 0 { sizes.append(current) }
            #expect(delivered.map(\.bytes) == sizes)
            var content: [UInt8] = []
            for object in delivered {
                let stored = try h.contents(of: object)
                let decoded = compression == "GZIP" ? try Gzip.decompress(stored, limit: 1 << 26) : stored
                if compression == "GZIP" { #expect(isOneMember(stored, content: decoded)) }
                #expect(decoded.count == object.bytes)
                content += decoded
            }
            #expect(content == records.flatMap { $0 })
        }
    }

    @Test("Records staged by large concurrent puts are recovered after a crash", arguments: ["GZIP", "UNCOMPRESSED"])
    func recoversParallelSegments(compression: String) async throws {
        let crashed = try SinkHarness()
        let stream = try settings(destination(compression: compression, delimiter: true))
        try crashed.sink.createStream(stream)
        let batches = (0..<6).map { request in
            var generator = SeededGenerator(seed: UInt64(100 + request))
            return RecordBatch((0..<150).map { record(request: request, index: $0, size: 700, generator: &generator) })
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in batches { group.addTask { try await crashed.sink.put(batch, to: "demo") } }
            try await group.waitForAll()
        }
        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(report.corrupt.isEmpty && report.orphaned.isEmpty)
        var content = try crashed.contents(of: object)
        if compression == "GZIP" { content = try Gzip.decompress(content, limit: 1 << 26) }
        let order = try #require(requestOrder(content, recordsPerRequest: 150))
        #expect(order.sorted() == Array(0..<6))
        #expect(object.records == 900)
        try? FileManager.default.removeItem(atPath: crashed.directory)
    }

    @Test("A flush during concurrent large puts delivers everything acknowledged before it")
    func flushDuringPuts() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(try settings(destination(compression: "GZIP", delimiter: true)))
            let tally = Tally()
            let recordsPerRequest = 120
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        for round in 0..<5 {
                            let request = worker * 100 + round
                            var generator = SeededGenerator(seed: UInt64(request))
                            let batch = RecordBatch(
                                (0..<recordsPerRequest).map {
                                    record(request: request, index: $0, size: 800, generator: &generator)
                                })
                            let objects = try await h.sink.put(batch, to: "demo")
                            tally.delivered.withLock { $0 += objects }
                            tally.acknowledged.withLock { _ = $0.insert(request) }
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<8 {
                        let before = tally.acknowledged.withLock { $0 }
                        let objects = try await h.sink.flush()
                        let all = tally.delivered.withLock {
                            $0 += objects; return $0
                        }
                        var present = Set<Int>()
                        for object in all {
                            let content = try Gzip.decompress(try h.contents(of: object), limit: 1 << 26)
                            present.formUnion(try #require(requestOrder(content, recordsPerRequest: recordsPerRequest)))
                        }
                        #expect(before.isSubset(of: present))
                        await Task.yield()
                    }
                }
                try await group.waitForAll()
            }
            // A buffer published by a put's write while a flush waited for it is reported to both.
            var objects: [String: DeliveredObject] = [:]
            for object in tally.delivered.withLock({ $0 }) + (try await h.sink.flush()) {
                objects[object.path] = object
            }
            var seen: [Int] = []
            for object in objects.values {
                seen += try #require(
                    requestOrder(
                        try Gzip.decompress(try h.contents(of: object), limit: 1 << 26),
                        recordsPerRequest: recordsPerRequest))
            }
            let sent: [Int] = (0..<6).flatMap { worker in (0..<5).map { worker * 100 + $0 } }
            #expect(seen.sorted() == sent)
        }
    }
}
