import FirehoseWire
import Foundation
import Testing

@testable import FirehoseSink

/// What a ZIP object says about its one entry, read from its records (APPNOTE.TXT), and the entry's
/// content, inflated and checked against the CRC-32 and sizes the archive states.
struct ZipEntry {
    var name: String
    var content: [UInt8]

    init(_ object: [UInt8]) throws {
        func u16(_ at: Int) -> Int { Int(object[at]) | Int(object[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let end = object.count - 22
        try #require(end > 0 && u32(end) == 0x0605_4B50, "end of central directory record")
        #expect(u16(end + 8) == 1 && u16(end + 10) == 1, "one entry")
        let directory = u32(end + 16)
        #expect(directory + u32(end + 12) == end)
        try #require(u32(directory) == 0x0201_4B50, "central directory entry")
        let (crc, compressed, uncompressed) = (u32(directory + 16), u32(directory + 20), u32(directory + 24))
        #expect(u16(directory + 10) == 8, "deflated")
        let nameLength = u16(directory + 28)
        name = String(decoding: object[directory + 46..<directory + 46 + nameLength], as: UTF8.self)
        try #require(u32(0) == 0x0403_4B50 && u16(26) == nameLength && u16(6) == 0x0008)
        let dataStart = 30 + nameLength
        let descriptor = dataStart + compressed
        #expect(u32(descriptor) == 0x0807_4B50)
        #expect(u32(descriptor + 4) == crc && u32(descriptor + 8) == compressed && u32(descriptor + 12) == uncompressed)
        #expect(descriptor + 16 == directory)
        // The entry's deflate stream, checked whole by zlib inside a gzip member built around it.
        var member = GzipMember.header + object[dataStart..<descriptor]
        for value in [crc, uncompressed] {
            for shift in [0, 8, 16, 24] { member.append(UInt8(value >> shift & 0xFF)) }
        }
        content = try Gzip.decompress(member, limit: 1 << 26)
        #expect(content.count == uncompressed)
    }
}

/// The blocks of a Snappy object: (uncompressed length when the framing states it, compressed length).
func snappyFrames(_ object: [UInt8], hadoop: Bool) throws -> [(uncompressed: Int?, compressed: Int)] {
    var frames: [(uncompressed: Int?, compressed: Int)] = []
    var offset = hadoop ? 0 : 16
    if !hadoop { #expect(Array(object.prefix(16)) == SnappyJavaEncoding.header) }
    while offset < object.count {
        let uncompressed = hadoop ? try #require(SnappyBlocks.readBigEndian(object, at: offset)) : nil
        if hadoop { offset += 4 }
        let compressed = try #require(SnappyBlocks.readBigEndian(object, at: offset))
        offset += 4 + compressed
        frames.append((uncompressed, compressed))
    }
    #expect(offset == object.count)
    return frames
}

@Suite("Compression formats: ZIP, Snappy, HADOOP_SNAPPY")
struct CompressionFormatTests {
    /// Small records in one request, a 100 KiB one (encoded off the actor, in parallel) in the next,
    /// then a small one: segments of both kinds joined in one object.
    static let records: [[[UInt8]]] = [
        [Array("first\n".utf8), Array("second\n".utf8)],
        [Array((0..<100 * 1024).map { UInt8(truncatingIfNeeded: $0 * 7 % 251) })],
        [Array("last".utf8)],
    ]
    static var content: [UInt8] { records.flatMap { $0.flatMap { $0 } } }

    func deliver(_ format: String, in harness: SinkHarness) async throws -> (DeliveredObject, [UInt8]) {
        try harness.sink.createStream(try settings(destination(compression: format)))
        for request in Self.records { try await harness.put(request) }
        let object = try #require(try await harness.sink.flush(stream: "demo").first)
        #expect(object.records == 4 && object.bytes == Self.content.count)
        return (object, try harness.contents(of: object))
    }

    @Test("ZIP: one deflated entry named by a UUID, sizes and CRC in a data descriptor, .zip")
    func zip() async throws {
        try await SinkHarness.with { harness in
            let (object, stored) = try await deliver("ZIP", in: harness)
            #expect(object.key.hasSuffix(".zip"))
            let entry = try ZipEntry(stored)
            #expect(entry.content == Self.content)
            #expect(UUID(uuidString: entry.name) != nil && entry.name == entry.name.lowercased())
            #expect(stored.count < Self.content.count / 2)
            // Read back, the entry is refused before it is inflated when it declares more than the
            // reader takes (a server reading a bucket bounds its memory).
            #expect(try ObjectContent.decode(stored, key: object.key) == Self.content)
            #expect(throws: ObjectContent.DecodingError.self) {
                try ObjectContent.decode(stored, key: object.key, limit: Self.content.count - 1)
            }
        }
    }

    @Test("Snappy: snappy-java's stream format in 32 KiB blocks, .snappy")
    func snappy() async throws {
        try await SinkHarness.with { harness in
            let (object, stored) = try await deliver("Snappy", in: harness)
            #expect(object.key.hasSuffix(".snappy"))
            let frames = try snappyFrames(stored, hadoop: false)
            // "first\nsecond\n", 100 KiB as 32+32+32+4 KiB, "last".
            #expect(frames.count == 6)
            #expect(SnappyJavaEncoding().decodeStaged(stored, limit: 1 << 26) == Self.content)
        }
    }

    @Test("HADOOP_SNAPPY: Hadoop's block framing, each block's lengths stated, .snappy")
    func hadoopSnappy() async throws {
        try await SinkHarness.with { harness in
            let (object, stored) = try await deliver("HADOOP_SNAPPY", in: harness)
            #expect(object.key.hasSuffix(".snappy"))
            let frames = try snappyFrames(stored, hadoop: true)
            #expect(frames.map(\.uncompressed) == [13, 32768, 32768, 32768, 4096, 4])
            #expect(HadoopSnappyEncoding().decodeStaged(stored, limit: 1 << 26) == Self.content)
        }
    }

    @Test("A corrupt or truncated Snappy block does not decode", arguments: ["Snappy", "HADOOP_SNAPPY"])
    func corruptSnappy(format: String) throws {
        let encoding = try #require(DeliveryStreamSettings.Compression(rawValue: format)).encoding(gzipLevel: 6)
        let whole = try encoding.encodeWhole(Array(repeating: 0x61, count: 1000))
        #expect(encoding.decodeStaged(whole, limit: 2000) == Array(repeating: 0x61, count: 1000))
        #expect(encoding.decodeStaged(Array(whole.dropLast()), limit: 2000) == nil)
        var flipped = whole
        flipped[flipped.count - 3] ^= 0xFF
        #expect(encoding.decodeStaged(flipped, limit: 2000) != Array(repeating: 0x61, count: 1000))
    }

    @Test(
        "Acknowledged records of every format are recovered after a crash into an object that decodes",
        arguments: ["ZIP", "Snappy", "HADOOP_SNAPPY"])
    func recovery(format: String) async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        let stream = try settings(destination(compression: format))
        try crashed.sink.createStream(stream)
        for request in Self.records { try await crashed.put(request) }

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(report.delivered.count == 1 && report.corrupt.isEmpty && report.orphaned.isEmpty)
        #expect(object.records == 4)
        let stored = try crashed.contents(of: object)
        switch format {
        case "ZIP": #expect(try ZipEntry(stored).content == Self.content)
        case "Snappy": #expect(SnappyJavaEncoding().decodeStaged(stored, limit: 1 << 26) == Self.content)
        default: #expect(HadoopSnappyEncoding().decodeStaged(stored, limit: 1 << 26) == Self.content)
        }
        #expect(crashed.stagingIsEmpty)
    }
}
