import FirehoseWire
import Foundation
import Testing

@Suite("Repeated JSON members: the last wins, as in AWS's Jackson reader")
struct RepeatedMembersTests {
    private func rewritten(_ text: String) -> String? {
        RepeatedMembers.keepingLast(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(
        "Bodies without a repeated member are left as they are",
        arguments: [
            #"{}"#, #"[]"#, #"{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#, #"{"a":"\"a\"","A":1}"#, #"  "x"  "#,
            #"-0.5e+3"#, #"[true,false,null]"#,
        ])
    func noRepeats(text: String) {
        #expect(rewritten(text) == nil)
    }

    @Test("Each object keeps the last occurrence of a member, at any depth")
    func lastWins() {
        #expect(rewritten(#"{"a":1,"b":2,"a":3}"#) == #"{"b":2,"a":3}"#)
        #expect(rewritten(#"{ "n" : "x" , "r" : [ { "d" : "1" , "d" : "2" } ] }"#) == #"{"n":"x","r":[{"d":"2"}]}"#)
        #expect(rewritten(#"{"a":{"x":1,"x":2},"a":[1, 2]}"#) == #"{"a":[1,2]}"#)
        #expect(rewritten(#"[{"k":"v"},{"k":1,"k":{"k":true,"k":null}}]"#) == #"[{"k":"v"},{"k":{"k":null}}]"#)
    }

    @Test("Names compare as a JSON reader decodes them")
    func escapedNames() {
        #expect(rewritten(#"{"a":1,"\u0061":2}"#) == #"{"\u0061":2}"#)
        #expect(rewritten(#"{"a\/b":1,"a/b":2}"#) == #"{"a/b":2}"#)
        #expect(rewritten(#"{"\ud83d\ude00":1,"😀":2}"#) == #"{"😀":2}"#)
        #expect(rewritten(#"{"\n":1,"\u000a":2}"#) == #"{"\u000a":2}"#)
        #expect(rewritten(#"{"a":1,"A":2}"#) == nil)
    }

    @Test(
        "A body that is not well-formed JSON is left to the decoder, even where a dropped value is the fault",
        arguments: [
            #"{"a":tru,"a":1}"#, #"{"a":01,"a":1}"#, #"{"a":"\x","a":1}"#, #"{"a":1,"a":2"#, #"{"a":1,"a":2}x"#,
            #"{"a":1.,"a":2}"#, #"{"a":[1,],"a":2}"#, #"{"a":1,,"a":2}"#, "{\"a\":\"\u{01}\",\"a\":2}",
            #"{a:1,a:2}"#, #"{"a":1,"a":2,}"#,
        ])
    func malformed(text: String) {
        #expect(rewritten(text) == nil)
    }

    @Test("Invalid UTF-8 is left to the decoder")
    func invalidUTF8() {
        let body = Array(#"{"a":""#.utf8) + [0xFF] + Array(#"","a":1}"#.utf8)
        #expect(RepeatedMembers.keepingLast(body) == nil)
    }

    @Test("Nesting deeper than the decoder accepts is left to it, without exhausting the stack")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(rewritten(#"{"a":1,"a":"# + deep + "}") == nil)
    }

    @Test("A request decodes with the last value of a repeated member")
    func decodesLast() throws {
        struct Shape: Decodable {
            var DeliveryStreamName: String
            var Records: [[String: String]]
        }
        let body =
            #"{"DeliveryStreamName":"first","Records":[{"Data":"AA=="}],"DeliveryStreamName":"last","#
            + #""Records":[{"Data":"AQ=="},{"Data":"Ag==","Data":"Aw=="}]}"#
        let shape = try RequestJSON.decode(Shape.self, from: Array(body.utf8))
        #expect(shape.DeliveryStreamName == "last")
        #expect(shape.Records == [["Data": "AQ=="], ["Data": "Aw=="]])
    }
}
