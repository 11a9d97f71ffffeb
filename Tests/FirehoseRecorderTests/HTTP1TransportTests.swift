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
        try await eventually("the server to close the first connection") { server.closed == 1 }
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
        try await eventually("the request to reach the server") { server.received.count == 2 }
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
