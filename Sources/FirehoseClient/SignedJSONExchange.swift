import AWSCredentialProviders
import AWSSigV4
import FirehoseWire
public import Foundation
import HTTPTransports
import Synchronization

/// How a client reaches its service: endpoint, region, credentials, transport and timeouts. One
/// type for `FirehoseClient` and `KinesisClient`.
public struct AWSClientConfiguration: Sendable {
    /// `http://127.0.0.1:4573` for `firehose-local`; the service's `awsEndpoint(region:)` for AWS.
    public var endpoint: URL
    public var region: String
    public var credentialsProvider: any CredentialsProvider
    public var transport: any HTTPTransport
    /// Send Firehose's PutRecord/PutRecordBatch bodies gzip-compressed (`Content-Encoding: gzip`),
    /// signed over the compressed bytes, as the AWS iOS SDK does. Saves bandwidth on text records.
    /// (Kinesis Data Streams takes no compressed bodies: `KinesisClient` sends them as they are.)
    public var gzipRequestBodies: Bool
    /// zlib level for `gzipRequestBodies`.
    public var gzipLevel: Int32
    /// Per-request time limit, enforced by the transport.
    public var timeout: Duration
    /// When the service says the request's signature time is off by more than it allows, learn
    /// the offset from its `Date` header and re-sign once (as the AWS SDKs do).
    public var correctClockSkew: Bool
    /// The clock requests are signed with; injectable for tests.
    public var now: @Sendable () -> Date
    public var userAgent: String

    public init(
        endpoint: URL,
        region: String,
        credentialsProvider: any CredentialsProvider,
        transport: any HTTPTransport = DefaultTransport(),
        gzipRequestBodies: Bool = false,
        gzipLevel: Int32 = 6,
        timeout: Duration = .seconds(30),
        correctClockSkew: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() },
        userAgent: String = "firehose-local-swift-client/1"
    ) {
        self.endpoint = endpoint
        self.region = region
        self.credentialsProvider = credentialsProvider
        self.transport = transport
        self.gzipRequestBodies = gzipRequestBodies
        self.gzipLevel = gzipLevel
        self.timeout = timeout
        self.correctClockSkew = correctClockSkew
        self.now = now
        self.userAgent = userAgent
    }
}

/// What both clients do with a request: sign it for their service (SigV4, AWS JSON 1.1), send it,
/// sign it again once after a clock-skew answer (as the AWS SDKs do), forget credentials the
/// service calls expired, and turn an error answer into a `FirehoseClientError`.
struct SignedJSONExchange: Sendable {
    let configuration: AWSClientConfiguration
    /// The signing name: `firehose`, `kinesis`.
    let service: String
    let skew = ClockSkew()

    func send(target: String, body: [UInt8], gzipped: Bool = false) async throws(FirehoseClientError) -> HTTPResponse {
        let response = try await exchange(target: target, body: body, gzipped: gzipped)
        guard configuration.correctClockSkew, response.status >= 400,
            let offset = Self.skewOffset(response, localNow: configuration.now())
        else {
            return try Self.check(response)
        }
        // Sign again with the server's idea of the time, once.
        skew.offset = offset
        return try Self.check(try await exchange(target: target, body: body, gzipped: gzipped))
    }

    private func exchange(target: String, body: [UInt8], gzipped: Bool) async throws(FirehoseClientError)
        -> HTTPResponse
    {
        let credentials: AWSCredentials
        do {
            credentials = try await configuration.credentialsProvider.credentials()
        } catch {
            throw FirehoseClientError(
                kind: .credentials, message: "Could not get credentials: \(error)",
                underlying: error)
        }
        let url = configuration.endpoint
        var headers: [(name: String, value: String)] = [
            ("Host", Self.hostHeader(url)),
            ("Content-Type", FirehoseOperation.contentType),
            ("X-Amz-Target", target),
        ]
        if gzipped { headers.append(("Content-Encoding", "gzip")) }
        let signer = SigV4Signer(credentials: credentials, region: configuration.region, service: service)
        let date = configuration.now().addingTimeInterval(skew.offset)
        let path = url.path.isEmpty ? "/" : url.path
        headers += signer.sign(
            method: "POST", path: path, query: url.query ?? "", headers: headers,
            bodySHA256: SHA256Hex.hash(body), date: date)
        headers.append(("User-Agent", configuration.userAgent))
        let request = HTTPRequest(
            url: url, method: "POST", headers: headers, body: body, timeout: configuration.timeout)
        let response: HTTPResponse
        do {
            response = try await configuration.transport.send(request)
        } catch {
            throw FirehoseClientError(
                kind: .network, message: "No answer from \(url.absoluteString): \(error)",
                underlying: error)
        }
        if response.status >= 400 {
            let code = ClientResponseDecoding.error(
                status: response.status, errorTypeHeader: response.header("x-amzn-ErrorType"), body: response.body
            ).code
            if FirehoseClientError.expiredCredentialCodes.contains(code) {
                await configuration.credentialsProvider.invalidate()
            }
        }
        return response
    }

    static func check(_ response: HTTPResponse) throws(FirehoseClientError) -> HTTPResponse {
        let requestID = response.header("x-amzn-RequestId") ?? response.header("x-amz-request-id")
        guard (200..<300).contains(response.status) else {
            let error = ClientResponseDecoding.error(
                status: response.status, errorTypeHeader: response.header("x-amzn-ErrorType"), body: response.body)
            throw FirehoseClientError(
                kind: .service, code: error.code, message: error.message, httpStatus: response.status,
                requestID: requestID)
        }
        return response
    }

    /// Server time minus local time when the answer is a clock-skew rejection with a usable `Date`.
    static func skewOffset(_ response: HTTPResponse, localNow: Date) -> Double? {
        let error = ClientResponseDecoding.error(
            status: response.status, errorTypeHeader: response.header("x-amzn-ErrorType"), body: response.body)
        let skewCodes: Set<String> = [
            "RequestTimeTooSkewed", "RequestExpired", "InvalidSignatureException", "SignatureDoesNotMatch",
        ]
        guard skewCodes.contains(error.code) else { return nil }
        if error.code != "RequestTimeTooSkewed" {
            let message = error.message
            guard
                message.contains("Signature expired") || message.contains("Signature not yet current")
                    || message.contains("too skewed") || message.contains("expired")
            else { return nil }
        }
        guard let dateText = response.header("Date"), let serverDate = FirehoseClient.parseHTTPDate(dateText) else {
            return nil
        }
        let offset = serverDate.timeIntervalSince(localNow)
        return abs(offset) >= 60 ? offset : nil
    }

    static func hostHeader(_ url: URL) -> String {
        var host = url.host ?? "localhost"
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        guard let port = url.port else { return host }
        let scheme = url.scheme?.lowercased()
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) { return host }
        return "\(host):\(port)"
    }
}

/// The learnt server-minus-local time offset, shared by copies of a client.
final class ClockSkew: Sendable {
    private let value = Mutex<Double>(0)
    var offset: Double {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
