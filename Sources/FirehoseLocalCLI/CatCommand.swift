public import ArgumentParser
import FirehoseSink

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `firehose-local cat KEY`: prints one object's content, decompressed, byte for byte.
public struct CatCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Print a delivered object's content, decompressed (reads the data directory).",
        discussion: """
            KEY is the object's key in its bucket (as `objects` prints it), or <bucket>/<key>. Without \
            --bucket every bucket is searched; a key found in more than one needs --bucket. gzip, ZIP \
            and Snappy objects are recognised by their first bytes, not their extension (Hadoop-Snappy, \
            which has none, by a .snappy name), and decompressed; the content goes to standard output \
            unchanged (binary-safe, no newline added).
            """
    )

    @Argument(help: "The object's key (or <bucket>/<key>).")
    var key: String

    @Option(
        name: .customLong("data-dir"),
        help: "Data directory the server writes into. [FIREHOSE_LOCAL_DATA_DIR] (default: ./firehose-data)")
    var dataDirectory: String?

    @Option(help: "The bucket holding the object (default: search every bucket).")
    var bucket: String?

    public init() {}

    public func run() throws {
        try CLIOutput.run { () throws(CLIError) in
            let path = try Self.resolve(
                key: key, bucket: bucket, dataDirectory: Environment.dataDirectory(dataDirectory))
            try CLIOutput.write(try ObjectReader.content(path: path))
        }
    }

    /// The file of `key`: `<data-dir>/<bucket>/<key>`, searching every bucket when none is given,
    /// and also accepting `<bucket>/<key>`. Keys never leave the data directory.
    static func resolve(key: String, bucket: String?, dataDirectory: String) throws(CLIError) -> String {
        let segments = key.split(separator: "/", omittingEmptySubsequences: false)
        guard !key.isEmpty, !key.hasPrefix("/"), !segments.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty })
        else {
            throw CLIError(
                message: "'\(key)' is not an object key (no leading /, empty, . or .. segments).", exitCode: 2)
        }
        if segments.first.map(String.init) == ObjectLister.privateFolder {
            throw CLIError(message: "'\(key)' is in the staging folder, not a delivered object.", exitCode: 2)
        }
        func isFile(_ path: String) -> Bool {
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }
        var candidates: [String] = []
        if let bucket {
            guard !bucket.isEmpty, !bucket.contains("/"), bucket != ".", bucket != "..",
                bucket != ObjectLister.privateFolder
            else { throw CLIError(message: "'\(bucket)' is not a bucket name.", exitCode: 2) }
            let path = "\(dataDirectory)/\(bucket)/\(key)"
            if isFile(path) { candidates.append(path) }
        } else {
            let buckets = BucketFolders(root: dataDirectory).buckets().map(\.name)
            for bucket in buckets where isFile("\(dataDirectory)/\(bucket)/\(key)") {
                candidates.append("\(dataDirectory)/\(bucket)/\(key)")
            }
            // <bucket>/<key>
            if segments.count > 1, buckets.contains(String(segments[0])), isFile("\(dataDirectory)/\(key)") {
                let path = "\(dataDirectory)/\(key)"
                if !candidates.contains(path) { candidates.append(path) }
            }
        }
        switch candidates.count {
        case 1:
            return candidates[0]
        case 0:
            let scope = bucket.map { "bucket \($0)" } ?? "any bucket"
            throw CLIError(message: "no object \(key) in \(scope) of \(dataDirectory).")
        default:
            throw CLIError(
                message:
                    "\(key) matches \(candidates.count) objects (\(candidates.joined(separator: ", "))); give --bucket."
            )
        }
    }
}
