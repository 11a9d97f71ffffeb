import Testing

@testable import FirehoseWire

@Suite("RootMemberProjection: the named members of a JSON object, cut out of its text")
struct RootMemberProjectionTests {
    private func project(_ record: String, _ names: [String], maxDepth: Int = 200) -> String? {
        Array(record.utf8).withUnsafeBufferPointer { bytes in
            RootMemberProjection.project(bytes, keeping: names.map { Array($0.utf8) }, maxDepth: maxDepth)
        }.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("Named members as written and in order; escaped and non-ASCII names kept; repeats kept in order")
    func keepsNamedMembers() {
        let record = #" { "a" : 1, "big": {"x": [1, {"y": "z"}]}, "b":"two" ,"a":[3], "\u0062":4, "é":5, "c": null } "#
        #expect(project(record, ["a", "b"]) == #"{"a" : 1,"b":"two","a":[3],"\u0062":4,"é":5}"#)
        #expect(project(record, ["big"]) == #"{"big": {"x": [1, {"y": "z"}]},"\u0062":4,"é":5}"#)
        #expect(project(#"{"a":1}"#, ["none"]) == "{}")
        #expect(project("{}", ["a"]) == "{}")
    }

    @Test(
        "Anything but one strictly well-formed object within the depth limit is left to the reader",
        arguments: [
            "[1]", "\"a\"", "42", "", "   ", "{", #"{"a":1} x"#, #"{"a":1}{"b":2}"#, #"{"a":01}"#, #"{"a":nan}"#,
            #"{"a":"\u12"}"#, "{\"a\":\"tab\there\"}", #"{"a":1,}"#, #"{a:1}"#, #"{"a" 1}"#, #"{"other":[1,]}"#,
            #"{"deep":[[[[1]]]]}"#,
        ])
    func leavesTheRestToTheReader(record: String) {
        #expect(project(record, ["a"], maxDepth: 4) == nil)
    }

    @Test(
        "A lone high surrogate escape, which jq refuses, leaves the record to the reader; pairs and lone low ones do not"
    )
    func surrogates() {
        #expect(project(#"{"a":1,"x":"\ud800"}"#, ["a"]) == nil)
        #expect(project(#"{"a":1,"x":"\ud800\u0041"}"#, ["a"]) == nil)
        #expect(project(#"{"a":1,"x":"\ud83d\ude00"}"#, ["a"]) == #"{"a":1}"#)
        #expect(project(#"{"a":1,"x":"\udc00"}"#, ["a"]) == #"{"a":1}"#)
    }

    @Test("Nesting up to the limit is projected")
    func depthLimit() {
        #expect(project(#"{"a":[[[1]]]}"#, ["a"], maxDepth: 4) == #"{"a":[[[1]]]}"#)
    }
}
