/// Which members of its input object a jq program can see, when that is provably a few named ones.
///
/// Dynamic partitioning runs a query such as `{customer: .customer_id, year: (.ts | strftime("%Y"))}`
/// on every record, and jq's parse of the whole record is most of its cost. When the program reads
/// its input only through named members (`.customer_id`, `.ts`), running it on an object of just
/// those members gives the same results, and jq then parses a few bytes instead of the record.
///
/// The analysis is deliberately conservative: it follows the program's tokens, tracking whether each
/// position's input is the program's input (the *root*) or a value piped from one of its members,
/// and gives up (nil) at anything at the root that could observe the object as a whole: `.` alone,
/// `..`, `.[…]`, a function applied to the root (`keys`, `length`, `tojson`, …), `as`, `reduce`,
/// `def`, assignments, formats, modules. Past a `|` whose left side read members, the input is
/// that value, and anything goes. A program it cannot follow is simply run on the whole record.
enum RootMembers {
    /// The member names the program reads from its input, or nil when it may read more.
    static func names(in program: String) -> Set<String>? {
        var analysis = Analysis(Array(program.utf8))
        return analysis.run()
    }

    private enum Token: Equatable {
        /// `.name` or `."name"`.
        case field(String)
        /// `.` not followed by a name.
        case dot
        /// `..`
        case recurse
        case identifier(String)
        /// `$name`
        case variable
        /// `@name`
        case format
        case number
        /// A string literal: its text when it has no escapes (its interpolations `\(…)` are
        /// analysed as they are read).
        case string(String?)
        case open(UInt8)
        case close(UInt8)
        case pipe
        case comma
        case colon
        case semicolon
        case question
        /// A binary operator: both operands see the same input.
        case binary
        /// `=`, `|=`, `+=`, `?//` and the like: they take paths of their input.
        case unsafe
    }

    private enum FrameKind: Equatable {
        case paren, bracket, brace, ifBlock, interpolation
    }

    /// Where a brace is between its entries.
    private enum Entry: Equatable {
        /// A key comes next.
        case key
        /// A key was read; `:` starts its value, `,` or `}` make it a shorthand: `{name}` is
        /// `{name: .name}` (`member`), `{$x}` reads nothing of the input (`nil`).
        case afterKey(member: String?)
        /// In the value: tokens are expressions.
        case value
    }

    private struct Frame {
        var kind: FrameKind
        /// The frame started where the input was no longer the root.
        var bornPiped: Bool
        var piped: Bool
        var entry: Entry
        init(_ kind: FrameKind, piped: Bool) {
            self.kind = kind
            bornPiped = piped
            self.piped = piped
            entry = kind == .brace ? .key : .value
        }
    }

    private struct GiveUp: Error {}

    private struct Analysis {
        let bytes: [UInt8]
        var position = 0
        var names: Set<String> = []
        var frames: [Frame] = [Frame(.paren, piped: false)]
        /// The previous token ended a term: `.name` and `[` are then suffixes of it, not reads of
        /// the root.
        var afterTerm = false
        /// Inside `TERM as $name | BODY` at the root: the tokens still expected before BODY, which
        /// sees the root again.
        var binding: Binding?
        /// A comment ended in a backslash (see `skipSpaceAndComments`).
        var continuedComment = false

        enum Binding { case variable, pipe }

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func run() -> Set<String>? {
            do {
                var tokens = 0
                while let token = try next() {
                    tokens += 1
                    try accept(token)
                }
                // An empty program is `.` to jq: it sees everything.
                guard tokens > 0, frames.count == 1 else { return nil }
                return names
            } catch {
                return nil
            }
        }

        private var top: Frame {
            get { frames[frames.count - 1] }
            set { frames[frames.count - 1] = newValue }
        }

        private mutating func accept(_ token: Token) throws(GiveUp) {
            if let expected = binding {
                // Only `as $name |`: destructuring patterns are left to jq.
                switch (expected, token) {
                case (.variable, .variable): binding = .pipe
                case (.pipe, .pipe): binding = nil
                default: throw GiveUp()
                }
                afterTerm = false
                return
            }
            if top.entry != .value {
                try acceptEntry(token)
                return
            }
            let root = !top.piped
            switch token {
            case .field(let name):
                if root && !afterTerm { names.insert(name) }
                afterTerm = true
            case .dot, .recurse:
                guard !root else { throw GiveUp() }
                afterTerm = true
            case .identifier(let word):
                try acceptWord(word, root: root)
            case .variable, .number:
                afterTerm = true
            case .string:
                afterTerm = true
            case .format:
                // `@base64 "…\(.a)…"` formats the string's interpolations; alone, it formats the input.
                guard !root || nextByte() == UInt8(ascii: "\"") else { throw GiveUp() }
                afterTerm = false
            case .open(let byte):
                // After a term, `(` is a call's arguments (only piped: a call at the root gave up)
                // and `[` an index, whose expression sees the same input as the term.
                let kind: FrameKind = byte == UInt8(ascii: "(") ? .paren : byte == UInt8(ascii: "[") ? .bracket : .brace
                frames.append(Frame(kind, piped: top.piped))
                afterTerm = false
            case .close(let byte):
                try close(byte)
            case .pipe:
                top.piped = true
                afterTerm = false
            case .comma:
                if top.kind == .brace {
                    top.piped = top.bornPiped
                    top.entry = .key
                }
                afterTerm = false
            case .colon:
                afterTerm = false
            case .semicolon:
                guard !root else { throw GiveUp() }
                afterTerm = false
            case .question:
                break
            case .binary:
                afterTerm = false
            case .unsafe:
                guard !root else { throw GiveUp() }
                afterTerm = false
            }
        }

