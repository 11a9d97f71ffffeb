import CZlib

/// A streaming gzip (RFC 1952) compressor. Output accumulates in `output` until the caller drains it,
/// so callers decide when bytes reach a file or a socket.
public final class GzipCompressor {
    // zlib keeps a pointer back to its z_stream and checks it, so the stream must never move.
    private let stream: UnsafeMutablePointer<z_stream>
    public private(set) var output: [UInt8] = []
    public private(set) var totalIn = 0
    private var finished = false

    public struct Error: Swift.Error, CustomStringConvertible {
        public var code: Int32
        public var description: String { "zlib error \(code)" }
    }

    /// `level` is zlib's 0–9 (6 is gzip's and Firehose's usual trade-off).
    public init(level: Int32 = 6) throws(Error) {
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

    public func append(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { run(UnsafeRawBufferPointer($0), flush: Z_NO_FLUSH) }
        if done == nil { Array(bytes).withUnsafeBytes { run($0, flush: Z_NO_FLUSH) } }
        totalIn += bytes.count
    }

    /// Emits everything compressed so far on a byte boundary (a decoder can read up to here).
    public func syncFlush() {
        guard !finished else { return }
        run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_SYNC_FLUSH)
    }

    /// Writes the final block and the gzip trailer (CRC-32 and size).
    public func finish() {
        guard !finished else { return }
        run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH)
        finished = true
    }

    /// Hands over the compressed bytes produced so far.
    public func takeOutput() -> [UInt8] {
        let taken = output
        output = []
        return taken
    }

    private func run(_ input: UnsafeRawBufferPointer, flush: Int32) {
        precondition(!finished, "GzipCompressor used after finish()")
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        var chunk = max(input.count / 2, 4096) + 64
        while true {
            let start = output.count
            output.reserveCapacity(start + chunk)
            output.append(contentsOf: repeatElement(0, count: chunk))
            let status = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                stream.pointee.next_out = buffer.baseAddress! + start
                stream.pointee.avail_out = uInt(chunk)
                return deflate(stream, flush)
            }
            let produced = chunk - Int(stream.pointee.avail_out)
            output.removeLast(chunk - produced)
            // Z_BUF_ERROR only means "no progress possible", which ends a flush with nothing pending.
            precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate: \(status)")
            if flush == Z_FINISH {
                if status == Z_STREAM_END { break }
            } else if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 {
                break
            }
            chunk = max(chunk, 64 * 1024)
        }
        stream.pointee.next_in = nil
    }
}

public enum Gzip {
    public enum DecompressionError: Error, Equatable {
        case malformed
        case tooLarge(limit: Int)
    }

    /// True when `bytes` start with the gzip magic number.
    public static func hasMagic(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        return iterator.next() == 0x1F && iterator.next() == 0x8B
    }

    /// CRC-32 (gzip's) of `bytes`, continuing from `crc`.
    public static func crc32(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(CZlib.crc32(uLong(crc), buffer.baseAddress, uInt(buffer.count)))
        }
    }

    /// Decompresses one or more concatenated gzip members, refusing to produce more than `limit`
    /// bytes so a small body cannot expand into gigabytes.
    public static func decompress(_ input: [UInt8], limit: Int) throws(DecompressionError) -> [UInt8] {
        try inflate(input, limit: limit, allowTruncated: false)
    }

    /// Decompresses the start of a gzip stream that may end without its final block and trailer,
    /// e.g. a file cut at a sync-flush point. Corrupt data is still an error.
    public static func decompressPrefix(_ input: [UInt8], limit: Int) throws(DecompressionError) -> [UInt8] {
        try inflate(input, limit: limit, allowTruncated: true)
    }

    private static func inflate(_ input: [UInt8], limit: Int, allowTruncated: Bool) throws(DecompressionError)
        -> [UInt8]
    {
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
        let result: DecompressionError? = input.withUnsafeBufferPointer { inputBuffer in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
            stream.pointee.avail_in = uInt(inputBuffer.count)
            // Never ask for more than one byte past the limit (and never overflow computing it).
            let ceiling = limit == Int.max ? Int.max : limit + 1
            var chunk = min(max(inputBuffer.count * 4, 4096), ceiling, 1 << 24)
            while true {
                let start = output.count
                output.append(contentsOf: repeatElement(0, count: chunk))
                let status = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.pointee.next_out = buffer.baseAddress! + start
                    stream.pointee.avail_out = uInt(chunk)
                    return CZlib.inflate(stream, Z_NO_FLUSH)
                }
                output.removeLast(Int(stream.pointee.avail_out))
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
                chunk = min(max(chunk * 2, 64 * 1024), ceiling - output.count, 1 << 24)
            }
        }
        if let result { throw result }
        return output
    }
}

