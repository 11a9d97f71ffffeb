import AWSSigV4
import CivilTime
import FirehoseWire
import Foundation
import HTTPTransports
import Synchronization

// What an app names when it uses this library, and nothing more of the modules under it: the
// credentials it signs with, the error a service answer carries, the operation `send` takes, and
// the transport it may plug in.
@_exported import struct AWSSigV4.AWSCredentials
@_exported import struct FirehoseWire.FirehoseError
@_exported import enum FirehoseWire.FirehoseOperation
@_exported import class HTTPTransports.HTTP1Transport
@_exported import struct HTTPTransports.HTTPRequest
@_exported import struct HTTPTransports.HTTPResponse
@_exported import protocol HTTPTransports.HTTPTransport

/// A Firehose data-plane client: SigV4-signed AWS JSON 1.1 over a pluggable transport. Works
/// against `firehose-local` and, unchanged, against Amazon Data Firehose.
///
/// Each call makes one request (plus, at most once, a re-signed retry after a clock-skew answer);
/// retry policy is the caller's — `FirehoseRecorder` is the retrying, durable layer on top.
public struct FirehoseClient: Sendable {
    public struct Configuration: Sendable {
        /// `http://127.0.0.1:4573` for `firehose-local`; `https://firehose.<region>.amazonaws.com` for AWS.
        public var endpoint: URL
        public var region: String
        public var credentialsProvider: any CredentialsProvider
        public var transport: any HTTPTransport
        /// Send PutRecord/PutRecordBatch bodies gzip-compressed (`Content-Encoding: gzip`), signed over
        /// the compressed bytes, as the AWS iOS SDK does. Saves bandwidth on text records.
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

        /// The public AWS endpoint of a region.
        public static func awsEndpoint(region: String) -> URL {
            URL(string: "https://firehose.\(region).amazonaws.com")!
        }
    }

    public let configuration: Configuration
    private let skew = ClockSkew()

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public init(
        endpoint: URL, region: String, credentialsProvider: any CredentialsProvider,
        transport: any HTTPTransport = DefaultTransport(), gzipRequestBodies: Bool = false
    ) {
        self.init(
            configuration: Configuration(
                endpoint: endpoint, region: region, credentialsProvider: credentialsProvider, transport: transport,
                gzipRequestBodies: gzipRequestBodies))
    }

    /// The offset (server time minus local time, seconds) learnt from a clock-skew answer; 0 until then.
    public var clockSkewSeconds: Double { skew.offset }

    // MARK: Data plane

    /// Sends one record.
    public func putRecord(_ data: some Collection<UInt8>, deliveryStreamName: String) async throws(FirehoseClientError)
        -> PutRecordOutput
    {
        try Self.validate(streamName: deliveryStreamName)
        if data.count > ServiceLimits.maxRecordBytes {
            throw Self.recordTooLarge(size: data.count, path: "record.data")
        }
        let body = ClientRequestEncoding.putRecord(deliveryStreamName: deliveryStreamName, record: data)
        let response = try await send(.putRecord, body: body, compressible: true)
        do {
            return try ClientResponseDecoding.putRecord(response.body)
        } catch {
            throw Self.invalidResponse(error, response)
        }
    }

