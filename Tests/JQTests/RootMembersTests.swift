import Testing

@testable import JQ

@Suite("Which members of its input a jq program reads")
struct RootMembersTests {
    @Test(
        "Programs that read their input only through named members: those names",
        arguments: [
            (#"{customer_id: .customer_id, year: (.ts | strftime("%Y"))}"#, ["customer_id", "ts"]),
            ("{event: .event, screen: .screen}", ["event", "screen"]),
            ("{p: (.ts % 500)}", ["ts"]),
            (#"{a: .a.b[0], b: ."odd key"}"#, ["a", "odd key"]),
            ("{a, b: .c}", ["a", "c"]),
            ("{k: (.x // .y)}", ["x", "y"]),
            (#"{k: "\(.x)-\(.y | tostring)"}"#, ["x", "y"]),
            (#"{k: (if .t == "a" then .u elif .w then "w" else .v end)}"#, ["t", "u", "v", "w"]),
            ("{k: (if .t | test(\"x\") then .u else .v end)}", ["t", "u", "v"]),
            (".a | {k: .b, l: keys}", ["a"]),
            ("{k: .a[.i]}", ["a", "i"]),
            ("{(.k): .v}", ["k", "v"]),
            ("{k: ([.a | .b, .c] | length)}", ["a"]),
            ("{k: .a, l: .b | ascii_downcase, m: .c}", ["a", "b", "c"]),
            ("{k: .a} # comment with .zzz\n", ["a"]),
            ("{k: -.a, l: .b?, m: $__loc__, n: null, o: now}", ["a", "b"]),
            ("{k: 1} | .b", []),
            ("(.a | .b), .c", ["a", "c"]),
            // Past a pipe, `.` is what the left side made.
            ("{k: .a} | . as $r | $r", ["a"]),
            // jq reads `1else` as `1` then `else`: the else branch sees the root again.
            ("if .c then .x | 1else .b end", ["c", "x", "b"]),
            ("if .c then .x | 1elif .d then .e else .f end", ["c", "x", "d", "e", "f"]),
            ("{k: (.a * 1e3), l: (.b + 2E-1)}", ["a", "b"]),
            // Forms people write that read named members only.
            (#".ts as $t | {year: ($t | strftime("%Y")), kind: .type}"#, ["ts", "type"]),
            (#"{k: (try .a catch "none")}"#, ["a"]),
            (#"{k: (.a // error("no a"))}"#, ["a"]),
            ("{k: (.a * .5)}", ["a"]),
            (#"{k: .["a-b"], l: .[ "c" ].d}"#, ["a-b", "c"]),
            (#"{"a b", c}"#, ["a b", "c"]),
            (#"{k: @base64 "\(.a)"}"#, ["a"]),
        ] as [(String, [String])])
    func readsNamedMembers(program: String, names: [String]) {
        #expect(RootMembers.names(in: program) == Set(names))
    }

    @Test(
        "Programs that may see more of their input: nil, so the whole record is parsed",
        arguments: [
            ".", "{k: .}", "{k: keys}", "{k: .[]}", "{k: ..}", "{k: (. | tojson)}",
            "reduce .a as $x (0; .)", "def f: .; {k: f}", "{k: length}", ".a = 1 | {k: .a}",
            "{k: @base64}", "{k: tostring}", #"{"\(.a)"}"#, #"{k: "\(.)"}"#, ".a as [$x] | {k: $x}",
            "{k: error}", ".a as $x | .", #"import "x" as y; {k: .a}"#,
            "{k: .a | (.b", "{k: .a))", "", "   ", "# only a comment\n", "{k: .a} # ends in \\\n| .",
            "{k: (if .a then .b end)", "then .a",
            #"{k: ."a\u0062"}"#,
            "{k: getpath([\"a\"])}",
            "{k: try .}", "{k: .a |= 1}", "{k: .a ?// .b}", "{k: mod::f}",
        ])
    func mayReadMore(program: String) {
        #expect(RootMembers.names(in: program) == nil)
    }

    @Test("A compiled query carries what it reads")
    func compiledQuery() throws {
        #expect(try JQQuery("{c: .customer_id}").rootMembers == ["customer_id"])
        #expect(try JQQuery("{c: keys}").rootMembers == nil)
    }
}
