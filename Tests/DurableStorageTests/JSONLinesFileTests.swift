import DurableStorage
import Foundation
import Testing

@Suite("JSONLinesFile")
struct JSONLinesFileTests {
    @Test("A torn last line is dropped and cut off; appends and rewrites are whole")
    func tornTail() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/file.jsonl"
        try Data("{\"a\":1}\n{\"b\":2}\n{\"c\":".utf8).write(to: URL(fileURLWithPath: path))
        do {
            let (file, lines) = try JSONLinesFile.open(path)
            #expect(lines.map { String(decoding: $0, as: UTF8.self) } == [#"{"a":1}"#, #"{"b":2}"#])
            try file.append(Array(#"{"d":4}"#.utf8))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"a\":1}\n{\"b\":2}\n{\"d\":4}\n")
        do {
            let (file, lines) = try JSONLinesFile.open(path)
            #expect(lines.count == 3)
            try file.rewrite([Array(#"{"e":5}"#.utf8)])
            try file.append(Array(#"{"f":6}"#.utf8))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"e\":5}\n{\"f\":6}\n")
    }
}
