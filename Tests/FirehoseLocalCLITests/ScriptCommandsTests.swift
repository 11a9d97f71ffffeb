import ArgumentParser
import FirehoseSink
import FirehoseWire
import Foundation
import Testing

@testable import FirehoseLocalCLI

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Helpers

/// A temporary data directory with objects written at chosen modification times.
final class DataDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("objects-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ relative: String, _ bytes: [UInt8], modified: Date? = nil) throws -> String {
        let file = "\(path)/\(relative)"
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        if let modified {
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file)
        }
        return file
    }
}

func gzip(_ text: String) throws -> [UInt8] {
    let compressor = try GzipCompressor(level: 6)
    compressor.append(Array(text.utf8))
    compressor.finish()
    return compressor.takeOutput()
}

let epoch2026 = Date(timeIntervalSince1970: 1_795_266_309)  // 2026-11-21T13:05:09Z
let uuidA = "3f1c9c0e-8d3b-4a63-9a57-2c1bd0f3f0a1"
let uuidB = "0a6e4a4d-5b2e-4c1b-8f00-7d1e2c3b4a59"

/// Accepts connections on a loopback port and answers each with a canned response (or nothing),
/// recording the requests it read.
final class CannedHTTPServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let recorder = Recorder()
    private let done = DispatchSemaphore(value: 0)
    private let thread: Thread

    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [String] = []

        func record(_ request: String) {
            lock.lock()
            requests.append(request)
            lock.unlock()
        }

        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return requests
        }
    }

    /// `response` nil: accept and read, then never answer (until the server is closed).
    init(response: [UInt8]?) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        try #require(listen(fd, 8) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let recorder = recorder
        let done = done
        thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { break }
                var received: [UInt8] = []
                while String(decoding: received, as: UTF8.self).range(of: "\r\n\r\n") == nil {
                    let count = recv(client, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[..<count]
                }
                recorder.record(String(decoding: received, as: UTF8.self))
                if let response {
                    _ = response.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                } else {
                    // Never answer: wait until the client gives up and closes.
                    while recv(client, &buffer, buffer.count, 0) > 0 {}
                }
                close(client)
            }
            // Closed only here, so the descriptor number cannot be reused while accept may use it.
            close(fd)
            done.signal()
        }
        thread.start()
    }

    var endpoint: ServerEndpoint { .init(host: "127.0.0.1", port: port) }

    var received: [String] { recorder.all }

    /// Stops listening and waits until the port is closed.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        _ = done.wait(timeout: .now() + 10)
    }

    static func response(status: String, headers: [String] = [], body: String) -> [UInt8] {
        var head = "HTTP/1.1 \(status)\r\n"
        for header in headers { head += header + "\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
    }
}

extension ServerEndpoint {
    init(host: String, port: Int) {
        try! self.init(parsing: "http://\(host):\(port)")
    }
}

func cliError(_ body: () throws(CLIError) -> Void) -> CLIError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

func asyncCLIError(_ body: () async throws(CLIError) -> Void) async -> CLIError? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

// MARK: - Command-line parsing

@Suite struct ScriptCommandParsingTests {
    @Test func subcommandsAreRegistered() throws {
        let flush = try #require(
            try FirehoseLocalCommand.parseAsRoot(["flush", "--stream", "s", "--json"]) as? FlushCommand)
        #expect(flush.stream == "s")
        #expect(flush.json)
        #expect(flush.endpoint == nil)
        #expect(flush.timeout == 120)

