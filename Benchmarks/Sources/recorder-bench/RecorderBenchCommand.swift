import ArgumentParser
import FirehoseClient
import FirehoseRecorder
import Foundation
import LoadSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    @Option(help: "FirehoseRecorder's maxConcurrentRequests (default: the recorder's default).")
    var maxConcurrentRequests: Int?

    @Option(help: "What a returned save survives: appCrash (the recorder's default) or powerLoss.")
    var durability: Durability = .appCrash

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
        /// CPU time of this process (user + system) in each phase: what the recorder costs, whatever
        /// else the machine is doing.
        var saveCPUSeconds: Double
        var submitCPUSeconds: Double
        var remainingRecords: Int
        var submitStatus: String
    }

    func validate() throws {
        guard (1...1_000_000).contains(records) else { throw ValidationError("--records must be 1-1,000,000") }
        guard (1...60).contains(saveSeconds) else { throw ValidationError("--save-seconds must be 1-60") }
        if let maxConcurrentRequests, !(1...64).contains(maxConcurrentRequests) {
            throw ValidationError("--max-concurrent-requests must be 1-64")
        }
        do { _ = try LoopbackEndpoint(endpoint) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: workDir).appendingPathComponent("recorder-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let client = FirehoseClient(
            endpoint: URL(string: endpoint)!, region: "us-east-1",
            credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"))
        var configuration = FirehoseRecorder.Configuration(diskByteLimit: 4 * 1_024 * 1_024 * 1_024)
        configuration.durability = durability == .powerLoss ? .powerLoss : .appCrash
        if let maxConcurrentRequests { configuration.maxConcurrentRequests = maxConcurrentRequests }
        let recorder = try FirehoseRecorder(directory: directory, client: client, configuration: configuration)
        let pool = recordProfile.records(count: min(records, 16_384), seed: seed).map { Data($0) }

        let clock = ContinuousClock()
        let saveCPUStart = cpuSeconds()
        let saveStart = clock.now
        let saveDeadline = saveStart + .milliseconds(Int(saveSeconds * 1_000))
        var saved = 0
        while saved < records {
            try await recorder.saveRecord(pool[saved % pool.count], streamName: stream)
            saved += 1
            if saved % 256 == 0 && clock.now >= saveDeadline { break }
        }
        let saveSeconds = seconds(clock.now - saveStart)
        let submitCPUStart = cpuSeconds()

        let submitStart = clock.now
        let summary = await recorder.submitAllRecords()
        let submitSeconds = seconds(clock.now - submitStart)
        let submitCPUEnd = cpuSeconds()

        let result = Result(
            recordProfile: recordProfile.rawValue, savedRecords: saved, saveSeconds: saveSeconds,
            saveRecordsPerSecond: Double(saved) / saveSeconds, submittedRecords: summary.sentRecords,
            submittedBytes: summary.sentBytes, submitRequests: summary.requests, submitSeconds: submitSeconds,
            submitPayloadMBPerSecond: Double(summary.sentBytes) / submitSeconds / 1e6,
            saveCPUSeconds: submitCPUStart - saveCPUStart, submitCPUSeconds: submitCPUEnd - submitCPUStart,
            remainingRecords: summary.remainingRecords, submitStatus: "\(summary.status)")
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print(
                """
                saveRecord        \(saved) records in \(fixed(saveSeconds, 2)) s: \(fixed(result.saveRecordsPerSecond, 0)) records/s, \
                \(fixed(result.saveCPUSeconds, 2)) s CPU
                submitAllRecords  \(summary.sentRecords) records, \(summary.sentBytes) bytes in \(summary.requests) requests, \
                \(fixed(submitSeconds, 2)) s: \(fixed(result.submitPayloadMBPerSecond, 2)) MB/s, \
                \(fixed(result.submitCPUSeconds, 2)) s CPU (status \(summary.status))
                """)
        }
        if summary.sentRecords != saved { throw ExitCode(2) }
    }

    private func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension RecordProfile: ExpressibleByArgument {}

enum Durability: String, ExpressibleByArgument {
    case appCrash, powerLoss
}
