/// The parts of an `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header.
///
/// Parsed the way AWS's front end does, as far as its error messages show: the first word is the
/// algorithm, the rest are `key=value` words separated by commas and/or whitespace (so a stray space
/// inside a value is reported as a word without `=`), and unknown keys are ignored.
struct AuthorizationHeader: Sendable {
    var raw: String
    var algorithm: Substring
    var credential: Substring?
    var signedHeaders: Substring?
    var signature: Substring?
    /// Every value is then ASCII too, so it can be split by bytes (see `ASCII.split`).
    var isASCII = false

    init(parsing raw: String) throws(SigV4Error) {
        if ASCII.isASCII(raw) {
            try self.init(parsingASCII: raw)
        } else {
            try self.init(parsingCharacters: raw)
        }
    }

    /// The same grammar over bytes, for the headers every client sends. In ASCII text each byte is one
    /// `Character` (CR LF, the one exception, is whitespace either way) and `Character.isWhitespace`
    /// holds for exactly `ASCII.isWhitespace`, so this splits exactly as the `Character` parse does,
    /// without looking up Unicode properties for every character.
    init(parsingASCII raw: String) throws(SigV4Error) {
        var raw = raw
        self.raw = raw
        self.isASCII = true
        // Offsets into the contiguous UTF-8, turned into `Substring`s only for the words kept.
        let words = raw.withUTF8 { bytes in
            var index = 0
            while index < bytes.count, ASCII.isWhitespace(bytes[index]) { index += 1 }
            let algorithmStart = index
            while index < bytes.count, !ASCII.isWhitespace(bytes[index]) { index += 1 }
            var words = [(start: algorithmStart, equals: -1, end: index)]
            while true {
                while index < bytes.count, ASCII.isWhitespace(bytes[index]) || bytes[index] == ASCII.comma {
                    index += 1
                }
                guard index < bytes.count else { break }
                let start = index
                var equals = -1
                while index < bytes.count, !ASCII.isWhitespace(bytes[index]), bytes[index] != ASCII.comma {
                    if equals < 0, bytes[index] == ASCII.equals { equals = index }
                    index += 1
                }
                words.append((start, equals, index))
            }
            return words
        }
        let utf8 = raw.utf8
        func text(_ start: Int, _ end: Int) -> Substring {
            Substring(utf8[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)])
        }
        self.algorithm = text(words[0].start, words[0].end)
        for word in words.dropFirst() {
            guard word.equals >= 0 else {
                throw .incomplete(
                    "'\(text(word.start, word.end))' not a valid key=value pair (missing equal-sign) in Authorization header: '\(raw)'."
                )
            }
            let key = text(word.start, word.equals)
            let value = text(word.equals + 1, word.end)
            switch key.utf8.count {
            case 10 where key == "Credential": try Self.set(&credential, value, name: "Credential", raw: raw)
            case 13 where key == "SignedHeaders": try Self.set(&signedHeaders, value, name: "SignedHeaders", raw: raw)
            case 9 where key == "Signature": try Self.set(&signature, value, name: "Signature", raw: raw)
            default: continue
            }
        }
    }

    /// The reference grammar, over `Character`s: still the parser for a header with non-ASCII text,
    /// where Unicode whitespace and grapheme clusters decide how words split.
    init(parsingCharacters raw: String) throws(SigV4Error) {
        self.raw = raw
        let trimmed = raw.drop(while: { $0.isWhitespace })
        let algorithmEnd = trimmed.firstIndex(where: { $0.isWhitespace }) ?? trimmed.endIndex
        self.algorithm = trimmed[..<algorithmEnd]

        let words = trimmed[algorithmEnd...].split(whereSeparator: { $0 == "," || $0.isWhitespace })
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                throw .incomplete(
                    "'\(word)' not a valid key=value pair (missing equal-sign) in Authorization header: '\(raw)'."
                )
            }
            let value = word[word.index(after: equals)...]
            switch word[..<equals] {
            case "Credential": try Self.set(&credential, value, name: "Credential", raw: raw)
            case "SignedHeaders": try Self.set(&signedHeaders, value, name: "SignedHeaders", raw: raw)
            case "Signature": try Self.set(&signature, value, name: "Signature", raw: raw)
            default: continue
            }
        }
    }

    // A second value could make the server and a log reader disagree about what was signed; refuse it.
    private static func set(_ slot: inout Substring?, _ value: Substring, name: String, raw: String) throws(SigV4Error)
    {
        guard slot == nil else {
            throw .incomplete("Authorization header has more than one '\(name)' parameter. Authorization=\(raw)")
        }
        slot = value
    }
}

extension SigV4Verifier {
    /// The access key an `Authorization` header's `Credential=AKID/…` names, read as the verifier
    /// reads the header but not verified: for a server that does not check signatures yet wants to
    /// know who claims to call. Nil when the header names none.
    public static func claimedAccessKeyID(authorization: String) -> String? {
        guard let header = try? AuthorizationHeader(parsing: authorization), let credential = header.credential
        else { return nil }
        let key = credential.prefix { $0 != "/" }
        return key.isEmpty ? nil : String(key)
    }

    /// The service an `Authorization` header's credential is scoped to (`AKID/date/region/SERVICE/…`),
    /// read as `claimedAccessKeyID` reads the key: what a port serving several services routes by.
    public static func claimedService(authorization: String) -> String? {
        guard let header = try? AuthorizationHeader(parsing: authorization), let credential = header.credential
        else { return nil }
        let scope = credential.split(separator: "/", omittingEmptySubsequences: false)
        return scope.count == 5 ? String(scope[3]) : nil
    }
}
