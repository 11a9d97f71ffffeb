import FirehoseSink
import FirehoseWire
import Testing

/// Words joined at random: text that compresses like events do, reproducible from the seed.
private func text(_ count: Int, seed: UInt64) -> [UInt8] {
    let words = ["event", "screen_view", "session", "user", "purchase", "\"sku\":", "{", "}", "42", "ios", "17.4"]
    var state = seed
    var out: [UInt8] = []
    while out.count < count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        out += Array(words[Int(state >> 33) % words.count].utf8) + [UInt8(ascii: " ")]
    }
    return Array(out.prefix(count))
}

/// Compresses `parts` as independent segments, each primed with the content before it (or with
/// `dictionaries` when given), and wraps them as one gzip member.
private func member(_ parts: [[UInt8]], dictionaries: [[UInt8]]? = nil, level: Int32 = 6) throws -> [UInt8] {
    var out = GzipMember.header
    var crc: UInt32 = 0
    var before: [UInt8] = []
    for (index, part) in parts.enumerated() {
        let deflater = try RawDeflater(level: level)
        let dictionary = dictionaries?[index] ?? before
        dictionary.withUnsafeBytes { deflater.reset(dictionary: $0) }
        out += part.withUnsafeBytes { deflater.compress($0) }
        crc = CRC32.combine(crc, part.withUnsafeBytes { CRC32.checksum($0) }, secondLength: part.count)
        before += part
    }
    return out + GzipMember.trailer(crc: crc, length: before.count)
}

@Suite("Gzip members built from independently compressed segments")
struct GzipSegmentTests {
    @Test("Segments primed with the preceding content join into one member that decodes to the whole")
    func segmentsJoin() throws {
        let parts = [text(100_000, seed: 1), text(7, seed: 2), [], text(250_000, seed: 3), text(40_000, seed: 4)]
        let whole = parts.flatMap { $0 }
        let joined = try member(parts)
        #expect(try Gzip.decompress(joined, limit: 1 << 24) == whole)
        // One member: the trailer describes the whole content (a second member would describe only itself).
        let trailer = Array(joined.suffix(8))
        let crc = UInt32(trailer[0]) | UInt32(trailer[1]) << 8 | UInt32(trailer[2]) << 16 | UInt32(trailer[3]) << 24
        #expect(crc == whole.withUnsafeBytes { CRC32.checksum($0) })
        let size = UInt32(trailer[4]) | UInt32(trailer[5]) << 8 | UInt32(trailer[6]) << 16 | UInt32(trailer[7]) << 24
        #expect(size == UInt32(whole.count))
        // Nearly as small as one serial deflate of the same bytes.
        let serial = try GzipCompressor(level: 6)
        serial.append(whole)
        serial.finish()
        #expect(Double(joined.count) < Double(serial.output.count) * 1.02)
    }

    @Test("The dictionary is what later segments refer back into")
    func primingMatters() throws {
        let first = text(30_000, seed: 9)
        let once = try member([first])
        let primed = try member([first, first])
        let unprimed = try member([first, first], dictionaries: [[], []])
        // Repeating the previous 30 KB costs a few back-references when primed, a full recompression when not.
        #expect(primed.count - once.count < once.count / 4)
        #expect(unprimed.count - once.count > once.count * 9 / 10)
        #expect(try Gzip.decompress(primed, limit: 1 << 20) == first + first)
        #expect(try Gzip.decompress(unprimed, limit: 1 << 20) == first + first)
        // Priming with the wrong history yields a stream that does not decode to the content.
        let wrong = try member([first, first], dictionaries: [[], text(30_000, seed: 10)])
        #expect((try? Gzip.decompress(wrong, limit: 1 << 20)) != first + first)
    }

    @Test("crc32Combine agrees with the CRC of the concatenation", arguments: [0, 1, 1000, 65_537])
    func crcCombine(secondLength: Int) {
        let a = text(12_345, seed: 5)
        let b = text(secondLength, seed: 6)
        let combined = CRC32.combine(
            a.withUnsafeBytes { CRC32.checksum($0) }, b.withUnsafeBytes { CRC32.checksum($0) }, secondLength: b.count)
        #expect(combined == (a + b).withUnsafeBytes { CRC32.checksum($0) })
    }

    @Test("A deflater keeps its history across calls until reset (the serial path)")
    func serialCalls() throws {
        let deflater = try RawDeflater(level: 6)
        deflater.reset(dictionary: UnsafeRawBufferPointer(start: nil, count: 0))
        let parts = (0..<50).map { text(100 + $0, seed: UInt64($0 % 3)) }
        var out = GzipMember.header
        var crc: UInt32 = 0
        for part in parts {
            out += part.withUnsafeBytes { deflater.compress($0) }
            crc = CRC32.combine(crc, part.withUnsafeBytes { CRC32.checksum($0) }, secondLength: part.count)
        }
        let whole = parts.flatMap { $0 }
        out += GzipMember.trailer(crc: crc, length: whole.count)
        #expect(try Gzip.decompress(out, limit: 1 << 20) == whole)
        // Every call ends on a sync flush: a prefix cut after any call decodes to the parts so far.
        #expect(try Gzip.decompressPrefix(Array(out.dropLast(10)), limit: 1 << 20) == whole)
    }
}
