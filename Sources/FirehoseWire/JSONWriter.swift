/// Compact JSON written straight into bytes: the output of `OrderedJSONEncoder`, and what the paths
/// that carry every record (the put answers, the Lambda event, the HTTP endpoint request, error
/// records) write by hand, where going through `Encodable` would cost throughput.
package struct JSONWriter: Sendable {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init(reservingCapacity capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    package mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    package mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    /// `value` base64-encoded, as a string, written straight into the output: the alphabet needs no
    /// escaping, so there is no intermediate `String` to build and scan (Lambda events, error records).
    package mutating func base64(_ value: some Collection<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Base64.encodedLength(value.count)))
        bytes.withUnsafeMutableBufferPointer { _ = Base64.encode(value, into: $0.baseAddress! + start) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    package mutating func integer(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    package mutating func integer(_ value: UInt64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// A finite number, integral ones without a fraction (`0.3`, `30`); JSON has no NaN or infinity.
    package mutating func number(_ value: Double) {
        precondition(value.isFinite, "JSON numbers are finite")
        separate()
        bytes.append(contentsOf: JSONValue.text(of: value).utf8)
        needsComma = true
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Record ids, names and most messages need no escaping: copy them in one go.
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            for byte in utf8
            where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied != true { appendEscaped(value) }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ value: String) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            // DEL too, though JSON allows it raw: a JSON text may go into an HTTP header (an HTTP
            // endpoint's common attributes), where it cannot stand.
            case 0..<0x20, 0x7F:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            default: bytes.append(byte)
            }
        }
    }
}
