import Foundation

/// Request bodies decoded the way AWS reads them.
package enum RequestJSON {
    /// Decodes an API request body, reporting what AWS reports as a `SerializationException`.
    ///
    /// AWS reads JSON with Jackson, which lets a repeated member's last value win; Foundation's
    /// `JSONDecoder` keeps the first. The rare body that repeats a member is rewritten first, so
    /// `{"DeliveryStreamName":"a","DeliveryStreamName":"b"}` names `b` here too.
    package static func decode<Shape: Decodable>(_ type: Shape.Type, from body: [UInt8]) throws(FirehoseError)
        -> Shape
    {
        let text = RepeatedMembers.keepingLast(body) ?? body
        do {
            return try JSONDecoder().decode(Shape.self, from: Data(text))
        } catch let error as DecodingError {
            throw .serialization(describe(error))
        } catch {
            throw .serialization("Request body is not valid JSON.")
        }
    }

    package static func describe(_ error: DecodingError) -> String {
        func location(_ path: [any CodingKey]) -> String {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the request body" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "Unexpected JSON type at \(location(context.codingPath)): expected \(type)."
        case .valueNotFound(let type, let context):
            return "Unexpected null at \(location(context.codingPath)): expected \(type)."
        case .keyNotFound(let key, _):
            return "Missing member \(key.stringValue)."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "Request body is not valid JSON."
                : "Malformed value at \(location(context.codingPath))."
        @unknown default:
            return "Request body could not be decoded."
        }
    }
}

