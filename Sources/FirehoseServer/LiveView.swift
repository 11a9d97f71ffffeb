import CivilTime
import DurableStorage
import FirehoseService
import FirehoseSink
import FirehoseWire
import ServerCore
import ServiceLifecycle
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The live view's files, embedded in the binary (`Sources/FirehoseServer/UI`): no CDN, no build.
enum LiveViewPage {
    static let files: [String: (contentType: String, bytes: [UInt8])] = [
        "/_local/ui": ("text/html; charset=utf-8", PackageResources.index_html),
        "/_local/ui/app.js": ("text/javascript; charset=utf-8", PackageResources.app_js),
        "/_local/ui/app.css": ("text/css; charset=utf-8", PackageResources.app_css),
    ]
}

/// What `/_local/events` sends next: the streams document and the fault rules when they differ from
/// what was sent, and the deliveries after the last one sent, as Server-Sent Events. Pure: the
/// connection's loop hands it what it read and writes what comes back.
struct LiveEventStream {
    /// The process's deliveries are numbered in (`RecentDeliveries.boot`).
    let boot: String
    /// The newest delivery sent (the events' `id` is `<boot>-<sequence>`, which a reconnecting
    /// browser sends back).
    private(set) var sequence: UInt64
    /// Earlier deliveries not to be sent, told in the first `objects` event.
    private var skipped: UInt64
    private var streams: [UInt8]?
    private var faults: [UInt8]?

    /// A connection that resumes after delivery `sequence`, or, when `skipping` some, a new one that
    /// starts after the first `skipping` deliveries.
    init(boot: String, after sequence: UInt64, skipping skipped: UInt64 = 0) {
        self.boot = boot
        self.sequence = sequence
        self.skipped = skipped
    }

    /// Where a connection starts: after the delivery its `Last-Event-ID` names, when it is one of
    /// this process's (`<boot>-<n>`, n no later than the newest); otherwise after all but the newest
    /// `limit`, the earlier ones told as missed.
    static func start(lastEventID: String?, boot: String, latest: UInt64, limit: Int) -> LiveEventStream {
        if let lastEventID, case let parts = lastEventID.trimmingASCIISpaces.split(separator: "-"), parts.count == 2,
            parts[0] == boot, let seen = UInt64(parts[1]), seen <= latest
        {
            return LiveEventStream(boot: boot, after: seen)
        }
        let skipped = latest - min(latest, UInt64(limit))
        return LiveEventStream(boot: boot, after: skipped, skipping: skipped)
    }

    /// The events for what changed; empty when nothing did. `streams` and `faults` are nil when they
    /// were not read this time.
    mutating func changes(streams: [UInt8]?, faults: [UInt8]?, deliveries: RecentDeliveries.Page) -> [UInt8] {
        var output: [UInt8] = []
        if let streams, streams != self.streams {
            self.streams = streams
            Self.event("streams", data: streams, to: &output)
        }
        if let faults, faults != self.faults {
            self.faults = faults
            Self.event("faults", data: faults, to: &output)
        }
        if !deliveries.entries.isEmpty || deliveries.missed > 0 {
            var page = deliveries
            page.missed += skipped
            skipped = 0
            sequence = deliveries.next(after: sequence)
            output += Array("id: \(boot)-\(sequence)\n".utf8)
            Self.event("objects", data: Self.objectsDocument(page, boot: boot), to: &output)
        }
        return output
    }

    /// `event: NAME` and one `data:` line (JSON has no raw newline), then the blank line that ends it.
    static func event(_ name: String, data: [UInt8], to output: inout [UInt8]) {
        output += Array("event: \(name)\ndata: ".utf8)
        output += data
        output += Array("\n\n".utf8)
    }

    /// `{"boot": B, "objects": [...], "missed": N}`: each delivery as `/_local/flush` lists objects,
    /// with its number, time and kind.
    static func objectsDocument(_ page: RecentDeliveries.Page, boot: String) -> [UInt8] {
        let objects = page.entries.map { entry in
            LiveDelivery(
                sequence: UInt64(entry.sequence), time: ISO8601Timestamp.format(entry.time),
                members: ObjectMembers(entry.object), reason: entry.object.reason.rawValue,
                errorOutputType: Nullable(entry.object.errorOutputType), backup: entry.object.isBackup)
        }
        return OrderedJSONEncoder.encode(
            LiveDeliveries(boot: boot, objects: objects, missed: UInt64(page.missed)),
            reservingCapacity: 32 + page.entries.count * 300)
    }
}

/// The task writing an event stream, cancelled from the graceful-shutdown handler. It is only
/// cancelled while the handler's operation runs inside that task, so the task is alive then.
private struct CancellableTask: @unchecked Sendable {
    let task: UnsafeCurrentTask?
    init(_ task: UnsafeCurrentTask?) { self.task = task }
    func cancel() { task?.cancel() }
}

