import Foundation
import Testing

@testable import FirehoseLocalCLI

@Suite("Port file")
struct PortFileTests {
    @Test func writesReplacesAndLeavesNoTemporaryFile() throws {
        let directory = try DataDirectory()
        let path = "\(directory.path)/port"
        try ServeCommand.writeAtomically("4573\n", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "4573\n")
        try ServeCommand.writeAtomically("38211\n", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "38211\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["port"])
    }

    @Test func aFolderThatDoesNotExistIsAnErrorNamingThePath() throws {
        let directory = try DataDirectory()
        let path = "\(directory.path)/missing/port"
        #expect {
            try ServeCommand.writeAtomically("1\n", to: path)
        } throws: { error in
            let description = "\(error)"
            return description.contains("\(directory.path)/missing/port.tmp-") && description.contains("No such file")
        }
    }
}
