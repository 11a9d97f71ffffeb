/// The lexical layer of a strict RFC 8259 reader over bytes in memory: whitespace, strings (escapes
/// and control characters checked; UTF-8 is the caller's concern), numbers and literals, and
/// skipping a whole value. Readers of structure (`RepeatedMembers`, `RootMemberProjection`) are
/// built on it.
package struct StrictJSONCursor {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var position = 0
    /// Refuse a `\uD800`–`\uDBFF` escape not followed by a low one, as jq's parser does ("Invalid
    /// \uXXXX\uXXXX surrogate pair escape"); JSON's grammar allows it, and Jackson reads it as U+FFFD.
    package var refusesLoneHighSurrogates = false

    package init(_ bytes: UnsafeBufferPointer<UInt8>, refusesLoneHighSurrogates: Bool = false) {
        self.bytes = bytes
        self.refusesLoneHighSurrogates = refusesLoneHighSurrogates
    }

    package var atEnd: Bool { position >= bytes.count }

    /// The byte at the position, if any.
    package var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    package mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    package mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// A quoted string from the opening quote: its text with the quotes, and whether it has escapes.
    package mutating func string() -> (text: Range<Int>, escaped: Bool)? {
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
                    guard let unit = escapedUnit(at: position) else { return nil }
                    position += 6
                    if refusesLoneHighSurrogates, (0xD800...0xDBFF).contains(unit) {
                        guard let low = escapedUnit(at: position), (0xDC00...0xDFFF).contains(low) else { return nil }
                    }
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

    /// The bytes a string that `string()` read stands for (`text` as it returned it, quotes included).
    /// A lone surrogate escape becomes U+FFFD, as Jackson and Foundation read it, so two strings
    /// differing only there compare equal once decoded. The bytes are UTF-8 when the text was.
    package func unescaped(_ text: Range<Int>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count - 2)
        var index = text.lowerBound + 1
        let end = text.upperBound - 1
        while index < end {
            guard bytes[index] == UInt8(ascii: "\\") else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                let first = escapedUnit(at: index) ?? 0xFFFD
                index += 6
                var scalar = Unicode.Scalar(first)
                if (0xD800..<0xDC00).contains(first), let second = escapedUnit(at: index),
                    (0xDC00..<0xE000).contains(second)
                {
                    scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                    index += 6
                }
                output.append(contentsOf: String(scalar ?? "\u{FFFD}").utf8)
                continue
            default: output.append(escape)
            }
            index += 2
        }
        return output
    }

    /// The code unit of a `\uXXXX` escape at `offset`, if one is there.
    private func escapedUnit(at offset: Int) -> UInt32? {
        guard offset + 6 <= bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
        else { return nil }
        var unit: UInt32 = 0
        for index in (offset + 2)..<(offset + 6) {
            guard let digit = Self.hexValue(bytes[index]) else { return nil }
            unit = unit << 4 | digit
        }
        return unit
    }

    /// `true`, `false` or `null`, whichever `word` is, at the position.
    package mutating func literal(_ word: StaticString) -> Range<Int>? {
        let start = position
        let matched = word.withUTF8Buffer { expected in
            guard bytes.count - position >= expected.count else { return false }
            return zip(bytes[position...], expected).allSatisfy { $0 == $1 }
        }
        guard matched else { return nil }
        position += word.utf8CodeUnitCount
        return start..<position
    }

    /// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`
    package mutating func number() -> Range<Int>? {
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
        return start..<position
    }

    /// A scalar at the position (after whitespace): a string, number or literal; nil for anything else.
    package mutating func scalar() -> Range<Int>? {
        switch current {
        case UInt8(ascii: "\"")?: string()?.text
        case UInt8(ascii: "t")?: literal("true")
        case UInt8(ascii: "f")?: literal("false")
        case UInt8(ascii: "n")?: literal("null")
        case nil: nil
        default: number()
        }
    }

    /// Skips one value (after whitespace) that is `depth` containers deep; false when it is not
    /// well-formed or opens a container at depth `maxDepth`.
    package mutating func skipValue(depth: Int, maxDepth: Int) -> Bool {
        skipWhitespace()
        if current == UInt8(ascii: "{") || current == UInt8(ascii: "[") {
            guard depth < maxDepth else { return false }
        }
        switch current {
        case UInt8(ascii: "{")?:
            position += 1
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\""), string() != nil else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")), skipValue(depth: depth + 1, maxDepth: maxDepth) else { return false }
                skipWhitespace()
                if consume(UInt8(ascii: "}")) { return true }
                guard consume(UInt8(ascii: ",")) else { return false }
            }
        case UInt8(ascii: "[")?:
            position += 1
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            while true {
                guard skipValue(depth: depth + 1, maxDepth: maxDepth) else { return false }
                skipWhitespace()
                if consume(UInt8(ascii: "]")) { return true }
                guard consume(UInt8(ascii: ",")) else { return false }
            }
        default:
            return scalar() != nil
        }
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        return position - start
    }

    package static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

