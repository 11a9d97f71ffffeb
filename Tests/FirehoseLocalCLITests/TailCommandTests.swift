import ArgumentParser
import FirehoseSink
import Foundation
import Testing

@testable import FirehoseLocalCLI

@Suite struct TailCommandTests {
    @Test func parsing() throws {
        let tail = try #require(
            try FirehoseLocalCommand.parseAsRoot([
                "tail", "--stream", "s", "-f", "--json", "--since", "0s", "--interval", "0.2", "--data-dir", "/d",
            ]) as? TailCommand)
        #expect(tail.selection.stream == "s")
        #expect(tail.follow)
        #expect(tail.json)
        #expect(tail.interval == 0.2)
        #expect(tail.selection.dataDirectory == "/d")
        for bad in [["tail", "--interval", "0"], ["tail", "--interval", "nan"], ["tail", "--since", "soon"]] {
            #expect(throws: (any Error).self, "\(bad)") { try FirehoseLocalCommand.parseAsRoot(bad) }
        }
        #expect(TailCommand.helpMessage().contains("AppendDelimiterToRecord"))
    }

    /// A lines stream (gzip), a stream fed JSON without delimiters, and a binary object.
    func prepared() throws -> DataDirectory {
        let data = try DataDirectory()
        try data.write(
            "logs/lines-1-2026-11-21-13-05-09-\(uuidA).gz", try gzip("one\ntwo\n"), modified: epoch2026)
        try data.write(
            "logs/json-1-2026-11-21-13-05-10-\(uuidB)", Array(#"{"a":1}{"b":"x y"}"#.utf8),
            modified: epoch2026.addingTimeInterval(1))
        try data.write(
            "logs/bin-1-2026-11-21-13-05-11-\(uuidA)", [0xFF, 0x00, 0x41], modified: epoch2026.addingTimeInterval(2))
        return data
    }

    func output(_ tail: inout RecordTail, _ definitions: LineDelimitedObjects) throws -> String {
        var bytes: [UInt8] = []
        for object in try tail.newObjects() {
            bytes += try tail.output(of: object, definitions: definitions).get()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func recordsOfEachObjectOncePerLine() throws {
        let data = try prepared()
        let definitions = LineDelimitedObjects(appendsNewline: ["lines": true])
        var tail = RecordTail(dataDirectory: data.path, bucket: nil, stream: nil, since: nil, json: false)
        #expect(try output(&tail, definitions) == "one\ntwo\n{\"a\":1}\n{\"b\":\"x y\"}\n\u{FFFD}\u{0}A\n")
        // Each object is printed once; a new one is printed when it appears.
        #expect(try output(&tail, definitions) == "")
        try data.write("logs/lines-1-2026-11-21-13-06-00-\(uuidB)", Array("three\n".utf8))
        #expect(try output(&tail, definitions) == "three\n")
    }

    @Test func jsonLinesNameTheObjectOffsetAndSplit() throws {
        let data = try prepared()
        var tail = RecordTail(dataDirectory: data.path, bucket: "logs", stream: nil, since: nil, json: true)
        let lines = try output(&tail, LineDelimitedObjects(appendsNewline: ["lines": true])).split(separator: "\n")
        let documents = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(documents.count == 5)
        #expect(documents.map { $0["stream"] as? String } == ["lines", "lines", "json", "json", "bin"])
        #expect(documents.map { $0["offset"] as? Int } == [0, 4, 0, 7, 0])
        #expect(documents.map { $0["split"] as? String } == ["lines", "lines", "json", "json", "object"])
        #expect(documents[1]["text"] as? String == "two")
        #expect(documents[1]["key"] as? String == "lines-1-2026-11-21-13-05-09-\(uuidA).gz")
        #expect(documents[1]["bucket"] as? String == "logs")
        #expect(documents[3]["text"] as? String == #"{"b":"x y"}"#)
        #expect(documents[4]["text"] == nil)
        #expect(documents[4]["base64"] as? String == "/wBB")
        #expect(
            lines[1]
                == #"{"stream":"lines","bucket":"logs","key":"lines-1-2026-11-21-13-05-09-\#(uuidA).gz","offset":4,"split":"lines","text":"two"}"#
        )
    }

    @Test func streamAndSinceFilter() throws {
        let data = try prepared()
        var tail = RecordTail(
            dataDirectory: data.path, bucket: nil, stream: "json", since: epoch2026.addingTimeInterval(1), json: false)
        #expect(try output(&tail, LineDelimitedObjects()) == "{\"a\":1}\n{\"b\":\"x y\"}\n")
        // Objects appearing after the first look are new whatever their time.
        try data.write("logs/json-1-2026-11-21-13-00-00-\(uuidA)", Array("[3]".utf8), modified: epoch2026)
        #expect(try output(&tail, LineDelimitedObjects()) == "[3]\n")
        // Without the definition the lines object is taken whole.
        var all = RecordTail(dataDirectory: data.path, bucket: nil, stream: "lines", since: nil, json: false)
        #expect(try output(&all, LineDelimitedObjects()) == "one\ntwo\n")
    }

    @Test func anUnreadableObjectIsAnErrorOfItsOwn() throws {
        let data = try DataDirectory()
        try data.write("b/s-1-2026-11-21-13-05-09-\(uuidA).gz", [0x1F, 0x8B, 0x08, 0x00, 0x01])
        var tail = RecordTail(dataDirectory: data.path, bucket: nil, stream: nil, since: nil, json: false)
        let object = try #require(try tail.newObjects().first)
        let result = tail.output(of: object, definitions: LineDelimitedObjects())
        guard case .failure(let error) = result else {
            Issue.record("a corrupt gzip object was read")
            return
        }
        #expect(error.message.contains("not valid gzip"))
        let missing = cliError { () throws(CLIError) in
            var tail = RecordTail(dataDirectory: "\(data.path)/nope", bucket: nil, stream: nil, since: nil, json: false)
            _ = try tail.newObjects()
        }
        #expect(missing?.message.contains("does not exist") == true)
        // A first look that failed does not count: --since still sorts out what is there after.
        var early = RecordTail(
            dataDirectory: "\(data.path)/later", bucket: nil, stream: nil, since: Date(), json: false)
        #expect(cliError { () throws(CLIError) in _ = try early.newObjects() } != nil)
        try data.write("later/b/s-1-2026-11-21-13-05-09-\(uuidA)", Array("old".utf8), modified: epoch2026)
        #expect(try early.newObjects().isEmpty)
    }
}
