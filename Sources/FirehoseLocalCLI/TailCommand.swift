public import ArgumentParser
import FirehoseService
import FirehoseSink
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `firehose-local tail`: prints delivered records as their objects appear, like `tail -f` for the
/// bucket; reads the data directory as `objects` and `cat` do.
public struct TailCommand: AsyncParsableCommand, Sendable {
    public static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Print delivered records, decompressed, as their objects appear (reads the data directory).",
        discussion: """
            Prints the records of every delivered object, oldest object first, then exits; with \
            --follow it goes on looking at the data directory and prints each new object's records \
            as it appears (--follow --since 0s: only what arrives from now; --since sorts out the \
            objects already there, by the time their file was last written). The server need not run.

            Firehose joins records with nothing between them, so one record per line is exact when \
            the object's stream appends a newline to each record (the AppendDelimiterToRecord \
            processor; give --config for streams of a configuration file). Otherwise, when an \
            object's content is a run of JSON objects or arrays, each is a record; anything else is \
            printed whole, as one piece. Records are printed as they are (binary-safe), each followed \
            by a newline (a piece already ending with one gains none).

            With --json, one JSON document per line and record: {"stream", "bucket", "key", \
            "offset", "split", "text"} — offset is the record's byte offset in the decompressed \
            object, split says how it was found ("lines", "json" or "object"), and the record is \
            "text" when it is UTF-8, "base64" otherwise. stream is null for files that are not \
            Firehose objects.

            An object that cannot be read or decompressed is reported on stderr and skipped; without \
            --follow the exit code is then 1. With --follow, a data directory that does not exist yet \
            or a configuration file that cannot be read for a moment is reported once and looked at \
            again. SIGINT or SIGTERM ends --follow with exit code 0, also when it runs as a background \
            job of a script (which starts it with SIGINT ignored).
            """
    )

    @OptionGroup var selection: ObjectSelection

    @Flag(name: [.short, .long], help: "Keep printing the records of new objects until interrupted.")
    var follow = false

    @Flag(help: "Print one JSON document per record (JSON lines) instead of the records themselves.")
    var json = false

    @Option(help: "Seconds between looks at the data directory with --follow.")
    var interval: Double = 0.5

    public init() {}

    public func validate() throws {
        guard interval.isFinite, interval >= 0.05, interval <= 3600 else {
            throw ValidationError("--interval must be between 0.05 and 3600 seconds.")
        }
    }

    public func run() async throws {
        guard follow else { return try await printObjects() }
        // Stopped by SIGINT or SIGTERM however it was started: a shell starts a background job with
        // SIGINT ignored, and the loop would then run until killed.
        let command = self
        try await InterruptSignals.cancelling { try await command.printObjects() }
    }

    /// Prints the objects there are, and with --follow goes on until cancelled.
    private func printObjects() async throws {
        try await CLIOutput.run { () async throws(CLIError) in
            let directory = selection.directory
            let configPath = selection.configPath
            var tail = RecordTail(
                dataDirectory: directory, bucket: selection.bucket, stream: selection.stream,
                since: selection.sinceDate(now: Date()), json: json)
            // Read once up front so a bad --config fails before any waiting.
            var definitions = try LineDelimitedObjects.load(dataDirectory: directory, configPath: configPath)
            var unreadable = 0
            // With --follow a passing problem (the data directory not made yet, the configuration
            // file half written) is told once and looked at again, not the end.
            var lastProblem: String?
            func passing(_ problem: CLIError) throws(CLIError) {
                guard follow else { throw problem }
                if problem.message != lastProblem { CLIOutput.printError(problem.message + " (still looking)") }
                lastProblem = problem.message
            }
            while true {
                var fresh: [ListedObject] = []
                do throws(CLIError) {
                    fresh = try tail.newObjects()
                    lastProblem = nil
                } catch {
                    try passing(error)
                }
                if !fresh.isEmpty {
                    // Streams created through the API since the last look count too.
                    do throws(CLIError) {
                        definitions = try LineDelimitedObjects.load(dataDirectory: directory, configPath: configPath)
                    } catch {
                        try passing(error)
                    }
                    // A signal stops a long backlog between objects, not only between looks.
                    for object in fresh where !Task.isCancelled {
                        switch tail.output(of: object, definitions: definitions) {
                        case .success(let bytes): try CLIOutput.write(bytes)
                        case .failure(let error):
                            CLIOutput.printError(error.message)
                            unreadable += 1
                        }
                    }
                }
                guard follow else { break }
                do {
                    try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                } catch {
                    return
                }
            }
            if unreadable > 0 {
                throw CLIError(message: "\(unreadable) object\(unreadable == 1 ? "" : "s") could not be read.")
            }
        }
    }
}

