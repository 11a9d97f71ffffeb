/// Where the records of a delivered object's (decompressed) content lie, for people and scripts that
/// read objects back (`tail`, the test plugin). Firehose joins records with nothing between them, so
/// their boundaries are only known when the stream appends a newline to each one
/// (AppendDelimiterToRecord); otherwise, when the content is a run of JSON objects or arrays — how
/// most streams are fed — each one is taken as a record; anything else is one piece: the object.
public enum ObjectRecords {
    public enum Boundaries: String, Sendable {
        /// One record per line (the newline not included): the stream appends a newline.
        case lines
        /// One record per top-level JSON object or array, whitespace between them dropped.
        case json
        /// The whole content as one piece: the boundaries cannot be told.
        case object
    }

    public struct Split: Sendable, Equatable {
        public var boundaries: Boundaries
        /// Byte ranges of the records in the content, in order.
        public var ranges: [Range<Int>]
        /// False when the split stopped at the record limit: more records follow.
        public var complete = true
    }

    /// The records of `content`; `linesAreRecords` when the object's stream appends a newline to
    /// each record. Empty content holds no record. At most `limit` records are split out (16 bytes
    /// each: a server bounds its memory).
    public static func split(_ content: [UInt8], linesAreRecords: Bool, limit: Int = .max) -> Split {
        if linesAreRecords {
            let (ranges, complete) = lines(content, limit: limit)
            return Split(boundaries: .lines, ranges: ranges, complete: complete)
        }
        if let (documents, complete) = jsonDocuments(content, limit: limit) {
            return Split(boundaries: .json, ranges: documents, complete: complete)
        }
        return Split(boundaries: .object, ranges: content.isEmpty ? [] : [0..<content.count])
    }

    /// Ranges between newlines; a last line without one is a record too.
    static func lines(_ content: [UInt8], limit: Int = .max) -> (ranges: [Range<Int>], complete: Bool) {
        var ranges: [Range<Int>] = []
        var start = 0
        for index in content.indices where content[index] == UInt8(ascii: "\n") {
            guard ranges.count < limit else { return (ranges, false) }
            ranges.append(start..<index)
            start = index + 1
        }
        if start < content.count {
            guard ranges.count < limit else { return (ranges, false) }
            ranges.append(start..<content.count)
        }
        return (ranges, true)
    }

    /// The top-level objects and arrays of `content` when it is nothing but those (and whitespace),
    /// with brackets balanced and matched outside strings; nil otherwise. Scalars between them make
    /// it nil: `12` could be one record or two.
    static func jsonDocuments(_ content: [UInt8], limit: Int = .max) -> (ranges: [Range<Int>], complete: Bool)? {
        var ranges: [Range<Int>] = []
        var open: [UInt8] = []
        var index = 0
        while index < content.count {
            let byte = content[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") else { return nil }
            let start = index
            var inString = false
            open.removeAll(keepingCapacity: true)
            scan: while index < content.count {
                let byte = content[index]
                index += 1
                if inString {
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"): open.append(UInt8(ascii: "}"))
                case UInt8(ascii: "["): open.append(UInt8(ascii: "]"))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard open.popLast() == byte else { return nil }
                    if open.isEmpty { break scan }
                default: break
                }
            }
            guard open.isEmpty, !inString, index <= content.count else { return nil }
            // Past the limit the rest is not checked: the records shown are still whole documents.
            guard ranges.count < limit else { return (ranges, false) }
            ranges.append(start..<index)
        }
        return ranges.isEmpty ? nil : (ranges, true)
    }
}