        let objects = try #require(
            try FirehoseLocalCommand.parseAsRoot([
                "objects", "--data-dir", "/d", "--bucket", "b", "--stream", "s", "--since", "10m", "--config", "c.yaml",
                "--json",
            ]) as? ObjectsCommand)
        #expect(objects.selection.dataDirectory == "/d")
        #expect(objects.selection.bucket == "b")
        #expect(objects.selection.stream == "s")
        #expect(objects.selection.since == "10m")
        #expect(objects.selection.config == "c.yaml")
        #expect(objects.json)

        let cat = try #require(try FirehoseLocalCommand.parseAsRoot(["cat", "a/b.gz", "--bucket", "x"]) as? CatCommand)
        #expect(cat.key == "a/b.gz")
        #expect(cat.bucket == "x")

        // serve stays the default.
        #expect(try FirehoseLocalCommand.parseAsRoot(["--port", "0"]) is ServeCommand)
    }

    @Test func badSinceIsAUsageError() {
        #expect(throws: (any Error).self) { try FirehoseLocalCommand.parseAsRoot(["objects", "--since", "yesterday"]) }
        #expect(throws: (any Error).self) { try FirehoseLocalCommand.parseAsRoot(["flush", "--timeout", "0"]) }
        #expect(throws: (any Error).self) { try FirehoseLocalCommand.parseAsRoot(["cat"]) }
    }

    @Test func helpExplainsRecordCounts() {
        let help = ObjectsCommand.helpMessage()
        #expect(help.contains("AppendDelimiterToRecord"))
        #expect(help.contains("newlines"))
        #expect(help.contains("null"))
    }

    @Test func endpoints() throws {
        #expect(try ServerEndpoint(parsing: "http://127.0.0.1:4573") == .init(host: "127.0.0.1", port: 4573))
        #expect(try ServerEndpoint(parsing: "http://localhost:9000/") == .init(host: "localhost", port: 9000))
        #expect(try ServerEndpoint(parsing: "HTTP://example") == .init(host: "example", port: 80))
        let v6 = try ServerEndpoint(parsing: "http://[::1]:4573")
        #expect(v6.host == "::1")
        #expect(v6.port == 4573)
        #expect(v6.url == "http://[::1]:4573")
        for bad in [
            "https://127.0.0.1:4573", "127.0.0.1:4573", "http://:4573", "http://h:0", "http://h:x", "http://h/api",
        ] {
            let error = cliError { () throws(CLIError) in _ = try ServerEndpoint(parsing: bad) }
            #expect(error?.exitCode == 2, "\(bad)")
            #expect(error?.message.contains("invalid endpoint") == true, "\(bad)")
        }
    }
}

// MARK: - Time

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-11-21T13:05:09Z", 1_795_266_309.0), ("2026-11-21T13:05:09.5Z", 1_795_266_309.5),
        ("2026-11-21T13:05:09", 1_795_266_309), ("2026-11-21 13:05:09z", 1_795_266_309),
        ("2026-11-21T14:05:09+01:00", 1_795_266_309), ("2026-11-21T08:05:09-0500", 1_795_266_309),
        ("2026-11-21T13:05Z", 1_795_266_300), ("2026-11-21", 1_795_219_200), ("2000-02-29", 951_782_400),
    ])
    func iso8601(text: String, seconds: Double) throws {
        let date = try #require(Timestamps.parseSince(text, now: epoch2026))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0001)
    }

    @Test(arguments: [("10m", 600.0), ("90s", 90), ("1.5h", 5400), ("2d", 172_800), ("45", 45), ("0", 0)])
    func timeAgo(text: String, seconds: Double) throws {
        let date = try #require(Timestamps.parseSince(text, now: epoch2026))
        #expect(epoch2026.timeIntervalSince(date) == seconds)
    }

    @Test(arguments: [
        "", "yesterday", "10 m", "-5m", "10w", "2026-13-01", "2026-02-30", "2026-11-21T25:00:00Z",
        "2026-11-21T13:05:09X",
        "2026-11-21T", "m", "1e3s",
    ])
    func rejected(text: String) {
        #expect(Timestamps.parseSince(text, now: epoch2026) == nil)
    }
}

// MARK: - objects

