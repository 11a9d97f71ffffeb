import FirehoseTestSupport
import Foundation
import Testing

@testable import FirehoseSink

@Suite("CommandInvocation: a local command run as a Lambda function")
struct CommandInvocationTests {
    private func run(
        _ arguments: [String], input: String = "", timeout: Duration = .seconds(30), maxAnswerBytes: Int = 1 << 20
    ) async -> CommandInvocation.Outcome {
        await CommandInvocation.run(
            arguments, input: Array(input.utf8), timeout: timeout, maxAnswerBytes: maxAnswerBytes)
    }

    @Test("The event goes to standard input and the answer comes from standard output")
    func answers() async {
        let outcome = await run(
            ["python3", "-c", "import sys, json; e = json.load(sys.stdin); print(json.dumps({'got': e['n'] + 1}))"],
            input: #"{"n": 41}"#)
        #expect(outcome == .answered(Array("{\"got\": 42}\n".utf8)))
    }

    @Test("A command that answers while it reads gets its whole input: 5 MB through cat, no deadlock")
    func largeInputAndOutputAtOnce() async {
        let input = String(repeating: "0123456789abcdef", count: 5 * 65_536)
        #expect(await run(["cat"], input: input, maxAnswerBytes: 6 << 20) == .answered(Array(input.utf8)))
    }

    @Test("A non-zero exit is a failure with the tail of standard error; a signal is named")
    func failures() async {
        let failed = await run(["sh", "-c", "echo partial; echo 'Traceback: boom' >&2; exit 3"])
        #expect(failed == .failed(status: 3, signal: nil, standardError: "Traceback: boom\n"))
        let killed = await run(["sh", "-c", "kill -9 $$"])
        #expect(killed == .failed(status: -1, signal: 9, standardError: ""))
        // It stopped reading: our writes meet a broken pipe, which must not end the test process.
        let early = await run(["sh", "-c", "exit 4"], input: String(repeating: "x", count: 1 << 20))
        #expect(early == .failed(status: 4, signal: nil, standardError: ""))
    }

    @Test("A command that does not finish in time is killed with what it started, and reported")
    func timeout() async throws {
        let directory = try SinkHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let started = ContinuousClock.now
        let outcome = await run(
            ["sh", "-c", "sleep 300 & echo $! > \(directory)/child; sleep 300"], timeout: .milliseconds(300))
        #expect(outcome == .timedOut)
        // Killed, not waited for (the bound is loose: other suites share these two cores).
        #expect(ContinuousClock.now - started < .seconds(120))
        let written = try String(contentsOfFile: "\(directory)/child", encoding: .utf8)
        let child = try #require(Int32(written.trimmingCharacters(in: .whitespacesAndNewlines)))
        try await eventually("the command's own child to be gone") { kill(child, 0) != 0 }
        // Outputs closed early, process still running: still a timeout.
        let lingering = await run(["sh", "-c", "exec >&- 2>&-; sleep 300"], timeout: .milliseconds(300))
        #expect(lingering == .timedOut)
    }

    @Test("Cancelling the task kills the command with what it started; a cancelled task starts none")
    func cancellation() async throws {
        let directory = try SinkHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let running = Task {
            await CommandInvocation.run(
                ["sh", "-c", "sleep 300 & echo $! > \(directory)/child; sleep 300"], input: [],
                timeout: .seconds(600), maxAnswerBytes: 100)
        }
        try await eventually("the command's child to start") {
            FileManager.default.fileExists(atPath: "\(directory)/child")
        }
        running.cancel()
        // Without the cancellation this waits out the 600 s timeout and answers .timedOut.
        #expect(await running.value == .cancelled)
        let written = try String(contentsOfFile: "\(directory)/child", encoding: .utf8)
        let child = try #require(Int32(written.trimmingCharacters(in: .whitespacesAndNewlines)))
        try await eventually("the command's own child to be gone") { kill(child, 0) != 0 }
        let never = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await CommandInvocation.run(
                ["sh", "-c", "touch \(directory)/started"], input: [], timeout: .seconds(10), maxAnswerBytes: 100)
        }
        #expect(await never.value == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/started"))
        // Outputs closed, process still running: its exit is awaited, and the cancellation ends that too.
        let lingering = Task {
            await CommandInvocation.run(
                ["sh", "-c", "exec >&- 2>&-; touch \(directory)/lingering; sleep 300"], input: [],
                timeout: .seconds(600), maxAnswerBytes: 100)
        }
        try await eventually("the lingering command to start") {
            FileManager.default.fileExists(atPath: "\(directory)/lingering")
        }
        lingering.cancel()
        #expect(await lingering.value == .cancelled)
    }

    @Test("An answer beyond the limit stops the command")
    func answerTooLarge() async {
        #expect(await run(["sh", "-c", "yes"], maxAnswerBytes: 100_000) == .answerTooLarge)
    }

    @Test("A program that does not exist cannot start")
    func missingProgram() async {
        guard case .couldNotStart(let error) = await run(["/nonexistent/firehose-local-function"]) else {
            Issue.record("started")
            return
        }
        #expect(error == ENOENT)
    }
}