/// Reduces each object's repeated members to their last occurrence.
package enum RepeatedMembers {
    /// `body` with every member that an object repeats kept only at its last occurrence; nil when no
    /// object repeats a member, or when `body` is not well-formed JSON (the decoder then says so).
    ///
    /// Names compare after unescaping, as a JSON reader sees them: `"a"` and `"\u0061"` are the same
    /// member. Dropped values must still be well-formed JSON, so a rewrite never makes a body readable
    /// that was not.
    package static func keepingLast(_ body: [UInt8]) -> [UInt8]? {
        var parser = Parser(body)
        guard let root = parser.document(), parser.repeats,
            String(validating: body, as: UTF8.self) != nil
        else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(body.count)
        write(root, from: body, into: &output)
        return output
    }

    fileprivate indirect enum Node {
        /// A string, number or literal, by its text.
        case scalar(Range<Int>)
        case array([Node])
        case object([Member])
    }

    fileprivate struct Member {
        var name: [UInt8]
        /// The quoted name as written.
        var text: Range<Int>
        var value: Node
    }

    private static func write(_ node: Node, from body: [UInt8], into output: inout [UInt8]) {
        switch node {
        case .scalar(let range):
            output += body[range]
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, from: body, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            var lastIndex: [[UInt8]: Int] = [:]
            for (index, member) in members.enumerated() { lastIndex[member.name] = index }
            output.append(UInt8(ascii: "{"))
            var first = true
            for (index, member) in members.enumerated() where lastIndex[member.name] == index {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                output += body[member.text]
                output.append(UInt8(ascii: ":"))
                write(member.value, from: body, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A strict RFC 8259 reader of structure; string contents are checked for escapes and control
    /// characters, and the whole text for UTF-8 only when a rewrite is due.
    private struct Parser {
        let bytes: [UInt8]
        var position = 0
        var repeats = false
        /// Deeper documents are left to the decoder, which refuses them.
        static let maxDepth = 512

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() -> Node? {
            guard let node = value(depth: 0) else { return nil }
            skipWhitespace()
            return position == bytes.count ? node : nil
        }

        private mutating func value(depth: Int) -> Node? {
            skipWhitespace()
            guard position < bytes.count, depth < Self.maxDepth else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""):
                guard let (range, _) = string() else { return nil }
                return .scalar(range)
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        private mutating func object(depth: Int) -> Node? {
            position += 1
            var members: [Member] = []
            var names: Set<[UInt8]> = []
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return .object(members) }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""),
                    let (text, escaped) = string()
                else { return nil }
                let raw = Array(bytes[(text.lowerBound + 1)..<(text.upperBound - 1)])
                guard let name = escaped ? Self.unescape(raw) : raw else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")), let element = value(depth: depth + 1) else { return nil }
                if !names.insert(name).inserted { repeats = true }
                members.append(Member(name: name, text: text, value: element))
                skipWhitespace()
                if consume(UInt8(ascii: "}")) { return .object(members) }
                guard consume(UInt8(ascii: ",")) else { return nil }
            }
        }

        private mutating func array(depth: Int) -> Node? {
            position += 1
            var elements: [Node] = []
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return .array(elements) }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return .array(elements) }
                guard consume(UInt8(ascii: ",")) else { return nil }
            }
        }

        /// A quoted string from the opening quote: its text with the quotes, and whether it has escapes.
        private mutating func string() -> (Range<Int>, Bool)? {
            let start = position
            position += 1
            var escaped = false
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return (start..<position, escaped)
                case UInt8(ascii: "\\"):
                    escaped = true
                    guard position + 1 < bytes.count else { return nil }
                    switch bytes[position + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        position += 2
                    case UInt8(ascii: "u"):
                        guard position + 6 <= bytes.count,
                            bytes[(position + 2)..<(position + 6)].allSatisfy({ Self.hexValue($0) != nil })
                        else { return nil }
                        position += 6
                    default:
                        return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    position += 1
                }
            }
            return nil
        }

        private mutating func literal(_ word: StaticString) -> Node? {
            let start = position
            let matched = word.withUTF8Buffer { expected in
                guard bytes.count - position >= expected.count else { return false }
                return zip(bytes[position...], expected).allSatisfy { $0 == $1 }
            }
            guard matched else { return nil }
            position += word.utf8CodeUnitCount
            return .scalar(start..<position)
        }

        /// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`
        private mutating func number() -> Node? {
            let start = position
            _ = consume(UInt8(ascii: "-"))
            if consume(UInt8(ascii: "0")) {
            } else if position < bytes.count, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[position]) {
                skipDigits()
            } else {
                return nil
            }
            if consume(UInt8(ascii: ".")) {
                guard skipDigits() > 0 else { return nil }
            }
            if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
                if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
                guard skipDigits() > 0 else { return nil }
            }
            return .scalar(start..<position)
        }

        @discardableResult
        private mutating func skipDigits() -> Int {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return position - start
        }

        private mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        private static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// The UTF-8 bytes a string's already-checked text stands for. A lone surrogate becomes
        /// U+FFFD, so two names differing only there compare equal, as they would once decoded.
        private static func unescape(_ text: [UInt8]) -> [UInt8]? {
            var output: [UInt8] = []
            var index = 0
            func unit(at offset: Int) -> UInt32? {
                guard offset + 6 <= text.count, text[offset] == UInt8(ascii: "\\"),
                    text[offset + 1] == UInt8(ascii: "u")
                else { return nil }
                return text[(offset + 2)..<(offset + 6)].reduce(0 as UInt32) { $0 << 4 | (hexValue($1) ?? 0) }
            }
            while index < text.count {
                guard text[index] == UInt8(ascii: "\\") else {
                    output.append(text[index])
                    index += 1
                    continue
                }
                let escape = text[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    guard let first = unit(at: index - 2) else { return nil }
                    index += 4
                    var scalar = Unicode.Scalar(first)
                    if (0xD800..<0xDC00).contains(first), let second = unit(at: index),
                        (0xDC00..<0xE000).contains(second)
                    {
                        scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                        index += 6
                    }
                    output += Array(String(scalar ?? "\u{FFFD}").utf8)
                default: output.append(escape)
                }
            }
            return output
        }
    }
}
