import ArgumentParser
import FirehoseClient
import FirehoseRecorder
import Foundation
import LoadSupport

/// FirehoseRecorder's two rates: how fast `saveRecord` stores records (one call at a time, as an app
/// does), and how fast `submitAllRecords` sends what was stored to a local firehose-local.
@main
struct RecorderBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recorder-bench",
        abstract: "saveRecord records/s and submitAllRecords payload MB/s of FirehoseRecorder against a local server.")

    @Option(help: "firehose-local endpoint; loopback only.")
    var endpoint = "http://127.0.0.1:4573"

    @Option(help: "Stream to submit to (must exist on the server).")
    var stream = "bench-0"

    @Option(help: "Records to save (at most 1,000,000).")
    var records = 100_000

    @Option(help: "Stop saving after this many seconds even if fewer records were saved (1-60).")
    var saveSeconds: Double = 30

    @Option(help: "Record profile: app-events or small.")
    var recordProfile: RecordProfile = .appEvents

    @Option(help: "Seed of the record generator.")
    var seed: UInt64 = 1

    @Option(help: "Folder for the recorder's database (a fresh sub-folder is made and removed).")
    var workDir = "/var/tmp"

    @Flag(help: "Print JSON.")
    var json = false

    struct Result: Encodable {
        var recordProfile: String
        var savedRecords: Int
        var saveSeconds: Double
        var saveRecordsPerSecond: Double
        var submittedRecords: Int
        var submittedBytes: Int
        var submitRequests: Int
        var submitSeconds: Double
        var submitPayloadMBPerSecond: Double
        var remainingRecords: Int
        var submitStatus: String
    }

    func validate() throws {
        guard (1...1_000_000).contains(records) else { throw ValidationError("--records must be 1-1,000,000") }
        guard (1...60).contains(saveSeconds) else { throw ValidationError("--save-seconds must be 1-60") }
        do { _ = try LoopbackEndpoint(endpoint) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: workDir).appendingPathComponent("recorder-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = FirehoseClient(
            endpoint: URL(string: endpoint)!, region: "us-east-1",
            credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"))
        let recorder = try FirehoseRecorder(
            directory: directory, client: client,
            configuration: .init(diskByteLimit: 4 * 1_024 * 1_024 * 1_024))
        let pool = recordProfile.records(count: min(records, 16_384), seed: seed).map { Data($0) }

        let clock = ContinuousClock()
        let saveStart = clock.now
        let saveDeadline = saveStart + .milliseconds(Int(saveSeconds * 1_000))
        var saved = 0
        while saved < records {
            try await recorder.saveRecord(pool[saved % pool.count], streamName: stream)
            saved += 1
            if saved % 256 == 0 && clock.now >= saveDeadline { break }
        }
        let saveSeconds = seconds(clock.now - saveStart)

        let submitStart = clock.now
        let summary = await recorder.submitAllRecords()
        let submitSeconds = seconds(clock.now - submitStart)

        let result = Result(
            recordProfile: recordProfile.rawValue, savedRecords: saved, saveSeconds: saveSeconds,
            saveRecordsPerSecond: Double(saved) / saveSeconds, submittedRecords: summary.sentRecords,
            submittedBytes: summary.sentBytes, submitRequests: summary.requests, submitSeconds: submitSeconds,
            submitPayloadMBPerSecond: Double(summary.sentBytes) / submitSeconds / 1e6,
            remainingRecords: summary.remainingRecords, submitStatus: "\(summary.status)")
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print(
                """
                saveRecord        \(saved) records in \(fixed(saveSeconds, 2)) s: \(fixed(result.saveRecordsPerSecond, 0)) records/s
                submitAllRecords  \(summary.sentRecords) records, \(summary.sentBytes) bytes in \(summary.requests) requests, \
                \(fixed(submitSeconds, 2)) s: \(fixed(result.submitPayloadMBPerSecond, 2)) MB/s (status \(summary.status))
                """)
        }
        if summary.sentRecords != saved { throw ExitCode(2) }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension RecordProfile: ExpressibleByArgument {}
