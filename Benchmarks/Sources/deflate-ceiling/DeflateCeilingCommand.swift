import ArgumentParser
import CZlib
import Dispatch
import LoadSupport
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the machine can do at best for a GZIP stream: zlib deflating the load generator's records on
/// every thread at once, doing only what the format needs (records joined by the `\n` delimiter, a
/// sync flush per request as each commit needs, a new gzip member every 5 MiB as each object needs).
/// No I/O, no HTTP, no JSON, no base64.
@main
struct ZlibCeilingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zlib-ceiling",
        abstract: "zlib deflate throughput on the load generator's records, one independent stream per thread.")

    @Option(help: "Record profile: app-events or small.")
    var recordProfile: RecordProfile = .appEvents

    @Option(help: "Records per request: one sync flush after each.")
    var recordsPerBatch = 500

    @Option(help: "Distinct requests (as firehose-load): fixes how many records are generated.")
    var distinctRequests = 32

    @Option(help: "Seed of the record generator (as firehose-load).")
    var seed: UInt64 = 1

    @Option(help: "zlib level.")
    var level: Int32 = 6

    @Option(help: "Threads, each compressing its own gzip stream.")
    var threads = 2

    @Option(help: "Seconds to run (1-60).")
    var duration: Double = 5

    @Option(help: "Uncompressed bytes per gzip member (object).")
    var objectBytes = 5 * 1_048_576

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard (1...9).contains(level) else { throw ValidationError("--level must be 1-9") }
        guard (1...16).contains(threads) else { throw ValidationError("--threads must be 1-16") }
        guard (1...60).contains(duration) else { throw ValidationError("--duration must be 1-60") }
        guard (1...500).contains(recordsPerBatch) else { throw ValidationError("--records-per-batch must be 1-500") }
    }

    struct Result: Encodable {
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
        var batches: [(bytes: [UInt8], payload: Int)] = []
        var index = 0
        while index < pool.count {
            let slice = pool[index..<min(index + recordsPerBatch, pool.count)]
            var bytes: [UInt8] = []
            for record in slice {
                bytes.append(contentsOf: record)
                bytes.append(UInt8(ascii: "\n"))
            }
            batches.append((bytes, slice.reduce(0) { $0 + $1.count }))
            index += recordsPerBatch
        }
        let shared = batches
        let results = Mutex<[(payload: Int, compressed: Int, seconds: Double)]>([])
        let level = self.level, duration = self.duration, objectBytes = self.objectBytes, threads = self.threads
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let outcome = Self.compress(
                shared, startingAt: thread * shared.count / max(threads, 1), level: level, duration: duration,
                objectBytes: objectBytes)
            results.withLock { $0.append(outcome) }
        }
        let all = results.withLock { $0 }
        let seconds = all.map(\.seconds).max() ?? 1
        let payload = all.reduce(0) { $0 + $1.payload }
        let compressed = all.reduce(0) { $0 + $1.compressed }
        let result = Result(
            recordProfile: recordProfile.rawValue, level: level, threads: threads, seconds: seconds,
            payloadBytes: payload, compressedBytes: compressed, payloadMBPerSecond: Double(payload) / seconds / 1e6,
            perThreadMBPerSecond: all.map { Double($0.payload) / $0.seconds / 1e6 },
            compressionRatio: Double(payload) / Double(max(compressed, 1)))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print(
                "zlib level \(level), \(threads) thread(s), \(recordProfile.rawValue): "
                    + "\(fixed(result.payloadMBPerSecond, 1)) MB/s of payload "
                    + "(per thread: \(result.perThreadMBPerSecond.map { fixed($0, 1) }.joined(separator: ", "))), "
                    + "ratio \(fixed(result.compressionRatio, 2)):1")
        }
    }

    static func compress(
        _ batches: [(bytes: [UInt8], payload: Int)], startingAt start: Int, level: Int32, duration: Double,
        objectBytes: Int
    ) -> (payload: Int, compressed: Int, seconds: Double) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            deflateEnd(stream)
            stream.deallocate()
        }
        precondition(
            deflateInit2_(
                stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        let largest = batches.map(\.bytes.count).max() ?? 0
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(largest))) + 1_024)
        var payload = 0, compressed = 0, inMember = 0
        var next = start % max(batches.count, 1)
        let clock = ContinuousClock()
        let began = clock.now
        let end = began + .milliseconds(Int(duration * 1_000))

        func run(_ input: UnsafeBufferPointer<UInt8>?, flush: Int32) {
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input?.baseAddress)
            stream.pointee.avail_in = uInt(input?.count ?? 0)
            repeat {
                output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    _ = deflate(stream, flush)
                    compressed += out.count - Int(stream.pointee.avail_out)
                }
            } while stream.pointee.avail_out == 0 || stream.pointee.avail_in != 0
        }

        while clock.now < end {
            let batch = batches[next]
            next = (next + 1) % batches.count
            batch.bytes.withUnsafeBufferPointer { run($0, flush: Z_SYNC_FLUSH) }
            payload += batch.payload
            inMember += batch.bytes.count
            if inMember >= objectBytes {
                run(nil, flush: Z_FINISH)
                deflateReset(stream)
                inMember = 0
            }
        }
        let elapsed = clock.now - began
        return (payload, compressed, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

extension RecordProfile: ExpressibleByArgument {}