/// Releases a waiting slot when the last holder lets go, whether or not the response body was ever
/// written (a client may leave before).
private final class WaitingSlotLease: Sendable {
    let api: FirehoseAPI
    init(api: FirehoseAPI) { self.api = api }
    deinit { api.releaseWaitingSlot() }
}

extension LocalEndpoints {
    /// Deliveries sent when a browser connects without a `Last-Event-ID`, and at most per event.
    static let eventObjectsLimit = 1_000
    /// How often a connection looks for deliveries, and reads the streams and faults (every 4th).
    static let eventTick = Duration.milliseconds(250)
    /// A comment is sent when nothing else was for this long, so a gone client is noticed.
    static let eventHeartbeatTicks = 60

    // MARK: - /_local/events

    /// Server-Sent Events until the client leaves or the server shuts down. Each connection holds
    /// one of the waiting slots that `/_local/wait` uses.
    func events(_ request: APIRequest, requestID: String) -> APIResponse {
        guard api.takeWaitingSlot() else {
            let limit = api.configuration.maxWaitingRequests
            return error(
                503, "ServiceUnavailableException",
                "\(limit) requests are already waiting or following events (/_local/wait, /_local/events, hanging fault rules), the most this server lets hold connections (a quarter of --max-connections); close a view or retry shortly.",
                requestID)
        }
        let lease = WaitingSlotLease(api: api)
        let sink = api.sink
        let endpoints = self
        // A reconnecting browser says the last delivery it saw; a new one gets the latest deliveries.
        let lastEventID = request.header("Last-Event-ID")
        var response = APIResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("x-amzn-RequestId", requestID),
            ])
        response.writesBody = { writer in
            _ = lease
            let recent = sink.recentDeliveries
            var stream = LiveEventStream.start(
                lastEventID: lastEventID, boot: recent.boot, latest: recent.latest, limit: Self.eventObjectsLimit)
            let shuttingDown = Atomic<Bool>(false)
            // A viewer that stopped reading leaves a write waiting for room in its socket: a shutdown
            // cancels this task so the write gives up, rather than the server waiting for the viewer.
            let task = withUnsafeCurrentTask { CancellableTask($0) }
            do {
                try await withGracefulShutdownHandler {
                    try await writer.write(Array("retry: 2000\n\n".utf8))
                    var tick = 0
                    var quiet = 0
                    while !shuttingDown.load(ordering: .relaxed) && !Task.isCancelled {
                        let full = tick % 4 == 0
                        let page = recent.after(stream.sequence, limit: Self.eventObjectsLimit)
                        let output = stream.changes(
                            streams: full ? await endpoints.streamsDocument() : nil,
                            faults: full ? endpoints.faultsDocument() : nil, deliveries: page)
                        if !output.isEmpty {
                            try await writer.write(output)
                            quiet = 0
                        } else if quiet >= Self.eventHeartbeatTicks {
                            try await writer.write(Array(": still here\n\n".utf8))
                            quiet = 0
                        } else {
                            quiet += 1
                        }
                        // More kept deliveries than one event carries: the next event goes at once.
                        if stream.sequence < page.latest, !page.entries.isEmpty { continue }
                        tick += 1
                        try await sink.clock.sleep(for: Self.eventTick)
                    }
                } onGracefulShutdown: {
                    shuttingDown.store(true, ordering: .relaxed)
                    task.cancel()
                }
            } catch  where shuttingDown.load(ordering: .relaxed) {
                return  // the connection closes; browsers reconnect to the next server
            }
            try await writer.finish()
        }
        return response
    }

    // MARK: - /_local/object

    /// Records shown per page by default and at most, and the bytes of one record shown.
    static let objectPageDefault = 50
    static let objectPageMaximum = 200
    static let recordPreviewBytes = 16 * 1024
    /// Objects larger than this, stored or decompressed, are not shown.
    static let objectPreviewLimit = 256 * 1024 * 1024
    /// Records of one object that can be paged to (their places take 16 bytes each).
    static let objectPreviewRecords = 1_000_000

    /// `GET /_local/object?bucket=B&key=K[&start=I&count=N]`: records `start..<start+count` of the
    /// object, decompressed and split as `firehose-local tail` splits them, each cut to
    /// `recordPreviewBytes`.
    func objectRecords(_ request: APIRequest, requestID: String) async -> APIResponse {
        guard let bucket = request.queryParameter("bucket"), !bucket.isEmpty,
            let key = request.queryParameter("key"), !key.isEmpty
        else {
            return error(400, "InvalidArgumentException", "bucket and key are required.", requestID)
        }
        func number(_ name: String, default value: Int, range: ClosedRange<Int>) -> Int?? {
            guard let text = request.queryParameter(name) else { return .some(value) }
            guard let number = Int(text), range.contains(number) else { return .none }
            return .some(number)
        }
        guard let start = number("start", default: 0, range: 0...Int(Int32.max)) ?? nil,
            let count = number("count", default: Self.objectPageDefault, range: 1...Self.objectPageMaximum) ?? nil
        else {
            return error(
                400, "InvalidArgumentException",
                "start must be a record index (0 or more) and count 1 to \(Self.objectPageMaximum).", requestID)
        }
        let folders = BucketFolders(root: api.sink.configuration.dataDirectory)
        guard let object = folders.open(bucket: bucket, key: key) else {
            return error(
                404, "NoSuchKey", "No object \(key) in bucket \(bucket) of the data directory.", requestID)
        }
        guard object.size <= Self.objectPreviewLimit else {
            return error(
                413, "ObjectTooLarge",
                "\(key) holds \(object.size) bytes; the live view shows objects up to \(Self.objectPreviewLimit).",
                requestID)
        }
        let stream = ObjectName.stream(ofKey: key)
        var layouts = LineDelimitedObjects()
        if let stream, let settings = api.sink.settings(of: stream) { layouts.add(settings) }
        let linesAreRecords = stream.map { layouts.recordsAreLines(stream: $0, bucket: bucket, key: key) } ?? false
        // One object at a time is read and decoded: at most its stored and decoded bytes in memory.
        return await api.objectPreviews.run { () async -> APIResponse in
            let read = await BlockingIO.read { () -> Result<[UInt8], FileSystemError> in
                Result { () throws(FileSystemError) in try object.read(at: 0, count: object.size) }
            }
            let content: [UInt8]
            switch read {
            case .failure(let failure):
                return error(500, "InternalFailure", "\(key) could not be read: \(failure).", requestID)
            case .success(let stored):
                do throws(ObjectContent.DecodingError) {
                    content = try ObjectContent.decode(stored, key: key, limit: Self.objectPreviewLimit)
                } catch let failure {
                    return error(422, "UnreadableObject", "\(key) \(failure.description).", requestID)
                }
            }
            let split = ObjectRecords.split(
                content, linesAreRecords: linesAreRecords, limit: Self.objectPreviewRecords)
            return json(
                200,
                Self.recordsPage(
                    bucket: bucket, key: key, stream: stream, storedBytes: object.size, content: content,
                    split: split, start: start, count: count),
                requestID: requestID)
        }
    }

    static func recordsPage(
        bucket: String, key: String, stream: String?, storedBytes: Int, content: [UInt8], split: ObjectRecords.Split,
        start: Int, count: Int
    ) -> [UInt8] {
        let end = min(split.ranges.count, start + count)
        let records = (start..<max(start, end)).map { index in
            let range = split.ranges[index]
            let shown = content[range.lowerBound..<min(range.upperBound, range.lowerBound + recordPreviewBytes)]
            // A cut may split a UTF-8 sequence: the text is then taken up to the last whole one.
            let text =
                String(validating: shown, as: UTF8.self)
                ?? (shown.count < range.count ? Self.wholeCharacters(shown) : nil)
            return RecordsPage.Record(
                index: index, offset: range.lowerBound, length: range.count, text: text,
                base64: text == nil ? Base64Blob(shown) : nil, truncated: shown.count < range.count)
        }
        let page = RecordsPage(
            bucket: bucket, key: key, stream: Nullable(stream), storedBytes: storedBytes, contentBytes: content.count,
            split: split.boundaries.rawValue, total: split.ranges.count, complete: split.complete, start: start,
            records: records, next: Nullable(end < split.ranges.count ? end : nil))
        return OrderedJSONEncoder.encode(page, reservingCapacity: 256 + records.count * 512)
    }

    /// `bytes` as text when only its last (at most 3) bytes are an unfinished UTF-8 sequence.
    static func wholeCharacters(_ bytes: ArraySlice<UInt8>) -> String? {
        for drop in 1...3 where bytes.count > drop {
            if let text = String(validating: bytes.dropLast(drop), as: UTF8.self) { return text }
        }
        return nil
    }

    // MARK: - /_local/ui

    func page(_ path: String, requestID: String) -> APIResponse {
        let file = LiveViewPage.files[path]!
        return APIResponse(
            status: 200,
            headers: [
                ("Content-Type", file.contentType), ("Cache-Control", "no-store"),
                (
                    "Content-Security-Policy",
                    "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'"
                ),
                ("x-amzn-RequestId", requestID),
            ],
            body: file.bytes)
    }
}
