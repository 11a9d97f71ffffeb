/// The fast path of PutRecord / PutRecordBatch decoding: a byte scanner for the bodies every SDK sends,
/// which base64-decodes each `Data` straight from the body into the batch's storage.
///
/// Going through `JSONDecoder` turns every record into a `String` first, which costs more than the
/// base64 decoding itself. The scanner understands only a subset: an object with the operation's known
/// members (any order, any JSON whitespace, each at most once), the stream name a string of printable
/// ASCII without escapes, records objects with at most a `Data` string. Anything else (escapes, unknown
/// or repeated members, `null`, numbers, non-ASCII, trailing bytes, malformed JSON) returns nil, and the
/// caller runs the `JSONDecoder` path, which stays the reference for results and error messages. The
/// subset is chosen so that every body it accepts is valid JSON that decodes to the same shape.
enum PutRecordsScanner {
    /// What the reference decoder would see, less the checks that only need these facts.
    struct Scanned {
        /// nil when the member is absent.
        var deliveryStreamName: String?
        /// nil when the member (`Records`, or `Record` for PutRecord) is absent.
        var entryCount: Int?
        var records: RecordBatch
        /// In member order: missing `Data` and oversized records, among the entries the reference checks.
        var entryViolations: [ValidationViolation]
        /// The first checked entry whose `Data` is not base64: the reference throws for it.
        var firstInvalidBase64: Int?
    }