@Suite struct ObjectListingTests {
    @Test func objectNamesGiveTheStream() {
        #expect(ObjectName.stream(of: "app-events-1-2026-11-21-13-05-09-\(uuidA).gz") == "app-events")
        #expect(ObjectName.stream(of: "s-12-2026-11-21-13-05-09-\(uuidA)") == "s")
        #expect(ObjectName.stream(of: "a-2-1-2026-11-21-13-05-09-\(uuidA).json.gz") == "a-2")
        #expect(ObjectName.stream(of: "my.stream_x-1-2026-11-21-13-05-09-\(uuidA).jsonl") == "my.stream_x")
        #expect(ObjectName.stream(of: "notes.txt") == nil)
        #expect(ObjectName.stream(of: "-1-2026-11-21-13-05-09-\(uuidA)") == nil)
        #expect(ObjectName.stream(of: "s-1-2026-11-21-13-05-\(uuidA)") == nil)
        #expect(ObjectName.stream(of: "s-1-2026-11-21-13-05-09-3F1C9C0E-8D3B-4A63-9A57-2C1BD0F3F0A1") == nil)
    }

    /// Two buckets, gzip and plain objects, a nested prefix, a foreign file and staging files.
    func prepared() throws -> DataDirectory {
        let data = try DataDirectory()
        try data.write(
            "logs/2026/11/21/13/lines-1-2026-11-21-13-05-09-\(uuidA).gz", try gzip("one\ntwo\nthree\n"),
            modified: epoch2026)
        try data.write(
            "logs/2026/11/21/13/raw-1-2026-11-21-13-05-10-\(uuidB)", Array("abc".utf8),
            modified: epoch2026.addingTimeInterval(60))
        try data.write(
            "other/events/lines-2-2026-11-21-13-06-00-\(uuidB).json.gz", try gzip("x\n"),
            modified: epoch2026.addingTimeInterval(120))
        try data.write("other/README", Array("not an object".utf8), modified: epoch2026.addingTimeInterval(-60))
        try data.write(".firehose-local/staging/x.partial", [1, 2, 3])
        try data.write(".firehose-local/streams.json", Array(#"{"format":1,"streams":[]}"#.utf8))
        try data.write("logs/.firehose-local/odd", [1])
        return data
    }

    @Test func listsEveryObjectOldestFirstWithoutStaging() throws {
        let data = try prepared()
        let objects = try ObjectLister(dataDirectory: data.path).list()
        #expect(
            objects.map { "\($0.bucket)/\($0.key)" } == [
                "other/README",
                "logs/2026/11/21/13/lines-1-2026-11-21-13-05-09-\(uuidA).gz",
                "logs/2026/11/21/13/raw-1-2026-11-21-13-05-10-\(uuidB)",
                "other/events/lines-2-2026-11-21-13-06-00-\(uuidB).json.gz",
            ])
        #expect(objects.map(\.stream) == [nil, "lines", "raw", "lines"])
        #expect(objects[2].size == 3)
        #expect(objects[1].size == (try gzip("one\ntwo\nthree\n")).count)
        #expect(objects[1].modified == epoch2026)
        #expect(objects[1].path == "\(data.path)/\(objects[1].bucket)/\(objects[1].key)")
        // Without stream definitions no record count is knowable.
        #expect(objects.allSatisfy { $0.records == nil })
    }

    @Test func filtersByBucketStreamAndSince() throws {
        let data = try prepared()
        let lister = ObjectLister(dataDirectory: data.path)
        #expect(try lister.list(bucket: "logs").count == 2)
        #expect(try lister.list(bucket: "missing").isEmpty)
        #expect(try lister.list(stream: "lines").map(\.bucket) == ["logs", "other"])
        #expect(try lister.list(bucket: "other", stream: "lines").count == 1)
        #expect(try lister.list(since: epoch2026.addingTimeInterval(60)).map(\.stream) == ["raw", "lines"])
        #expect(try lister.list(since: epoch2026.addingTimeInterval(121)).isEmpty)
        let since = try #require(Timestamps.parseSince("2026-11-21T13:05:09Z", now: Date()))
        #expect(try lister.list(stream: "lines", since: since).count == 2)
    }

    @Test func recordCountsForStreamsThatAppendNewlines() throws {
        let data = try prepared()
        let lister = ObjectLister(
            dataDirectory: data.path, definitions: LineDelimitedObjects(appendsNewline: ["lines": true, "raw": false]))
        let objects = try lister.list()
        #expect(objects.map(\.records) == [nil, 3, nil, 1])
    }

    @Test func plainOutputIsOneTabSeparatedLinePerObject() throws {
        let data = try prepared()
        let lister = ObjectLister(
            dataDirectory: data.path, definitions: LineDelimitedObjects(appendsNewline: ["lines": true]))
        let text = String(decoding: ObjectLister.lines(try lister.list(bucket: "logs")), as: UTF8.self)
        let size = (try gzip("one\ntwo\nthree\n")).count
        #expect(
            text == """
                logs\t2026/11/21/13/lines-1-2026-11-21-13-05-09-\(uuidA).gz\t\(size)\t2026-11-21T13:05:09.000Z\t3
                logs\t2026/11/21/13/raw-1-2026-11-21-13-05-10-\(uuidB)\t3\t2026-11-21T13:06:09.000Z\t-

                """)
        #expect(ObjectLister.lines([]).isEmpty)
    }