    /// Sends up to 500 records (4 MiB in all). Per-record failures come back as `.failure` entries in
    /// `entries`, in the order of `records`; only whole-request failures throw.
    public func putRecordBatch<Records: Collection>(_ records: Records, deliveryStreamName: String)
        async throws(FirehoseClientError) -> PutRecordBatchOutput
    where Records.Element: Collection<UInt8> {
        try Self.validate(streamName: deliveryStreamName)
        guard !records.isEmpty else {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "ValidationException",
                message: "1 validation error detected: Value '[]' at 'records' failed to satisfy constraint: "
                    + "Member must have length greater than or equal to 1")
        }
        guard records.count <= ServiceLimits.maxBatchRecords else {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "ValidationException",
                message: "1 validation error detected: Value '[\(records.count) records]' at 'records' failed to "
                    + "satisfy constraint: Member must have length less than or equal to \(ServiceLimits.maxBatchRecords)"
            )
        }
        var total = 0
        for (index, record) in records.enumerated() {
            if record.count > ServiceLimits.maxRecordBytes {
                throw Self.recordTooLarge(size: record.count, path: "records.\(index + 1).member.data")
            }
            total += record.count
        }
        guard total <= ServiceLimits.maxBatchBytes else {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "InvalidArgumentException",
                message: "Records size exceeds 4 MB limit (\(total) bytes; at most \(ServiceLimits.maxBatchBytes)).")
        }
        let body = BatchBody.encode(deliveryStreamName: deliveryStreamName, records: records)
        let response = try await send(.putRecordBatch, body: body, compressible: true)
        if let output = BatchResponse.decode(response.body, expectedCount: records.count) { return output }
        do {
            return try ClientResponseDecoding.putRecordBatch(response.body, expectedCount: records.count)
        } catch {
            throw Self.invalidResponse(error, response)
        }
    }

    // MARK: Any operation

    /// Sends a raw JSON body to any operation (the control plane, say) and returns the 2xx answer;
    /// non-2xx answers throw as service errors.
    public func send(_ operation: FirehoseOperation, body: [UInt8]) async throws(FirehoseClientError) -> HTTPResponse {
        try await send(operation, body: body, compressible: false)
    }

    private func send(_ operation: FirehoseOperation, body: [UInt8], compressible: Bool)
        async throws(FirehoseClientError) -> HTTPResponse
    {
        var wireBody = body
        var gzipped = false
        if compressible, configuration.gzipRequestBodies,
            let compressor = try? GzipCompressor(level: configuration.gzipLevel)
        {
            compressor.append(body)
            compressor.finish()
            wireBody = compressor.takeOutput()
            gzipped = true
        }
        let response = try await exchange(operation, body: wireBody, gzipped: gzipped)
        guard configuration.correctClockSkew, response.status >= 400,
            let offset = Self.skewOffset(response, localNow: configuration.now())
        else {
            return try check(response)
        }
        // Sign again with the server's idea of the time, once.
        skew.offset = offset
        return try check(try await exchange(operation, body: wireBody, gzipped: gzipped))
    }

    private func exchange(_ operation: FirehoseOperation, body: [UInt8], gzipped: Bool)
        async throws(FirehoseClientError) -> HTTPResponse
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
            ("X-Amz-Target", ClientRequestEncoding.target(operation)),
        ]
        if gzipped { headers.append(("Content-Encoding", "gzip")) }
        let signer = SigV4Signer(credentials: credentials, region: configuration.region, service: "firehose")
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

    private func check(_ response: HTTPResponse) throws(FirehoseClientError) -> HTTPResponse {
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
        guard let dateText = response.header("Date"), let serverDate = parseHTTPDate(dateText) else { return nil }
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

    static func validate(streamName: String) throws(FirehoseClientError) {
        let violations = ServiceLimits.streamNameViolations(streamName)
        guard violations.isEmpty else {
            throw FirehoseClientError(
                kind: .invalidRequest, code: "ValidationException",
                message: FirehoseError.validation(violations).message)
        }
    }

    static func recordTooLarge(size: Int, path: String) -> FirehoseClientError {
        FirehoseClientError(
            kind: .invalidRequest, code: "ValidationException",
            message: "Record of \(size) bytes at '\(path)' is over the Firehose limit of "
                + "\(ServiceLimits.maxRecordBytes) bytes.")
    }

    static func invalidResponse(_ error: ClientResponseDecoding.Malformed, _ response: HTTPResponse)
        -> FirehoseClientError
    {
        FirehoseClientError(
            kind: .invalidResponse, message: error.description, httpStatus: response.status,
            requestID: response.header("x-amzn-RequestId"))
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

extension FirehoseClient {
    /// Parses an HTTP `Date` header (RFC 1123, GMT); nil when it is not one.
    public static func parseHTTPDate(_ text: String) -> Date? {
        HTTPDate.parse(text).map { Date(timeIntervalSince1970: Double($0)) }
    }
}
