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

    init(parsing raw: String) throws(SigV4Error) {
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