    @Test func jsonOutputIsOneDocument() throws {
        let data = try prepared()
        let lister = ObjectLister(
            dataDirectory: data.path, definitions: LineDelimitedObjects(appendsNewline: ["lines": true]))
        let bytes = ObjectLister.json(try lister.list())
        #expect(bytes.last == UInt8(ascii: "\n"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let objects = try #require(document["objects"] as? [[String: Any]])
        #expect(objects.count == 4)
        #expect(objects[0]["stream"] is NSNull)
        #expect(objects[0]["records"] is NSNull)
        #expect(objects[1]["bucket"] as? String == "logs")
        #expect(objects[1]["stream"] as? String == "lines")
        #expect(objects[1]["records"] as? Int == 3)
        #expect(objects[1]["time"] as? String == "2026-11-21T13:05:09.000Z")
        #expect((objects[1]["path"] as? String)?.hasPrefix(data.path + "/logs/2026/") == true)
        #expect(objects[2]["size"] as? Int == 3)
        #expect(Set(objects[3].keys) == ["bucket", "key", "path", "stream", "size", "time", "records"])
        #expect(ObjectLister.json([]) == Array(#"{"objects":[]}"#.utf8) + [10])
    }

    @Test func missingDataDirectoryIsAnError() {
        let error = cliError { () throws(CLIError) in
            _ = try ObjectLister(dataDirectory: "/nonexistent/firehose").list()
        }
        #expect(error?.message.contains("/nonexistent/firehose does not exist") == true)
        let bucket = cliError { () throws(CLIError) in
            _ = try ObjectLister(dataDirectory: "/tmp").list(bucket: "../etc")
        }
        #expect(bucket?.exitCode == 2)
    }

