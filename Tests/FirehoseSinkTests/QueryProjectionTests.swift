import FirehoseWire
import JQ
import Testing

@testable import FirehoseSink

/// Running a query on the members it reads (`RootMembers`, `RootMemberProjection`) must be
/// indistinguishable from running it on the whole record: checked here with the real jq library on
/// both, over queries and records chosen to break the projection.
@Suite("Dynamic partitioning's projection gives what jq gives on the whole record")
struct QueryProjectionTests {
    static let queries = [
        #"{customer_id: .customer_id, year: (.ts | strftime("%Y"))}"#,
        "{event: .event, screen: .screen}",
        "{p: (.ts % 500)}",
        #"{a: .a.b[0], b: ."odd key"}"#,
        "{a, b: .c}",
        "{k: (.x // .y)}",
        #"{k: "\(.x)-\(.y | tostring)"}"#,
        #"{k: (if .t == "a" then .u else .v end)}"#,
        ".a | {k: .b, l: keys}",
        "{k: .a[.i]}",
        "{(.k): .v}",
        "{k: ([.a | .b, .c] | length)}",
        "{k: .a} | .b",
        "{k: 1}",
        "if .c then .x | 1else .b end",
        #".ts as $t | {year: ($t | tostring), kind: .type}"#,
        #"{k: (try (.a | ascii_downcase) catch "none")}"#,
        #"{k: (.a // error("no a"))}"#,
        #"{k: .["a"], l: ."odd key"}"#,
        #"{"a", c}"#,
        #"{k: @base64 "\(.a)"}"#,
    ]

    static let records: [[UInt8]] =
        [
            // The app events of the benchmark, and the shapes the queries read.
            #"{"customer_id":"c1","ts":1700000000,"event":"click","screen":"home","extra":{"deep":[1,2,{"x":null}]}}"#,
            #"{"a":{"b":[7]},"odd key":"v","c":3,"x":null,"y":false,"t":"a","u":"U","v":"V","i":1,"k":"name"}"#,
            #"{"a":[10,20,30],"i":2,"k":"key","v":{"n":1},"b":"B","ts":1.5e9}"#,
            // Repeated and escaped names: the last wins, however it is written.
            #"{"event":"first","event":"second","\u0073creen":"escaped","screen":"plain"}"#,
            #"{"screen":"plain","\u0073creen":"escaped","x":1,"x":null}"#,
            // Not an object, not JSON, or only JSON to jq: jq's verdict, whatever it is.
            #"[1,2,3]"#, #""text""#, "42", "not json", #"{"a":1} trailing"#, #"{"a":1}{"b":2}"#, #"{"a":nan}"#,
            "{\"a\":\"raw\ttab\",\"x\":1}", #"{"a":1,}"#, "",
            // Deeper than jq parses, outside the read members.
            #"{"event":"e","screen":"s","deep":"# + String(repeating: "[", count: 300)
                + String(repeating: "]", count: 300)
                + "}",
            #"{"event":"e","screen":"s","deep":"# + String(repeating: "[", count: 250)
                + String(repeating: "]", count: 250)
                + "}",
            "{\"event\":\"caf\u{E9}\",\"screen\":\"x\"}",
            #"{"c":false,"x":1,"b":"B"}"#,
            // Lone high surrogates, which jq refuses, in a read member and outside one; a valid pair.
            #"{"a":1,"x":"\ud800"}"#, #"{"z":1,"a":"\ud800"}"#, #"{"event":"\ud83d\ude00","screen":"s"}"#,
        ].map { Array($0.utf8) } + [
            // Bytes that are not UTF-8, in a read member, outside one, and in a name.
            Array(#"{"event":""#.utf8) + [0xFF, 0xFE] + Array(#"","screen":"s"}"#.utf8),
            Array(#"{"x":""#.utf8) + [0xC3] + Array(#"","event":"e"}"#.utf8),
            Array(#"{"ev"#.utf8) + [0xFF] + Array(#"ent":"odd","event":"e"}"#.utf8),
        ]

    @Test("Every query on every record: the same results or the same error", arguments: queries)
    func sameAsWholeRecord(program: String) throws {
        let query = try JQQuery(program)
        let names = try #require(query.rootMembers, "the projection applies to \(program)").sorted().map {
            Array($0.utf8)
        }
        var projections = 0
        for record in Self.records {
            let projected = record.withUnsafeBufferPointer {
                RootMemberProjection.project(
                    $0, keeping: names, maxDepth: DynamicPartitioner.projectionMaxDepth)
            }
            if projected != nil { projections += 1 }
            #expect(
                outcome(query, record) == outcome(query, projected ?? record),
                "\(program) on \(String(decoding: record, as: UTF8.self))")
        }
        #expect(projections >= 8, "most records are projected")
    }

    private func outcome(_ query: JQQuery, _ input: [UInt8]) -> String {
        do {
            return "results \(try query.run(input))"
        } catch {
            return "error \(error)"
        }
    }
}
