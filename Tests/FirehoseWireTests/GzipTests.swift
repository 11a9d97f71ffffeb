import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

/// Runs the system gzip with `arguments` on `input` written to a temporary file; returns stdout.
func systemGzip(_ arguments: [String], input: [UInt8]) throws -> (status: Int32, output: [UInt8]) {
    let executable = ["/usr/bin/gzip", "/bin/gzip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    let gzip = try #require(executable, "no gzip executable")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-test-\(UUID().uuidString)")
    try Data(input).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: gzip)
    process.arguments = arguments + [file.path]
    let stdout = Pipe()
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, [UInt8](output))
}

/// Compresses `chunks` with one compressor, appending each chunk separately.
func compress(_ chunks: [[UInt8]], level: Int32 = 6, syncFlushEvery: Int = 0) throws -> [UInt8] {
    let compressor = try GzipCompressor(level: level)
    var output: [UInt8] = []
    for (index, chunk) in chunks.enumerated() {
        compressor.append(chunk)
        if syncFlushEvery > 0, index % syncFlushEvery == 0 {
            compressor.syncFlush()
        }
        if index % 7 == 0 { output += compressor.takeOutput() }
    }
    compressor.finish()
    output += compressor.takeOutput()
    return output
}

@Suite("Gzip")
struct GzipTests {
    /// Mixed compressible and random text, split into many small pieces.
    static func sampleChunks(seed: UInt64, count: Int = 600) -> [[UInt8]] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            switch index % 3 {
            case 0: Array(#"{"event":"click","n":\#(index)}"#.utf8) + [10]
            case 1: generator.bytes(Int.random(in: 0...40, using: &generator))
            default: []
            }
        }
    }

    @Test("Many small appends + syncFlush + finish decompress to exactly the input", arguments: [1, 6, 9] as [Int32])
    func roundTrip(level: Int32) throws {
        let chunks = Self.sampleChunks(seed: UInt64(level))
        let plain = chunks.flatMap { $0 }
        let compressed = try compress(chunks, level: level, syncFlushEvery: 97)
        #expect(Gzip.hasMagic(compressed))
        #expect(try Gzip.decompress(compressed, limit: plain.count) == plain)
    }

    @Test("totalIn counts uncompressed bytes; syncFlush ends on the 00 00 FF FF marker")
    func syncFlushMarker() throws {
        let compressor = try GzipCompressor()
        compressor.append(Array("hello, ".utf8))
        compressor.append(ArraySlice(Array("world".utf8)))
        compressor.append(CollectionOfOne(UInt8(ascii: "\n")))
        compressor.append([UInt8]())
        #expect(compressor.totalIn == 13)
        compressor.syncFlush()
        let flushed = compressor.takeOutput()
        #expect(Array(flushed.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(Array(flushed.suffix(4)) == [0x00, 0x00, 0xFF, 0xFF])
        #expect(compressor.output.isEmpty)
        compressor.finish()
        compressor.finish()  // idempotent
        let all = flushed + compressor.takeOutput()
        #expect(try Gzip.decompress(all, limit: 100) == Array("hello, world\n".utf8))
        // ISIZE trailer: uncompressed length mod 2^32, little-endian.
        #expect(Array(all.suffix(4)) == [13, 0, 0, 0])
    }

    @Test("An empty stream is valid gzip")
    func emptyStream() throws {
        let compressed = try compress([])
        #expect(try Gzip.decompress(compressed, limit: 0) == [])
        let system = try systemGzip(["-dc"], input: compressed)
        #expect(system.status == 0)
        #expect(system.output.isEmpty)
    }

    @Test("Output is readable by the system gzip -dc")
    func readableBySystemGzip() throws {
        let chunks = Self.sampleChunks(seed: 42)
        let plain = chunks.flatMap { $0 }
        let compressed = try compress(chunks, syncFlushEvery: 13)
        let result = try systemGzip(["-dc"], input: compressed)
        #expect(result.status == 0)
        #expect(result.output == plain)
        // gzip -t verifies the CRC-32 and length trailer.
        #expect(try systemGzip(["-t"], input: compressed).status == 0)
    }

    @Test("What the system gzip writes decompresses")
    func decompressesSystemGzip() throws {
        let plain = Self.sampleChunks(seed: 5).flatMap { $0 }
        let compressed = try systemGzip(["-c", "-9"], input: plain)
        #expect(compressed.status == 0)
        #expect(try Gzip.decompress(compressed.output, limit: plain.count) == plain)
    }

    @Test("Concatenated members decompress to the concatenation (and gzip agrees)")
    func concatenatedMembers() throws {
        let a = Array("first member\n".utf8)
        let b = [UInt8](repeating: 0x5A, count: 100_000)
        let c: [UInt8] = []
        let d = Array("last\n".utf8)
        let joined = try compress([a]) + compress([b]) + compress([c]) + compress([d])
        #expect(try Gzip.decompress(joined, limit: 1_000_000) == a + b + c + d)
        #expect(try systemGzip(["-dc"], input: joined).output == a + b + c + d)
    }

    @Test("Truncated or corrupted input is .malformed")
    func truncated() throws {
        let plain = Self.sampleChunks(seed: 8).flatMap { $0 }
        let compressed = try compress([plain])
        for cut in [1, 2, 4, 8, 9, compressed.count / 2, compressed.count - 10] {
            let error = #expect(throws: Gzip.DecompressionError.self) {
                try Gzip.decompress(Array(compressed.dropLast(cut)), limit: 10_000_000)
            }
            #expect(error == .malformed, "cut \(cut)")
        }
        #expect(throws: Gzip.DecompressionError.malformed) { try Gzip.decompress([], limit: 10) }
        #expect(throws: Gzip.DecompressionError.malformed) { try Gzip.decompress([0x1F], limit: 10) }
        #expect(throws: Gzip.DecompressionError.malformed) { try Gzip.decompress(Array("plain text".utf8), limit: 10) }
        var badCRC = compressed
        badCRC[badCRC.count - 6] ^= 0x01
        #expect(throws: Gzip.DecompressionError.malformed) { try Gzip.decompress(badCRC, limit: 10_000_000) }
        #expect(throws: Gzip.DecompressionError.malformed) {
            try Gzip.decompress(compressed + [0x00, 0x01, 0x02], limit: 10_000_000)
        }
    }

    @Test("Output over the limit is .tooLarge; exactly the limit is fine")
    func limit() throws {
        var generator = SeededGenerator(seed: 21)
        let plain = generator.bytes(10_000)
        let compressed = try compress([plain])
        #expect(try Gzip.decompress(compressed, limit: 10_000) == plain)
        #expect(throws: Gzip.DecompressionError.tooLarge(limit: 9_999)) {
            try Gzip.decompress(compressed, limit: 9_999)
        }
        #expect(throws: Gzip.DecompressionError.tooLarge(limit: 1)) { try Gzip.decompress(compressed, limit: 1) }
        #expect(throws: Gzip.DecompressionError.tooLarge(limit: 0)) { try Gzip.decompress(compressed, limit: 0) }
        // Across members too.
        let two = compressed + compressed
        #expect(try Gzip.decompress(two, limit: 20_000) == plain + plain)
        #expect(throws: Gzip.DecompressionError.tooLarge(limit: 19_999)) { try Gzip.decompress(two, limit: 19_999) }
    }

    @Test("A small bomb (10 MB of zeros) is refused with a 1 MB limit")
    func bomb() throws {
        // Made by the system gzip: compressing 10 MB with the debug-built compressor would be slow.
        let zeros = [UInt8](repeating: 0, count: 10_000_000)
        let made = try systemGzip(["-c", "-9"], input: zeros)
        #expect(made.status == 0)
        let bomb = made.output
        #expect(bomb.count < 20_000)
        #expect(throws: Gzip.DecompressionError.tooLarge(limit: 1_048_576)) {
            try Gzip.decompress(bomb, limit: 1_048_576)
        }
        // Our own compressor's bomb too (1 MB of zeros, refused at 64 KiB).
        let compressor = try GzipCompressor(level: 9)
        compressor.append([UInt8](repeating: 0, count: 1_000_000))
        compressor.finish()
        let small = compressor.takeOutput()
        #expect(small.count < 2_000)
        #expect(throws: Gzip.DecompressionError.tooLarge(limit: 65_536)) { try Gzip.decompress(small, limit: 65_536) }
        #expect(try Gzip.decompress(small, limit: 1_000_000) == [UInt8](repeating: 0, count: 1_000_000))
    }

    @Test("A limit near Int.max (\"no limit\") decompresses instead of trapping on overflow")
    func hugeLimit() async {
        // Run in a child process: the overflow traps, which would otherwise end the whole test run.
        await #expect(processExitsWith: .success) {
            let compressor = try! GzipCompressor()
            compressor.append(Array("no limit".utf8))
            compressor.finish()
            let plain = try? Gzip.decompress(compressor.takeOutput(), limit: Int.max)
            precondition(plain == Array("no limit".utf8))
        }
    }

    @Test("hasMagic looks at the first two bytes only")
    func magic() {
        #expect(Gzip.hasMagic([0x1F, 0x8B]))
        #expect(Gzip.hasMagic([0x1F, 0x8B, 0x08, 0x00]))
        #expect(!Gzip.hasMagic([0x1F]))
        #expect(!Gzip.hasMagic([UInt8]()))
        #expect(!Gzip.hasMagic([0x8B, 0x1F]))
        #expect(!Gzip.hasMagic(Array("{\"a\":1}".utf8)))
    }
}