/// The members of a JSON object that a reader of only some of them needs (dynamic partitioning's jq
/// query, `RootMembers`), cut out of the record's text so the reader parses those instead of the
/// whole record.
package enum RootMemberProjection {
    /// `{…}` holding, as written and in order, the members of the object `record` named in `names`,
    /// and every member whose name has escapes or non-ASCII bytes (kept rather than decoded: one
    /// more member changes nothing for a reader of named members, and order keeps the last of a
    /// repeated name last). Nil when `record` is not exactly one strictly well-formed JSON object
    /// nested at most `maxDepth` deep, or holds a lone high surrogate escape (which jq refuses): the
    /// caller's reader then decides about the whole record.
    package static func project(_ record: UnsafeBufferPointer<UInt8>, keeping names: [[UInt8]], maxDepth: Int)
        -> [UInt8]?
    {
        // Refusing what jq refuses: a record jq cannot parse must reach jq whole.
        var cursor = StrictJSONCursor(record, refusesLoneHighSurrogates: true)
        cursor.skipWhitespace()
        guard cursor.consume(UInt8(ascii: "{")) else { return nil }
        var projected: [UInt8] = [UInt8(ascii: "{")]
        cursor.skipWhitespace()
        if !cursor.consume(UInt8(ascii: "}")) {
            while true {
                cursor.skipWhitespace()
                let start = cursor.position
                guard cursor.current == UInt8(ascii: "\""), let (name, escaped) = cursor.string() else { return nil }
                cursor.skipWhitespace()
                guard cursor.consume(UInt8(ascii: ":")), cursor.skipValue(depth: 1, maxDepth: maxDepth) else {
                    return nil
                }
                let text = UnsafeBufferPointer(rebasing: record[(name.lowerBound + 1)..<(name.upperBound - 1)])
                if escaped || text.contains(where: { $0 >= 0x80 }) || names.contains(where: { $0.elementsEqual(text) })
                {
                    if projected.count > 1 { projected.append(UInt8(ascii: ",")) }
                    projected += record[start..<cursor.position]
                }
                cursor.skipWhitespace()
                if cursor.consume(UInt8(ascii: "}")) { break }
                guard cursor.consume(UInt8(ascii: ",")) else { return nil }
            }
        }
        cursor.skipWhitespace()
        guard cursor.atEnd else { return nil }
        projected.append(UInt8(ascii: "}"))
        return projected
    }
}

/// A reader of a JSON document's members by name, over `StrictJSONCursor`: the document is checked
/// whole first (`wholeObject`), then read member by member.
package protocol StrictJSONReading {
    var cursor: StrictJSONCursor { get set }
    /// Nesting beyond which a document is refused rather than read.
    static var maxDepth: Int { get }
}

extension StrictJSONReading {
    /// True when the text is one well-formed JSON object, nested at most `maxDepth` deep; the cursor
    /// is then back at its start, ready to read it.
    package mutating func wholeObject() -> Bool {
        cursor.skipWhitespace()
        guard cursor.current == UInt8(ascii: "{"), cursor.skipValue(depth: 0, maxDepth: Self.maxDepth) else {
            return false
        }
        cursor.skipWhitespace()
        guard cursor.atEnd else { return false }
        cursor.position = 0
        cursor.skipWhitespace()
        return true
    }

    /// Calls `body` with each member's name (decoded) of the well-formed object at the cursor, the
    /// cursor at the member's value; `body` moves it past the value.
    package mutating func forEachMember(_ body: (inout Self, String) -> Void) {
        _ = cursor.consume(UInt8(ascii: "{"))
        cursor.skipWhitespace()
        if cursor.consume(UInt8(ascii: "}")) { return }
        while true {
            cursor.skipWhitespace()
            let name = text() ?? ""
            cursor.skipWhitespace()
            _ = cursor.consume(UInt8(ascii: ":"))
            cursor.skipWhitespace()
            body(&self, name)
            cursor.skipWhitespace()
            if cursor.consume(UInt8(ascii: "}")) || !cursor.consume(UInt8(ascii: ",")) { return }
        }
    }

    /// Calls `body` with the cursor at each element (after whitespace) of the well-formed array at
    /// the cursor, until it returns false; it moves the cursor past the element.
    package mutating func forEachElement(_ body: (inout Self) -> Bool) {
        _ = cursor.consume(UInt8(ascii: "["))
        cursor.skipWhitespace()
        if cursor.consume(UInt8(ascii: "]")) { return }
        while true {
            cursor.skipWhitespace()
            guard body(&self) else { return }
            cursor.skipWhitespace()
            if cursor.consume(UInt8(ascii: "]")) || !cursor.consume(UInt8(ascii: ",")) { return }
        }
    }

    /// The string at the cursor, decoded, past it; nil (the cursor unmoved) for another value.
    package mutating func text() -> String? {
        guard cursor.current == UInt8(ascii: "\""), let (range, _) = cursor.string() else { return nil }
        return String(decoding: cursor.unescaped(range), as: UTF8.self)
    }

    /// The string at the cursor, decoded, past it; nil, the cursor past the value, for another value.
    package mutating func stringValue() -> String? {
        if let value = text() { return value }
        skipValue()
        return nil
    }

    /// Moves past the value at the cursor (well-formed: the document was checked whole first).
    package mutating func skipValue() {
        _ = cursor.skipValue(depth: 0, maxDepth: Self.maxDepth)
    }
}
