import FirehoseKeyLayout
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import HTTPTransports
import Logging
import Synchronization
import Testing

/// 2026-11-21T13:05:09Z, the manual clock's starting instant.
let fixedNow = Date(timeIntervalSince1970: 1_795_266_309)

/// So generated records are reproducible.
typealias SeededGenerator = SeededBytes

/// Everything the sink reported through `onDelivery`, fed by an AsyncStream so delivery callbacks
/// never block the sink, and drained into a list tests can wait on with a timeout.
final class DeliveryLog: Sendable {
    private final class Store: Sendable {
        let objects = Mutex<[DeliveredObject]>([])
    }

    private let store = Store()
    let continuation: AsyncStream<DeliveredObject>.Continuation
    private let drain: Task<Void, Never>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: DeliveredObject.self)
        self.continuation = continuation
        let store = store
        drain = Task {
            for await object in stream {
                store.objects.withLock { $0.append(object) }
            }
        }
    }

    var objects: [DeliveredObject] { store.objects.withLock { $0 } }

    /// Waits (bounded) until at least `count` objects were reported; returns all reported so far.
    /// The bound is `eventually`'s minute: a timer's delivery on a loaded two-core CI machine was seen
    /// to take over 5 s, and the wait ends as soon as the objects are there.
    @discardableResult
    func wait(count: Int, timeout: Duration = .seconds(60)) async throws -> [DeliveredObject] {
        try await eventually(timeout: timeout, "\(count) deliveries (have \(objects.count))") { objects.count >= count }
        return objects
    }

    func finish() async {
        continuation.finish()
        await drain.value
    }
}

/// A sink over a fresh temporary data directory with a manual clock.
final class SinkHarness: Sendable {
    let directory: String
    let clock: ManualClock
    let log: DeliveryLog
    let sink: FirehoseSink

    /// - Parameter destination: the destination stage; nil: the data directory's bucket folders.
    /// - Parameter httpTransport: what HTTP endpoint destinations are sent through.
    init(
        now: Date = fixedNow, destination: (any ObjectDestination)? = nil, maxActivePartitions: Int = 500,
        httpTransport: (any HTTPTransport)? = nil, stores: [String: S3Store] = [:], encodingBacklogBytes: Int = 32 << 20
    ) throws {
        let path = try Self.makeDirectory()
        directory = path
        clock = ManualClock(date: now)
        let log = DeliveryLog()
        self.log = log
        var configuration = FirehoseSink.Configuration(dataDirectory: path)
        configuration.destination = destination
        configuration.stores = stores
        // Retries exactly on their backoff, so tests can time them.
        configuration.retryJitter = 1.0...1.0
        configuration.maxActivePartitions = maxActivePartitions
        configuration.encodingBacklogBytes = encodingBacklogBytes
        if let httpTransport { configuration.httpTransport = httpTransport }
        sink = try FirehoseSink(
            configuration: configuration, clock: clock, now: clock.wallClock,
            logger: Logger(label: "firehose-sink-tests", factory: { _ in SwiftLogNoOpLogHandler() }),
            onDelivery: { log.continuation.yield($0) })
    }

    static func makeDirectory() throws -> String {
        var template = Array("/tmp/firehose-sink-test.XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return try #require(created.map { String(cString: $0) })
    }

    /// Runs `body` with a fresh empty directory, removed afterwards.
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    var stagingDirectory: String { "\(directory)/.firehose-local/staging" }

    func bucketPath(_ bucket: String = "demo-bucket") -> String { "\(directory)/\(bucket)" }

    /// Runs `body` with a harness and always cleans up: shuts the sink down (which cancels interval
    /// timers), ends the delivery stream and removes the directory.
    static func with(
        now: Date = fixedNow, destination: (any ObjectDestination)? = nil, maxActivePartitions: Int = 500,
        httpTransport: (any HTTPTransport)? = nil, stores: [String: S3Store] = [:],
        encodingBacklogBytes: Int = 32 << 20,
        _ body: (SinkHarness) async throws -> Void
    ) async throws {
        let harness = try SinkHarness(
            now: now, destination: destination, maxActivePartitions: maxActivePartitions, httpTransport: httpTransport,
            stores: stores, encodingBacklogBytes: encodingBacklogBytes)
        do {
            try await body(harness)
        } catch {
            await harness.tearDown()
            throw error
        }
        await harness.tearDown()
    }

    func tearDown() async {
        // Shutdown delivers what is left (and only logs if an obstacle left by a failure test is
        // still there); it also cancels the interval timers sleeping on the manual clock.
        await sink.shutdown()
        await log.finish()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Names of the regular files under `path`, recursively, relative to it, sorted.
    func files(under path: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
        var names: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(path)/\(name)", isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                names.append(name)
            }
        }
        return names.sorted()
    }

    /// The staged buffers: `*.partial` files in the staging folder (side files such as journals,
    /// if the sink keeps any, are not counted).
    var stagedFiles: [String] { files(under: stagingDirectory).filter { $0.hasSuffix(".partial") } }

    /// Nothing at all is left in the staging folder.
    var stagingIsEmpty: Bool { files(under: stagingDirectory).isEmpty }

