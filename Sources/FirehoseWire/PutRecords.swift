#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The records of one PutRecord or PutRecordBatch call, decoded into a single contiguous buffer so a
/// 500-record batch costs one allocation, not 500.
public struct RecordBatch: Sendable, Equatable {
    public private(set) var storage: [UInt8] = []
    /// `ends[i]` is the end offset of record `i` in `storage`.
    public private(set) var ends: [Int] = []

    public init() {}

    public init(_ records: [[UInt8]]) {
        for record in records { append(record) }
    }

    public var count: Int { ends.count }
    public var isEmpty: Bool { ends.isEmpty }
    /// Sum of the decoded record sizes: what the 4 MiB batch limit and buffering hints count.
    public var totalBytes: Int { storage.count }

    public func range(of index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    public subscript(index: Int) -> ArraySlice<UInt8> { storage[range(of: index)] }

    public mutating func append(_ record: some Collection<UInt8>) {
        storage.append(contentsOf: record)
        ends.append(storage.count)
    }

    /// Appends a base64-encoded record; returns its decoded size or nil when the text is not base64.
    mutating func appendBase64(_ encoded: String) -> Int? {
        var text = encoded
        guard let size = text.withUTF8({ Base64.decode($0, appendingTo: &storage) }) else { return nil }
        ends.append(storage.count)
        return size
    }

    mutating func removeLast() {
        ends.removeLast()
        storage.removeSubrange((ends.last ?? 0)...)
    }
}

/// A decoded and validated PutRecord or PutRecordBatch request.
public struct PutRecordsRequest: Sendable, Equatable {
    public var deliveryStreamName: String
    public var records: RecordBatch

    public init(deliveryStreamName: String, records: RecordBatch) {
        self.deliveryStreamName = deliveryStreamName
        self.records = records
    }

    /// Decodes a PutRecord body: `{"DeliveryStreamName": "...", "Record": {"Data": "<base64>"}}`.
    public static func decodePutRecord(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest {
        let shape = try decodeJSON(PutRecordShape.self, from: body)
        var violations = ServiceLimits.streamNameViolations(shape.DeliveryStreamName)
        var records = RecordBatch()
        if let record = shape.Record {
            try decode(record, path: "record", into: &records, violations: &violations)
        } else {
            violations.append(.missing("record"))
        }
        if !violations.isEmpty { throw .validation(violations) }
        return PutRecordsRequest(deliveryStreamName: shape.DeliveryStreamName!, records: records)
    }

    /// Decodes a PutRecordBatch body and enforces the per-record and record-count limits. The 4 MiB
    /// total is left to the caller, because AWS reports it after resolving the stream.
    public static func decodePutRecordBatch(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest {
        let shape = try decodeJSON(PutRecordBatchShape.self, from: body)
        var violations = ServiceLimits.streamNameViolations(shape.DeliveryStreamName)
        var records = RecordBatch()
        if let entries = shape.Records {
            if entries.isEmpty {
                violations.append(
                    ValidationViolation(
                        value: "[]", path: "records", constraint: "Member must have length greater than or equal to 1"))
            } else if entries.count > ServiceLimits.maxBatchRecords {
                violations.append(
                    ValidationViolation(
                        value: "[\(entries.count) records]", path: "records",
                        constraint: "Member must have length less than or equal to \(ServiceLimits.maxBatchRecords)"))
            }
            // Past the limit the request is refused anyway; checking each entry would only let a
            // hostile batch buy work.
            for (index, entry) in entries.prefix(ServiceLimits.maxBatchRecords).enumerated() {
                let path = "records.\(index + 1).member"
                guard let entry else {
                    violations.append(.missing(path))
                    continue
                }
                try decode(entry, path: path, into: &records, violations: &violations)
            }
        } else {
            violations.append(.missing("records"))
        }
        if !violations.isEmpty { throw .validation(violations) }
        return PutRecordsRequest(deliveryStreamName: shape.DeliveryStreamName!, records: records)
    }

    private static func decode(
        _ record: RecordShape, path: String, into records: inout RecordBatch, violations: inout [ValidationViolation]
    ) throws(FirehoseError) {
        guard let data = record.Data else {
            violations.append(.missing("\(path).data"))
            return
        }
        guard let size = records.appendBase64(data) else {
            // AWS reports an undecodable blob as a SerializationException, not a constraint violation.
            throw .serialization("Value at '\(path).data' is not valid base64.")
        }
        if size > ServiceLimits.maxRecordBytes {
            records.removeLast()
            // AWS's validator prints the Java buffer it decoded into; matching it keeps log-scrapers working.
            violations.append(
                ValidationViolation(
                    value: "java.nio.HeapByteBuffer[pos=0 lim=\(size) cap=\(size)]", path: "\(path).data",
                    constraint: "Member must have length less than or equal to \(ServiceLimits.maxRecordBytes)"))
        }
    }

    private static func decodeJSON<Shape: Decodable>(_ type: Shape.Type, from body: [UInt8]) throws(FirehoseError)
        -> Shape
    {
        do {
            return try JSONDecoder().decode(Shape.self, from: Data(body))
        } catch let error as DecodingError {
            throw .serialization(Self.describe(error))
        } catch {
            throw .serialization("Request body is not valid JSON.")
        }
    }

    public static func describe(_ error: DecodingError) -> String {
        func location(_ path: [any CodingKey]) -> String {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the request body" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "Unexpected JSON type at \(location(context.codingPath)): expected \(type)."
        case .valueNotFound(let type, let context):
            return "Unexpected null at \(location(context.codingPath)): expected \(type)."
        case .keyNotFound(let key, _):
            return "Missing member \(key.stringValue)."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "Request body is not valid JSON."
                : "Malformed value at \(location(context.codingPath))."
        @unknown default:
            return "Request body could not be decoded."
        }
    }
}

// Member names are AWS's, so the shapes decode what every SDK sends without key strategies.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct RecordShape: Decodable {
    var Data: String?
}

private struct PutRecordShape: Decodable {
    var DeliveryStreamName: String?
    var Record: RecordShape?
}

private struct PutRecordBatchShape: Decodable {
    var DeliveryStreamName: String?
    var Records: [RecordShape?]?
}

/// Response bodies of the data plane.
public enum PutRecordsResponse {
    /// `{"RecordId": "...", "Encrypted": false}`
    public static func putRecord(recordID: String) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 96)
        writer.beginObject()
        writer.key("RecordId")
        writer.string(recordID)
        writer.key("Encrypted")
        writer.bool(false)
        writer.endObject()
        return writer.bytes
    }

    /// `{"FailedPutCount": 0, "Encrypted": false, "RequestResponses": [{"RecordId": "..."}, ...]}`
    public static func putRecordBatch(recordIDs: some Collection<String>) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64 + recordIDs.count * 80)
        writer.beginObject()
        writer.key("FailedPutCount")
        writer.integer(0)
        writer.key("Encrypted")
        writer.bool(false)
        writer.key("RequestResponses")
        writer.beginArray()
        for id in recordIDs {
            writer.beginObject()
            writer.key("RecordId")
            writer.string(id)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
