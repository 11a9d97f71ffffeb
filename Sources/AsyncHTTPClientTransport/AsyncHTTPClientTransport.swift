import AsyncHTTPClient
public import HTTPTransports
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The server's outbound HTTP, over AsyncHTTPClient: what it sends to HTTP endpoint destinations
/// and Lambda Invoke API endpoints, `http://` and `https://` (certificates checked against the
/// system's trust roots and, when given, a PEM file of more). Redirects are not followed, as
/// Firehose does not follow them; an answer larger than `HTTPRequest.maxResponseBytes` is refused
/// without reading it all; the request's timeout bounds the whole exchange, body included.
public final class AsyncHTTPClientTransport: HTTPTransport, Sendable {
    private let client: HTTPClient

    /// What TLS trusts: the system's roots, and `caFile` (PEM certificates) when given.
    public struct Trust: Hashable, Sendable {
        public var caFile: String?

        public init(caFile: String? = nil) {
            self.caFile = caFile
        }
    }

    /// A transport over the process's client for `trust`. Clients live as long as the process: an
    /// `HTTPClient` must be shut down before it goes, and a server's outbound HTTP never ends sooner.
    public init(trust: Trust = Trust()) {
        client = Self.clients.withLock { clients in
            if let client = clients[trust] { return client }
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile = trust.caFile { tls.additionalTrustRoots = [.file(caFile)] }
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
            configuration.decompression = .disabled
            // A connection that cannot be made fails the attempt at once: the caller's retries (as
            // Firehose's) decide what comes next, not a pool retrying until the deadline.
            configuration.connectionPool.retryConnectionEstablishment = false
            // As many connections to one host as requests under way (AsyncHTTPClient's default of 8
            // would queue the rest, their timeouts running): every Lambda stream invokes up to two
            // batches at once, and many streams may share one endpoint.
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1024
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[trust] = client
            return client
        }
    }

    private static let clients = Mutex<[Trust: HTTPClient]>([:])

    /// Checks that `caFile` holds PEM certificates; returns how many.
    public static func certificates(inCAFile caFile: String) throws -> Int {
        let certificates = try NIOSSLCertificate.fromPEMFile(caFile)
        guard !certificates.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
        return certificates.count
    }

    /// Answers larger than this are refused when the request sets no `maxResponseBytes`.
    static let defaultMaxResponseBytes = 64 << 20

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var outbound = HTTPClientRequest(url: request.url.absoluteString)
        outbound.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outbound.headers.add(name: header.name, value: header.value) }
        outbound.body = .bytes(request.body)
        let limit = request.maxResponseBytes ?? Self.defaultMaxResponseBytes
        let timeout = request.timeout
        let client = client
        do {
            return try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
                group.addTask { [outbound] in
                    let response = try await client.execute(outbound, timeout: Self.timeAmount(timeout))
                    let body = try await response.body.collect(upTo: limit)
                    return HTTPResponse(
                        status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                        body: Array(buffer: body))
                }
                // The request's deadline for the whole exchange: AsyncHTTPClient's ends with the
                // answer's head, and a body may trickle after it.
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw Self.timedOut()
                }
                return response
            }
        } catch let failure as TransportFailure {
            throw failure
        } catch is NIOTooManyBytesError {
            throw TransportFailure.tooLarge("answer over \(limit) bytes")
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .writeTimeout].contains(error) {
            throw Self.timedOut()
        } catch {
            throw TransportFailure(Self.reason(error))
        }
    }

    private static func timedOut() -> TransportFailure {
        var failure = TransportFailure("timed out")
        failure.timedOut = true
        return failure
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// A cause in a few words: "Connection refused", a TLS error, ... rather than NIO's nested types.
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        if let connection = error as? NIOConnectionError {
            if let first = connection.connectionErrors.first { return reason(first.error) }
            if let dns = connection.dnsAError ?? connection.dnsAAAAError {
                return "could not resolve \(connection.host): \(dns)"
            }
        }
        if let client = error as? HTTPClientError {
            if client == .connectTimeout { return "no connection within 10 s" }
            if client == .tlsHandshakeTimeout { return "TLS: no handshake within 10 s" }
            // Without what it carries: a header it refused may hold a secret (a common attribute).
            let text = String(describing: client)
            return String(text.prefix { $0 != "(" })
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            // BoringSSL's reason (`...:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at <source path>`).
            let text = String(describing: error)
            guard let marker = text.firstRange(of: "OPENSSL_internal:") else { return "TLS: \(text)" }
            let code = text[marker.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if code == "CERTIFICATE_VERIFY_FAILED" {
                return
                    "TLS handshake failed: the endpoint's certificate is not trusted (CERTIFICATE_VERIFY_FAILED; --endpoint-ca-file adds a CA to trust)"
            }
            return "TLS handshake failed: \(code)"
        }
        return String(describing: error)
    }
}