        private mutating func acceptWord(_ word: String, root: Bool) throws(GiveUp) {
            switch word {
            case "if":
                frames.append(Frame(.ifBlock, piped: top.piped))
                afterTerm = false
            case "then", "elif", "else":
                guard top.kind == .ifBlock else { throw GiveUp() }
                top.piped = top.bornPiped
                afterTerm = false
            case "end":
                guard top.kind == .ifBlock else { throw GiveUp() }
                frames.removeLast()
                afterTerm = true
            case "and", "or", "try", "catch":
                // `try E catch F`: E sees the same input; F sees the error, and is read as if it saw
                // the root (stricter than needed, never wrong).
                afterTerm = false
            case "as" where root && afterTerm:
                binding = .variable
                afterTerm = false
            case "error" where root && nextByte() == UInt8(ascii: "("),
                "range" where root && nextByte() == UInt8(ascii: "("):
                // Their arguments see the input (a parenthesised expression follows); they do not
                // read it themselves.
                afterTerm = true
            case "true", "false", "null", "empty", "now":
                // Literals, and functions that ignore their input.
                afterTerm = true
            case "import", "include":
                throw GiveUp()
            default:
                // A function (or `as`, `reduce`, `def`, …) at the root may see the whole input.
                guard !root else { throw GiveUp() }
                afterTerm = true
            }
        }

        /// A token of a brace between its values: a key (`name`, `"name"`, `$name`, `(expr)`), then
        /// `:`, or `,` / `}` after a shorthand.
        private mutating func acceptEntry(_ token: Token) throws(GiveUp) {
            switch (top.entry, token) {
            case (.key, .identifier(let word)):
                top.entry = .afterKey(member: word)
            case (.key, .string(let text)):
                // `{"a b": …}`, or the shorthand `{"a b"}`; one with escapes or interpolations is left
                // to jq (given up below).
                top.entry = .afterKey(member: text ?? "")
            case (.key, .variable):
                top.entry = .afterKey(member: nil)
            case (.key, .open(UInt8(ascii: "("))):
                top.entry = .afterKey(member: nil)
                frames.append(Frame(.paren, piped: top.piped))
            case (.key, .close(UInt8(ascii: "}"))):
                try close(UInt8(ascii: "}"))
                return
            case (.afterKey, .colon):
                top.entry = .value
            case (.afterKey(let member), .comma), (.afterKey(let member), .close(UInt8(ascii: "}"))):
                if let member {
                    guard !member.isEmpty else { throw GiveUp() }
                    if !top.piped { names.insert(member) }
                }
                if token == .comma {
                    top.entry = .key
                } else {
                    try close(UInt8(ascii: "}"))
                    return
                }
            default:
                throw GiveUp()
            }
            afterTerm = false
        }

        private mutating func close(_ byte: UInt8) throws(GiveUp) {
            let expected: FrameKind =
                byte == UInt8(ascii: ")") ? .paren : byte == UInt8(ascii: "]") ? .bracket : .brace
            guard frames.count > 1, top.kind == expected else { throw GiveUp() }
            frames.removeLast()
            afterTerm = true
        }

        // MARK: Tokens

