import FirehoseClient
import FirehoseTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirehoseRecorder

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The example executable (`Examples/firehose-record`), built with the tests.
func locateRecordBinary(filePath: String = #filePath) -> URL? {
    if let explicit = ProcessInfo.processInfo.environment["FIREHOSE_RECORD_BIN"], !explicit.isEmpty {
        return URL(fileURLWithPath: explicit)
    }
    var candidates: [URL] = []
    // Beside the test bundle (…/.build/debug/<package>PackageTests.xctest).
    if let executable = Bundle.main.executableURL {
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("firehose-record"))
    }
    candidates.append(
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "firehose-record"))
    var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    for _ in 0..<4 {
        candidates.append(directory.appendingPathComponent(".build/debug/firehose-record"))
        directory.deleteLastPathComponent()
    }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// Reads a pipe line by line on its own thread (not the cooperative pool, which a blocking read
/// would starve).
final class LineReader: Sendable {
    private final class State: Sendable {
        let lines = Mutex<[String]>([])
        let finished = Mutex(false)
    }
    private let state = State()

    init(_ handle: FileHandle) {
        let state = self.state
        let thread = Thread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer = Data(buffer[(newline + 1)...])
                    state.lines.withLock { $0.append(line) }
                }
            }
            state.finished.withLock { $0 = true }
        }
        thread.start()
    }

    var lines: [String] { state.lines.withLock { $0 } }
    var finished: Bool { state.finished.withLock { $0 } }
}

@Suite("Crash safety", .serialized)
struct CrashTests {
    @Test("SIGKILL at random points: every record whose save returned is there exactly once")
    func killedWhileSaving() async throws {
        guard let binary = locateRecordBinary() else {
            Issue.record("firehose-record example not built: run swift build, or set FIREHOSE_RECORD_BIN.")
            return
        }
        let work = try TestDirectory("crash")
        defer { work.remove() }
        let database = work.appending("db")
        var generator = SeededBytes(seed: UInt64(Date().timeIntervalSince1970))
        var printed: [[Int64]] = []
        let runs = 5
        for run in 0..<runs {
            // A file of lines as stdin: the child reads as fast as it saves, until killed.
            let input = work.appending("input-\(run).txt")
            // Far more than it can save before the kill, even on an idle machine (~80,000 saves/s).
            let text = (0..<2_000_000).map { "run\(run)-\($0)" }.joined(separator: "\n") + "\n"
            try text.write(to: input, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = binary
            process.arguments = ["--stream", "crash", "--db-dir", database.path, "--no-submit", "--print-ids"]
            process.standardInput = try FileHandle(forReadingFrom: input)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let reader = LineReader(output.fileHandleForReading)
            // Kill after a random number of saves, plus a random few hundred microseconds.
            let target = 20 + Int(generator.next() % 200)
            let deadline = ContinuousClock.now + .seconds(30)
            while reader.lines.count < target, process.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            usleep(UInt32(generator.next() % 500))
            #expect(process.isRunning, "the child ended before it was killed")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            while !reader.finished { try await Task.sleep(for: .milliseconds(1)) }
            let ids = reader.lines.compactMap { line -> Int64? in
                line.hasPrefix("saved ") ? Int64(line.dropFirst(6)) : nil
            }
            #expect(ids.count >= target)
            printed.append(ids)
        }

        // Reopen as an app would after the crash.
        let client = FirehoseClient(
            endpoint: URL(string: "http://127.0.0.1:1")!, region: "us-east-1",
            credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
            transport: FakeFirehoseEndpoint())
        let recorder = try FirehoseRecorder(directory: database, client: client)
        let events = EventLog(recorder.events)
        let stored = try await recorder.storedRecords()
        // Anything reopening reported comes before the summary of a submit made after it.
        _ = await recorder.submitAllRecords()
        #expect(await events.kinds(throughSubmit: 1) == ["submitFinished"], "reopening reported \(events.all)")
        #expect(Set(stored.map(\.id)).count == stored.count)
        #expect(Set(stored.map(\.data)).count == stored.count, "a line was stored twice")
        var extra = 0
        for run in 0..<runs {
            let rows = stored.filter { $0.data.starts(with: Data("run\(run)-".utf8)) }
            // Rows of a run are its first lines, in order, each once.
            #expect(
                rows.map { String(decoding: $0.data, as: UTF8.self) } == (0..<rows.count).map { "run\(run)-\($0)\n" })
            // Every printed id is there with its line; at most one more save committed before the kill
            // reached the child between its commit and its print.
            #expect(Array(rows.prefix(printed[run].count).map(\.id)) == printed[run])
            #expect(rows.count - printed[run].count >= 0 && rows.count - printed[run].count <= 1)
            extra += rows.count - printed[run].count
        }
        print(
            "crash test: \(runs) SIGKILLs after \(printed.map(\.count)) acknowledged saves; "
                + "\(stored.count) rows on reopen, \(extra) committed-but-unacknowledged, 0 lost, 0 duplicated")
    }
}
