import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The text format of a staging buffer's journal: a header line naming the stream, then one line per
/// commit. Lines are only ever appended, so after a crash the file is a valid prefix plus at most one
/// torn line, which parsing ignores.
///
/// ```
/// FHL1 {"stream":"app-events","versionID":1,"firstArrivalMilliseconds":1795266309000,"compression":"GZIP",
///       "partition":{"values":{"fromQuery":{"customer":"42"},"fromLambda":{}}}}
/// C 1043 20480 40 3735928559
/// ```
/// (`C <stored bytes> <uncompressed bytes> <records> <CRC-32 of the stored bytes since the previous line>`)
enum StagingJournal {
    static let magic = "FHL1 "

    struct Header: Codable, Equatable {
        var stream: String
        var versionID: Int
        var firstArrivalMilliseconds: Int64
        /// `ObjectEncoding.name` of the encoding that staged the data file. The JSON key is the one
        /// journals had when GZIP and UNCOMPRESSED were the only encodings, so those still recover.
        var encoding: String
        /// The buffer's partition; absent for a stream's one partition (and in journals written
        /// before streams had others).
        var partition: PartitionKey?
        /// The object key the buffer is delivered at; absent in journals written before keys were
        /// fixed when a buffer opens (recovery then computes one with the stream's settings).
        var key: String?
        /// `ObjectEncoding.name` of the encoding the object is delivered in, fixed with its key (the
        /// key's extension says it); it differs from `encoding` for a buffer staged as it is and
        /// encoded at delivery. Absent in older journals: the stream's encoding at recovery is used.
        var objectEncoding: String?
        /// Set for a buffer of source records that await their transformation by the stream's
        /// `Lambda` processor (framed, `SourceRecordFrame`): recovery stages them for it again.
        var awaitsTransformation: Bool? = nil
        /// Set for a buffer of the stream's source-record backup: recovery delivers it with the
        /// backup's settings (its bucket).
        var backup: Bool? = nil
        /// `StreamDestination.name` of the destination that consumes the buffer's records (framed,
        /// `SourceRecordFrame`): recovery stages them for it again.
        var destination: String? = nil
        /// What journals written before destinations had names set for an HTTP endpoint's buffer
        /// (read, never written).
        var awaitsEndpoint: Bool? = nil

        enum CodingKeys: String, CodingKey {
            case stream, versionID, firstArrivalMilliseconds, partition, key, objectEncoding, awaitsTransformation
            case backup, destination, awaitsEndpoint
            case encoding = "compression"
        }

        /// The destination that consumes the buffer's records, if one does.
        var consumingDestination: String? {
            destination ?? (awaitsEndpoint == true ? HTTPEndpointDestination.destinationName : nil)
        }

        var firstArrival: Date { Date(timeIntervalSince1970: TimeInterval(firstArrivalMilliseconds) / 1000) }

        var line: String {
            let json = (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return StagingJournal.magic + json + "\n"
        }
    }

    struct Entry: Equatable {
        var storedBytes: Int
        var uncompressedBytes: Int
        var records: Int
        var segmentCRC: UInt32

        var line: String { "C \(storedBytes) \(uncompressedBytes) \(records) \(segmentCRC)\n" }

        init(storedBytes: Int, uncompressedBytes: Int, records: Int, segmentCRC: UInt32) {
            self.storedBytes = storedBytes
            self.uncompressedBytes = uncompressedBytes
            self.records = records
            self.segmentCRC = segmentCRC
        }

        init?(line: Substring) {
            let fields = line.split(separator: " ")
            guard fields.count == 5, fields[0] == "C", let stored = Int(fields[1]), let uncompressed = Int(fields[2]),
                let records = Int(fields[3]), let crc = UInt32(fields[4]), stored >= 0, uncompressed >= 0, records > 0
            else { return nil }
            self.init(storedBytes: stored, uncompressedBytes: uncompressed, records: records, segmentCRC: crc)
        }
    }

    struct Parsed {
        var header: Header
        var entries: [Entry]
    }

    /// Parses a journal, ignoring a torn last line. Nil when even the header is unreadable (the buffer
    /// was never committed: its creation did not finish).
    static func parse(_ bytes: [UInt8]) -> Parsed? {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // Everything after the last newline is a line still being written when the process stopped.
        lines.removeLast()
        guard let first = lines.first, first.hasPrefix(magic),
            let header = try? JSONDecoder().decode(Header.self, from: Data(first.dropFirst(magic.count).utf8))
        else { return nil }
        var entries: [Entry] = []
        for line in lines.dropFirst() {
            guard let entry = Entry(line: line) else { break }
            if let previous = entries.last,
                entry.storedBytes < previous.storedBytes || entry.records <= previous.records
                    || entry.uncompressedBytes < previous.uncompressedBytes
            {
                break
            }
            entries.append(entry)
        }
        return Parsed(header: header, entries: entries)
    }

    /// The last commit whose bytes are all present in `data` and match their CRCs: what a crash
    /// cannot have torn. Nil when no commit survived.
    static func lastIntactCommit(_ entries: [Entry], data: [UInt8]) -> Entry? {
        var intact: Entry?
        var start = 0
        for entry in entries {
            guard entry.storedBytes <= data.count,
                entry.storedBytes == start || CRC32.checksum(data[start..<entry.storedBytes]) == entry.segmentCRC
            else { break }
            if entry.storedBytes == start, entry.segmentCRC != 0 { break }
            intact = entry
            start = entry.storedBytes
        }
        return intact
    }
}
