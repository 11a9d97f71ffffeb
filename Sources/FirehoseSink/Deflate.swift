import CZlib
package import FirehoseWire

// The zlib the GZIP encoding needs beyond what both sides of the wire share (`GzipCompressor`,
// `Gzip.decompress` in FirehoseWire): segments deflated in parallel and joined into one member.

/// Raw deflate (no zlib or gzip wrapper) of independent *segments* that concatenate into one deflate
/// stream, the way pigz splits work across cores. Each segment ends with a sync flush, so it stops
/// on a byte boundary without a final block, and may start primed with the 32 KiB that precede it in
/// the stream: back-references into that history then decode correctly once the segments are
/// joined in order. Wrapped by `GzipMember.header` and `GzipMember.trailer(crc:length:)`, the joined
/// segments form one ordinary gzip member.
package final class RawDeflater {
    /// Deflate's window: history beyond this is never referenced.
    package static let windowSize = 32 * 1024

    private let stream: UnsafeMutablePointer<z_stream>
    package let level: Int32

    package init(level: Int32) throws(GzipCompressor.Error) {
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
    package func reset(dictionary: UnsafeRawBufferPointer) {
        deflateReset(stream)
        guard let base = dictionary.baseAddress, !dictionary.isEmpty else { return }
        let used = min(dictionary.count, Self.windowSize)
        let start = base.assumingMemoryBound(to: Bytef.self) + (dictionary.count - used)
        let status = deflateSetDictionary(stream, start, uInt(used))
        precondition(status == Z_OK, "deflateSetDictionary: \(status)")
    }

    /// Compresses `input` as the next part of the current segment and sync-flushes; returns the
    /// compressed bytes. History carries over to the next call until `reset`.
    package func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
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
package enum GzipMember {
    /// The header zlib writes at levels 2–8 on Unix: no name, no time, OS 3.
    package static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]

    /// 0x03 0x00: an empty final deflate block (BFINAL=1, fixed Huffman, end-of-block code).
    package static let finalBlock: [UInt8] = [0x03, 0x00]

    /// Ends the deflate stream with an empty final block, then the CRC-32 and size of the content.
    package static func trailer(crc: UInt32, length: Int) -> [UInt8] {
        finalBlock + checks(crc: crc, length: length)
    }

    /// The member's last 8 bytes: the content's CRC-32 and size (mod 2^32).
    package static func checks(crc: UInt32, length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        LittleEndian.append(crc, to: &bytes)
        LittleEndian.append(UInt32(truncatingIfNeeded: length), to: &bytes)
        return bytes
    }
}

/// Little-endian fields, as gzip and ZIP write them.
package enum LittleEndian {
    package static func append(_ value: UInt16, to output: inout [UInt8]) {
        output.append(UInt8(value & 0xFF))
        output.append(UInt8(value >> 8))
    }

    package static func append(_ value: UInt32, to output: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { output.append(UInt8(value >> UInt32(shift) & 0xFF)) }
    }
}

/// CRC-32 (gzip's), as every staged segment and journal entry carries it.
package enum CRC32 {
    /// CRC-32 of `bytes`, continuing from `crc`.
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        UInt32(CZlib.crc32(uLong(crc), bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    package static func checksum(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: crc) }
    }

    /// The CRC-32 of A followed by B, from the CRC-32s of A and B and B's length.
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        UInt32(CZlib.crc32_combine(uLong(first), uLong(second), off_t(secondLength)))
    }
}
