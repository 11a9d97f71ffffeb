import AsyncHTTPClientTransport
import FirehoseTestSupport
import Foundation
import Testing

@testable import HTTPTransports

@Suite("AsyncHTTPClientTransport: the server's outbound HTTP", .serialized)
struct AsyncHTTPClientTransportTests {
    let transport = AsyncHTTPClientTransport()

    func request(_ url: URL, body: String = "{}", timeout: Duration = .seconds(10), maxResponseBytes: Int? = nil)
        -> HTTPRequest
    {
        HTTPRequest(
            url: url.appendingPathComponent("ingest"), method: "POST",
            headers: [("Content-Type", "application/json"), ("X-Amz-Firehose-Request-Id", "r-1")],
            body: Array(body.utf8), timeout: timeout, maxResponseBytes: maxResponseBytes)
    }

    static func answer(status: String = "200 OK", body: String, extra: String = "") -> ScriptedHTTPServer.Answer {
        .bytes(
            "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\n\(extra)Content-Length: \(body.utf8.count)\r\n\r\n"
                + body, close: false)
    }

    @Test("The request goes out as given (method, path, headers, body); the answer comes back whole")
    func exchange() async throws {
        let server = try ScriptedHTTPServer { _ in Self.answer(body: #"{"ok":true}"#, extra: "X-Echo: yes\r\n") }
        defer { server.stop() }
        let response = try await transport.send(request(server.url, body: #"{"records":[]}"#))
        #expect(response.status == 200 && response.header("x-echo") == "yes")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
        let received = try #require(server.received.first)
        #expect(received.head.hasPrefix("POST /ingest HTTP/1.1\r\n"))
        #expect(received.head.lowercased().contains("x-amz-firehose-request-id: r-1"))
        #expect(String(decoding: received.body, as: UTF8.self) == #"{"records":[]}"#)
    }

    @Test("An answer over maxResponseBytes is refused as too large")
    func answerTooLarge() async throws {
        let server = try ScriptedHTTPServer { _ in Self.answer(body: String(repeating: "x", count: 2000)) }
        defer { server.stop() }
        let failure = await #expect(throws: TransportFailure.self) {
            _ = try await transport.send(request(server.url, maxResponseBytes: 1000))
        }
        #expect(failure?.answerTooLarge == true)
    }

    @Test("A redirect is given back, not followed (Firehose does not follow one)")
    func redirectsAreNotFollowed() async throws {
        let server = try ScriptedHTTPServer { _ in
            Self.answer(status: "302 Found", body: "", extra: "Location: http://127.0.0.1:9/elsewhere\r\n")
        }
        defer { server.stop() }
        let response = try await transport.send(request(server.url))
        #expect(response.status == 302 && server.received.count == 1)
    }

    @Test("No answer within the timeout is a timeout; a refused connection says so")
    func timeoutAndRefusal() async throws {
        let server = try ScriptedHTTPServer { _ in .silence }
        defer { server.stop() }
        let silent = await #expect(throws: TransportFailure.self) {
            _ = try await transport.send(request(server.url, timeout: .milliseconds(500)))
        }
        #expect(silent?.timedOut == true)
        // A port nothing listens on: the server just stopped.
        let closed = try ScriptedHTTPServer { _ in .silence }
        closed.stop()
        let started = ContinuousClock.now
        let refused = await #expect(throws: TransportFailure.self) {
            _ = try await transport.send(request(closed.url))
        }
        #expect(refused?.reason == "Connection refused", "\(String(describing: refused))")
        // At once, not after the pool's connection retries until the 10 s request deadline (the bound
        // is loose: other suites share these two cores).
        #expect(ContinuousClock.now - started < .seconds(8))
    }

    @Test("Cancelling the calling task drops a request the server never answers")
    func cancellation() async throws {
        let server = try ScriptedHTTPServer { _ in .silence }
        defer { server.stop() }
        let transport = transport
        let sending = Task { try await transport.send(request(server.url, timeout: .seconds(600))) }
        try await eventually("the request to arrive") { server.received.count == 1 }
        sending.cancel()
        // Without the cancellation this waits out the 600 s timeout.
        await #expect(throws: (any Error).self) { _ = try await sending.value }
    }
}
