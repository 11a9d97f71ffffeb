import AWSSigV4
import FirehoseClient
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The data-plane operations the load generator sends: Firehose's two, and Kinesis Data Streams'
/// PutRecords (each record's partition key `pk-N`, N its place in the request, so records spread
/// over every shard).
public enum LoadOperation: String, CaseIterable, Sendable {
    case putRecord = "PutRecord"
    case putRecordBatch = "PutRecordBatch"
    case putRecords = "PutRecords"

    var service: String { self == .putRecords ? "kinesis" : "firehose" }

    var target: String {
        switch self {
        case .putRecord: ClientRequestEncoding.target(.putRecord)
        case .putRecordBatch: ClientRequestEncoding.target(.putRecordBatch)
        case .putRecords: KinesisClient.targetPrefix + "PutRecords"
        }
    }
}

/// One request, signed and rendered to the exact bytes of an HTTP/1.1 request, plus what it carries.
public struct RenderedRequest: Sendable {
    /// Request line, headers and body, ready to write to a socket.
    public var wireBytes: [UInt8]
    /// The same request as the verifier sees it (for the SigV4 micro benchmark).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var records: Int
    /// Sum of the record sizes before base64: the payload the throughput figures count.
    public var payloadBytes: Int
}

/// Builds and signs requests up front, the way an SDK would send them (boto3's header set), so the
/// timed phase only writes bytes.
public struct RequestFactory: Sendable {
    public var hostHeader: String
    public var region: String
    public var credentials: AWSCredentials
    public var signingDate: Date

    public init(
        hostHeader: String, region: String = "us-east-1",
        credentials: AWSCredentials = AWSCredentials(accessKeyId: "test", secretAccessKey: "test"),
        signingDate: Date = Date()
    ) {
        self.hostHeader = hostHeader
        self.region = region
        self.credentials = credentials
        self.signingDate = signingDate
    }

    public func request(
        _ operation: LoadOperation, stream: String, records: some Collection<[UInt8]>
    ) -> RenderedRequest {
        let body: [UInt8]
        switch operation {
        case .putRecord:
            precondition(records.count == 1, "PutRecord carries exactly one record")
            body = ClientRequestEncoding.putRecord(deliveryStreamName: stream, record: records.first!)
        case .putRecordBatch:
            body = ClientRequestEncoding.putRecordBatch(deliveryStreamName: stream, records: records)
        case .putRecords:
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("StreamName")
            writer.string(stream)
            writer.key("Records")
            writer.beginArray()
            for (index, record) in records.enumerated() {
                writer.beginObject()
                writer.key("Data")
                writer.base64(record)
                writer.key("PartitionKey")
                writer.string("pk-\(index)")
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
            body = writer.bytes
        }
        var headers: [(name: String, value: String)] = [
            ("Host", hostHeader),
            ("Content-Type", FirehoseOperation.contentType),
            ("X-Amz-Target", operation.target),
        ]
        let signer = SigV4Signer(credentials: credentials, region: region, service: operation.service)
        headers += signer.sign(
            method: "POST", path: "/", query: "", headers: headers, bodySHA256: SHA256Hex.hash(body),
            date: signingDate)
        headers.append(("Content-Length", String(body.count)))

        var wire: [UInt8] = []
        wire.reserveCapacity(body.count + 512)
        wire.append(contentsOf: "POST / HTTP/1.1\r\n".utf8)
        for (name, value) in headers {
            wire.append(contentsOf: name.utf8)
            wire.append(contentsOf: ": ".utf8)
            wire.append(contentsOf: value.utf8)
            wire.append(contentsOf: "\r\n".utf8)
        }
        wire.append(contentsOf: "\r\n".utf8)
        wire.append(contentsOf: body)
        return RenderedRequest(
            wireBytes: wire, headers: headers, body: body, records: records.count,
            payloadBytes: records.reduce(0) { $0 + $1.count })
    }

    /// The requests a run cycles through: request `i` goes to stream `i % streams.count` and carries
    /// the next `recordsPerRequest` records of `pool` (wrapping around). At least one request per stream.
    public func requests(
        _ operation: LoadOperation, streams: [String], pool: [[UInt8]], recordsPerRequest: Int, count: Int
    ) -> [RenderedRequest] {
        let perRequest = operation == .putRecord ? 1 : recordsPerRequest
        var next = 0
        return (0..<max(count, streams.count)).map { index in
            let records = (0..<perRequest).map { offset in pool[(next + offset) % pool.count] }
            next = (next + perRequest) % pool.count
            return request(operation, stream: streams[index % streams.count], records: records)
        }
    }
}

/// Stream names shared by the load generator and the runner's generated configuration.
public enum StreamNames {
    public static func names(prefix: String, count: Int) -> [String] {
        (0..<count).map { "\(prefix)-\($0)" }
    }
}