        private mutating func next() throws(GiveUp) -> Token? {
            skipSpaceAndComments()
            if continuedComment { throw GiveUp() }
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "."):
                position += 1
                if position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    position -= 1
                    skipNumber()
                    return .number
                }
                if let name = constantIndex() { return .field(name) }
                if peek(UInt8(ascii: ".")) {
                    position += 1
                    return .recurse
                }
                if let word = word() { return .field(word) }
                if peek(UInt8(ascii: "\"")) {
                    guard case .string(let text?) = try string() else { throw GiveUp() }
                    return .field(text)
                }
                return .dot
            case UInt8(ascii: "$"):
                position += 1
                guard word() != nil else { throw GiveUp() }
                return .variable
            case UInt8(ascii: "@"):
                position += 1
                guard word() != nil else { throw GiveUp() }
                return .format
            case UInt8(ascii: "\""):
                return try string()
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                position += 1
                return .open(byte)
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                position += 1
                return .close(byte)
            case UInt8(ascii: ","):
                position += 1
                return .comma
            case UInt8(ascii: ":"):
                position += 1
                guard !peek(UInt8(ascii: ":")) else { throw GiveUp() }  // module::name
                return .colon
            case UInt8(ascii: ";"):
                position += 1
                return .semicolon
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                skipNumber()
                return .number
            default:
                if let word = word() {
                    guard !peek(UInt8(ascii: ":")) || !peek(UInt8(ascii: ":"), at: 1) else { throw GiveUp() }
                    return .identifier(word)
                }
                return try symbol()
            }
        }

        /// A number as jq's lexer reads one, `[0-9.]+([eE][+-]?[0-9]+)?`: `1else` is `1` then `else`.
        private mutating func skipNumber() {
            func isDigit(_ offset: Int) -> Bool {
                position + offset < bytes.count
                    && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position + offset])
            }
            while isDigit(0) || peek(UInt8(ascii: ".")) { position += 1 }
            guard peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) else { return }
            let sign = peek(UInt8(ascii: "+"), at: 1) || peek(UInt8(ascii: "-"), at: 1) ? 1 : 0
            guard isDigit(1 + sign) else { return }
            position += 1 + sign
            while isDigit(0) { position += 1 }
        }

        /// `["name"]` right after a `.`: the same as `."name"`. Nil (nothing consumed) otherwise.
        private mutating func constantIndex() -> String? {
            let start = position
            guard peek(UInt8(ascii: "[")) else { return nil }
            position += 1
            skipSpaceAndComments()
            guard peek(UInt8(ascii: "\"")), case .string(let text?)? = try? string() else {
                position = start
                return nil
            }
            skipSpaceAndComments()
            guard peek(UInt8(ascii: "]")) else {
                position = start
                return nil
            }
            position += 1
            return text
        }

        /// The next byte that is not space or a comment, without consuming anything.
        private mutating func nextByte() -> UInt8? {
            let start = position
            defer { position = start }
            skipSpaceAndComments()
            return position < bytes.count ? bytes[position] : nil
        }

        /// Operators and punctuation, longest first.
        private mutating func symbol() throws(GiveUp) -> Token {
            let table: [(String, Token)] = [
                ("?//", .unsafe), ("//=", .unsafe), ("|=", .unsafe), ("+=", .unsafe), ("-=", .unsafe),
                ("*=", .unsafe), ("/=", .unsafe), ("%=", .unsafe), ("==", .binary), ("!=", .binary),
                ("<=", .binary), (">=", .binary), ("//", .binary), ("=", .unsafe), ("|", .pipe), ("?", .question),
                ("<", .binary), (">", .binary), ("+", .binary), ("-", .binary), ("*", .binary), ("/", .binary),
                ("%", .binary),
            ]
            for (text, token) in table where matches(text) {
                position += text.utf8.count
                return token
            }
            throw GiveUp()
        }

        private func matches(_ text: String) -> Bool {
            let utf8 = Array(text.utf8)
            guard bytes.count - position >= utf8.count else { return false }
            return bytes[position..<(position + utf8.count)].elementsEqual(utf8)
        }

        private func peek(_ byte: UInt8, at offset: Int = 0) -> Bool {
            position + offset < bytes.count && bytes[position + offset] == byte
        }

        /// `[A-Za-z_][A-Za-z0-9_]*` at the position, consumed.
        private mutating func word() -> String? {
            func isStart(_ byte: UInt8) -> Bool {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || byte == UInt8(ascii: "_")
            }
            guard position < bytes.count, isStart(bytes[position]) else { return nil }
            let start = position
            while position < bytes.count,
                isStart(bytes[position]) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
            {
                position += 1
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        /// A string literal from its opening quote. Its text when it has no escapes (a member name
        /// with escapes is not worth decoding here); an interpolation `\(…)` is analysed as an
        /// expression on the input the string is evaluated on.
        private mutating func string() throws(GiveUp) -> Token {
            position += 1
            let start = position
            var plain = true
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    let text = plain ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
                    position += 1
                    return .string(text)
                case UInt8(ascii: "\\"):
                    plain = false
                    guard position + 1 < bytes.count else { throw GiveUp() }
                    if bytes[position + 1] == UInt8(ascii: "(") {
                        position += 2
                        try interpolation()
                    } else {
                        position += 2
                    }
                default:
                    position += 1
                }
            }
            throw GiveUp()
        }

        /// The expression of `\(…)` up to its closing parenthesis, seeing the same input as the
        /// string around it.
        private mutating func interpolation() throws(GiveUp) {
            let depth = frames.count
            let wasAfterTerm = afterTerm
            frames.append(Frame(.paren, piped: top.piped))
            afterTerm = false
            while frames.count > depth {
                guard let token = try next() else { throw GiveUp() }
                try accept(token)
            }
            afterTerm = wasAfterTerm
        }

        private mutating func skipSpaceAndComments() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D:
                    position += 1
                case UInt8(ascii: "#"):
                    while position < bytes.count, bytes[position] != 0x0A { position += 1 }
                    // jq 1.7 and later continue a comment that ends in a backslash onto the next line;
                    // 1.6 does not. Such a program is left to jq, whichever reads it.
                    let end = position > 0 && bytes[position - 1] == 0x0D ? position - 1 : position
                    if end > 0, bytes[end - 1] == UInt8(ascii: "\\") { continuedComment = true }
                default:
                    return
                }
            }
        }
    }
}
