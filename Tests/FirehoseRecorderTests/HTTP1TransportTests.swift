import FirehoseTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirehoseClient
@testable import HTTPTransports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP server on 127.0.0.1, one connection at a time on a thread of its own, that answers each
/// request (read up to its Content-Length) with what `answer` says for its number.
final class ScriptedHTTPServer: Sendable {
    enum Answer: Sendable {
        /// These bytes, then keep the connection (or close it).
        case bytes(String, close: Bool)
        /// Read the request and say nothing until the client goes away.
        case silence
        /// Read the request, then close the connection without a word.
        case hangUp
        /// Read only the request's head, then close the connection (the unread body makes it a reset).
        case hangUpAfterHead
    }

    struct Received: Sendable {
        var head: String
        var body: [UInt8]
    }

    private struct State {
        var accepted = 0
        var received: [Received] = []
        var stopped = false
    }

    /// In a class of its own so the server's thread can hold it.
    private final class Storage: Sendable {
        let state = Mutex(State())
    }

    let port: Int
    private let listener: Int32
    private let storage = Storage()

    /// - Parameter resetOnAccept: reset every connection as soon as it is accepted, reading nothing.
    init(resetOnAccept: Bool = false, answer: @escaping @Sendable (Int) -> Answer) throws {
        #if canImport(Darwin)
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var on: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw TransportFailure("cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let storage = self.storage
        Thread {
            var number = 0
            while true {
                // The thread closes the listener itself: closed in `stop()`, its descriptor number could
                // be reused (by the next test's listener) while this thread still calls accept on it.
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    _ = close(listener)
                    return
                }
                if storage.state.withLock({ $0.stopped }) {
                    _ = close(connection)
                    _ = close(listener)
                    return
                }
                storage.state.withLock { $0.accepted += 1 }
                if resetOnAccept {
                    // After a pause, so the client's connect has completed before the reset arrives.
                    Thread.sleep(forTimeInterval: 0.2)
                    var linger = linger(l_onoff: 1, l_linger: 0)
                    _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                    _ = close(connection)
                    continue
                }
                var buffer: [UInt8] = []
                serving: while let head = Self.readHead(connection, &buffer) {
                    let answer = answer(number)
                    number += 1
                    if case .hangUpAfterHead = answer {
                        storage.state.withLock { $0.received.append(Received(head: head, body: [])) }
                        break serving
                    }
                    guard let body = Self.readBody(of: head, connection, &buffer) else { break serving }
                    storage.state.withLock { $0.received.append(Received(head: head, body: body)) }
                    switch answer {
                    case .bytes(let text, let closeAfter):
                        Self.writeAll(connection, Array(text.utf8))
                        if closeAfter { break serving }
                    case .silence:
                        var byte: UInt8 = 0
                        while recv(connection, &byte, 1, 0) > 0 {}
                        break serving
                    case .hangUp, .hangUpAfterHead:
                        break serving
                    }
                }
                _ = close(connection)
            }
        }.start()
    }

    /// Wakes the server's thread out of accept; the thread closes the listener.
    func stop() {
        storage.state.withLock { $0.stopped = true }
        _ = shutdown(listener, Int32(SHUT_RDWR))
    }

