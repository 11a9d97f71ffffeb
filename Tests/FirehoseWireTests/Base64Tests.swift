import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

@Suite("Base64")
struct Base64Tests {
    @Test("Encoding matches Foundation for random inputs of every length 0...300 and some large ones")
    func encodeMatchesFoundation() {
        var generator = SeededGenerator(seed: 0xB64)
        for length in Array(0...300) + [1023, 1024, 1025, 65_537] {
            let bytes = generator.bytes(length)
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString(), "length \(length)")
        }
    }

    @Test("Collections without contiguous storage encode the same, through a buffer")
    func encodeNonContiguousIntoBuffer() {
        var generator = SeededGenerator(seed: 0xC0DE)
        for length in [0, 1, 2, 3, 4, 5, 299, 1_000] {
            let bytes = generator.bytes(length)
            let lazy = bytes.lazy.map { $0 }  // no contiguous storage
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: Base64.encodedLength(length))
            defer { out.deallocate() }
            let written = Base64.encode(lazy, into: out)
            #expect(written == Base64.encodedLength(length))
            #expect(
                String(decoding: UnsafeBufferPointer(start: out, count: written), as: UTF8.self)
                    == Data(bytes).base64EncodedString(), "length \(length)")
        }
    }

    @Test("Appending keeps what the buffer holds and adds exactly Foundation's encoding")
    func appendAfterExistingBytes() {
        var generator = SeededGenerator(seed: 0xA99)
        for length in [0, 1, 2, 3, 4, 299, 1_000] {
            let bytes = generator.bytes(length)
            var out: [UInt8] = Array("{\"Data\":\"".utf8)
            Base64.append(bytes.lazy.map { $0 }, to: &out)
            Base64.append(bytes, to: &out)
            let encoded = Data(bytes).base64EncodedString()
            #expect(String(decoding: out, as: UTF8.self) == "{\"Data\":\"" + encoded + encoded, "length \(length)")
        }
    }

    @Test("Decoding matches Foundation's Data(base64Encoded:) and round-trips")
    func decodeMatchesFoundation() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<600 {
            let length = round < 300 ? round : Int.random(in: 0...3_000, using: &generator)
            let bytes = generator.bytes(length)
            let text = Data(bytes).base64EncodedString()
            let foundation = try #require(Data(base64Encoded: text))
            var output: [UInt8] = []
            let count = Base64.decode(Array(text.utf8), appendingTo: &output)
            #expect(count == length)
            #expect(output == [UInt8](foundation))
            #expect(output == bytes)
        }
    }

    @Test("Decoding appends to what the buffer already holds")
    func appends() {
        var output: [UInt8] = [9, 9]
        #expect(Base64.decode(Array("aGk=".utf8), appendingTo: &output) == 2)
        #expect(Base64.decode(Array("".utf8), appendingTo: &output) == 0)
        #expect(Base64.decode(Array("YWJj".utf8), appendingTo: &output) == 3)
        #expect(output == [9, 9] + Array("hiabc".utf8))
    }

    @Test("Unpadded input is accepted and equals the padded form")
    func unpadded() {
        var generator = SeededGenerator(seed: 99)
        for length in 0...64 {
            let bytes = generator.bytes(length)
            let padded = Base64.encode(bytes)
            let unpadded = String(padded.prefix { $0 != "=" })
            var a: [UInt8] = []
            var b: [UInt8] = []
            #expect(Base64.decode(Array(padded.utf8), appendingTo: &a) == length)
            #expect(Base64.decode(Array(unpadded.utf8), appendingTo: &b) == length)
            #expect(a == bytes)
            #expect(b == bytes)
        }
    }

    @Test(
        "Garbage is rejected and leaves the output unchanged",
        arguments: [
            "a", "ab=", "abcde", "a===", "====", "=", "==", "ab=c", "=abc", "ab c", "ab\ncd", "abc!", "abc\u{0}",
            "aGk==", "YWJjZA===", "YWJjZA=", "aGl=", "aR==", "-_-_", "aGVsbG8gd29ybGQ*", "\u{e9}abc",
        ])
    func garbage(text: String) {
        var output: [UInt8] = [1, 2, 3]
        #expect(Base64.decode(Array(text.utf8), appendingTo: &output) == nil, "\(text.debugDescription)")
        #expect(output == [1, 2, 3])
    }

    @Test("A long valid prefix followed by a bad character leaves no partial output behind")
    func noPartialOutput() {
        var generator = SeededGenerator(seed: 3)
        let text = Base64.encode(generator.bytes(3_000)).dropLast(4) + "AB$D"
        var output: [UInt8] = [7]
        #expect(Base64.decode(Array(text.utf8), appendingTo: &output) == nil)
        #expect(output == [7])
    }

    @Test("Every non-alphabet byte is rejected in every position of a quantum")
    func everyBadByte() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for byte in UInt8.min...UInt8.max where !alphabet.contains(byte) && byte != UInt8(ascii: "=") {
            for position in 0..<4 {
                var quantum = Array("QUJD".utf8)
                quantum[position] = byte
                var output: [UInt8] = []
                #expect(Base64.decode(quantum, appendingTo: &output) == nil, "byte \(byte) at \(position)")
                #expect(output.isEmpty)
            }
        }
    }
}