    /// Scans a PutRecordBatch body (`batch`) or a PutRecord body; nil means "use the reference decoder".
    static func scan(_ body: [UInt8], batch: Bool) -> Scanned? {
        body.withUnsafeBufferPointer { input in
            Base64.decodeTables.withUnsafeBufferPointer { tables in
                guard let base = input.baseAddress, let tables = tables.baseAddress else { return nil }
                var scanned: Scanned?
                // Every decoded record is at most 3/4 of its text, so 3/4 of the body bounds the whole
                // batch: one allocation, and decoding writes into it without growth checks per byte.
                let capacity = input.count / 4 * 3 + 8
                var ends: [Int] = []
                let storage = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                    var scanner = Scanner(
                        input: base, count: input.count, tables: tables, output: buffer.baseAddress!,
                        capacity: buffer.count,
                        // The smallest entry, `{"Data":""},`, is 12 bytes.
                        expectedRecords: batch ? min(ServiceLimits.maxBatchRecords, input.count / 12 + 1) : 1)
                    scanned = batch ? scanner.scanBatch() : scanner.scanSingle()
                    initialized = scanner.written
                    ends = scanner.ends
                }
                scanned?.records = RecordBatch(storage: storage, ends: ends)
                return scanned
            }
        }
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    private struct Scanner {
        let input: UnsafePointer<UInt8>
        let count: Int
        let tables: UnsafePointer<UInt32>
        let output: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var ends: [Int] = []
        var position = 0
        var written = 0
        var entryViolations: [ValidationViolation] = []
        var firstInvalidBase64: Int?

        init(
            input: UnsafePointer<UInt8>, count: Int, tables: UnsafePointer<UInt32>,
            output: UnsafeMutablePointer<UInt8>, capacity: Int, expectedRecords: Int
        ) {
            self.input = input
            self.count = count
            self.tables = tables
            self.output = output
            self.capacity = capacity
            ends.reserveCapacity(expectedRecords)
        }

        private enum Member {
            case deliveryStreamName, records, record, data
        }

        // MARK: Documents

        /// `{"DeliveryStreamName": "...", "Records": [{"Data": "..."}, ...]}`
        mutating func scanBatch() -> Scanned? {
            var name: String?
            var entryCount: Int?
            let complete = scanObject { scanner, member in
                switch member {
                case .deliveryStreamName where name == nil:
                    guard let value = scanner.streamName() else { return false }
                    name = value
                case .records where entryCount == nil:
                    guard let count = scanner.entries() else { return false }
                    entryCount = count
                default:
                    return false
                }
                return true
            }
            guard complete, atEndOfDocument() else { return nil }
            return Scanned(
                deliveryStreamName: name, entryCount: entryCount, records: RecordBatch(),
                entryViolations: entryViolations, firstInvalidBase64: firstInvalidBase64)
        }

        /// `{"DeliveryStreamName": "...", "Record": {"Data": "..."}}`
        mutating func scanSingle() -> Scanned? {
            var name: String?
            var recordCount: Int?
            let complete = scanObject { scanner, member in
                switch member {
                case .deliveryStreamName where name == nil:
                    guard let value = scanner.streamName() else { return false }
                    name = value
                case .record where recordCount == nil:
                    guard scanner.entry(index: 0, path: "record", decoding: true) else { return false }
                    recordCount = 1
                default:
                    return false
                }
                return true
            }
            guard complete, atEndOfDocument() else { return nil }
            return Scanned(
                deliveryStreamName: name, entryCount: recordCount, records: RecordBatch(),
                entryViolations: entryViolations, firstInvalidBase64: firstInvalidBase64)
        }

        /// An object of known members, each handed to `value` positioned at its value; false when the
        /// body leaves the subset.
        private mutating func scanObject(_ value: (inout Scanner, Member) -> Bool) -> Bool {
            skipWhitespace()
            guard consume(UInt8(ascii: "{")) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            while true {
                guard let member = memberName(), value(&self, member) else { return false }
                skipWhitespace()
                if consume(UInt8(ascii: "}")) { return true }
                guard consume(UInt8(ascii: ",")) else { return false }
                skipWhitespace()
            }
        }

        /// Only whitespace may follow the document.
        private mutating func atEndOfDocument() -> Bool {
            skipWhitespace()
            return position == count
        }

        // MARK: Members

        /// A member name and its colon, leaving the position at the value.
        private mutating func memberName() -> Member? {
            guard let range = plainString() else { return nil }
            let member: Member
            switch range.count {
            case 4 where matches(range, "Data"): member = .data
            case 6 where matches(range, "Record"): member = .record
            case 7 where matches(range, "Records"): member = .records
            case 18 where matches(range, "DeliveryStreamName"): member = .deliveryStreamName
            default: return nil
            }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            return member
        }

        private func matches(_ range: Range<Int>, _ name: StaticString) -> Bool {
            name.withUTF8Buffer { expected in
                for offset in 0..<expected.count where input[range.lowerBound + offset] != expected[offset] {
                    return false
                }
                return true
            }
        }

        private mutating func streamName() -> String? {
            guard let range = plainString() else { return nil }
            return String(
                decoding: UnsafeBufferPointer(start: input + range.lowerBound, count: range.count), as: UTF8.self)
        }

        /// `[entry, ...]`: returns the number of entries. Only the first `maxBatchRecords` are decoded,
        /// as the reference only checks those; the rest must still be in the subset.
        private mutating func entries() -> Int? {
            guard consume(UInt8(ascii: "[")) else { return nil }
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return 0 }
            var index = 0
            while true {
                let checked = index < ServiceLimits.maxBatchRecords
                guard entry(index: index, path: checked ? PutRecordsRequest.entryPath(index) : "", decoding: checked)
                else { return nil }
                index += 1
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return index }
                guard consume(UInt8(ascii: ",")) else { return nil }
                skipWhitespace()
            }
        }

        /// `{}` or `{"Data": "<base64>"}`.
        private mutating func entry(index: Int, path: @autoclosure () -> String, decoding: Bool) -> Bool {
            guard consume(UInt8(ascii: "{")) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) {
                if decoding { entryViolations.append(.missing("\(path()).data")) }
                return true
            }
            guard memberName() == .data, consume(quote) else { return false }
            let start = position
            guard let end = nextQuote() else { return false }
            position = end + 1
            if decoding, firstInvalidBase64 == nil {
                guard decodeRecord(start..<end, index: index, path: path) else { return false }
            } else {
                // The reference decodes no further after an invalid record, but the text must still
                // be a string it would read the same way.
                guard isPlain(start..<end) || unescapingSlashes(start..<end) != nil else { return false }
            }
            skipWhitespace()
            return consume(UInt8(ascii: "}"))
        }

        /// Decodes one record into the output; false when the text leaves the subset.
        private mutating func decodeRecord(_ range: Range<Int>, index: Int, path: () -> String) -> Bool {
            // A valid base64 text is all alphabet and padding, so it is also a plain JSON string that
            // decodes to these very bytes; only a failure needs the closer look.
            switch decodeBase64(input + range.lowerBound, count: range.count, path: path) {
            case .decoded: return true
            case .noRoom: return false
            case .invalid: break
            }
            if isPlain(range) {
                firstInvalidBase64 = index
                return true
            }
            // Some JSON encoders write every "/" as "\/", the one escape a base64 text can need.
            guard let text = unescapingSlashes(range) else { return false }
            let result = text.withUnsafeBufferPointer { text in
                decodeBase64(text.baseAddress!, count: text.count, path: path)
            }
            switch result {
            case .decoded: return true
            case .noRoom: return false
            case .invalid:
                firstInvalidBase64 = index
                return true
            }
        }

        private enum Decoded { case decoded, invalid, noRoom }

        /// Decodes base64 text into the output, or reports an oversized record in its place.
        private mutating func decodeBase64(_ text: UnsafePointer<UInt8>, count: Int, path: () -> String) -> Decoded {
            guard let (unpaddedCount, length) = Base64.measure(text, count: count) else { return .invalid }
            // Holds by construction (see `scan`); checked because the writes below are unchecked.
            guard written + length <= capacity else { return .noRoom }
            guard Base64.decode(text, unpaddedCount: unpaddedCount, into: output + written, tables: tables) else {
                return .invalid
            }
            if length > ServiceLimits.maxRecordBytes {
                entryViolations.append(PutRecordsRequest.oversizedRecord(size: length, path: path()))
            } else {
                written += length
                ends.append(written)
            }
            return .decoded
        }

        // MARK: Lexing

        private mutating func skipWhitespace() {
            while position < count {
                switch input[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
                default: return
                }
            }
        }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard position < count, input[position] == byte else { return false }
            position += 1
            return true
        }

        /// A string whose bytes are its value: positioned at the opening quote, returns the range
        /// between the quotes and moves past the closing one.
        private mutating func plainString() -> Range<Int>? {
            guard consume(quote), let end = nextQuote() else { return nil }
            let range = position..<end
            guard isPlain(range) else { return nil }
            position = end + 1
            return range
        }

        /// Printable ASCII without a backslash: no escapes to undo, no UTF-8 to validate, nothing a JSON
        /// parser could refuse. DEL is left out too, for the parsers that treat it as a control character.
        private func isPlain(_ range: Range<Int>) -> Bool {
            for index in range {
                let byte = input[index]
                if byte < 0x20 || byte >= 0x7F || byte == backslash { return false }
            }
            return true
        }

        /// The value of a string whose only escape is `\/`, or nil for any other escape or a byte that
        /// `isPlain` refuses.
        private func unescapingSlashes(_ range: Range<Int>) -> [UInt8]? {
            var value: [UInt8] = []
            value.reserveCapacity(range.count)
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = input[index]
                if byte == backslash {
                    guard index + 1 < range.upperBound, input[index + 1] == UInt8(ascii: "/") else { return nil }
                    value.append(UInt8(ascii: "/"))
                    index += 2
                } else {
                    guard byte >= 0x20, byte < 0x7F else { return nil }
                    value.append(byte)
                    index += 1
                }
            }
            return value
        }

        /// The index of the next `"` from the position, eight bytes at a time: records are long.
        private func nextQuote() -> Int? {
            var index = position
            let ones: UInt64 = 0x0101_0101_0101_0101
            while index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(input + index).loadUnaligned(as: UInt64.self))
                let x = word ^ (ones &* UInt64(quote))
                // Flags each zero byte of `x`; the lowest flag is exact (borrows only run upwards).
                let zeros = (x &- ones) & ~x & (ones &* 0x80)
                if zeros != 0 { return index + zeros.trailingZeroBitCount / 8 }
                index += 8
            }
            while index < count {
                if input[index] == quote { return index }
                index += 1
            }
            return nil
        }
    }
}
