import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

// Member names as an AWS shape spells them.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct Shard: Codable, Equatable {
    struct Range: Codable, Equatable {
        var StartingHashKey: String
        var EndingHashKey: String
    }

    var ShardId: String
    var HashKeyRange: Range
    var ParentShardId: String?
}

// swift-format-ignore: AlwaysUseLowerCamelCase
private struct Description: Codable, Equatable {
    var StreamName: String
    var Shards: [Shard]
    var HasMoreShards: Bool
    var Created: Double
    var Count: Int
    var Big: UInt64
    var Tags: [[String]]
    var Empty: [Int]
    var Note: String?
}

/// Writes members with hand-made containers, in an order no synthesized conformance would use.
private struct HandMade: Encodable {
    enum Keys: String, CodingKey { case first, nested, list, last }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .first)
        var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
        try nested.encodeNil(forKey: .first)
        var list = nested.nestedUnkeyedContainer(forKey: .list)
        try list.encode(true)
        var inner = list.nestedContainer(keyedBy: Keys.self)
        try inner.encode("x", forKey: .last)
        try list.encode(2.5)
        try container.encode("end", forKey: .last)
    }
}

private struct Nothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

@Suite("OrderedJSONEncoder")
struct OrderedJSONEncoderTests {
    private let description = Description(
        StreamName: "s/\"1\"\n",
        Shards: [
            Shard(ShardId: "shardId-000000000000", HashKeyRange: .init(StartingHashKey: "0", EndingHashKey: "9")),
            Shard(
                ShardId: "shardId-000000000001", HashKeyRange: .init(StartingHashKey: "10", EndingHashKey: "19"),
                ParentShardId: "shardId-000000000000"),
        ], HasMoreShards: false, Created: 1_700_000_000.125, Count: -3, Big: .max, Tags: [["a", "b"], []], Empty: [],
        Note: nil)

    @Test("Members come out in declaration order, nil ones left out, nesting closed where it ends")
    func declarationOrder() {
        let text = String(decoding: OrderedJSONEncoder.encode(description), as: UTF8.self)
        #expect(
            text
                == #"{"StreamName":"s/\"1\"\n","Shards":[{"ShardId":"shardId-000000000000","HashKeyRange":{"StartingHashKey":"0","EndingHashKey":"9"}},{"ShardId":"shardId-000000000001","HashKeyRange":{"StartingHashKey":"10","EndingHashKey":"19"},"ParentShardId":"shardId-000000000000"}],"HasMoreShards":false,"Created":1700000000.125,"Count":-3,"Big":18446744073709551615,"Tags":[["a","b"],[]],"Empty":[]}"#
        )
    }

    @Test("What it writes, Foundation's decoder reads back to the same value")
    func roundTrip() throws {
        let bytes = OrderedJSONEncoder.encode(description)
        #expect(try JSONDecoder().decode(Description.self, from: Data(bytes)) == description)
    }

    @Test("It writes the bytes JSONWriter writes by hand")
    func sameAsJSONWriter() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("first")
        writer.integer(1)
        writer.key("nested")
        writer.beginObject()
        writer.key("first")
        writer.null()
        writer.key("list")
        writer.beginArray()
        writer.bool(true)
        writer.beginObject()
        writer.key("last")
        writer.string("x")
        writer.endObject()
        writer.number(2.5)
        writer.endArray()
        writer.endObject()
        writer.key("last")
        writer.string("end")
        writer.endObject()
        #expect(OrderedJSONEncoder.encode(HandMade()) == writer.bytes)
    }

    @Test("A value that encodes nothing is an empty object; top-level scalars and arrays stand alone")
    func edges() {
        #expect(OrderedJSONEncoder.encode(Nothing()) == Array("{}".utf8))
        #expect(OrderedJSONEncoder.encode(["k": Nothing()]) == Array(#"{"k":{}}"#.utf8))
        #expect(OrderedJSONEncoder.encode("a\u{7F}") == Array(#""a\u007f""#.utf8))
        #expect(OrderedJSONEncoder.encode([30.0, 0.3]) == Array("[30,0.3]".utf8))
        #expect(OrderedJSONEncoder.encode([String?.none, "b"]) == Array(#"[null,"b"]"#.utf8))
    }

    @Test("A dictionary's members come out sorted by key, the same every time")
    func sortedDictionary() {
        let counts = Dictionary(uniqueKeysWithValues: (0..<40).map { ("k\($0)", $0) })
        let sorted = counts.keys.sorted().map { #""\#($0)":\#(counts[$0]!)"# }
        #expect(OrderedJSONEncoder.encode(counts) == Array(("{" + sorted.joined(separator: ",") + "}").utf8))
        #expect(
            OrderedJSONEncoder.encode(["b": ["y": 1, "x": 2], "a": [:]]) == Array(#"{"a":{},"b":{"x":2,"y":1}}"#.utf8))
    }

    @Test("A blob is written as base64 straight into the output, and as the same string through JSONEncoder")
    func blob() throws {
        let blob = Base64Blob(Array("any carnal pleasure".utf8))
        #expect(OrderedJSONEncoder.encode(["Data": blob]) == Array(#"{"Data":"YW55IGNhcm5hbCBwbGVhc3VyZQ=="}"#.utf8))
        #expect(try JSONEncoder().encode(blob) == Data(#""YW55IGNhcm5hbCBwbGVhc3VyZQ==""#.utf8))
    }
}
