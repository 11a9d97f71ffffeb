public import ArgumentParser
import CivilTime
import FirehoseKeyLayout
import FirehoseSink
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `firehose-local objects`: lists delivered objects by reading the data directory (no server needed).
public struct ObjectsCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "objects",
        abstract: "List delivered objects by reading the data directory (the server need not run).",
        discussion: """
            One line per object, oldest first, tab-separated: bucket, key, size in bytes (as stored), \
            time (ISO 8601 UTC: when the object file was last written), records. With --json one \
            document: {"objects": [{"bucket", "key", "path", "stream", "size", "time", "records"}]}.

            records is only known for streams with the AppendDelimiterToRecord processor: it is the \
            number of newlines in the object (decompressed), so a record that itself contains newlines \
            counts more than once. Without the processor records are concatenated with nothing between \
            them and the count is unknowable: "-" in lines, null in JSON (also for objects whose stream \
            is not defined in --config or created through the API, for objects of a source-record \
            backup, and for a backup's objects in its stream's bucket whose prefixes do not tell them \
            apart). stream is taken from the object's name (<stream>-<version>-<time>-<uuid>), null \
            for other files.

            firehose-local's own folder (.firehose-local: staging, the stream catalog) is never listed.
            """
    )

    @OptionGroup var selection: ObjectSelection

    @Flag(help: "Print one JSON document instead of one line per object.")
    var json = false

    public init() {}

    public func run() throws {
        try CLIOutput.run { () throws(CLIError) in
            let directory = selection.directory
            let definitions = try LineDelimitedObjects.load(dataDirectory: directory, configPath: selection.configPath)
            let lister = ObjectLister(dataDirectory: directory, definitions: definitions)
            let objects = try lister.list(
                bucket: selection.bucket, stream: selection.stream, since: selection.sinceDate(now: Date()))
            try CLIOutput.write(json ? ObjectLister.json(objects) : ObjectLister.lines(objects))
        }
    }
}

/// Which objects `objects` and `tail` read: the data directory, bucket, stream and time, and the
/// configuration file that says which streams' records are lines.
struct ObjectSelection: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: "Data directory the server writes into. [FIREHOSE_LOCAL_DATA_DIR] (default: ./firehose-data)")
    var dataDirectory: String?

    @Option(help: "Only objects in this bucket (default: every bucket).")
    var bucket: String?

    @Option(help: "Only objects of this delivery stream (matched on the object's name).")
    var stream: String?

    @Option(
        help: """
            Only objects written at or after this time: ISO 8601 (2026-11-21T13:05:09Z; no zone means \
            UTC; 2026-11-21 is midnight UTC) or a time ago (90s, 10m, 1.5h, 2d; a bare number is \
            seconds; 0s: from now).
            """)
    var since: String?

    @Option(
        help: """
            Configuration file of the server, to learn which streams append a newline to each record. \
            Streams created through the API are read from the data directory. [FIREHOSE_LOCAL_CONFIG]
            """)
    var config: String?

    func validate() throws {
        if let since, Timestamps.parseSince(since, now: Date()) == nil {
            throw ValidationError(
                "--since '\(since)' is neither an ISO 8601 time (2026-11-21T13:05:09Z) nor a time ago (10m, 2h, 30s).")
        }
    }

    /// The data directory, as `serve` resolves it.
    var directory: String { Environment.dataDirectory(dataDirectory) }
    var configPath: String? { Environment.value(config, "FIREHOSE_LOCAL_CONFIG") }
    func sinceDate(now: Date) -> Date? { since.flatMap { Timestamps.parseSince($0, now: now) } }
}

/// One object file in the data directory.
struct ListedObject: Equatable {
    var bucket: String
    var key: String
    var path: String
    /// Bytes of the file as stored (compressed for GZIP streams).
    var size: Int
    /// Last modification of the file.
    var modified: Date
    /// From the object's name; nil when the name is not a Firehose object name.
    var stream: String?
    /// Newlines in the (decompressed) object when its stream appends a newline to each record.
    var records: Int?
}

struct ObjectLister {
    var dataDirectory: String
    var definitions = LineDelimitedObjects()

    static let privateFolder = FirehoseSink.Configuration.privateFolderName

