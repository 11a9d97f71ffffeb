import AWSCredentialProviders
import AWSSigV4
import CivilTime
import FirehoseWire
public import Foundation
import HTTPTransports
import Synchronization

// What an app names when it uses this library, and nothing more of the modules under it: the
// credentials it signs with and where they come from, the error a service answer carries, the
// operation `send` takes, and the transport it may plug in.
@_exported import struct AWSCredentialProviders.CredentialsError
@_exported import protocol AWSCredentialProviders.CredentialsProvider
@_exported import struct AWSCredentialProviders.CredentialsProviderChain
@_exported import struct AWSCredentialProviders.EnvironmentCredentialsProvider
@_exported import struct AWSCredentialProviders.ProfileCredentialsProvider
@_exported import enum AWSCredentialProviders.SharedConfigFile
@_exported import struct AWSCredentialProviders.StaticCredentialsProvider
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
    /// Where and how requests go: endpoint, region, credentials, transport, timeouts.
    public typealias Configuration = AWSClientConfiguration

    /// The public AWS endpoint of a region.
    public static func awsEndpoint(region: String) -> URL {
        URL(string: "https://firehose.\(region).amazonaws.com")!
    }

    public let configuration: Configuration
    private let exchange: SignedJSONExchange

    public init(configuration: Configuration) {
        self.configuration = configuration
        exchange = SignedJSONExchange(configuration: configuration, service: "firehose")
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
    public var clockSkewSeconds: Double { exchange.skew.offset }

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
        return try await exchange.send(
            target: ClientRequestEncoding.target(operation), body: wireBody, gzipped: gzipped)
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

extension FirehoseClient {
    /// Parses an HTTP `Date` header (RFC 1123, GMT); nil when it is not one.
    public static func parseHTTPDate(_ text: String) -> Date? {
        HTTPDate.parse(text).map { Date(timeIntervalSince1970: Double($0)) }
    }
}
