import FirehoseWire
import Foundation
import Testing

@testable import AWSSigV4

/// The verifier works on bytes when a header is ASCII and on `Character`s otherwise; these tests hold
/// the byte versions to the `Character` ones they replace.
@Suite("ASCII byte paths match the Character paths")
struct ASCIIFastPathTests {
    /// SplitMix64, so failures reproduce from the seed.
    typealias Generator = SplitMix64

    /// Pieces of Authorization headers, separators of every kind (CR LF included), and the bytes
    /// next to the separators in the ASCII table.
    static let pieces: [String] = [
        "AWS4-HMAC-SHA256", "Credential=", "SignedHeaders=", "Signature=", "Credential", "Signature",
        "AKID/20150830/us-east-1/firehose/aws4_request", "host;x-amz-date", "5d672d79c15b13162d9279b0855cfba6",
        "Other=x", "=", "==", ",", ", ", " ", "  ", "\t", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{1F}", "\u{7F}",
        ";", "/", "a", "credential=", "",
    ]

    static func randomHeader(_ generator: inout Generator) -> String {
        (0..<Int.random(in: 0...9, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    static func summary(_ parse: () throws(SigV4Error) -> AuthorizationHeader) -> String {
        do throws(SigV4Error) {
            let header = try parse()
            let fields: [Substring?] = [header.algorithm, header.credential, header.signedHeaders, header.signature]
            return fields.map { $0.map { String($0).debugDescription } ?? "nil" }.joined(separator: " ")
        } catch {
            return "error \(error.code): \(error.message)"
        }
    }

    @Test("Authorization headers parse alike byte by byte and Character by Character")
    func authorizationHeader() {
        var generator = Generator(seed: 0xA07)
        var headers = [
            "AWS4-HMAC-SHA256 Credential=AKID/20150830/us-east-1/firehose/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc",
            "", " ", "\r\n", "AWS4-HMAC-SHA256", "AWS4-HMAC-SHA256 Credential", "x Credential=a Credential=b",
            "x Signature=a,Signature=b", "x SignedHeaders=a\r\nSignedHeaders=b", "\r\nAWS4 a=b=c,,d=\te=",
        ]
        for _ in 0..<5_000 { headers.append(Self.randomHeader(&generator)) }
        for header in headers {
            #expect(ASCII.isASCII(header))
            let bytes = Self.summary { () throws(SigV4Error) in try AuthorizationHeader(parsingASCII: header) }
            let characters = Self.summary { () throws(SigV4Error) in try AuthorizationHeader(parsingCharacters: header)
            }
            #expect(bytes == characters, "\(header.debugDescription)")
        }
    }

    @Test("A header with non-ASCII text takes the Character parse")
    func nonASCIIHeader() throws {
        // U+0085 and U+00A0 are Unicode whitespace: they separate words only in the Character parse.
        let header = try AuthorizationHeader(
            parsing: "AWS4-HMAC-SHA256\u{85}Credential=a/b\u{A0}Signature=s,SignedHeaders=host")
        #expect(!header.isASCII)
        #expect(header.credential == "a/b")
        #expect(header.signature == "s")
        // A combining mark joins the comma into one Character, which is not a separator.
        let joined = try AuthorizationHeader(parsing: "A Credential=a,\u{301}Signature=s")
        #expect(joined.credential == "a,\u{301}Signature=s")
        #expect(joined.signature == nil)
    }

    @Test("split, trimming and the whitespace test agree with their Character forms")
    func helpers() {
        var generator = Generator(seed: 0x5117)
        let alphabet: [String] = [
            "a", "/", ";", " ", "\t", "\r\n", "\r", "\n", "\u{0C}", "\u{1C}", "\u{7F}", "é", "\u{85}", "\u{A0}",
            "e\u{301}", "/\u{301}",
        ]
        for round in 0..<5_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }.joined()
            #expect(ASCII.containsNonWhitespace(text) == text.contains { !$0.isWhitespace }, "\(text.debugDescription)")
            var view = text[...]
            while view.first?.isWhitespace == true { view = view.dropFirst() }
            while view.last?.isWhitespace == true { view = view.dropLast() }
            #expect(ASCII.trimmingWhitespace(text) == String(view), "\(text.debugDescription)")
            guard ASCII.isASCII(text) else { continue }
            for (separator, character) in [(ASCII.slash, Character("/")), (ASCII.semicolon, Character(";"))] {
                for omitting in [true, false] {
                    let expected = text[...].split(separator: character, omittingEmptySubsequences: omitting)
                    let actual = ASCII.split(text[...], separator: separator, omittingEmptySubsequences: omitting)
                    #expect(actual == expected, "\(text.debugDescription) round \(round)")
                }
            }
        }
        #expect(ASCII.isASCII("abc\u{7F}"))
        #expect(!ASCII.isASCII("abcé"))
    }
}