    var accepted: Int { storage.state.withLock { $0.accepted } }
    var received: [Received] { storage.state.withLock { $0.received } }
    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    private static func fill(_ connection: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(connection, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private static func readHead(_ connection: Int32, _ buffer: inout [UInt8]) -> String? {
        var end: Int?
        while end == nil {
            end = buffer.indices.dropLast(3).first {
                buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
            }
            if end == nil, !fill(connection, &buffer) { return nil }
        }
        let head = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        return head
    }

    /// The body the head announces with its Content-Length.
    private static func readBody(of head: String, _ connection: Int32, _ buffer: inout [UInt8]) -> [UInt8]? {
        let length =
            head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count < length { if !fill(connection, &buffer) { return nil } }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return body
    }

    private static func writeAll(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            offset += count
        }
    }
}

private func ok(_ body: String, extra: String = "") -> String {
    "HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.1\r\n\(extra)Content-Length: \(body.utf8.count)\r\n\r\n"
        + body
}

private func request(_ url: URL, body: [UInt8] = Array("{}".utf8), timeout: Duration = .seconds(5)) -> HTTPRequest {
    HTTPRequest(
        url: url, method: "POST",
        headers: [("Host", "127.0.0.1"), ("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "T.Op")],
        body: body, timeout: timeout)
}

@Suite("HTTP1Transport", .serialized)
struct HTTP1TransportTests {
    @Test("Requests go out whole, answers come back whole, and one connection carries them all")
    func keepAlive() async throws {
        let server = try ScriptedHTTPServer {
            .bytes(ok(#"{"n":\#($0)}"#, extra: "x-amzn-RequestId: r\($0)\r\n"), close: false)
        }
        defer { server.stop() }
        let transport = HTTP1Transport()
        var generator = SeededBytes(seed: 9)
        let big = generator.bytes(3_000_000)
        for number in 0..<3 {
            let response = try await transport.send(request(server.url, body: number == 1 ? big : Array("{}".utf8)))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"n":\#(number)}"#)
            #expect(response.header("X-AMZN-REQUESTID") == "r\(number)")
        }
        #expect(server.accepted == 1)
        let received = server.received
        #expect(received.count == 3)
        #expect(received[1].body == big)
        #expect(received[0].head.hasPrefix("POST / HTTP/1.1\r\n"))
        #expect(received[0].head.contains("X-Amz-Target: T.Op"))
        #expect(received[0].head.contains("Content-Length: 2"))
    }

    @Test("Chunked answers, 1xx interim answers, Connection: close and an HTTP/1.0 body until close are understood")
    func framing() async throws {
        let server = try ScriptedHTTPServer { number in
            switch number {
            case 0:
                return .bytes(
                    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\n", close: false)
            case 1:
                return .bytes(ok("closing", extra: "Connection: close\r\n"), close: true)
            case 2:
                return .bytes("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy", close: false)
            default:
                // HTTP/1.0 without a length: the body is what comes until the server closes.
                return .bytes("HTTP/1.0 500 Oops\r\n\r\nbody", close: true)
            }
        }
        defer { server.stop() }
        let transport = HTTP1Transport()
        let chunked = try await transport.send(request(server.url))
        #expect(String(decoding: chunked.body, as: UTF8.self) == "hello world")
        let closing = try await transport.send(request(server.url))
        #expect(String(decoding: closing.body, as: UTF8.self) == "closing")
        let busy = try await transport.send(request(server.url))
        #expect(busy.status == 503)
        #expect(String(decoding: busy.body, as: UTF8.self) == "busy")
        let untilClose = try await transport.send(request(server.url))
        #expect(untilClose.status == 500)
        #expect(String(decoding: untilClose.body, as: UTF8.self) == "body")
        #expect(server.accepted == 2)
    }

    @Test("A connection the server closed while idle is replaced, and the request still goes through")
    func staleConnection() async throws {
        // Answers without announcing the close, as a server timing out an idle connection does.
        let server = try ScriptedHTTPServer { .bytes(ok("n\($0)"), close: $0 == 0) }
        defer { server.stop() }
        let transport = HTTP1Transport()
        _ = try await transport.send(request(server.url))
        try await Task.sleep(for: .milliseconds(20))
        let second = try await transport.send(request(server.url))
        #expect(String(decoding: second.body, as: UTF8.self) == "n1")
        #expect(server.accepted == 2)
        #expect(server.received.count == 2)
    }

    /// Where the server hangs up on the second request of a keep-alive connection.
    struct HangUp: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var answer: ScriptedHTTPServer.Answer
        var bodyBytes: Int
    }

    static let hangUps = [
        HangUp(testDescription: "after reading the whole request", answer: .hangUp, bodyBytes: 2),
        // A large body, so the client is still writing when the connection goes.
        HangUp(testDescription: "inside the request", answer: .hangUpAfterHead, bodyBytes: 8_000_000),
        HangUp(
            testDescription: "inside the answer",
            answer: .bytes("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial", close: true), bodyBytes: 2),
    ]

    @Test("A request the server hung up on once any of it was sent is not sent again", arguments: hangUps)
    func hangUpIsNotResent(_ hangUp: HangUp) async throws {
        let server = try ScriptedHTTPServer { $0 == 0 ? .bytes(ok("n0"), close: false) : hangUp.answer }
        defer { server.stop() }
        let transport = HTTP1Transport()
        _ = try await transport.send(request(server.url))
        var generator = SeededBytes(seed: 3)
        let body = generator.bytes(hangUp.bodyBytes)
        // The server may have stored it: only the caller can decide whether to send it again.
        await #expect(throws: TransportFailure.self) { _ = try await transport.send(request(server.url, body: body)) }
        #expect(server.received.count == 2)
        #expect(server.accepted == 1)
    }

    @Test("Only a request whose first send failed is marked as never sent")
    func unsentOnlyWhenNothingWasWritten() async throws {
        let server = try ScriptedHTTPServer(resetOnAccept: true) { _ in .silence }
        defer { server.stop() }
        let head = Array("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n".utf8)
        let deadline = ContinuousClock.now + .seconds(5)

        // The reset is already there when the request starts: no byte of it can have left.
        let reset = Connection(endpoint: try Endpoint(server.url))
        try reset.connect(deadline: deadline)
        try await waitUntilClosedByServer(reset)
        let unsent = #expect(throws: TransportFailure.self) {
            try reset.write(head, deadline: deadline, startsRequest: true)
        }
        #expect(unsent?.requestUnsent == true)

        // The same failure for a later part of a request: its head may have reached the server.
        let cut = Connection(endpoint: try Endpoint(server.url))
        try cut.connect(deadline: deadline)
        try await waitUntilClosedByServer(cut)
        let written = #expect(throws: TransportFailure.self) {
            try cut.write(Array("{}".utf8), deadline: deadline, startsRequest: false)
        }
        #expect(written?.requestUnsent == false)
        #expect(server.accepted == 2)
    }

    private func waitUntilClosedByServer(_ connection: Connection) async throws {
        for _ in 0..<500 where connection.isReusable { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!connection.isReusable)
    }

    @Test("No answer within the timeout, a refused connection, and cancellation all throw promptly")
    func failures() async throws {
        let server = try ScriptedHTTPServer { _ in .silence }
        defer { server.stop() }
        let transport = HTTP1Transport()
        let clock = ContinuousClock()
        let started = clock.now
        let silent = await #expect(throws: TransportFailure.self) {
            _ = try await transport.send(request(server.url, timeout: .milliseconds(200)))
        }
        #expect(clock.now - started < .seconds(3))
        // What a caller words its message from: where it failed, and that the deadline did it.
        #expect(silent?.phase == .exchanging)
        #expect(silent?.timedOut == true)

        // A port nothing listens on: bind one, then close it.
        let closed = try ScriptedHTTPServer { _ in .silence }
        let closedURL = closed.url
        closed.stop()
        let refused = await #expect(throws: TransportFailure.self) { _ = try await transport.send(request(closedURL)) }
        #expect(refused?.phase == .connecting)
        #expect(refused?.reason == "Connection refused")

        let task = Task { try await transport.send(request(server.url, timeout: .seconds(30))) }
        try await Task.sleep(for: .milliseconds(100))
        let cancelledAt = clock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(clock.now - cancelledAt < .seconds(3))
    }

    @Test("The client reports transport failures as network errors")
    func networkErrors() async throws {
        let server = try ScriptedHTTPServer { _ in .bytes("garbage\r\n\r\n", close: true) }
        defer { server.stop() }
        let client = FirehoseClient(
            endpoint: server.url, region: "us-east-1",
            credentialsProvider: StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
            transport: HTTP1Transport())
        let error = await #expect(throws: FirehoseClientError.self) {
            try await client.putRecord([1], deliveryStreamName: "events")
        }
        #expect(error?.kind == .network)
    }

    @Test("DefaultTransport uses HTTP1Transport for loopback http only (on Linux)")
    func routing() {
        #if canImport(Darwin)
            #expect(!DefaultTransport.usesHTTP1(URL(string: "http://127.0.0.1:4573")!))
        #else
            #expect(DefaultTransport.usesHTTP1(URL(string: "http://127.0.0.1:4573")!))
            #expect(DefaultTransport.usesHTTP1(URL(string: "http://localhost:4573")!))
            #expect(DefaultTransport.usesHTTP1(URL(string: "http://[::1]:4573")!))
        #endif
        #expect(!DefaultTransport.usesHTTP1(URL(string: "https://firehose.us-east-1.amazonaws.com")!))
        #expect(!DefaultTransport.usesHTTP1(URL(string: "http://firehose.example.com")!))
    }
}
