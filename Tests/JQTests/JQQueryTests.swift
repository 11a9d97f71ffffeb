import JQ
import Testing

@Suite("jq queries, run by the jq library")
struct JQQueryTests {
    private func run(_ program: String, _ input: String) throws -> [String] {
        try JQQuery(program).run(Array(input.utf8))
    }

    @Test("The queries dynamic partitioning users write")
    func partitioningQueries() throws {
        let record = #"{"customer": {"id": 42, "region": "eu"}, "type": "click", "ts": 1700000000, "path": "a/b/c"}"#
        #expect(try run("{customer_id: .customer.id, kind: .type}", record) == [#"{"customer_id":42,"kind":"click"}"#])
        #expect(try run(".missing // \"unknown\"", record) == [#""unknown""#])
        #expect(try run(".ts | strftime(\"%Y-%m-%d\")", record) == [#""2023-11-14""#])
        #expect(try run(".customer.id | tostring", record) == [#""42""#])
        #expect(try run(".path | split(\"/\") | .[0]", record) == [#""a""#])
        #expect(try run(".customer | keys", record) == [#"["id","region"]"#])
        #expect(try run(".[]?", "[1, 2, 3]") == ["1", "2", "3"])
        #expect(try run("empty", record) == [])
    }

    @Test("input, inputs and debug in a query neither crash nor read anything (jq 1.6 left their callbacks unset)")
    func inputAndDebug() throws {
        for _ in 0..<3 {
            #expect(throws: JQQuery.RunError.self) { try run(".a | input", #"{"a":1}"#) }
            #expect(try run("[inputs]", "1") == ["[]"])
            #expect(try run(".a | debug", #"{"a":1}"#) == ["1"])
        }
    }

    @Test("members reads the named members of the one object a query gives, as partition keys use them")
    func members() throws {
        let query = try JQQuery("{s: .s, n: .n, f: .f, b: .b, z: .z, a: .a, o: .o}")
        let record = #"{"s": "eu/1", "n": 42, "f": 1.5, "b": true, "z": null, "a": [1], "o": {"k": "v"}}"#
        let members = try query.members(["s", "n", "f", "b", "z", "a", "o", "absent"], of: Array(record.utf8))
        #expect(members["s"] == .text("eu/1"))
        #expect(members["n"] == .scalar("42"))
        #expect(members["f"] == .scalar("1.5"))
        #expect(members["b"] == .scalar("true"))
        #expect(members["z"] == .null)
        #expect(members["a"] == .composite("[1]"))
        #expect(members["o"] == .composite(#"{"k":"v"}"#))
        #expect(members["absent"] == nil)
        #expect(members.count == 7)
    }

    @Test(
        "members needs exactly one object: what else a query gives is an error naming it",
        arguments: [
            (".[]", #"{"a": 1, "b": 2}"#, JQQuery.RunError.unexpectedResult("the query produced more than one result")),
            ("empty", "{}", .unexpectedResult("the query produced no result")),
            (".a", #"{"a": "x"}"#, .unexpectedResult("the query's result is string, not an object")),
            ("error(\"bad\")", "{}", .failed("bad")),
        ])
    func membersNeedOneObject(program: String, input: String, expected: JQQuery.RunError) throws {
        #expect(throws: expected) { try JQQuery(program).members(["a"], of: Array(input.utf8)) }
    }

    @Test("A record that is not one JSON value is invalid input, whatever the query")
    func invalidRecords() throws {
        let query = try JQQuery("{a: .a}")
        for input in ["not json", "{", #"{"a":1} {"a":2}"#, ""] {
            #expect {
                _ = try query.members(["a"], of: Array(input.utf8))
            } throws: { error in
                if case .invalidInput = error as? JQQuery.RunError { return true }
                return false
            }
        }
    }

    @Test("A query is compiled once and runs on many records")
    func reuse() throws {
        let query = try JQQuery(".n * 2")
        for n in 0..<1000 {
            #expect(try query.run(Array(#"{"n": \#(n)}"#.utf8)) == [String(n * 2)])
        }
    }

    @Test("Compile errors carry jq's message")
    func compileErrors() {
        #expect {
            _ = try JQQuery(".a | nosuchfunction")
        } throws: { error in
            (error as? JQQuery.CompileError)?.message.contains("nosuchfunction/0 is not defined") == true
        }
        #expect(throws: JQQuery.CompileError.self) { _ = try JQQuery("{unclosed") }
    }

    @Test("Bad records and failing programs are errors, not crashes")
    func runErrors() throws {
        #expect {
            _ = try run(".a", "{not json")
        } throws: { error in
            if case .invalidInput = error as? JQQuery.RunError { return true }
            return false
        }
        #expect(throws: JQQuery.RunError.failed("custom failure")) { _ = try run(#"error("custom failure")"#, "{}") }
        #expect {
            _ = try run(".a.b", #"{"a": 5}"#)
        } throws: { error in
            if case .failed(let message) = error as? JQQuery.RunError { return message.contains("Cannot index number") }
            return false
        }
        #expect(throws: JQQuery.RunError.tooManyOutputs(3)) {
            _ = try JQQuery("range(10)", maxOutputs: 3).run(Array("null".utf8))
        }
        // Still usable after a failure.
        let query = try JQQuery(".a")
        #expect(throws: JQQuery.RunError.self) { _ = try query.run(Array("[1]".utf8)) }
        #expect(try query.run(Array(#"{"a": 1}"#.utf8)) == ["1"])
    }

    @Test("Runs from many tasks at once share one compiled query safely")
    func concurrentRuns() async throws {
        let query = try JQQuery(".n + 1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask { () async throws -> Void in
                    for n in 0..<200 {
                        let value = task * 1000 + n
                        let outputs = try query.run(Array(#"{"n": \#(value)}"#.utf8))
                        #expect(outputs == [String(value + 1)])
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
