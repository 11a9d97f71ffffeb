import ArgumentParser
import CIsal
import CLibdeflate
import CZlib
import Dispatch
import LoadSupport
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the machine can do at best for a GZIP stream: a deflate implementation compressing the load
/// generator's records on every thread at once, doing only what the format needs (records joined by
/// the `\n` delimiter, a new gzip member every 5 MiB as each object needs). No I/O, no HTTP, no JSON,
/// no base64. How each request's records are compressed is the `--pattern`:
///
/// - `stream`: one deflate stream per object, sync-flushed after each request (the server's serial
///   deflater, used for requests under its parallel threshold; zlib's historical ceiling).
/// - `primed`: each request a raw deflate segment of its own, primed with the 32 KiB of content
///   before it and sync-flushed, the segments joined (the server's parallel segments, as pigz).
/// - `object`: the object's content compressed in one call once it is complete (what a whole-buffer
///   library such as libdeflate allows: the records would be staged uncompressed until delivery).
@main
struct DeflateCeilingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deflate-ceiling",
        abstract: "Deflate throughput on the load generator's records, one independent stream per thread.",
        discussion: """
            --implementation zlib (levels 1-9; the system zlib the server links), isal (Intel ISA-L's \
            igzip, levels 0-3) or libdeflate (levels 1-12, --pattern object only). The JSON output \
            has the payload MB/s and the compression ratio; run zlib level 6 beside a candidate for \
            the sizes relative to it.
            """)

    enum Implementation: String, ExpressibleByArgument, Encodable {
        case zlib, isal, libdeflate
    }

    enum Pattern: String, ExpressibleByArgument, Encodable {
        case stream, primed, object
    }

    @Option(help: "Deflate implementation: zlib, isal or libdeflate.")
    var implementation: Implementation = .zlib

    @Option(help: "How a request's records are compressed: stream, primed or object.")
    var pattern: Pattern?

    @Option(help: "Record profile: app-events or small.")
    var recordProfile: RecordProfile = .appEvents

    @Option(help: "Records per request: one flush after each (stream and primed).")
    var recordsPerBatch = 500

    @Option(help: "Distinct requests (as firehose-load): fixes how many records are generated.")
    var distinctRequests = 32

    @Option(help: "Seed of the record generator (as firehose-load).")
    var seed: UInt64 = 1

    @Option(help: "Level: zlib 1-9 (default 6), isal 0-3 (default 1), libdeflate 1-12 (default 6).")
    var level: Int32?

    @Option(help: "Threads, each compressing its own gzip stream.")
    var threads = 2

    @Option(help: "Seconds to run (1-60).")
    var duration: Double = 5

    @Option(help: "Uncompressed bytes per gzip member (object).")
    var objectBytes = 5 * 1_048_576

    @Flag(help: "Print JSON.")
    var json = false

    var chosenPattern: Pattern { pattern ?? (implementation == .libdeflate ? .object : .stream) }
    var chosenLevel: Int32 { level ?? (implementation == .isal ? 1 : 6) }

    func validate() throws {
        let levels: ClosedRange<Int32> =
            switch implementation {
            case .zlib: 1...9
            case .isal: 0...3
            case .libdeflate: 1...12
            }
        guard levels.contains(chosenLevel) else {
            throw ValidationError("--level must be \(levels.lowerBound)-\(levels.upperBound) for \(implementation)")
        }
        if implementation == .libdeflate, chosenPattern != .object {
            throw ValidationError("libdeflate compresses whole buffers: --pattern object only")
        }
        guard (1...16).contains(threads) else { throw ValidationError("--threads must be 1-16") }
        guard (1...60).contains(duration) else { throw ValidationError("--duration must be 1-60") }
        guard (1...500).contains(recordsPerBatch) else { throw ValidationError("--records-per-batch must be 1-500") }
    }

    struct Result: Encodable {
        var implementation: Implementation
        var pattern: Pattern
        var recordProfile: String
        var level: Int32
        var threads: Int
        var seconds: Double
        var payloadBytes: Int
        var compressedBytes: Int
        var payloadMBPerSecond: Double
        var perThreadMBPerSecond: [Double]
        var compressionRatio: Double
    }

    func run() throws {
        let pool = RecordPool.records(
            profile: recordProfile, seed: seed, distinctRequests: distinctRequests, recordsPerRequest: recordsPerBatch)
        // Each batch as the server appends it: records with their delimiter, contiguous.
        var batches: [Batch] = []
        var index = 0
        while index < pool.count {
            let slice = pool[index..<min(index + recordsPerBatch, pool.count)]
            var bytes: [UInt8] = []
            for record in slice {
                bytes.append(contentsOf: record)
                bytes.append(UInt8(ascii: "\n"))
            }
            batches.append(Batch(bytes: bytes, payload: slice.reduce(0) { $0 + $1.count }))
            index += recordsPerBatch
        }
        let shared = batches
        let results = Mutex<[Outcome]>([])
        let implementation = self.implementation, pattern = chosenPattern, level = chosenLevel
        let duration = self.duration, objectBytes = self.objectBytes, threads = self.threads
        @Sendable func makeCompressor() -> any ObjectCompressor {
            switch implementation {
            case .zlib: ZlibCompressor(level: level, primed: pattern == .primed)
            case .isal: IsalCompressor(level: UInt32(level), primed: pattern == .primed)
            case .libdeflate: LibdeflateCompressor(level: level)
            }
        }
        try Self.verify(makeCompressor(), pattern: pattern, batches: shared, objectBytes: objectBytes)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let compressor = makeCompressor()
            let outcome = Self.measure(
                compressor, wholeObjects: pattern == .object, batches: shared,
                startingAt: thread * shared.count / max(threads, 1), duration: duration, objectBytes: objectBytes)
            results.withLock { $0.append(outcome) }
        }
        let all = results.withLock { $0 }
        let seconds = all.map(\.seconds).max() ?? 1
        let payload = all.reduce(0) { $0 + $1.payload }
        let compressed = all.reduce(0) { $0 + $1.compressed }
        let result = Result(
            implementation: implementation, pattern: pattern, recordProfile: recordProfile.rawValue, level: level,
            threads: threads, seconds: seconds, payloadBytes: payload, compressedBytes: compressed,
            payloadMBPerSecond: Double(payload) / seconds / 1e6,
            perThreadMBPerSecond: all.map { Double($0.payload) / $0.seconds / 1e6 },
            compressionRatio: Double(payload) / Double(max(compressed, 1)))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print(
                "\(implementation.rawValue) level \(level), \(pattern.rawValue), \(threads) thread(s), "
                    + "\(recordProfile.rawValue): \(fixed(result.payloadMBPerSecond, 1)) MB/s of payload "
                    + "(per thread: \(result.perThreadMBPerSecond.map { fixed($0, 1) }.joined(separator: ", "))), "
                    + "ratio \(fixed(result.compressionRatio, 2)):1")
        }
    }

    struct VerificationError: Error, CustomStringConvertible {
        var description: String
    }

    /// Compresses one object's batches with the pattern and inflates the result with zlib: what is
    /// timed is checked to decode to the records first.
    static func verify(_ compressor: any ObjectCompressor, pattern: Pattern, batches: [Batch], objectBytes: Int) throws {
        var content: [UInt8] = []
        var index = 0
        while content.count < objectBytes {
            content += batches[index % batches.count].bytes
            index += 1
        }
        compressor.capture = []
        if pattern == .object {
            _ = compressor.compressObject(content)
        } else {
            var start = 0
            index = 0
            while start < content.count {
                let count = batches[index % batches.count].bytes.count
                _ = compressor.append(Array(content[start..<start + count]))
                start += count
                index += 1
            }
            if pattern == .primed {
                compressor.capture! += [0x03, 0x00]  // the empty final block the server ends with
            } else {
                _ = compressor.finishMember()
            }
        }
        let stored = compressor.capture ?? []
        compressor.capture = nil
        // Whole objects come gzip-wrapped (libdeflate's, or our raw run); segments are raw deflate.
        let decoded = inflate(stored, gzip: pattern == .object && stored.starts(with: [0x1F, 0x8B]))
        guard decoded == content else {
            throw VerificationError(
                description: "\(pattern.rawValue) output does not inflate to its content (\(decoded?.count ?? -1) of \(content.count) bytes)")
        }
    }

    static func inflate(_ stored: [UInt8], gzip: Bool) -> [UInt8]? {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            inflateEnd(stream)
            stream.deallocate()
        }
        guard inflateInit2_(stream, gzip ? 15 + 16 : -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        var input = stored
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var status = Z_OK
        input.withUnsafeMutableBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = uInt(input.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    status = CZlib.inflate(stream, Z_NO_FLUSH)
                    result += out[..<(out.count - Int(stream.pointee.avail_out))]
                }
            } while status == Z_OK && stream.pointee.avail_in > 0
        }
        return status == Z_STREAM_END ? result : nil
    }

    struct Batch: Sendable {
        var bytes: [UInt8]
        var payload: Int
    }

    struct Outcome {
        var payload: Int
        var compressed: Int
        var seconds: Double
    }

    /// Compresses batches for `duration` seconds, a member (object) every `objectBytes`: each batch as
    /// it comes (`wholeObjects` false), or each object's batches in one call once it is complete.
    static func measure(
        _ compressor: any ObjectCompressor, wholeObjects: Bool, batches: [Batch], startingAt start: Int,
        duration: Double, objectBytes: Int
    ) -> Outcome {
        var payload = 0, compressed = 0
        var object: [UInt8] = []
        var objectPayload = 0
        var inMember = 0
        var next = start % max(batches.count, 1)
        let clock = ContinuousClock()
        let began = clock.now
        let end = began + .milliseconds(Int(duration * 1_000))
        while clock.now < end {
            let batch = batches[next]
            next = (next + 1) % batches.count
            if wholeObjects {
                object += batch.bytes
                objectPayload += batch.payload
                if object.count >= objectBytes {
                    compressed += compressor.compressObject(object)
                    payload += objectPayload
                    object.removeAll(keepingCapacity: true)
                    objectPayload = 0
                }
            } else {
                compressed += compressor.append(batch.bytes)
                payload += batch.payload
                inMember += batch.bytes.count
                if inMember >= objectBytes {
                    compressed += compressor.finishMember()
                    inMember = 0
                }
            }
        }
        let elapsed = clock.now - began
        return Outcome(
            payload: payload, compressed: compressed,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

/// One thread's compressor: the bytes it produced for each call. With `capture` set, it also keeps
/// the raw deflate bytes (gzip ones for whole objects) so a run can be checked before it is timed.
protocol ObjectCompressor: AnyObject {
    var capture: [UInt8]? { get set }
    /// Compresses the next request's content, flushed to a byte boundary.
    func append(_ content: [UInt8]) -> Int
    /// Ends the member: the final block and the gzip trailer.
    func finishMember() -> Int
    /// A whole object's content in one call, header and trailer included.
    func compressObject(_ content: [UInt8]) -> Int
}

/// The gzip header and trailer (CRC-32 and size) around raw deflate.
let gzipFraming = 10 + 8
/// The empty final block the server ends joined segments with.
let emptyFinalBlock = 2

/// zlib: one stream sync-flushed per request, or a raw segment per request primed with the 32 KiB
/// before it (deflateReset + deflateSetDictionary, as the server's parallel segments).
final class ZlibCompressor: ObjectCompressor {
    var capture: [UInt8]?
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let primed: Bool
    private var history: [UInt8] = []
    private var output = [UInt8](repeating: 0, count: 1 << 20)

    init(level: Int32, primed: Bool) {
        self.primed = primed
        stream.initialize(to: z_stream())
        precondition(
            deflateInit2_(
                stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    func append(_ content: [UInt8]) -> Int {
        if primed {
            deflateReset(stream)
            if !history.isEmpty {
                history.withUnsafeBufferPointer { _ = deflateSetDictionary(stream, $0.baseAddress, uInt($0.count)) }
            }
            history = Array((history + content).suffix(32 * 1024))
        }
        return content.withUnsafeBufferPointer { run($0, flush: Z_SYNC_FLUSH) }
    }

    func finishMember() -> Int {
        let produced = primed ? emptyFinalBlock : run(nil, flush: Z_FINISH)
        deflateReset(stream)
        history.removeAll(keepingCapacity: true)
        return produced + gzipFraming
    }

    func compressObject(_ content: [UInt8]) -> Int {
        deflateReset(stream)
        let produced = content.withUnsafeBufferPointer { run($0, flush: Z_FINISH) }
        return produced + gzipFraming
    }

    private func run(_ input: UnsafeBufferPointer<UInt8>?, flush: Int32) -> Int {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input?.baseAddress)
        stream.pointee.avail_in = uInt(input?.count ?? 0)
        var produced = 0
        repeat {
            output.withUnsafeMutableBufferPointer { out in
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = uInt(out.count)
                _ = deflate(stream, flush)
                let count = out.count - Int(stream.pointee.avail_out)
                capture?.append(contentsOf: out[..<count])
                produced += count
            }
        } while stream.pointee.avail_out == 0 || stream.pointee.avail_in != 0
        return produced
    }
}

/// ISA-L's igzip: the same two patterns (isal_deflate_set_dict after a reset primes a segment).
final class IsalCompressor: ObjectCompressor {
    var capture: [UInt8]?
    private let stream = UnsafeMutablePointer<isal_zstream>.allocate(capacity: 1)
    private let levelBuffer: UnsafeMutablePointer<UInt8>
    private let levelBufferSize: UInt32
    private let level: UInt32
    private let primed: Bool
    private var history: [UInt8] = []
    private var output = [UInt8](repeating: 0, count: 1 << 20)

    init(level: UInt32, primed: Bool) {
        self.level = level
        self.primed = primed
        levelBufferSize = max(fhl_isal_level_buffer_size(level), 1)
        levelBuffer = .allocate(capacity: Int(levelBufferSize))
        stream.initialize(to: isal_zstream())
        start()
    }

    deinit {
        levelBuffer.deallocate()
        stream.deallocate()
    }

    /// A new raw deflate stream (gzip_flag 0: IGZIP_DEFLATE) at the level.
    private func start() {
        isal_deflate_init(stream)
        stream.pointee.level = level
        stream.pointee.level_buf = levelBuffer
        stream.pointee.level_buf_size = levelBufferSize
        stream.pointee.gzip_flag = 0
        stream.pointee.flush = UInt16(SYNC_FLUSH)
    }

    func append(_ content: [UInt8]) -> Int {
        if primed {
            isal_deflate_reset(stream)
            stream.pointee.flush = UInt16(SYNC_FLUSH)
            if !history.isEmpty {
                history.withUnsafeMutableBufferPointer {
                    precondition(isal_deflate_set_dict(stream, $0.baseAddress, UInt32($0.count)) == COMP_OK)
                }
            }
            history = Array((history + content).suffix(32 * 1024))
        }
        return run(content, endOfStream: false)
    }

    func finishMember() -> Int {
        let produced = primed ? emptyFinalBlock : run([], endOfStream: true)
        isal_deflate_reset(stream)
        stream.pointee.flush = UInt16(SYNC_FLUSH)
        history.removeAll(keepingCapacity: true)
        return produced + gzipFraming
    }

    func compressObject(_ content: [UInt8]) -> Int {
        isal_deflate_reset(stream)
        stream.pointee.flush = UInt16(NO_FLUSH)
        let produced = run(content, endOfStream: true)
        stream.pointee.flush = UInt16(SYNC_FLUSH)
        return produced + gzipFraming
    }

    private func run(_ content: [UInt8], endOfStream: Bool) -> Int {
        var content = content
        var produced = 0
        content.withUnsafeMutableBufferPointer { input in
            stream.pointee.next_in = input.baseAddress
            stream.pointee.avail_in = UInt32(input.count)
            stream.pointee.end_of_stream = endOfStream ? 1 : 0
            repeat {
                output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    precondition(isal_deflate(stream) == COMP_OK)
                    let count = out.count - Int(stream.pointee.avail_out)
                    capture?.append(contentsOf: out[..<count])
                    produced += count
                }
            } while stream.pointee.avail_in != 0 || stream.pointee.avail_out == 0
        }
        return produced
    }
}

/// libdeflate: whole buffers only (no streaming, no dictionary), so whole objects.
final class LibdeflateCompressor: ObjectCompressor {
    var capture: [UInt8]?
    private let compressor: OpaquePointer
    private var output: [UInt8] = []

    init(level: Int32) {
        compressor = libdeflate_alloc_compressor(level)!
    }

    deinit { libdeflate_free_compressor(compressor) }

    func append(_ content: [UInt8]) -> Int { preconditionFailure("libdeflate compresses whole objects") }
    func finishMember() -> Int { preconditionFailure("libdeflate compresses whole objects") }

    func compressObject(_ content: [UInt8]) -> Int {
        let bound = libdeflate_gzip_compress_bound(compressor, content.count)
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        let count = content.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                libdeflate_gzip_compress(compressor, input.baseAddress, input.count, out.baseAddress, out.count)
            }
        }
        capture?.append(contentsOf: output[..<count])
        return count
    }
}

extension RecordProfile: ExpressibleByArgument {}