    /// Every object, oldest first (then by bucket and key), filtered; `countingRecords` reads the
    /// objects whose records are lines to count them.
    func list(bucket: String? = nil, stream: String? = nil, since: Date? = nil, countingRecords: Bool = true)
        throws(CLIError) -> [ListedObject]
    {
        var info = stat()
        guard stat(dataDirectory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIError(
                message:
                    "data directory \(dataDirectory) does not exist (set --data-dir or FIREHOSE_LOCAL_DATA_DIR to the server's)."
            )
        }
        let reader = BucketFolders(root: dataDirectory)
        let buckets: [String]
        if let bucket {
            guard !bucket.isEmpty, !bucket.contains("/"), bucket != ".", bucket != "..", bucket != Self.privateFolder
            else { throw CLIError(message: "'\(bucket)' is not a bucket name.", exitCode: 2) }
            buckets = [bucket]
        } else {
            buckets = reader.buckets().map(\.name)
        }
        var objects: [ListedObject] = []
        for bucket in buckets {
            for found in reader.objects(in: bucket, prefix: "") ?? [] {
                let key = found.key
                if let since, found.modified < since { continue }
                let path = "\(dataDirectory)/\(bucket)/\(key)"
                let objectStream = ObjectName.stream(ofKey: key)
                if let stream, objectStream != stream { continue }
                var object = ListedObject(
                    bucket: bucket, key: key, path: path, size: found.size, modified: found.modified,
                    stream: objectStream, records: nil)
                if countingRecords, let objectStream,
                    definitions.recordsAreLines(stream: objectStream, bucket: bucket, key: key)
                {
                    object.records = Self.newlineCount(path: path)
                }
                objects.append(object)
            }
        }
        return objects.sorted { ($0.modified, $0.bucket, $0.key) < ($1.modified, $1.bucket, $1.key) }
    }

    /// Newlines in the file's content, decompressed as `cat` does; nil when
    /// it cannot be read or decoded.
    static func newlineCount(path: String) -> Int? {
        guard let content = try? ObjectReader.content(path: path) else { return nil }
        var count = 0
        for byte in content where byte == UInt8(ascii: "\n") { count += 1 }
        return count
    }

    // MARK: Output

    /// `bucket<TAB>key<TAB>size<TAB>time<TAB>records` per object; records `-` when unknown.
    static func lines(_ objects: [ListedObject]) -> [UInt8] {
        var text = ""
        for object in objects {
            text += "\(object.bucket)\t\(object.key)\t\(object.size)\t\(ISO8601Timestamp.format(object.modified))\t"
            text += object.records.map(String.init) ?? "-"
            text += "\n"
        }
        return Array(text.utf8)
    }

    static func json(_ objects: [ListedObject]) -> [UInt8] {
        let listing = ObjectListing(
            objects: objects.map {
                .init(
                    bucket: $0.bucket, key: $0.key, path: $0.path, stream: Nullable($0.stream), size: $0.size,
                    time: ISO8601Timestamp.format($0.modified), records: Nullable($0.records))
            })
        return OrderedJSONEncoder.encode(listing, reservingCapacity: 32 + objects.count * 256) + [UInt8(ascii: "\n")]
    }

    /// `objects --json`: `{"objects": [...]}`.
    private struct ObjectListing: Encodable {
        struct Object: Encodable {
            var bucket: String
            var key: String
            var path: String
            var stream: Nullable<String>
            var size: Int
            var time: String
            var records: Nullable<Int>
        }

        var objects: [Object]
    }
}

/// Reads an object's content: decompressed when its first bytes say gzip, ZIP or Snappy whatever
/// its name (a FileExtension may hide the compression), or when a `.snappy` name holds Hadoop-Snappy;
/// as stored otherwise.
enum ObjectReader {
    static func content(path: String) throws(CLIError) -> [UInt8] {
        let stored = try read(path: path)
        do {
            return try ObjectContent.decode(stored, key: path)
        } catch {
            throw CLIError(message: "\(path) \(error.description).")
        }
    }

    static func read(path: String) throws(CLIError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError(message: "cannot read \(path): \(String(cString: strerror(errno))).") }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                    Glibc.read(fd, buffer.baseAddress, buffer.count)
                #else
                    Darwin.read(fd, buffer.baseAddress, buffer.count)
                #endif
            }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(message: "cannot read \(path): \(String(cString: strerror(errno))).")
            }
            bytes += chunk[..<count]
        }
    }
}
