import FirehoseWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServerCore
import ServiceLifecycleTestKit
import ServiceTestSupport
import Synchronization
import Testing

@testable import FirehoseServer
@testable import FirehoseSink

/// The live view's parts: the recent deliveries, the events a connection sends, `/_local/object`
/// and the page, through `FirehoseAPI.handle`.
@Suite struct LiveViewTests {
    func delivered(_ key: String, stream: String = "s") -> DeliveredObject {
        DeliveredObject(
            stream: stream, bucket: "b", key: key, path: "/x/\(key)", records: 2, bytes: 10, storedBytes: 8,
            reason: .flush, firstArrival: Date(timeIntervalSince1970: 0))
    }

    @Test func recentDeliveriesKeepTheNewestAndSayWhatWasMissed() {
        let recent = RecentDeliveries(capacity: 3)
        #expect(recent.after(0) == RecentDeliveries.Page(entries: [], missed: 0, latest: 0))
        for n in 1...5 { recent.append(delivered("k\(n)"), at: Date(timeIntervalSince1970: Double(n))) }
        let all = recent.after(0)
        #expect(all.entries.map(\.sequence) == [3, 4, 5])
        #expect(all.entries.map(\.object.key) == ["k3", "k4", "k5"])
        #expect(all.missed == 2)
        #expect(all.latest == 5)
        #expect(recent.after(3).entries.map(\.sequence) == [4, 5])
        #expect(recent.after(3).missed == 0)
        #expect(recent.after(5).entries.isEmpty)
        // A number from before a restart (larger than any here) asks for nothing.
        #expect(recent.after(99).entries.isEmpty)
        // The oldest kept first; the rest by asking again after the last one.
        let oldest = recent.after(1, limit: 1)
        #expect(oldest.entries.map(\.sequence) == [3])
        #expect(oldest.missed == 1)
        #expect(oldest.next(after: 1) == 3)
        #expect(recent.after(3, limit: 1).entries.map(\.sequence) == [4])
        #expect(recent.latest == 5)
        #expect(RecentDeliveries().boot != RecentDeliveries().boot)
    }

    @Test func aNewConnectionStartsWithTheLatestAndTellsWhatItLeftOut() {
        #expect(LiveEventStream.start(lastEventID: nil, boot: "b", latest: 1_500, limit: 1_000).sequence == 500)
        let recent = RecentDeliveries(capacity: 10)
        var stream = LiveEventStream(boot: "b", after: 5, skipping: 5)
        for n in 1...7 { recent.append(delivered("k\(n)"), at: Date(timeIntervalSince1970: 0)) }
        let text = String(
            decoding: stream.changes(streams: nil, faults: nil, deliveries: recent.after(5)), as: UTF8.self)
        #expect(text.contains("\"sequence\":6,"))
        #expect(text.hasSuffix("\"missed\":5}\n\n"))
        // Told once.
        recent.append(delivered("k8"), at: Date(timeIntervalSince1970: 0))
        let next = String(
            decoding: stream.changes(streams: nil, faults: nil, deliveries: recent.after(7)), as: UTF8.self)
        #expect(next.hasSuffix("\"missed\":0}\n\n"))
        #expect(LiveEventStream.start(lastEventID: "b-7", boot: "b", latest: 8, limit: 1_000).sequence == 7)
    }

