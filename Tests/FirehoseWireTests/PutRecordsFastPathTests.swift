import FirehoseTestSupport
import Foundation
import Testing

@testable import FirehoseWire

/// The byte scanner must answer exactly as the `JSONDecoder` path does: same records, same error code,
/// message and status. These tests compare the two on generated bodies and on mutations of them.
@Suite("PutRecord / PutRecordBatch fast path matches the JSONDecoder reference")
struct PutRecordsFastPathTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case decoded(PutRecordsRequest)
        case failed(FirehoseError)

        init(_ decode: () throws(FirehoseError) -> PutRecordsRequest) {
            do throws(FirehoseError) {
                self = .decoded(try decode())
            } catch {
                self = .failed(error)
            }
        }

        var description: String {
            switch self {
            case .decoded(let request):
                "decoded(\(request.deliveryStreamName), \(request.records.count) records, \(request.records.ends))"
            case .failed(let error): "failed(\(error), \(error.httpStatus))"
            }
        }
    }

    /// Compares the public decoder with the reference on `body`; returns whether the fast path answered.
    @discardableResult
    static func check(_ body: [UInt8], batch: Bool, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let actual: Outcome
        let expected: Outcome
        let fast: Bool
        if batch {
            actual = Outcome { () throws(FirehoseError) in try PutRecordsRequest.decodePutRecordBatch(body) }
            expected = Outcome { () throws(FirehoseError) in try PutRecordsRequest.decodePutRecordBatchReference(body) }
            fast = (try? PutRecordsRequest.decodePutRecordBatchFast(body)) != nil || throwsFast(body, batch: true)
        } else {
            actual = Outcome { () throws(FirehoseError) in try PutRecordsRequest.decodePutRecord(body) }
            expected = Outcome { () throws(FirehoseError) in try PutRecordsRequest.decodePutRecordReference(body) }
            fast = (try? PutRecordsRequest.decodePutRecordFast(body)) != nil || throwsFast(body, batch: false)
        }
        #expect(
            actual == expected,
            "\(batch ? "batch" : "single") body \(String(decoding: body.prefix(400), as: UTF8.self).debugDescription)",
            sourceLocation: sourceLocation)
        return fast
    }

    private static func throwsFast(_ body: [UInt8], batch: Bool) -> Bool {
        do {
            _ =
                try batch
                ? PutRecordsRequest.decodePutRecordBatchFast(body) : PutRecordsRequest.decodePutRecordFast(body)
            return false
        } catch {
            return true
        }
    }

    // MARK: Generated bodies

    /// Bodies in the shapes SDKs send, with every variation the fast path claims to handle: member
    /// order, whitespace, missing members, bad names, empty/unpadded/invalid base64, `{}` entries.
    struct BodyGenerator {
        var random: SeededGenerator
        let whitespace: [String] = ["", "", "", " ", "  ", "\n", "\t", "\r\n", " \n\t\r "]

        mutating func space() -> String { whitespace.randomElement(using: &random)! }

        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

        mutating func streamName() -> String {
            switch Int.random(in: 0..<20, using: &random) {
            case 0: return ""
            case 1: return String(repeating: "n", count: 65)
            case 2: return "bad name!"
            case 3: return String(repeating: "x", count: 64)
            case 4: return "a/b~c{}[]:,'`#"
            default:
                let characters = Array("abcXYZ019_.-")
                return String(
                    (0..<Int.random(in: 1...12, using: &random)).map { _ in
                        characters.randomElement(using: &random)!
                    })
            }
        }

        mutating func data() -> String {
            let bytes = random.bytes(Int.random(in: 0...40, using: &random))
            let encoded = Base64.encode(bytes)
            switch Int.random(in: 0..<30, using: &random) {
            case 0: return String(encoded.prefix { $0 != "=" })  // unpadded
            case 1: return encoded + "A"  // impossible length or misplaced padding
            case 2: return "aGl="  // non-canonical trailing bits
            case 3: return "a$GV"  // outside the alphabet
            case 4: return "aGk=aGk="  // padding inside
            case 5: return "YW Jj"  // space is a plain string character but not base64
            case 6, 7:
                // "/" written as "\/", as some JSON encoders do; now and then also not base64.
                return withSlashes(encoded).replacingOccurrences(of: "/", with: #"\/"#)
            default: return encoded
            }
        }

        /// Base64 with slashes for sure: "////" is [0xFF, 0xFF, 0xFF]; a "/" at the end breaks it.
        mutating func withSlashes(_ encoded: String) -> String {
            chance(20) ? encoded + "/" : "////" + encoded
        }

        mutating func entry() -> String {
            if chance(4) { return "{\(space())}" }
            return "{\(space())\"Data\"\(space()):\(space())\"\(data())\"\(space())}"
        }

        mutating func body(batch: Bool) -> String {
            var members: [String] = []
            if !chance(5) { members.append("\"DeliveryStreamName\"\(space()):\(space())\"\(streamName())\"") }
            if !chance(5) {
                if batch {
                    let count =
                        chance(2) ? Int.random(in: 500...502, using: &random) : Int.random(in: 0...8, using: &random)
                    var entries: [String] = []
                    for _ in 0..<count { entries.append(entry()) }
                    let separator = "\(space()),\(space())"
                    members.append(
                        "\"Records\"\(space()):\(space())[\(space())\(entries.joined(separator: separator))\(space())]")
                } else {
                    members.append("\"Record\"\(space()):\(space())\(entry())")
                }
            }
            if chance(50) { members.reverse() }
            let separator = "\(space()),\(space())"
            return "\(space()){\(space())\(members.joined(separator: separator))\(space())}\(space())"
        }
    }

    /// Edits that take a body out of the fast path's subset or out of JSON altogether.
    struct Mutator {
        var random: SeededGenerator
        let interesting: [UInt8] =
            Array(#"\"{}[],: =nt0-+/Aa"#.utf8) + [
                0x00, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1F, 0x7F, 0x80, 0xA0, 0xC3, 0xE2, 0xEF, 0xFF,
            ]
        let snippets: [String] = [
            #"\/"#, #"\u0041"#, #"\n"#, #"\""#, #"\\"#, #"\u00e9"#, #"\ud83d\ude00"#, "é", "\u{FEFF}", "\u{00A0}",
            #""Foo": 1, "#, #""Foo": null, "#, #""Data": "YQ==", "#, #""DeliveryStreamName": "dup", "#,
            #""Records": [], "#, #""Record": {}, "#, "null", "true", "1", "1.5e3", "-0", "[]", "{}", #""""#,
            "null, ", "{\"Data\": null}, ", "{\"Data\": 5}, ", "{\"Data\": \"YQ==\", \"Data\": \"YQ==\"}, ",
            "{\"data\": \"YQ==\"}, ", "{\"Dat\\u0061\": \"YQ==\"}, ", "/* c */", "\u{0C}", "\r", "\t",
        ]

        mutating func mutate(_ body: [UInt8]) -> [UInt8] {
            var bytes = body
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<9, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 1 where !bytes.isEmpty: bytes[position] = interesting.randomElement(using: &random)!
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            case 3: bytes = Array(bytes.prefix(position))
            case 4: bytes.insert(interesting.randomElement(using: &random)!, at: position)
            case 5, 6:
                bytes.insert(contentsOf: Array(snippets.randomElement(using: &random)!.utf8), at: position)
            case 7:
                // Right after an opening brace or bracket, where a member or an entry would start.
                let openings = bytes.indices.filter { bytes[$0] == UInt8(ascii: "{") || bytes[$0] == UInt8(ascii: "[") }
                if let opening = openings.randomElement(using: &random) {
                    bytes.insert(contentsOf: Array(snippets.randomElement(using: &random)!.utf8), at: opening + 1)
                }
            default:
                // Replace a string's contents, or a whole value, with a snippet.
                let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
                if let quote = quotes.randomElement(using: &random) {
                    let snippet = Array(snippets.randomElement(using: &random)!.utf8)
                    let end = min(bytes.count, quote + 1 + Int.random(in: 0...6, using: &random))
                    bytes.replaceSubrange(quote + 1..<end, with: snippet)
                }
            }
            return bytes
        }
    }

    @Test("Generated bodies and their mutations decode exactly as JSONDecoder does", arguments: [false, true])
    func differential(batch: Bool) {
        var generator = BodyGenerator(random: SeededGenerator(seed: batch ? 0xBA7C4 : 0x516E))
        var mutator = Mutator(random: SeededGenerator(seed: batch ? 0xF00D : 0xBEEF))
        var fastCount = 0
        var mutationCount = 0
        for _ in 0..<1_500 {
            let body = utf8(generator.body(batch: batch))
            // Every body the generator makes is inside the subset: the test must exercise the scanner.
            #expect(Self.check(body, batch: batch), "not taken: \(String(decoding: body.prefix(300), as: UTF8.self))")
            var mutated = body
            for _ in 0..<6 {
                mutated = mutator.mutate(Bool.random(using: &mutator.random) ? body : mutated)
                if Self.check(mutated, batch: batch) { fastCount += 1 }
                mutationCount += 1
            }
        }
        // Some mutations (inside a base64 text, say) stay in the subset; most leave it.
        #expect(fastCount > mutationCount / 20)
        #expect(fastCount < mutationCount)
    }

    @Test("The other operation's body shape goes to the reference and gets its answer")
    func otherShape() {
        var generator = BodyGenerator(random: SeededGenerator(seed: 11))
        for _ in 0..<200 {
            Self.check(utf8(generator.body(batch: true)), batch: false)
            Self.check(utf8(generator.body(batch: false)), batch: true)
        }
    }

    // MARK: Edge cases, each checked against the reference

    static let edgeCases: [String] = [
        "", " ", "{", "}", "{}", " {} ", "{ }", "{}x", "{} {}", "{},", "[]", "null", "\"s\"", "1",
        "\u{FEFF}{}", "\u{FEFF}{\"DeliveryStreamName\":\"s1\",\"Records\":[{\"Data\":\"YQ==\"}]}",
        "\u{0C}{}", "{}\u{0C}", "{}\u{00}", "\u{00}{}", "{}\u{0B}",
        #"{"DeliveryStreamName":"s1"}"#, #"{"Records":[]}"#, #"{"Records":[{}]}"#, #"{"Record":{}}"#,
        #"{"DeliveryStreamName":"s1","Records":[]}"#, #"{"DeliveryStreamName":"s1","Records":[{}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="},]}"#,
        #"{"DeliveryStreamName":"s1","Records":[,{"Data":"YQ=="}]}"#,
        #"{"DeliveryStreamName":"s1",}"#, #"{,"DeliveryStreamName":"s1"}"#,
        #"{"DeliveryStreamName":"s1""Records":[]}"#, #"{"DeliveryStreamName" "s1"}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="}]} "#,
        "{\"DeliveryStreamName\":\"s1\",\"Records\":[{\"Data\":\"YQ==\"}]}\n\r\t ",
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="}]}]"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="}}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ==}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":YQ==}]}"#,
        #"{"DeliveryStreamName":"s1","Record":{"Data":"YQ=="}}"#,
        #"{"DeliveryStreamName":"s1","Record":{"Data":"YQ=="},"Record":{"Data":"YQ=="}}"#,
        #"{"DeliveryStreamName":"s1","DeliveryStreamName":"s2","Records":[{"Data":"YQ=="}]}"#,
        #"{"DeliveryStreamName":null,"Records":[{"Data":"YQ=="}]}"#,
        #"{"DeliveryStreamName":"s1","Records":null}"#, #"{"DeliveryStreamName":"s1","Record":null}"#,
        #"{"DeliveryStreamName":"s1","Records":[null]}"#, #"{"DeliveryStreamName":"s1","Records":[{"Data":null}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ==","Other":1}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="}],"Other":"x"}"#,
        #"{"DeliveryStreamName":"s\u0031","Records":[{"Data":"YQ=="}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"Y\u0051=="}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"\/\/\/\/"}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ==\""}]}"#,
        #"{"DeliveryStreamName":"é","Records":[{"Data":"YQ=="}]}"#,
        "{\"DeliveryStreamName\":\"s\u{7F}\",\"Records\":[{\"Data\":\"YQ==\"}]}",
        "{\"DeliveryStreamName\":\"s\t\",\"Records\":[{\"Data\":\"YQ==\"}]}",
        "{\"DeliveryStreamName\":\"s1\",\"Records\":[{\"Data\":\"YQ=\u{7F}\"}]}",
        #"{"DeliveryStreamName":"s 1","Records":[{"Data":"YQ=="},{"Data":"!!"},{"Data":""}]}"#,
        #"{"DeliveryStreamName":"","Records":[{}, {"Data":"a"}]}"#,
        #"{"DeliveryStreamName":1,"Records":[{"Data":"YQ=="}]}"#,
        #"{"DeliveryStreamName":"s1","Records":{"Data":"YQ=="}}"#,
        #"{"DeliveryStreamName":"s1","Records":"YQ=="}"#, #"{"DeliveryStreamName":"s1","Record":"YQ=="}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":true}]}"#,
        #"{"DeliveryStreamName":"s1","Records":[{"Data":["YQ=="]}]}"#,
        #"{"deliverystreamname":"s1","records":[{"data":"YQ=="}]}"#,
    ]

    @Test("Edge cases of JSON and of the shapes", arguments: edgeCases)
    func edgeCase(body: String) {
        Self.check(utf8(body), batch: true)
        Self.check(utf8(body), batch: false)
    }

    @Test("Bodies that are not UTF-8, or not UTF-8 where strings are")
    func nonUTF8() {
        let prefix = utf8(#"{"DeliveryStreamName":"s"#)
        for bad: [UInt8] in [
            [0xFF], [0xC3], [0xC3, 0xA9], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF],
        ] {
            Self.check(prefix + bad + utf8(#"","Records":[{"Data":"YQ=="}]}"#), batch: true)
            Self.check(
                utf8(#"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ"#) + bad + utf8(#"=="}]}"#), batch: true)
        }
        // UTF-16 and UTF-32, which JSONDecoder detects from the byte pattern.
        let text = #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="}]}"#
        for encoding: String.Encoding in [.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian] {
            Self.check(Array(text.data(using: encoding)!), batch: true)
        }
    }

    @Test("Oversized records, 500 / 501 entries, and invalid base64 past the 500th entry")
    func limits() {
        let oversized = Base64.encode([UInt8](repeating: 7, count: ServiceLimits.maxRecordBytes + 1))
        let limit = Base64.encode([UInt8](repeating: 9, count: ServiceLimits.maxRecordBytes))
        #expect(
            Self.check(
                utf8(
                    #"{"DeliveryStreamName":"s1","Records":[{"Data":"YQ=="},{"Data":"\#(oversized)"},{"Data":"\#(limit)"},{"Data":"\#(oversized)"}]}"#
                ),
                batch: true))
        #expect(Self.check(utf8(#"{"DeliveryStreamName":"s1","Record":{"Data":"\#(oversized)"}}"#), batch: false))
        #expect(Self.check(utf8(#"{"DeliveryStreamName":"s1","Record":{"Data":"\#(limit)"}}"#), batch: false))
        #expect(Self.check(utf8(#"{"DeliveryStreamName":"s 1","Record":{"Data":"\#(oversized)"}}"#), batch: false))
        // Invalid base64 wins over an earlier oversized record and a bad name, as in the reference.
        #expect(
            Self.check(
                utf8(#"{"DeliveryStreamName":"s 1","Records":[{"Data":"\#(oversized)"},{"Data":"@@@@"}]}"#),
                batch: true))

        func batch(_ entries: [String]) -> [UInt8] {
            utf8(#"{"DeliveryStreamName":"s1","Records":[\#(entries.joined(separator: ","))]}"#)
        }
        let good = #"{"Data":"YQ=="}"#
        for count in [499, 500, 501] {
            #expect(Self.check(batch(Array(repeating: good, count: count)), batch: true))
            // Past the 500th entry nothing is decoded or reported, but the JSON must still be valid.
            #expect(Self.check(batch(Array(repeating: good, count: count) + [#"{"Data":"@@"}"#]), batch: true))
            #expect(Self.check(batch(Array(repeating: good, count: count) + [#"{}"#]), batch: true))
            Self.check(batch(Array(repeating: good, count: count) + [#"{"Data":"\u0041"}"#]), batch: true)
            Self.check(batch(Array(repeating: good, count: count) + [#"{"Data":5}"#]), batch: true)
            Self.check(batch(Array(repeating: good, count: count) + ["null"]), batch: true)
        }
    }

    @Test("The fast path takes the bodies SDKs send and decodes them as the reference does")
    func sdkBodies() throws {
        var random = SeededGenerator(seed: 5)
        let records = (0..<500).map { _ in random.bytes(Int.random(in: 0...700, using: &random)) }
        let boto3 = boto3PutRecordBatch(stream: "bench-0", records: records)
        let compact = utf8(
            #"{"DeliveryStreamName":"bench-0","Records":[\#(records.map { #"{"Data":"\#(Base64.encode($0))"}"# }.joined(separator: ","))]}"#
        )
        for body in [boto3, compact] {
            let fast = try #require(try PutRecordsRequest.decodePutRecordBatchFast(body))
            #expect(fast == (try PutRecordsRequest.decodePutRecordBatchReference(body)))
            #expect(fast.records.records == records)
        }
        // Encoders that write "/" as "\/" stay on the fast path.
        let escaped = utf8(#"{"DeliveryStreamName": "s1", "Records": [{"Data": "\/\/\/\/"}, {"Data": "+\/8="}]}"#)
        let fastEscaped = try #require(try PutRecordsRequest.decodePutRecordBatchFast(escaped))
        #expect(fastEscaped == (try PutRecordsRequest.decodePutRecordBatchReference(escaped)))
        #expect(fastEscaped.records.records == [[0xFF, 0xFF, 0xFF], [0xFB, 0xFF]])

        let single = boto3PutRecord(stream: "s1", data: Base64.encode(records[1]))
        let fast = try #require(try PutRecordsRequest.decodePutRecordFast(single))
        #expect(fast == (try PutRecordsRequest.decodePutRecordReference(single)))
    }
}
