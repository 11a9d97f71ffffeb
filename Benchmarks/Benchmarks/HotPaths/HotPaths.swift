// Micro benchmarks of the server's hot paths, on the load generator's records (seed 1, 500 app
// events per batch: about 330 KB of payload, 440 KB of request JSON).
//
//   swift package --package-path Benchmarks benchmark --target HotPaths
//
// Every figure is per call of the named operation; "throughput" is calls per second.
import AWSSigV4
import Benchmark
import CZlib
import FirehoseSink
import FirehoseWire
import LoadSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 2_000
    )

    let records = RecordPool.records(profile: .appEvents, seed: 1, distinctRequests: 1, recordsPerRequest: 500)
    let signingDate = Date(timeIntervalSince1970: 1_795_262_400)
    let factory = RequestFactory(hostHeader: "127.0.0.1:4573", signingDate: signingDate)
    let batch = factory.request(.putRecordBatch, stream: "bench-0", records: records)
    let small = factory.request(
        .putRecord, stream: "bench-0", records: [Array(repeating: UInt8(ascii: "x"), count: 100)])
    let batchBytes: [UInt8] = records.reduce(into: []) { bytes, record in
        bytes.append(contentsOf: record)
        bytes.append(UInt8(ascii: "\n"))
    }

    // Request decoding: JSON + base64 of a full 500-record batch into one RecordBatch.
    Benchmark("Decode PutRecordBatch, 500 app events") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? PutRecordsRequest.decodePutRecordBatch(batch.body))
        }
    }

    // The base64 part alone, into a buffer sized once for the whole batch (as the request scanner
    // does: it allocates the batch once, from the body's size).
    let encodedRecords: [[UInt8]] = records.map { Array(Base64.encode($0).utf8) }
    let decodedTotal = records.reduce(0) { $0 + $1.count }
    Benchmark("Base64-decode 500 records into one pre-sized buffer") { benchmark in
        for _ in benchmark.scaledIterations {
            var storage: [UInt8] = []
            storage.reserveCapacity(decodedTotal)
            for encoded in encodedRecords { Base64.decode(encoded, appendingTo: &storage) }
            blackHole(storage)
        }
    }

    Benchmark("Decode PutRecord, 100 B") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? PutRecordsRequest.decodePutRecord(small.body))
        }
    }

    // SigV4: the body hash the server computes, then the header checks and HMAC chain.
    Benchmark("SHA-256 of a PutRecordBatch body (440 KB)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(SHA256Hex.hash(batch.body))
        }
    }

    let credentials = AWSCredentials(accessKeyId: "test", secretAccessKey: "test")
    let verifier = SigV4Verifier(region: "us-east-1", service: "firehose") { $0 == "test" ? credentials : nil }
    let batchHash = SHA256Hex.hash(batch.body)
    Benchmark("SigV4 verify, body hash given") { benchmark in
        let request = SigV4Request(method: "POST", path: "/", headers: batch.headers, bodySHA256: batchHash)
        for _ in benchmark.scaledIterations {
            blackHole(try? verifier.verify(request, now: signingDate))
        }
    }

    // A request's share of a GZIP buffer as the staging buffer encodes it now: one segment, the
    // records and delimiters joined, deflated by a raw deflater primed with the 32 KiB before it,
    // ending in a sync flush. This runs on the request's own task, so two of these run at once.
    Benchmark("Buffer append: one segment, 500 records joined, 32 KiB dictionary + sync flush") { benchmark in
        guard let deflater = try? RawDeflater(level: 6) else { return }
        let dictionary = Array(batchBytes.suffix(RawDeflater.windowSize))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            dictionary.withUnsafeBytes { deflater.reset(dictionary: $0) }
            blackHole(batchBytes.withUnsafeBytes { deflater.compress($0) })
            blackHole(batchBytes.withUnsafeBytes { CRC32.checksum($0) })
        }
    }

    // The first pass's buffer append: one deflate call per record and per delimiter, then the
    // per-request sync flush.
    Benchmark("Buffer append: GzipCompressor, 500 records + delimiters + sync flush (first pass)") { benchmark in
        guard let compressor = try? GzipCompressor(level: 6) else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for record in records {
                compressor.append(record)
                compressor.append(CollectionOfOne(UInt8(ascii: "\n")))
            }
            compressor.syncFlush()
            blackHole(compressor.takeOutput())
        }
    }

    // Compression alone: the same bytes in one deflate call into a reused buffer (what zlib costs).
    Benchmark("Compression: deflate level 6 of the same batch, one call + sync flush") { benchmark in
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            deflateEnd(stream)
            stream.deallocate()
        }
        _ = deflateInit2_(
            stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(batchBytes.count))) + 1_024)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            batchBytes.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                    stream.pointee.avail_in = uInt(input.count)
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    blackHole(deflate(stream, Z_SYNC_FLUSH))
                }
            }
        }
    }

    // Object publish as delivery does it: write the 5 MiB object, fsync it, rename it into the
    // bucket folder, fsync the folder. On the same disk as the benchmark package.
    Benchmark(
        "Object publish: write 5 MiB + fsync + rename + fsync dir",
        configuration: .init(maxDuration: .seconds(5), maxIterations: 200)
    ) { benchmark in
        var template = Array("/var/tmp/firehose-bench-XXXXXX".utf8CString)
        guard
            let base = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }
            )
        else { return }
        let staging = base + "/staging", bucket = base + "/bucket"
        mkdir(staging, 0o755)
        mkdir(bucket, 0o755)
        let object = [UInt8](repeating: 0x5A, count: 5 * 1_048_576)
        var index = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            index += 1
            let partial = "\(staging)/\(index).partial", final = "\(bucket)/object-\(index).gz"
            let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            object.withUnsafeBytes { bytes in
                var done = 0
                while done < bytes.count {
                    let written = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(done))
                    if written <= 0 { break }
                    done += written
                }
            }
            fsync(fd)
            close(fd)
            rename(partial, final)
            let directory = open(bucket, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            fsync(directory)
            close(directory)
        }
        benchmark.stopMeasurement()
        for i in 1...max(index, 1) { unlink("\(bucket)/object-\(i).gz") }
        rmdir(staging)
        rmdir(bucket)
        rmdir(base)
    }
}
