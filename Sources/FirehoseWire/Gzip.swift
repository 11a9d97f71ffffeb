import CZlib

/// A streaming gzip (RFC 1952) compressor. Output accumulates in `output` until the caller drains it,
/// so callers decide when bytes reach a file or a socket.
package final class GzipCompressor {
    // zlib keeps a pointer back to its z_stream and checks it, so the stream must never move.
    private let stream: UnsafeMutablePointer<z_stream>
    package private(set) var output: [UInt8] = []
    package private(set) var totalIn = 0
    private var finished = false

    package struct Error: Swift.Error, CustomStringConvertible {
        package var code: Int32
        package var description: String { "zlib error \(code)" }

        package init(code: Int32) { self.code = code }
    }

    /// `level` is zlib's 0–9 (6 is gzip's and Firehose's usual trade-off).
    package init(level: Int32 = 6) throws(Error) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 16 selects the gzip wrapper.
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw Error(code: status)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    package func append(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { run(UnsafeRawBufferPointer($0), flush: Z_NO_FLUSH) }
        if done == nil { Array(bytes).withUnsafeBytes { run($0, flush: Z_NO_FLUSH) } }
        totalIn += bytes.count
    }

    /// Emits everything compressed so far on a byte boundary (a decoder can read up to here).
    package func syncFlush() {
        guard !finished else { return }
        run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_SYNC_FLUSH)
    }

    /// Writes the final block and the gzip trailer (CRC-32 and size).
    package func finish() {
        guard !finished else { return }
        run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH)
        finished = true
    }

    /// Hands over the compressed bytes produced so far.
    package func takeOutput() -> [UInt8] {
        let taken = output
        output = []
        return taken
    }

    private func run(_ input: UnsafeRawBufferPointer, flush: Int32) {
        precondition(!finished, "GzipCompressor used after finish()")
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        // Small: a request's compressed records mostly fit, and it stays clear of malloc's mmap threshold.
        let scratch = ZlibScratch(size: 32 * 1024)
        while true {
            stream.pointee.next_out = scratch.start
            stream.pointee.avail_out = uInt(scratch.size)
            let status = deflate(stream, flush)
            let produced = scratch.size - Int(stream.pointee.avail_out)
            output.append(contentsOf: UnsafeBufferPointer(start: scratch.start, count: produced))
            // Z_BUF_ERROR only means "no progress possible", which ends a flush with nothing pending.
            precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate: \(status)")
            if flush == Z_FINISH {
                if status == Z_STREAM_END { break }
            } else if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 {
                break
            }
        }
        stream.pointee.next_in = nil
    }
}

package enum Gzip {
    package enum DecompressionError: Error, Equatable {
        case malformed
        case tooLarge(limit: Int)
        /// `reserve` refused memory for more output.
        case refused
    }

    /// True when `bytes` start with the gzip magic number.
    package static func hasMagic(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        return iterator.next() == 0x1F && iterator.next() == 0x8B
    }

    /// Decompresses one or more concatenated gzip members, refusing to produce more than `limit`
    /// bytes so a small body cannot expand into gigabytes. `reserve` is asked before the output grows
    /// by each chunk (the bytes about to be allocated); when it says no, decoding stops with `refused`.
    package static func decompress(
        _ input: [UInt8], limit: Int, reserve: (_ bytes: Int) -> Bool = { _ in true }
    ) throws(DecompressionError) -> [UInt8] {
        try inflate(input, limit: limit, allowTruncated: false, reserve: reserve)
    }

    /// Decompresses the start of a gzip stream that may end without its final block and trailer,
    /// e.g. a file cut at a sync-flush point. Corrupt data is still an error. Only the sink's
    /// recovery reads such streams; it lives here so there is one inflate loop.
    package static func decompressPrefix(_ input: [UInt8], limit: Int) throws(DecompressionError) -> [UInt8] {
        try inflate(input, limit: limit, allowTruncated: true, reserve: { _ in true })
    }

    private static func inflate(
        _ input: [UInt8], limit: Int, allowTruncated: Bool, reserve: (Int) -> Bool
    ) throws(DecompressionError) -> [UInt8] {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        guard inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .malformed
        }
        guard !input.isEmpty else { throw .malformed }
        var output: [UInt8] = []
        let scratch = ZlibScratch(size: 256 * 1024)
        let result: DecompressionError? = input.withUnsafeBufferPointer { inputBuffer in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
            stream.pointee.avail_in = uInt(inputBuffer.count)
            // Never produce more than one byte past the limit (and never overflow computing it).
            let ceiling = limit == Int.max ? Int.max : limit + 1
            // The output's capacity, every byte of it granted by `reserve` before it was allocated.
            var granted = 0
            while true {
                let room = min(scratch.size, ceiling - output.count)
                stream.pointee.next_out = scratch.start
                stream.pointee.avail_out = uInt(room)
                let status = CZlib.inflate(stream, Z_NO_FLUSH)
                let produced = room - Int(stream.pointee.avail_out)
                let needed = output.count + produced
                if needed > granted {
                    // Geometric growth, so a large output is copied a bounded number of times.
                    let grown = min(max(needed, granted * 2, inputBuffer.count * 4, 4096), ceiling)
                    guard reserve(grown - granted) else { return .refused }
                    output.reserveCapacity(grown)
                    granted = grown
                }
                output.append(contentsOf: UnsafeBufferPointer(start: scratch.start, count: produced))
                if output.count > limit { return .tooLarge(limit: limit) }
                switch status {
                case Z_STREAM_END:
                    if stream.pointee.avail_in == 0 { return nil }
                    // Another member follows (concatenated gzip is valid gzip).
                    guard inflateReset(stream) == Z_OK else { return .malformed }
                case Z_OK:
                    if allowTruncated && stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 { return nil }
                case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                    return allowTruncated ? nil : .malformed
                default:
                    return .malformed
                }
            }
        }
        if let result { throw result }
        return output
    }
}

/// Where zlib writes before the bytes are copied onto an array in one piece: `Array` cannot lend its
/// spare capacity, and growing it with zeros to write over costs a generic loop per byte in debug
/// builds (1.5 s for a 5 MB body, so the end-to-end tests timed out under load).
private final class ZlibScratch {
    let size: Int
    let start: UnsafeMutablePointer<Bytef>

    init(size: Int) {
        self.size = size
        start = .allocate(capacity: size)
    }

    deinit { start.deallocate() }
}