/// The objects `tail` has printed and what it prints for a new one.
struct RecordTail {
    var dataDirectory: String
    var bucket: String?
    var stream: String?
    var since: Date?
    var json: Bool
    /// `bucket/key` of every object seen, so each is printed once.
    private var seen: Set<String> = []
    private var looked = false

    init(dataDirectory: String, bucket: String?, stream: String?, since: Date?, json: Bool) {
        self.dataDirectory = dataDirectory
        self.bucket = bucket
        self.stream = stream
        self.since = since
        self.json = json
    }

    /// Objects not seen before, oldest first. `since` only sorts out the objects of the first look:
    /// an object appearing later is new whatever its time, which is when its content was last
    /// written, often long before a buffer is delivered.
    mutating func newObjects() throws(CLIError) -> [ListedObject] {
        let first = !looked
        let objects = try ObjectLister(dataDirectory: dataDirectory).list(
            bucket: bucket, stream: stream, countingRecords: false)
        looked = true
        return objects.filter { object in
            seen.insert("\(object.bucket)/\(object.key)").inserted
                && !(first && since.map { object.modified < $0 } == true)
        }
    }

    /// What is printed for `object`: its records, each followed by a newline, or one JSON line each.
    func output(of object: ListedObject, definitions: LineDelimitedObjects) -> Result<[UInt8], CLIError> {
        let content: [UInt8]
        do {
            content = try ObjectReader.content(path: object.path)
        } catch {
            return .failure(error)
        }
        let linesAreRecords =
            object.stream.map { definitions.recordsAreLines(stream: $0, bucket: object.bucket, key: object.key) }
            ?? false
        let split = ObjectRecords.split(content, linesAreRecords: linesAreRecords)
        var output: [UInt8] = []
        output.reserveCapacity(json ? content.count * 2 + split.ranges.count * 160 : content.count + split.ranges.count)
        for range in split.ranges {
            let record = content[range]
            if json {
                output += Self.jsonLine(
                    object: object, offset: range.lowerBound, split: split.boundaries, record: record)
            } else {
                output += record
                // An object printed whole keeps its own last newline rather than gaining a blank line.
                if split.boundaries == .object, record.last == UInt8(ascii: "\n") { continue }
            }
            output.append(UInt8(ascii: "\n"))
        }
        return .success(output)
    }

    static func jsonLine(object: ListedObject, offset: Int, split: ObjectRecords.Boundaries, record: ArraySlice<UInt8>)
        -> [UInt8]
    {
        let text = String(validating: record, as: UTF8.self)
        return OrderedJSONEncoder.encode(
            RecordLine(
                stream: Nullable(object.stream), bucket: object.bucket, key: object.key, offset: offset,
                split: split.rawValue, text: text, base64: text == nil ? Base64Blob(record) : nil),
            reservingCapacity: 160 + record.count * 2)
    }

    /// A record as `tail --json` writes it: its text, or `base64` when it is not UTF-8.
    private struct RecordLine: Encodable {
        var stream: Nullable<String>
        var bucket: String
        var key: String
        var offset: Int
        var split: String
        var text: String?
        var base64: Base64Blob?
    }
}
