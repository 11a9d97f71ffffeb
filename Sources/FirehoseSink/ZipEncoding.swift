import DurableStorage
import FirehoseKeyLayout
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `ZIP`: each object is a ZIP archive of one deflated entry, named with a UUID, as real Firehose
/// objects were found to be (docs/compatibility.md). The entry's deflate stream is GZIP's: the same
/// segments, compressed on every core and joined, between a local file header (sizes deferred to a
/// data descriptor, bit 3) and a trailer of data descriptor, central directory and end record.
/// Objects stay far below 4 GiB (128 MiB buffers), so no ZIP64.
struct ZipEncoding: ObjectEncoding {
    var level: Int32

    var name: String { DeliveryStreamSettings.Compression.zip.rawValue }

    func makeSegmentEncoder() -> any SegmentEncoder {
        ZipSegmentEncoder(level: level, entryName: UUID().uuidString.lowercased(), modified: Date())
    }

    /// The deflate data after the local header is a gzip member's body: decoded as one.
    func decodeStaged(_ stored: [UInt8], limit: Int) -> [UInt8]? {
        guard let dataStart = ZipArchive.localHeaderLength(stored) else { return nil }
        return try? Gzip.decompressPrefix(GzipMember.header + stored[dataStart...], limit: limit)
    }
}

final class ZipSegmentEncoder: SegmentEncoder {
    private let deflate: GzipSegmentEncoder
    private let entryName: [UInt8]
    private let dosTime: (time: UInt16, date: UInt16)
    let header: [UInt8]

    init(level: Int32, entryName: String, modified: Date) {
        deflate = GzipSegmentEncoder(level: level)
        self.entryName = Array(entryName.utf8)
        dosTime = ZipArchive.dosTime(modified)
        header = ZipArchive.localHeader(name: self.entryName, dosTime: dosTime)
    }

    func encode(_ run: RecordRun, inParallel: Bool) -> PlannedSegment {
        deflate.encode(run, inParallel: inParallel)
    }

    func trailer(contentCRC: UInt32, contentLength: Int, storedLength: Int) -> [UInt8] {
        // The empty final block ends the deflate stream, as in GZIP's trailer.
        let compressed = storedLength - header.count + GzipMember.finalBlock.count
        var trailer = GzipMember.finalBlock
        for value in [0x0807_4B50, contentCRC, UInt32(compressed), UInt32(contentLength)] {
            LittleEndian.append(value, to: &trailer)
        }
        let directoryOffset = storedLength + trailer.count
        let directory = ZipArchive.centralDirectoryEntry(
            name: entryName, dosTime: dosTime, crc: contentCRC, compressed: compressed, uncompressed: contentLength)
        trailer += directory
        ZipArchive.appendEndRecord(directorySize: directory.count, directoryOffset: directoryOffset, to: &trailer)
        return trailer
    }
}

/// The ZIP records firehose-local writes (APPNOTE.TXT 4.3), little-endian.
enum ZipArchive {
    /// Version 2.0: deflate and data descriptors.
    static let version: UInt16 = 20
    /// Bit 3: CRC and sizes follow the data, in a data descriptor.
    static let flags: UInt16 = 0x0008
    static let deflated: UInt16 = 8

    static func localHeader(name: [UInt8], dosTime: (time: UInt16, date: UInt16)) -> [UInt8] {
        var header: [UInt8] = []
        LittleEndian.append(UInt32(0x0403_4B50), to: &header)
        for value in [version, flags, deflated, dosTime.time, dosTime.date] { LittleEndian.append(value, to: &header) }
        for _ in 0..<3 { LittleEndian.append(UInt32(0), to: &header) }  // CRC and sizes: in the data descriptor
        LittleEndian.append(UInt16(name.count), to: &header)
        LittleEndian.append(UInt16(0), to: &header)
        return header + name
    }

    /// Where a local header written by `localHeader` ends, or nil when `bytes` does not start with one.
    static func localHeaderLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 30, bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) else { return nil }
        let nameLength = Int(bytes[26]) | Int(bytes[27]) << 8
        let extraLength = Int(bytes[28]) | Int(bytes[29]) << 8
        let end = 30 + nameLength + extraLength
        return end <= bytes.count ? end : nil
    }

    static func centralDirectoryEntry(
        name: [UInt8], dosTime: (time: UInt16, date: UInt16), crc: UInt32, compressed: Int, uncompressed: Int
    ) -> [UInt8] {
        var entry: [UInt8] = []
        LittleEndian.append(UInt32(0x0201_4B50), to: &entry)
        // Made by: version 2.0, MS-DOS attributes.
        for value in [version, version, flags, deflated, dosTime.time, dosTime.date] {
            LittleEndian.append(value, to: &entry)
        }
        for value in [crc, UInt32(compressed), UInt32(uncompressed)] { LittleEndian.append(value, to: &entry) }
        LittleEndian.append(UInt16(name.count), to: &entry)
        for _ in 0..<4 { LittleEndian.append(UInt16(0), to: &entry) }  // extra, comment, disk, internal attributes
        LittleEndian.append(UInt32(0), to: &entry)  // external attributes
        LittleEndian.append(UInt32(0), to: &entry)  // the local header's offset: the archive's start
        return entry + name
    }

    static func appendEndRecord(directorySize: Int, directoryOffset: Int, to output: inout [UInt8]) {
        LittleEndian.append(UInt32(0x0605_4B50), to: &output)
        for value: UInt16 in [0, 0, 1, 1] { LittleEndian.append(value, to: &output) }
        LittleEndian.append(UInt32(directorySize), to: &output)
        LittleEndian.append(UInt32(directoryOffset), to: &output)
        LittleEndian.append(UInt16(0), to: &output)
    }

    /// MS-DOS time and date, in UTC (ZIP has no zone; the years 1980–2107 fit).
    static func dosTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        let civil = CivilDateTime(date: date, utcOffsetSeconds: 0)
        let year = min(max(civil.year - 1980, 0), 127)
        return (
            UInt16(civil.hour << 11 | civil.minute << 5 | civil.second / 2),
            UInt16(year << 9 | civil.month << 5 | civil.day)
        )
    }
}

extension ZipArchive {
    /// The content of the one entry of a ZIP object as firehose-local writes it (the sizes read from
    /// the central directory), checked against its CRC-32; nil when it is not such an archive.
    /// The entry's content; nil when it is not one deflated entry, or declares more than `limit` bytes.
    static func entryContent(_ object: [UInt8], limit: Int = Int.max) -> [UInt8]? {
        func u16(_ at: Int) -> Int { Int(object[at]) | Int(object[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let end = object.count - 22
        guard end >= 0, u32(end) == 0x0605_4B50, u16(end + 10) == 1, let dataStart = localHeaderLength(object)
        else { return nil }
        let directory = u32(end + 16)
        guard directory + 46 <= end, u32(directory) == 0x0201_4B50, u16(directory + 10) == Int(deflated) else {
            return nil
        }
        let (crc, compressed, uncompressed) = (u32(directory + 16), u32(directory + 20), u32(directory + 24))
        guard dataStart + compressed <= directory, uncompressed <= limit else { return nil }
        // The deflate stream inside a gzip member with the entry's CRC and size: zlib checks both.
        let member =
            GzipMember.header + object[dataStart..<dataStart + compressed]
            + GzipMember.checks(crc: UInt32(crc), length: uncompressed)
        return try? Gzip.decompress(member, limit: uncompressed)
    }
}