/// The decoder before it moved to pre-shifted tables and unchecked pointers, kept verbatim as the
/// reference for exactly which texts are accepted and what they decode to.
private func referenceDecode(_ encoded: [UInt8], appendingTo output: inout [UInt8]) -> Int? {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
        table[Int(character)] = UInt8(index)
    }
    var count = encoded.count
    if count % 4 == 0, count > 0 {
        if encoded[count - 1] == UInt8(ascii: "=") { count -= 1 }
        if encoded[count - 1] == UInt8(ascii: "=") { count -= 1 }
    }
    guard count % 4 != 1 else { return nil }
    let start = output.count
    var index = 0
    while index + 4 <= count {
        let a = table[Int(encoded[index])]
        let b = table[Int(encoded[index + 1])]
        let c = table[Int(encoded[index + 2])]
        let d = table[Int(encoded[index + 3])]
        guard (a | b | c | d) & 0xC0 == 0 else {
            output.removeSubrange(start...)
            return nil
        }
        output.append((a << 2) | (b >> 4))
        output.append((b << 4) | (c >> 2))
        output.append((c << 6) | d)
        index += 4
    }
    let remaining = count - index
    if remaining >= 2 {
        let a = table[Int(encoded[index])]
        let b = table[Int(encoded[index + 1])]
        let c = remaining == 3 ? table[Int(encoded[index + 2])] : 0
        let unusedBits = remaining == 2 ? b & 0x0F : c & 0x03
        guard (a | b | c) & 0xC0 == 0, unusedBits == 0 else {
            output.removeSubrange(start...)
            return nil
        }
        output.append((a << 2) | (b >> 4))
        if remaining == 3 { output.append((b << 4) | (c >> 2)) }
    }
    return output.count - start
}

@Suite("Base64 decoding matches the reference decoder")
struct Base64ReferenceTests {
    /// Every text of up to 4 characters over a small alphabet that mixes valid characters (with and
    /// without set trailing bits), padding and junk: all placements of `=` and every length remainder.
    @Test("Exhaustively for short texts")
    func exhaustiveShort() {
        let alphabet = Array("AQgw/+=$".utf8) + [0x00, 0x80, 0xFF]
        var texts: [[UInt8]] = [[]]
        var frontier: [[UInt8]] = [[]]
        for _ in 1...4 {
            frontier = frontier.flatMap { text in alphabet.map { text + [$0] } }
            texts += frontier
        }
        for text in texts {
            expectSameAsReference(text)
        }
    }

    /// Long valid texts with one edit each (a junk byte, a `=`, a dropped or added character), so the
    /// bad spot falls in the many-quanta loop, the last full quantum and the tail alike.
    @Test("Long texts with one edit anywhere")
    func editedLong() {
        var generator = SeededGenerator(seed: 0xED17)
        let edits: [UInt8] = Array("=A/+-_ \n\\\"".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xFF]
        for round in 0..<3_000 {
            let length = round < 200 ? round % 40 : Int.random(in: 0...600, using: &generator)
            var text = Array(Base64.encode(generator.bytes(length)).utf8)
            if round % 5 == 0 { text = Array(text.prefix { $0 != UInt8(ascii: "=") }) }
            let position = text.isEmpty ? 0 : Int.random(in: 0..<text.count, using: &generator)
            switch round % 4 {
            case 0 where !text.isEmpty: text[position] = edits.randomElement(using: &generator)!
            case 1: text.insert(edits.randomElement(using: &generator)!, at: position)
            case 2 where !text.isEmpty: text.remove(at: position)
            default: break
            }
            expectSameAsReference(text)
        }
    }

    @Test("Non-canonical trailing bits are refused for every last character")
    func trailingBits() {
        for character in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8 {
            for prefix in ["Q", "QU", "QUJDQ", "QUJDQU"] {
                expectSameAsReference(Array(prefix.utf8) + [character])
                expectSameAsReference(
                    Array(prefix.utf8) + [character] + Array(repeating: UInt8(ascii: "="), count: 3 - prefix.count % 4))
            }
        }
    }

    private func expectSameAsReference(_ text: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        var expected: [UInt8] = [1, 2]
        var actual: [UInt8] = [1, 2]
        let expectedCount = referenceDecode(text, appendingTo: &expected)
        let actualCount = Base64.decode(text, appendingTo: &actual)
        #expect(actualCount == expectedCount, "\(text)", sourceLocation: sourceLocation)
        #expect(actual == expected, "\(text)", sourceLocation: sourceLocation)
    }
}
