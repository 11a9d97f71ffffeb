// firehose-record: reads lines from stdin, saves each as a record with FirehoseRecorder, and
// submits them to Firehose (or firehose-local). See docs/recorder.md.
import FirehoseClient
import FirehoseRecorder
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let usage = """
    usage: firehose-record --stream NAME --db-dir DIR [options] < lines

    Saves every line of standard input as one record (durably, in DIR/firehose-records.sqlite), then
    submits everything stored — including records left by earlier runs — to the delivery stream.

    options:
      --endpoint URL       Firehose endpoint (default http://127.0.0.1:4573; AWS: https://firehose.REGION.amazonaws.com)
      --region REGION      signing region (default: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1)
      --stream NAME        delivery stream (required)
      --db-dir DIR         directory of the record store (required; created if missing)
      --strip-newlines     store lines without their trailing newline (default keeps it)
      --submit-every N     also submit after every N saved lines (default: only at end of input)
      --no-submit          only save
      --gzip               gzip request bodies
      --max-attempts N     counted attempts before a record is dropped (default 10)
      --print-ids          print "saved ID" on stdout once each record is durable

    credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY [/ AWS_SESSION_TOKEN], else the shared
    files (~/.aws/credentials, AWS_PROFILE); for a loopback endpoint with neither, test / test.
    exit status: 0 all submitted, 2 offline (records kept), 3 some streams stopped, 1 usage or storage error.
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("firehose-record: \(message)\n".utf8))
    exit(1)
}

var endpoint = "http://127.0.0.1:4573"
let environment = ProcessInfo.processInfo.environment
var region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
var stream: String?
var databaseDirectory: String?
var keepNewlines = true
var submitEvery = 0
var submit = true
var gzip = false
var maxAttempts = 10
var printIDs = false

var arguments = CommandLine.arguments.dropFirst()
@MainActor func value(_ flag: String) -> String {
    guard let next = arguments.popFirst() else { fail("\(flag) needs a value\n\(usage)") }
    return next
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--endpoint": endpoint = value(argument)
    case "--region": region = value(argument)
    case "--stream": stream = value(argument)
    case "--db-dir": databaseDirectory = value(argument)
    case "--strip-newlines": keepNewlines = false
    case "--submit-every": submitEvery = Int(value(argument)) ?? 0
    case "--no-submit": submit = false
    case "--gzip": gzip = true
    case "--max-attempts": maxAttempts = Int(value(argument)) ?? 10
    case "--print-ids": printIDs = true
    case "-h", "--help":
        print(usage)
        exit(0)
    default: fail("unknown option \(argument)\n\(usage)")
    }
}
guard let stream else { fail("--stream is required\n\(usage)") }
guard let databaseDirectory else { fail("--db-dir is required\n\(usage)") }
guard let endpointURL = URL(string: endpoint), endpointURL.host != nil else { fail("bad --endpoint \(endpoint)") }

var providers: [any CredentialsProvider] = [EnvironmentCredentialsProvider(), ProfileCredentialsProvider()]
if ["127.0.0.1", "localhost", "::1"].contains(endpointURL.host ?? "") {
    providers.append(StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"))
}
let client = FirehoseClient(
    endpoint: endpointURL, region: region, credentialsProvider: CredentialsProviderChain(providers),
    gzipRequestBodies: gzip)

let recorder: FirehoseRecorder
do {
    recorder = try FirehoseRecorder(
        directory: URL(fileURLWithPath: databaseDirectory), client: client,
        configuration: .init(diskByteLimit: 512 * 1024 * 1024, maxAttempts: maxAttempts))
} catch {
    fail("\(error)")
}

// Report drops and recoveries as they happen.
let eventPrinter = Task {
    for await event in recorder.events {
        switch event {
        case .recordsDropped(let drop):
            FileHandle.standardError.write(
                Data("firehose-record: dropped \(drop.count) record(s) of \(drop.streamName): \(drop.reason)\n".utf8))
        case .databaseRecovered(let movedTo, let reason):
            FileHandle.standardError.write(
                Data(
                    "firehose-record: unreadable database moved to \(movedTo.path) (\(reason)); started a new one\n"
                        .utf8))
        case .thresholdCrossed, .submitFinished:
            break
        }
    }
}

func describe(_ summary: SubmitSummary) -> String {
    var text =
        "sent \(summary.sentRecords) record(s) in \(summary.requests) request(s), "
        + "dropped \(summary.droppedCount), \(summary.remainingRecords) left"
    switch summary.status {
    case .completed: break
    case .offline(let error): text += "; offline: \(error)"
    case .streamsStopped:
        text += "; stopped: " + summary.stoppedStreams.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
    case .cancelled: text += "; cancelled"
    case .storageFailed(let error): text += "; record store failed: \(error)"
    }
    return text
}

var saved = 0
var lastSummary: SubmitSummary?
while let line = readLine(strippingNewline: true) {
    var data = Data(line.utf8)
    if keepNewlines { data.append(UInt8(ascii: "\n")) }
    do {
        let id = try await recorder.saveRecord(data, streamName: stream)
        if printIDs {
            // Unbuffered: the line is out before the next save starts (the crash test relies on it).
            FileHandle.standardOutput.write(Data("saved \(id)\n".utf8))
        }
    } catch {
        fail("\(error)")
    }
    saved += 1
    if submit, submitEvery > 0, saved % submitEvery == 0 {
        lastSummary = await recorder.submitAllRecords()
    }
}
if submit {
    lastSummary = await recorder.submitAllRecords()
}
eventPrinter.cancel()
if let summary = lastSummary {
    FileHandle.standardError.write(Data("firehose-record: saved \(saved); \(describe(summary))\n".utf8))
    switch summary.status {
    case .completed: exit(0)
    case .offline: exit(2)
    case .streamsStopped, .cancelled: exit(3)
    case .storageFailed: exit(1)
    }
} else {
    FileHandle.standardError.write(Data("firehose-record: saved \(saved); not submitted\n".utf8))
}