/// Raw deflate (no zlib or gzip wrapper) of independent *segments* that concatenate into one deflate
/// stream, the way pigz splits work across cores. Each segment ends with a sync flush, so it stops
/// on a byte boundary without a final block, and may start primed with the 32 KiB that precede it in
/// the stream: back-references into that history then decode correctly once the segments are
/// joined in order. Wrapped by `GzipMember.header` and `GzipMember.trailer(crc:length:)`, the joined
/// segments form one ordinary gzip member.
public final class RawDeflater {
    /// Deflate's window: history beyond this is never referenced.
    public static let windowSize = 32 * 1024

    private let stream: UnsafeMutablePointer<z_stream>
    public let level: Int32

    public init(level: Int32) throws(GzipCompressor.Error) {
        self.level = level
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Negative windowBits selects raw deflate.
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw GzipCompressor.Error(code: status)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Forgets all history. With a `dictionary` (the stream's content just before the next segment;
    /// only its last 32 KiB matter) the next segment may refer back into it.
    public func reset(dictionary: UnsafeRawBufferPointer) {
        deflateReset(stream)
        guard let base = dictionary.baseAddress, !dictionary.isEmpty else { return }
        let used = min(dictionary.count, Self.windowSize)
        let start = base.assumingMemoryBound(to: Bytef.self) + (dictionary.count - used)
        let status = deflateSetDictionary(stream, start, uInt(used))
        precondition(status == Z_OK, "deflateSetDictionary: \(status)")
    }

    /// Compresses `input` as the next part of the current segment and sync-flushes; returns the
    /// compressed bytes. History carries over to the next call until `reset`.
    public func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer { stream.pointee.next_in = nil }
        // deflateBound covers the data; the sync flush adds an empty stored block and a few bits.
        let room = Int(deflateBound(stream, uLong(input.count))) + 64
        var output = deflateChunk(room)
        // Only if the bound was wrong: keep going until the flush completes.
        while stream.pointee.avail_in != 0 || stream.pointee.avail_out == 0 {
            output += deflateChunk(64 * 1024)
        }
        return output
    }

    private func deflateChunk(_ room: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: room) { buffer, initialized in
            stream.pointee.next_out = buffer.baseAddress
            stream.pointee.avail_out = uInt(room)
            let status = deflate(stream, Z_SYNC_FLUSH)
            // Z_BUF_ERROR only means no progress was possible (nothing left to flush).
            precondition(status == Z_OK || status == Z_BUF_ERROR, "deflate: \(status)")
            initialized = room - Int(stream.pointee.avail_out)
        }
    }
}

/// The framing of one gzip member (RFC 1952) around raw deflate segments.
public enum GzipMember {
    /// The header zlib writes at levels 2–8 on Unix: no name, no time, OS 3.
    public static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]

    /// Ends the deflate stream with an empty final block, then the CRC-32 and size of the content.
    public static func trailer(crc: UInt32, length: Int) -> [UInt8] {
        let size = UInt32(truncatingIfNeeded: length)
        // 0x03 0x00: BFINAL=1, fixed Huffman, end-of-block code.
        return [0x03, 0x00] + littleEndian(crc) + littleEndian(size)
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}

extension Gzip {
    /// CRC-32 of `bytes`, continuing from `crc`.
    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        UInt32(CZlib.crc32(uLong(crc), bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    /// The CRC-32 of A followed by B, from the CRC-32s of A and B and B's length.
    public static func crc32Combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        UInt32(CZlib.crc32_combine(uLong(first), uLong(second), off_t(secondLength)))
    }
}
