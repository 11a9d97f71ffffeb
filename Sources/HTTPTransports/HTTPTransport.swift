#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One HTTP request as the client hands it to a transport: fully signed, body final (compressed
/// when gzip is on). A transport must send the headers and body unchanged, or the signature breaks.
public struct HTTPRequest: Sendable {
    public var url: URL
    public var method: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// How long the whole exchange may take before the transport gives up with a network error.
    public var timeout: Duration
    /// The largest answer body read; a larger one fails the exchange (nil: the transport's own limit).
    public var maxResponseBytes: Int?

    public init(
        url: URL, method: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration,
        maxResponseBytes: Int? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// The answer to an `HTTPRequest`, whatever its status.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Sends requests. Any error a transport throws is treated as a *network* failure (no HTTP answer:
/// refused, dropped, timed out), never as a service answer: the request's fate is unknown to the caller.
///
/// The default is `DefaultTransport` (URLSession; `HTTP1Transport` for firehose-local on Linux);
/// tests use `FakeFirehoseEndpoint` from FirehoseTestSupport, and an app can plug in its own (an
/// `AsyncHTTPClient` wrapper on a server, a background session on iOS).
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
