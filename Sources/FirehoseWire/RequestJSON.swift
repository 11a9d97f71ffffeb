import Foundation

/// Request bodies decoded the way AWS reads them.
package enum RequestJSON {
    /// Decodes an API request body, reporting what AWS reports as a `SerializationException`.
    ///
    /// AWS reads JSON with Jackson, which lets a repeated member's last value win; Foundation's
    /// `JSONDecoder` keeps the first. The rare body that repeats a member is rewritten first, so
    /// `{"DeliveryStreamName":"a","DeliveryStreamName":"b"}` names `b` here too.
    /// - Parameter rejectingUnknownMembers: refuse a member the shape does not know (for firehose-local's
    ///   own bodies, where an unknown member is a typo; AWS's shapes ignore them).
    package static func decode<Shape: Decodable>(
        _ type: Shape.Type, from body: [UInt8], rejectingUnknownMembers: Bool = false
    ) throws(FirehoseError) -> Shape {
        let text = RepeatedMembers.keepingLast(body) ?? body
        let decoder = JSONDecoder()
        do {
            return rejectingUnknownMembers
                ? try decoder.decode(MemberChecked<Shape>.self, from: Data(text)).value
                : try decoder.decode(Shape.self, from: Data(text))
        } catch let error as DecodingError {
            throw .serialization(describe(error))
        } catch let error as UnknownMemberError {
            let place = error.codingPath.isEmpty ? "" : "\(error.codingPath.joined(separator: ".")): "
            throw .serialization(
                "\(place)unknown field '\(error.member)'. Known fields here: \(error.knownMembers.joined(separator: ", "))."
            )
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
        let parsed = body.withUnsafeBufferPointer { bytes -> (root: Node?, repeats: Bool) in
            var parser = Parser(bytes)
            return (parser.document(), parser.repeats)
        }
        guard let root = parsed.root, parsed.repeats, String(validating: body, as: UTF8.self) != nil
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

    /// A strict RFC 8259 reader of structure (`StrictJSONCursor`); string contents are checked for
    /// escapes and control characters, and the whole text for UTF-8 only when a rewrite is due.
    private struct Parser {
        var cursor: StrictJSONCursor
        var repeats = false
        /// Deeper documents are left to the decoder, which refuses them.
        static let maxDepth = 512

        init(_ bytes: UnsafeBufferPointer<UInt8>) { cursor = StrictJSONCursor(bytes) }

        mutating func document() -> Node? {
            guard let node = value(depth: 0) else { return nil }
            cursor.skipWhitespace()
            return cursor.atEnd ? node : nil
        }

        private mutating func value(depth: Int) -> Node? {
            cursor.skipWhitespace()
            guard depth < Self.maxDepth else { return nil }
            switch cursor.current {
            case UInt8(ascii: "{")?: return object(depth: depth)
            case UInt8(ascii: "[")?: return array(depth: depth)
            default: return cursor.scalar().map { .scalar($0) }
            }
        }

        private mutating func object(depth: Int) -> Node? {
            cursor.position += 1
            var members: [Member] = []
            var names: Set<[UInt8]> = []
            cursor.skipWhitespace()
            if cursor.consume(UInt8(ascii: "}")) { return .object(members) }
            while true {
                cursor.skipWhitespace()
                guard cursor.current == UInt8(ascii: "\""), let (text, escaped) = cursor.string() else { return nil }
                let name =
                    escaped
                    ? cursor.unescaped(text) : Array(cursor.bytes[(text.lowerBound + 1)..<(text.upperBound - 1)])
                cursor.skipWhitespace()
                guard cursor.consume(UInt8(ascii: ":")), let element = value(depth: depth + 1) else { return nil }
                if !names.insert(name).inserted { repeats = true }
                members.append(Member(name: name, text: text, value: element))
                cursor.skipWhitespace()
                if cursor.consume(UInt8(ascii: "}")) { return .object(members) }
                guard cursor.consume(UInt8(ascii: ",")) else { return nil }
            }
        }

        private mutating func array(depth: Int) -> Node? {
            cursor.position += 1
            var elements: [Node] = []
            cursor.skipWhitespace()
            if cursor.consume(UInt8(ascii: "]")) { return .array(elements) }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                cursor.skipWhitespace()
                if cursor.consume(UInt8(ascii: "]")) { return .array(elements) }
                guard cursor.consume(UInt8(ascii: ",")) else { return nil }
            }
        }
    }
}
