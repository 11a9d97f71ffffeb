import ArgumentParser
import CivilTime
import FirehoseKeyLayout
import FirehoseServer
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
            UTC; 2026-11-21 is midnight UTC) or a time ago (90s, 10m, 1.5h, 2d; a bare number is seconds).
            """)
    var since: String?

    @Option(
        help: """
            Configuration file of the server, to learn which streams append a newline to each record. \
            Streams created through the API are read from the data directory. [FIREHOSE_LOCAL_CONFIG]
            """)
    var config: String?

    @Flag(help: "Print one JSON document instead of one line per object.")
    var json = false

    public init() {}

    public func validate() throws {
        if let since, Timestamps.parseSince(since, now: Date()) == nil {
            throw ValidationError(
                "--since '\(since)' is neither an ISO 8601 time (2026-11-21T13:05:09Z) nor a time ago (10m, 2h, 30s).")
        }
    }

    public func run() throws {
        try CLIOutput.run { () throws(CLIError) in
            let directory = Environment.dataDirectory(dataDirectory)
            let definitions = try StreamDefinitions.load(
                dataDirectory: directory, configPath: Environment.value(config, "FIREHOSE_LOCAL_CONFIG"))
            let lister = ObjectLister(dataDirectory: directory, definitions: definitions)
            let objects = try lister.list(
                bucket: bucket, stream: stream, since: since.flatMap { Timestamps.parseSince($0, now: Date()) })
            try CLIOutput.write(json ? ObjectLister.json(objects) : ObjectLister.lines(objects))
        }
    }
}

/// Which streams add `\n` after each record, from the configuration file and from the streams the
/// server saved in the data directory (created through the API). The configuration file wins, as
/// it does in the server.
struct StreamDefinitions: Equatable {
    var appendsNewline: [String: Bool] = [:]
    /// Where each stream's source-record backup writes: backed-up records carry no delimiter.
    var backups: [String: BackupPlace] = [:]

    /// A backup's bucket and what its keys start with, beside its stream's (objects and error
    /// output).
    struct BackupPlace: Equatable {
        var bucket: String
        var keyStart: String
        var streamBucket: String
        var streamKeyStarts: [String]
    }

    /// Whether the object `key` in `bucket`, named after `stream`, holds one line per record: an
    /// object of a stream that appends a newline, not of its backup. When the backup shares the
    /// stream's bucket, the longest literal start of their prefixes that `key` begins with tells
    /// them apart; when nothing does, the count is unknown.
    func recordsAreLines(stream: String, bucket: String, key: String) -> Bool {
        guard appendsNewline[stream] == true else { return false }
        guard let backup = backups[stream], backup.bucket == bucket else { return true }
        guard backup.streamBucket == bucket else { return false }
        let stream = backup.streamKeyStarts.filter { key.hasPrefix($0) }.map(\.count).max()
        guard let stream else { return false }
        return !key.hasPrefix(backup.keyStart) || stream > backup.keyStart.count
    }

    static func load(dataDirectory: String, configPath: String?) throws(CLIError) -> StreamDefinitions {
        var definitions = StreamDefinitions()
        // An unreadable catalog means no saved streams here: the listing works without it.
        for record in (try? FirehoseSink.savedStreams(dataDirectory: dataDirectory)) ?? [] {
            definitions.add(record.definition, gzipLevel: 6)
        }
        if let configPath {
            let file: ConfigurationFile
            do {
                file = try ConfigurationFile.load(path: configPath)
            } catch {
                throw CLIError(message: error.description)
            }
            for definition in file.deliveryStreams { definitions.add(definition, gzipLevel: file.gzipLevel ?? 6) }
        }
        return definitions
    }

    mutating func add(_ definition: CreateDeliveryStreamInput, gzipLevel: Int32) {
        guard
            let settings = try? DeliveryStreamSettings(
                validating: definition, gzipLevel: gzipLevel, dataDirectory: nil, lambdaFunctions: nil)
        else { return }
        // An HTTP endpoint stream's bucket (its S3 configuration's) holds no delivered record: only
        // error records and backed-up ones.
        appendsNewline[settings.name] = settings.appendsNewline && settings.httpEndpoint == nil
        if let backup = settings.backupStage {
            let layout = settings.keyLayout
            backups[settings.name] = BackupPlace(
                bucket: backup.bucket, keyStart: backup.keyLayout.prefix?.literalStart ?? "",
                streamBucket: settings.bucket,
                streamKeyStarts: [layout.prefix?.literalStart ?? "", layout.errorOutputPrefix?.literalStart ?? ""])
        }
    }
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
    var definitions = StreamDefinitions()

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
                let name = String(key[(key.lastIndex(of: "/").map { key.index(after: $0) } ?? key.startIndex)...])
                let objectStream = ObjectName.stream(of: name)
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
        var writer = JSONWriter(reservingCapacity: 32 + objects.count * 256)
        writer.beginObject()
        writer.key("objects")
        writer.beginArray()
        for object in objects {
            writer.beginObject()
            writer.key("bucket")
            writer.string(object.bucket)
            writer.key("key")
            writer.string(object.key)
            writer.key("path")
            writer.string(object.path)
            writer.key("stream")
            if let stream = object.stream { writer.string(stream) } else { writer.null() }
            writer.key("size")
            writer.integer(object.size)
            writer.key("time")
            writer.string(ISO8601Timestamp.format(object.modified))
            writer.key("records")
            if let records = object.records { writer.integer(records) } else { writer.null() }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes + [UInt8(ascii: "\n")]
    }
}

/// Firehose object names: `<stream>-<version>-<yyyy-MM-dd-HH-mm-ss>-<uuid><extension>`.
enum ObjectName {
    /// The stream part of a Firehose object name, or nil when `name` is not one.
    static func stream(of name: String) -> String? {
        let bytes = Array(name.utf8)
        // The stream may itself contain '-': try every '-' from the left until the rest fits.
        for index in bytes.indices where bytes[index] == UInt8(ascii: "-") && index > 0 {
            if matchesTail(bytes[(index + 1)...]) {
                let stream = String(decoding: bytes[..<index], as: UTF8.self)
                return stream.utf8.allSatisfy(isStreamNameByte) ? stream : nil
            }
        }
        return nil
    }

    private static func isStreamNameByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    /// `<version>-yyyy-MM-dd-HH-mm-ss-<uuid>` followed by anything (the extension).
    private static func matchesTail(_ tail: ArraySlice<UInt8>) -> Bool {
        var index = tail.startIndex
        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
        func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || (byte >= 97 && byte <= 102) }
        let versionStart = index
        while index < tail.endIndex, isDigit(tail[index]) { index += 1 }
        guard index > versionStart, index < tail.endIndex, tail[index] == UInt8(ascii: "-") else { return false }
        index += 1
        // yyyy-MM-dd-HH-mm-ss-
        for width in [4, 2, 2, 2, 2, 2] {
            guard tail.endIndex - index >= width + 1 else { return false }
            for offset in 0..<width where !isDigit(tail[index + offset]) { return false }
            guard tail[index + width] == UInt8(ascii: "-") else { return false }
            index += width + 1
        }
        // 8-4-4-4-12 lowercase hex
        for (position, width) in [8, 4, 4, 4, 12].enumerated() {
            guard tail.endIndex - index >= width else { return false }
            for offset in 0..<width where !isHex(tail[index + offset]) { return false }
            index += width
            if position < 4 {
                guard index < tail.endIndex, tail[index] == UInt8(ascii: "-") else { return false }
                index += 1
            }
        }
        return true
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