    @Test func streamDefinitionsComeFromTheConfigFileAndTheSavedCatalog() throws {
        let data = try DataDirectory()
        // As the sink saves API-created streams; the CLI reads them through the sink.
        try data.write(
            ".firehose-local/streams.json",
            Array(
                #"""
                {"format": 1, "streams": [
                  {"definition": {"DeliveryStreamName": "api-delim", "ExtendedS3DestinationConfiguration": {
                     "BucketARN": "arn:aws:s3:::b", "ProcessingConfiguration": {"Enabled": true,
                     "Processors": [{"Type": "AppendDelimiterToRecord"}]}}},
                   "versionID": 1, "createTime": 0, "tags": [], "origin": "api", "activeAt": 0},
                  {"definition": {"DeliveryStreamName": "clash", "S3DestinationConfiguration": {"BucketARN": "arn:aws:s3:::b"}},
                   "versionID": 1, "createTime": 0, "tags": [], "origin": "api", "activeAt": 0},
                  {"definition": {"DeliveryStreamName": "api-plain", "S3DestinationConfiguration": {"BucketARN": "arn:aws:s3:::b"}},
                   "versionID": 1, "createTime": 0, "tags": [], "origin": "api", "activeAt": 0}
                ]}
                """#.utf8))
        let config = try data.write(
            "config.yaml",
            Array(
                """
                DeliveryStreams:
                  - DeliveryStreamName: file-delim
                    ExtendedS3DestinationConfiguration:
                      BucketARN: arn:aws:s3:::b
                      ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
                  - DeliveryStreamName: clash
                    ExtendedS3DestinationConfiguration:
                      BucketARN: arn:aws:s3:::b
                      ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
                """.utf8))
        let definitions = try LineDelimitedObjects.load(dataDirectory: data.path, configPath: config)
        #expect(
            definitions.appendsNewline == ["api-delim": true, "api-plain": false, "file-delim": true, "clash": true])
        let withoutConfig = try LineDelimitedObjects.load(dataDirectory: data.path, configPath: nil)
        #expect(withoutConfig.appendsNewline == ["api-delim": true, "api-plain": false, "clash": false])
        let badConfig = cliError { () throws(CLIError) in
            _ = try LineDelimitedObjects.load(dataDirectory: data.path, configPath: "\(data.path)/missing.yaml")
        }
        #expect(badConfig?.message.contains("missing.yaml") == true)
        // No catalog at all: nothing known.
        let empty = try DataDirectory()
        #expect(try LineDelimitedObjects.load(dataDirectory: empty.path, configPath: nil).appendsNewline.isEmpty)
    }

    @Test("Records are counted in a stream's objects, not in its backup's, even in one bucket")
    func backupObjectsAreNotCountedAsLines() throws {
        let data = try DataDirectory()
        let config = try data.write(
            "config.yaml",
            Array(
                """
                DeliveryStreams:
                  - DeliveryStreamName: apart
                    ExtendedS3DestinationConfiguration:
                      BucketARN: arn:aws:s3:::b
                      Prefix: events/
                      ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
                      S3BackupMode: Enabled
                      S3BackupConfiguration: {BucketARN: "arn:aws:s3:::b", Prefix: "events/source/"}
                  - DeliveryStreamName: alike
                    ExtendedS3DestinationConfiguration:
                      BucketARN: arn:aws:s3:::b
                      ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
                      S3BackupMode: Enabled
                      S3BackupConfiguration: {BucketARN: "arn:aws:s3:::b"}
                  - DeliveryStreamName: errors
                    ExtendedS3DestinationConfiguration:
                      BucketARN: arn:aws:s3:::b
                      Prefix: data/
                      ErrorOutputPrefix: errors/
                      ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
                      S3BackupMode: Enabled
                      S3BackupConfiguration: {BucketARN: "arn:aws:s3:::b", Prefix: "backup/"}
                  - DeliveryStreamName: web
                    HttpEndpointDestinationConfiguration:
                      EndpointConfiguration: {Url: "http://127.0.0.1:9/"}
                      ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
                      S3BackupMode: AllData
                      S3Configuration: {BucketARN: "arn:aws:s3:::b"}
                """.utf8))
        let definitions = try LineDelimitedObjects.load(dataDirectory: data.path, configPath: config)
        #expect(definitions.recordsAreLines(stream: "apart", bucket: "b", key: "events/2026/11/26/apart-1-x"))
        #expect(!definitions.recordsAreLines(stream: "apart", bucket: "b", key: "events/source/2026/apart-1-x"))
        // Error objects under their own prefix hold one JSON line per record too.
        #expect(definitions.recordsAreLines(stream: "errors", bucket: "b", key: "errors/processing-failed/errors-1-x"))
        #expect(definitions.recordsAreLines(stream: "errors", bucket: "b", key: "data/2026/errors-1-x"))
        #expect(!definitions.recordsAreLines(stream: "errors", bucket: "b", key: "backup/2026/errors-1-x"))
        // The same prefix for both: which is which cannot be told.
        #expect(!definitions.recordsAreLines(stream: "alike", bucket: "b", key: "2026/11/26/10/alike-1-x"))
        // An HTTP endpoint stream's bucket holds only failed and backed-up records.
        #expect(!definitions.recordsAreLines(stream: "web", bucket: "b", key: "2026/11/26/10/web-1-x"))
    }
}

// MARK: - cat

@Suite struct CatTests {
    @Test func gzipIsRecognisedByItsBytesNotItsName() throws {
        let data = try DataDirectory()
        let hidden = try data.write("b/k/object.json", try gzip("inside\n"))
        let named = try data.write("b/k/plain.gz", Array("not gzip at all".utf8))
        #expect(try ObjectReader.content(path: hidden) == Array("inside\n".utf8))
        #expect(try ObjectReader.content(path: named) == Array("not gzip at all".utf8))
    }

    @Test func binaryContentIsUnchanged() throws {
        let data = try DataDirectory()
        let bytes = (0...255).map(UInt8.init) + [0x1F, 0x8B, 0, 13, 10, 0xFF]
        let plain = try data.write("b/binary", bytes)
        #expect(try ObjectReader.content(path: plain) == bytes)
        let compressor = try GzipCompressor(level: 9)
        compressor.append(bytes)
        compressor.finish()
        let compressed = try data.write("b/binary.gz", compressor.takeOutput())
        #expect(try ObjectReader.content(path: compressed) == bytes)
        // Concatenated gzip members are one object.
        let twice = try data.write("b/twice.gz", try gzip("a\n") + (try gzip("b\n")))
        #expect(try ObjectReader.content(path: twice) == Array("a\nb\n".utf8))
    }

    @Test func corruptGzipIsAnError() throws {
        let data = try DataDirectory()
        let path = try data.write("b/broken.gz", [0x1F, 0x8B, 8, 0, 1, 2, 3])
        let error = cliError { () throws(CLIError) in _ = try ObjectReader.content(path: path) }
        #expect(error?.message.contains("not valid gzip") == true)
    }

    @Test func keysResolveInAnyBucketOrAsBucketSlashKey() throws {
        let data = try DataDirectory()
        let only = try data.write("alpha/2026/one.gz", [1])
        try data.write("alpha/shared", [2])
        let sharedBeta = try data.write("beta/shared", [3])
        #expect(try CatCommand.resolve(key: "2026/one.gz", bucket: nil, dataDirectory: data.path) == only)
        #expect(try CatCommand.resolve(key: "alpha/2026/one.gz", bucket: nil, dataDirectory: data.path) == only)
        #expect(try CatCommand.resolve(key: "2026/one.gz", bucket: "alpha", dataDirectory: data.path) == only)
        #expect(try CatCommand.resolve(key: "shared", bucket: "beta", dataDirectory: data.path) == sharedBeta)
        #expect(try CatCommand.resolve(key: "beta/shared", bucket: nil, dataDirectory: data.path) == sharedBeta)

        let ambiguous = cliError { () throws(CLIError) in
            _ = try CatCommand.resolve(key: "shared", bucket: nil, dataDirectory: data.path)
        }
        #expect(ambiguous?.message.contains("give --bucket") == true)
        let missing = cliError { () throws(CLIError) in
            _ = try CatCommand.resolve(key: "2026/one.gz", bucket: "beta", dataDirectory: data.path)
        }
        #expect(missing?.message.contains("no object 2026/one.gz in bucket beta") == true)
    }

    @Test(arguments: [
        "../etc/passwd", "/etc/passwd", "a/../../x", "a//b", "./a", "", ".firehose-local/staging/x.partial",
    ])
    func keysNeverLeaveTheDataDirectory(key: String) throws {
        let data = try DataDirectory()
        try data.write(".firehose-local/staging/x.partial", [1])
        let error = cliError { () throws(CLIError) in
            _ = try CatCommand.resolve(key: key, bucket: nil, dataDirectory: data.path)
        }
        #expect(error?.exitCode == 2)
    }
}

// MARK: - flush (HTTP)

@Suite struct FlushClientTests {
    @Test func printsOneLinePerObjectOrTheJSON() async throws {
        let body = #"""
            {"objects":[{"stream":"s","bucket":"b","key":"2026/11/21/13/s-1-x.gz","records":3,"bytes":12,"storedBytes":40},{"stream":"t","bucket":"c","key":"t-1-y","records":1,"bytes":5,"storedBytes":5}]}
            """#
        let server = try CannedHTTPServer(
            response: CannedHTTPServer.response(
                status: "200 OK", headers: ["Content-Type: application/json"], body: body))
        defer { server.stop() }
        let lines = try await FlushCommand.flush(endpoint: server.endpoint, stream: "a b/c", json: false, timeout: 10)
        #expect(String(decoding: lines, as: UTF8.self) == "b\t2026/11/21/13/s-1-x.gz\t3\t40\nc\tt-1-y\t1\t5\n")
        let json = try await FlushCommand.flush(endpoint: server.endpoint, stream: nil, json: true, timeout: 10)
        #expect(String(decoding: json, as: UTF8.self) == body + "\n")
        let requests = server.received
        #expect(requests.count == 2)
        #expect(requests[0].hasPrefix("POST /_local/flush?stream=a%20b%2Fc HTTP/1.1\r\n"))
        #expect(requests[0].contains("\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        #expect(requests[0].contains("\r\nContent-Length: 0\r\n"))
        #expect(requests[1].hasPrefix("POST /_local/flush HTTP/1.1\r\n"))
    }

    @Test func nothingToFlushPrintsNothing() async throws {
        let server = try CannedHTTPServer(
            response: CannedHTTPServer.response(status: "200 OK", body: #"{"objects":[]}"#))
        defer { server.stop() }
        #expect(try await FlushCommand.flush(endpoint: server.endpoint, stream: nil, json: false, timeout: 10).isEmpty)
    }

    @Test func serverErrorsAreReportedWithTheirCode() async throws {
        let server = try CannedHTTPServer(
            response: CannedHTTPServer.response(
                status: "404 Not Found", headers: ["x-amzn-ErrorType: ResourceNotFoundException"],
                body:
                    #"{"__type":"ResourceNotFoundException","message":"Firehose nope under account 000000000000 not found."}"#
            ))
        defer { server.stop() }
        let error = await asyncCLIError { () async throws(CLIError) in
            _ = try await FlushCommand.flush(endpoint: server.endpoint, stream: "nope", json: false, timeout: 10)
        }
        #expect(
            error?.message
                == "flush failed: HTTP 404 ResourceNotFoundException: Firehose nope under account 000000000000 not found."
        )
        #expect(error?.exitCode == 1)
    }

    @Test func unreachableServerIsAClearError() async throws {
        // A port that was just free: nothing listens there.
        let server = try CannedHTTPServer(response: nil)
        let port = server.port
        server.stop()
        let error = await asyncCLIError { () async throws(CLIError) in
            _ = try await FlushCommand.flush(
                endpoint: .init(host: "127.0.0.1", port: port), stream: nil, json: false, timeout: 5)
        }
        #expect(error?.message.contains("cannot reach firehose-local at http://127.0.0.1:\(port)") == true)
        #expect(error?.message.contains("Connection refused. Is `firehose-local serve` running there?") == true)
        #expect(error?.message.contains("FIREHOSE_LOCAL_ENDPOINT") == true)
    }

    @Test func silentServerTimesOut() async throws {
        let server = try CannedHTTPServer(response: nil)
        defer { server.stop() }
        let started = Date()
        let error = await asyncCLIError { () async throws(CLIError) in
            _ = try await FlushCommand.flush(endpoint: server.endpoint, stream: nil, json: false, timeout: 0.3)
        }
        #expect(error?.message.contains("no answer within 0.3 s") == true)
        // Far below the 120 s default, with room for the whole suite loading both cores (the answer is
        // awaited on the transport's dispatch queue, which then waits its turn: 0.3 s alone, 11 s seen
        // under the full suite).
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test func queryValuesArePercentEncoded() {
        #expect(FlushCommand.percentEncoded("a-b_c.d~e f/ü") == "a-b_c.d~e%20f%2F%C3%BC")
    }
}
