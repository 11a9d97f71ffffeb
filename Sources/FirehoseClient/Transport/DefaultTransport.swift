import Foundation
import HTTPTransports

/// The transport a client uses unless given another: `URLSessionTransport`, except for loopback
/// `http://` endpoints (firehose-local on this machine) where Foundation is not Apple's, which go
/// over `HTTP1Transport` (see there why).
public final class DefaultTransport: HTTPTransport, Sendable {
    private let urlSession: URLSessionTransport
    private let http1: HTTP1Transport

    public init() {
        urlSession = URLSessionTransport()
        http1 = HTTP1Transport()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if Self.usesHTTP1(request.url) { return try await http1.send(request) }
        return try await urlSession.send(request)
    }

    static func usesHTTP1(_ url: URL) -> Bool {
        #if canImport(Darwin)
            return false
        #else
            guard url.scheme?.lowercased() == "http", let host = url.host?.lowercased() else { return false }
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
        #endif
    }
}