    @Test func eventsCarryOnlyWhatChanged() throws {
        var stream = LiveEventStream(boot: "b00t", after: 0)
        let none = RecentDeliveries.Page(entries: [], missed: 0, latest: 0)
        let first = String(
            decoding: stream.changes(
                streams: Array("{\"streams\":[]}".utf8), faults: Array("{\"faults\":[]}".utf8), deliveries: none),
            as: UTF8.self)
        #expect(first == "event: streams\ndata: {\"streams\":[]}\n\nevent: faults\ndata: {\"faults\":[]}\n\n")
        #expect(
            stream.changes(
                streams: Array("{\"streams\":[]}".utf8), faults: Array("{\"faults\":[]}".utf8), deliveries: none
            ).isEmpty)
        #expect(stream.changes(streams: nil, faults: nil, deliveries: none).isEmpty)
        let recent = RecentDeliveries()
        recent.append(delivered("a/k1"), at: Date(timeIntervalSince1970: 1_795_266_309))
        let text = String(
            decoding: stream.changes(streams: nil, faults: nil, deliveries: recent.after(0)), as: UTF8.self)
        #expect(
            text.hasPrefix(
                "id: b00t-1\nevent: objects\ndata: {\"boot\":\"b00t\",\"objects\":[{\"sequence\":1,\"time\":\"2026-11-21T13:05:09.000Z\",\"stream\":\"s\",\"bucket\":\"b\",\"key\":\"a/k1\",\"records\":2,\"bytes\":10,\"storedBytes\":8,\"reason\":\"flush\",\"errorOutputType\":null,\"backup\":false}],\"missed\":0}\n\n"
            ))
        #expect(stream.sequence == 1)
        let changed = String(
            decoding: stream.changes(
                streams: Array("{\"streams\":[1]}".utf8), faults: Array("{\"faults\":[]}".utf8),
                deliveries: recent.after(1)), as: UTF8.self)
        #expect(changed == "event: streams\ndata: {\"streams\":[1]}\n\n")
    }

    /// An instant stream with a newline processor, three records delivered: its key.
    func deliveredObject(_ harness: APIHarness, records: [String]) async throws -> String {
        try harness.addInstantStream("lines", newline: true)
        #expect(await harness.put(records, stream: "lines").status == 200)
        let entry = try #require(harness.sink.recentDeliveries.after(0).entries.last)
        #expect(entry.object.stream == "lines")
        return entry.object.key
    }

    @Test func objectRecordsArePagedAndSplit() async throws {
        let harness = try APIHarness()
        let key = try await deliveredObject(harness, records: [#"{"a":1}"#, "plain", "third"])
        let query = "bucket=instant-bucket&key=\(key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let page = try json(await harness.local("GET", "/_local/object?\(query)&start=1&count=1"))
        #expect(page["stream"] as? String == "lines")
        #expect(page["split"] as? String == "lines")
        #expect(page["total"] as? Int == 3)
        #expect(page["next"] as? Int == 2)
        #expect(page["contentBytes"] as? Int == 20)
        let records = try #require(page["records"] as? [[String: Any]])
        #expect(records.count == 1)
        #expect(records[0]["index"] as? Int == 1)
        #expect(records[0]["offset"] as? Int == 8)
        #expect(records[0]["text"] as? String == "plain")
        #expect(records[0]["truncated"] as? Bool == false)
        let last = try json(await harness.local("GET", "/_local/object?\(query)&start=2"))
        #expect(last["next"] is NSNull)
        #expect((last["records"] as? [[String: Any]])?.map { $0["text"] as? String } == ["third"])

        let missing = await harness.local("GET", "/_local/object?bucket=instant-bucket&key=nope")
        #expect(missing.status == 404)
        #expect(try json(missing)["__type"] as? String == "NoSuchKey")
        for bad in [
            "bucket=instant-bucket", "\(query)&count=0", "\(query)&count=201", "\(query)&start=-1", "\(query)&start=x",
        ] {
            #expect(await harness.local("GET", "/_local/object?\(bad)").status == 400, "\(bad)")
        }
        // Keys never leave the data directory.
        #expect(
            await harness.local("GET", "/_local/object?bucket=instant-bucket&key=..%2F..%2Fetc%2Fpasswd").status == 404)
        #expect(await harness.local("GET", "/_local/object?bucket=.firehose-local&key=streams.json").status == 404)
    }

    @Test func longAndBinaryRecordsAreCut() {
        var content = Array(String(repeating: "é", count: 9_000).utf8)  // 18,000 bytes of 2-byte characters
        content += [0xFF, 0x00]
        let split = ObjectRecords.Split(boundaries: .object, ranges: [0..<18_000, 18_000..<18_002])
        let page = LocalEndpoints.recordsPage(
            bucket: "b", key: "k", stream: nil, storedBytes: 18_002, content: content, split: split, start: 0, count: 5)
        let document = try! JSONSerialization.jsonObject(with: Data(page)) as! [String: Any]
        let records = document["records"] as! [[String: Any]]
        #expect(records[0]["truncated"] as? Bool == true)
        #expect(records[0]["length"] as? Int == 18_000)
        #expect((records[0]["text"] as? String)?.utf8.count == LocalEndpoints.recordPreviewBytes)
        #expect(records[1]["base64"] as? String == "/wA=")
        #expect(records[1]["text"] == nil)
        #expect(document["stream"] is NSNull)
    }

    @Test func thePageIsServedFromTheBinary() async throws {
        let harness = try APIHarness()
        let page = await harness.local("GET", "/_local/ui")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Security-Policy")?.contains("default-src 'self'") == true)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("<script src=\"/_local/ui/app.js\" defer></script>"))
        let script = await harness.local("GET", "/_local/ui/app.js")
        #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(String(decoding: script.body, as: UTF8.self).contains("new EventSource(\"/_local/events\")"))
        #expect(await harness.local("GET", "/_local/ui/app.css").header("Content-Type") == "text/css; charset=utf-8")
        #expect(await harness.local("GET", "/_local/ui/other.js").status == 404)
        #expect(await harness.local("POST", "/_local/ui").status == 405)
    }

    /// Collects what a response body writes; throws once it has `limit` writes, as a client that
    /// went away makes a write throw.
    struct CollectingWriter: StreamingBodyWriter {
        let chunks: Chunks
        let limit: Int
        final class Chunks: @unchecked Sendable { var list: [String] = [] }
        struct Gone: Error {}

        mutating func write(_ bytes: [UInt8]) async throws {
            chunks.list.append(String(decoding: bytes, as: UTF8.self))
            if chunks.list.count >= limit { throw Gone() }
        }

        mutating func finish() async throws {}
    }

    @Test func eventsStartWithTheStateAndTheLatestObjects() async throws {
        let harness = try APIHarness { $0.maxWaitingRequests = 1 }
        let key = try await deliveredObject(harness, records: ["x"])
        var response: APIResponse? = await harness.local("GET", "/_local/events")
        #expect(response?.status == 200)
        #expect(response?.header("Content-Type") == "text/event-stream")
        // The one waiting slot is held while the response lives.
        #expect(await harness.local("GET", "/_local/events").status == 503)
        let chunks = CollectingWriter.Chunks()
        var writer: any StreamingBodyWriter = CollectingWriter(chunks: chunks, limit: 2)
        await #expect(throws: CollectingWriter.Gone.self) { try await response?.writesBody?(&writer) }
        #expect(chunks.list[0] == "retry: 2000\n\n")
        let events = chunks.list[1]
        #expect(events.hasPrefix("event: streams\ndata: {\"streams\":[{\"name\":\"events\""))
        let boot = harness.sink.recentDeliveries.boot
        #expect(
            events.contains(
                "\n\nevent: faults\ndata: {\"faults\":[]}\n\nid: \(boot)-1\nevent: objects\ndata: {\"boot\":\"\(boot)\",\"objects\":[{\"sequence\":1,"
            ))
        #expect(events.contains(key))
        response = nil
        #expect(await harness.local("GET", "/_local/events").status == 200)
    }

    /// A viewer that stopped reading: the first write goes through, the next waits for room that
    /// never comes, until its task is cancelled.
    struct StalledWriter: StreamingBodyWriter {
        final class Progress: Sendable {
            let writes = Mutex(0)
            let stalled = AsyncStream<Void>.makeStream()
        }
        let progress: Progress

        mutating func write(_ bytes: [UInt8]) async throws {
            let count = progress.writes.withLock {
                $0 += 1
                return $0
            }
            guard count > 1 else { return }
            progress.stalled.continuation.yield()
            let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if Task.isCancelled { continuation.resume() } else { waiting.withLock { $0 = continuation } }
                }
            } onCancel: {
                waiting.withLock {
                    $0?.resume(); $0 = nil
                }
            }
            try Task.checkCancellation()
        }

        mutating func finish() async throws {}
    }

    @Test(.timeLimit(.minutes(1)))
    func aShutdownEndsAStreamWhoseViewerStoppedReading() async throws {
        let harness = try APIHarness()
        let response = await harness.local("GET", "/_local/events")
        let progress = StalledWriter.Progress()
        await testGracefulShutdown { trigger in
            let writing = Task {
                var writer: any StreamingBodyWriter = StalledWriter(progress: progress)
                try await response.writesBody?(&writer)
            }
            var stalls = progress.stalled.stream.makeAsyncIterator()
            _ = await stalls.next()
            trigger.triggerGracefulShutdown()
            // The stream ends (quietly: the connection closes) instead of waiting for the viewer.
            let outcome = await writing.result
            #expect((try? outcome.get()) != nil)
        }
        #expect(progress.writes.withLock { $0 } == 2)
    }

    /// The first events of a connection that says it last saw `lastEventID`.
    func firstEvents(_ harness: APIHarness, lastEventID: String) async throws -> String {
        let response = await harness.api.handle(
            APIRequest(method: "GET", target: "/_local/events", headers: [("Last-Event-ID", lastEventID)], body: []))
        let chunks = CollectingWriter.Chunks()
        var writer: any StreamingBodyWriter = CollectingWriter(chunks: chunks, limit: 2)
        await #expect(throws: CollectingWriter.Gone.self) { try await response.writesBody?(&writer) }
        return chunks.list[1]
    }

    @Test func aReconnectingBrowserGetsWhatCameAfterItsLastEvent() async throws {
        let harness = try APIHarness()
        try harness.addInstantStream("lines", newline: true)
        for record in ["a", "b", "c"] { #expect(await harness.put([record], stream: "lines").status == 200) }
        let boot = harness.sink.recentDeliveries.boot
        let resumed = try await firstEvents(harness, lastEventID: "\(boot)-2")
        #expect(
            resumed.contains("id: \(boot)-3\nevent: objects\ndata: {\"boot\":\"\(boot)\",\"objects\":[{\"sequence\":3,")
        )
        #expect(!resumed.contains("\"sequence\":2"))
        // Up to date: no objects event at all.
        #expect(!(try await firstEvents(harness, lastEventID: "\(boot)-3")).contains("event: objects"))
        // Another process's numbers (a restart), a number past the newest, or no number: the latest,
        // as for a new connection.
        for other in ["0a0a-2", "\(boot)-500", "2", "junk"] {
            let restarted = try await firstEvents(harness, lastEventID: other)
            #expect(restarted.contains("\"objects\":[{\"sequence\":1,"), "\(other)")
            #expect(restarted.contains("\"sequence\":3,"), "\(other)")
            #expect(restarted.contains("\"missed\":0}"), "\(other)")
        }
    }
}