    func contents(_ path: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: path), "no file at \(path)"))
    }

    func contents(of object: DeliveredObject) throws -> [UInt8] {
        try contents(object.path)
    }

    /// Flips one bit of the one staged buffer of "demo" (a buffer staged as it is, encoded at
    /// delivery) and checks that its delivery fails, nothing reaches a bucket and the buffer stays.
    func expectChangedStagedContentRefused() async throws {
        let partial = "\(stagingDirectory)/\(try #require(stagedFiles.first))"
        var bytes = try contents(partial)
        bytes[bytes.count - 3] ^= 0x01  // same length, one bit flipped
        try Data(bytes).write(to: URL(fileURLWithPath: partial))
        await #expect(throws: (any Error).self) { try await sink.flush(stream: "demo") }
        #expect(files(under: directory).allSatisfy { $0.hasPrefix(".firehose-local/") })
        #expect(stagedFiles.count == 1)
    }

    @discardableResult
    func put(_ records: [[UInt8]], to stream: String = "demo") async throws -> [DeliveredObject] {
        try await sink.put(RecordBatch(records), to: stream)
    }

    @discardableResult
    func put(_ records: [String], to stream: String = "demo") async throws -> [DeliveredObject] {
        try await put(records.map { Array($0.utf8) }, to: stream)
    }
}

func destination(
    bucket: String = "demo-bucket", prefix: String? = nil, errorOutputPrefix: String? = nil,
    sizeInMBs: Int? = 128, intervalInSeconds: Int? = 900, compression: String? = nil, delimiter: Bool = false,
    fileExtension: String? = nil
) -> ExtendedS3DestinationConfiguration {
    ExtendedS3DestinationConfiguration(
        bucketARN: "arn:aws:s3:::\(bucket)", prefix: prefix, errorOutputPrefix: errorOutputPrefix,
        bufferingHints: sizeInMBs == nil && intervalInSeconds == nil
            ? nil : BufferingHints(sizeInMBs: sizeInMBs, intervalInSeconds: intervalInSeconds),
        compressionFormat: compression,
        processingConfiguration: delimiter
            ? ProcessingConfiguration(enabled: true, processors: [Processor(type: "AppendDelimiterToRecord")]) : nil,
        fileExtension: fileExtension)
}

/// The settings the API layer resolves from `destination` (it validates; the sink takes them as they
/// are, so these fixtures build them directly).
func settings(
    stream: String = "demo", _ destination: ExtendedS3DestinationConfiguration = destination(), gzipLevel: Int32 = 6
) throws -> DeliveryStreamSettings {
    let compression = try #require(
        DeliveryStreamSettings.Compression(rawValue: destination.compressionFormat ?? "UNCOMPRESSED"))
    let fileExtension = destination.fileExtension ?? ""
    let bucketARN = try #require(destination.bucketARN)
    return DeliveryStreamSettings(
        name: stream, bucket: String(bucketARN.dropFirst("arn:aws:s3:::".count)),
        keyLayout: try ObjectKeyLayout(
            streamName: stream, prefix: destination.prefix, errorOutputPrefix: destination.errorOutputPrefix,
            fileExtension: fileExtension.isEmpty ? compression.defaultExtension : fileExtension,
            customTimeZone: destination.customTimeZone),
        compression: compression, gzipLevel: gzipLevel,
        bufferSizeBytes: (destination.bufferingHints?.sizeInMBs ?? 5) * 1_048_576,
        bufferIntervalSeconds: destination.bufferingHints?.intervalInSeconds ?? 300,
        appendsNewline: destination.processingConfiguration?.processors?.contains {
            $0.type == "AppendDelimiterToRecord"
        } ?? false,
        definition: CreateDeliveryStreamInput(
            deliveryStreamName: stream, deliveryStreamType: "DirectPut", extendedS3DestinationConfiguration: destination
        ))
}

/// The object key AWS would give for `stream` at the fixed clock, up to the UUID and extension.
func keyPattern(
    prefix: String = "2026/11/21/13/", stream: String = "demo", time: String = "2026-11-21-13-05-09", ext: String = ""
)
    throws -> Regex<AnyRegexOutput>
{
    func escape(_ text: String) -> String {
        text.map { ".+*?()[]{}|^$\\/".contains($0) ? "\\\($0)" : String($0) }.joined()
    }
    return try Regex(
        "^\(escape(prefix))\(escape(stream))-1-\(time)-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\(escape(ext))$"
    )
}

extension String {
    func matches(_ regex: Regex<AnyRegexOutput>) -> Bool { (try? regex.wholeMatch(in: self)) != nil }
}

/// A transport that answers from a script and keeps every request.
final class ScriptedEndpoint: HTTPTransport {
    enum Answer {
        case status(Int, String)
        /// This answer as it is.
        case response(HTTPResponse)
        /// The request's own id echoed, as a conforming endpoint answers.
        case acknowledge
        case failure(any Error & Sendable)
        /// No answer until the request is cancelled.
        case hang
    }

    private let state: Mutex<(answers: [Answer], requests: [HTTPRequest])>
    private let then: Answer

    /// Answers `answers` in order, then `then` to every further request.
    init(_ answers: [Answer], then: Answer = .acknowledge) {
        state = Mutex((answers, []))
        self.then = then
    }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer = state.withLock { state -> Answer in
            state.requests.append(request)
            return state.answers.isEmpty ? then : state.answers.removeFirst()
        }
        switch answer {
        case .status(let status, let body):
            return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        case .response(let response):
            return response
        case .acknowledge:
            let id = request.header("X-Amz-Firehose-Request-Id") ?? ""
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: Array(#"{"requestId":"\#(id)","timestamp":1}"#.utf8))
        case .failure(let failure):
            throw failure
        case .hang:
            try await Task.sleep(for: .seconds(3600))
            throw TransportFailure("unanswered", reason: "no answer")
        }
    }
}
