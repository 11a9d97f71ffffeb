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
