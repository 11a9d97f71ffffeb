import FirehoseSink
import Testing

@Suite struct ObjectRecordsTests {
    func pieces(_ text: String, lines: Bool = false) -> (ObjectRecords.Boundaries, [String]) {
        let bytes = Array(text.utf8)
        let split = ObjectRecords.split(bytes, linesAreRecords: lines)
        return (split.boundaries, split.ranges.map { String(decoding: bytes[$0], as: UTF8.self) })
    }

    @Test func linesWhenTheStreamAppendsANewline() {
        #expect(pieces("a\nb\n\nc\n", lines: true) == (.lines, ["a", "b", "", "c"]))
        // A last line without its newline is a record too; lines win over JSON.
        #expect(pieces("{\"a\":1}\n{\"b\":2}", lines: true) == (.lines, ["{\"a\":1}", "{\"b\":2}"]))
        #expect(pieces("", lines: true) == (.lines, []))
    }

    @Test func concatenatedJSONDocuments() {
        #expect(pieces(#"{"a":1}{"b":[1,{"c":"}"}]}"#) == (.json, [#"{"a":1}"#, #"{"b":[1,{"c":"}"}]}"#]))
        #expect(pieces("[1,2] \n\t{\"x\":\"\\\"{\"}\r\n") == (.json, ["[1,2]", "{\"x\":\"\\\"{\"}"]))
        let offsets = ObjectRecords.split(Array(#"{"a":1}  {"b":2}"#.utf8), linesAreRecords: false).ranges
        #expect(offsets == [0..<7, 9..<16])
    }

    @Test(arguments: [
        "plain text", "{\"a\":1}12", "12", "{\"a\":1", "{\"a\":1]}", "{\"a\":\"1}", "]", "{\"a\":1} x", "\"s\"",
        "{\"a\":\"\\",
    ])
    func anythingElseIsOnePiece(text: String) {
        #expect(pieces(text) == (.object, [text]))
    }

    @Test func aLimitStopsTheSplitAndSaysSo() {
        let lines = ObjectRecords.split(Array("a\nb\nc\n".utf8), linesAreRecords: true, limit: 2)
        #expect(lines.ranges == [0..<1, 2..<3])
        #expect(!lines.complete)
        #expect(ObjectRecords.split(Array("a\nb\n".utf8), linesAreRecords: true, limit: 2).complete)
        #expect(!ObjectRecords.split(Array("a\nb\nc".utf8), linesAreRecords: true, limit: 2).complete)
        let json = ObjectRecords.split(Array("{}[]{}".utf8), linesAreRecords: false, limit: 2)
        #expect(json.boundaries == .json)
        #expect(json.ranges == [0..<2, 2..<4])
        #expect(!json.complete)
        #expect(ObjectRecords.split(Array("{}[]".utf8), linesAreRecords: false, limit: 2).complete)
    }

    @Test func emptyContentHoldsNoRecord() {
        #expect(pieces("") == (.object, []))
        #expect(pieces(" \n") == (.object, [" \n"]))
    }
}
