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

    /// Records already laid out (by a decoder, a processor): `ends` ascending, the last one
    /// `storage.count`.
    package init(storage: [UInt8], ends: [Int]) {
        precondition((ends.last ?? 0) == storage.count, "record ends must cover the storage exactly")
        self.storage = storage
        self.ends = ends
    }

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
package struct PutRecordsRequest: Sendable, Equatable {
    package var deliveryStreamName: String
    package var records: RecordBatch

    package init(deliveryStreamName: String, records: RecordBatch) {
        self.deliveryStreamName = deliveryStreamName
        self.records = records
    }

    /// Decodes a PutRecord body: `{"DeliveryStreamName": "...", "Record": {"Data": "<base64>"}}`.
    package static func decodePutRecord(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest {
        if let request = try decodePutRecordFast(body) { return request }
        return try decodePutRecordReference(body)
    }

    /// Decodes a PutRecordBatch body and enforces the per-record and record-count limits. The 4 MiB
    /// total is left to the caller, because AWS reports it after resolving the stream.
    package static func decodePutRecordBatch(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest {
        if let request = try decodePutRecordBatchFast(body) { return request }
        return try decodePutRecordBatchReference(body)
    }

    // MARK: Fast path

    /// The scanner's answer for a PutRecord body, or nil when the body is outside what it handles.
    /// Checks in the reference's order: the JSON, then base64 (which throws), then the violations.
    static func decodePutRecordFast(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest? {
        guard let scanned = PutRecordsScanner.scan(body, batch: false) else { return nil }
        if scanned.firstInvalidBase64 != nil { throw invalidBase64(path: "record") }
        var violations = ServiceLimits.streamNameViolations(scanned.deliveryStreamName)
        if scanned.entryCount == nil { violations.append(.missing("record")) }
        violations += scanned.entryViolations
        if !violations.isEmpty { throw .validation(violations) }
        return PutRecordsRequest(deliveryStreamName: scanned.deliveryStreamName!, records: scanned.records)
    }

    /// The scanner's answer for a PutRecordBatch body, or nil when the body is outside what it handles.
    static func decodePutRecordBatchFast(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest? {
        guard let scanned = PutRecordsScanner.scan(body, batch: true) else { return nil }
        if let index = scanned.firstInvalidBase64 { throw invalidBase64(path: entryPath(index)) }
        var violations = ServiceLimits.streamNameViolations(scanned.deliveryStreamName)
        if let count = scanned.entryCount {
            if let violation = recordCountViolation(count) { violations.append(violation) }
        } else {
            violations.append(.missing("records"))
        }
        violations += scanned.entryViolations
        if !violations.isEmpty { throw .validation(violations) }
        return PutRecordsRequest(deliveryStreamName: scanned.deliveryStreamName!, records: scanned.records)
    }

    // MARK: Reference path

    /// `JSONDecoder` into Codable shapes: the behaviour the fast path must reproduce, and the decoder of
    /// every body it does not handle.
    static func decodePutRecordReference(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest {
        let shape = try RequestJSON.decode(PutRecordShape.self, from: body)
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

    static func decodePutRecordBatchReference(_ body: [UInt8]) throws(FirehoseError) -> PutRecordsRequest {
        let shape = try RequestJSON.decode(PutRecordBatchShape.self, from: body)
        var violations = ServiceLimits.streamNameViolations(shape.DeliveryStreamName)
        var records = RecordBatch()
        if let entries = shape.Records {
            if let violation = recordCountViolation(entries.count) { violations.append(violation) }
            // Past the limit the request is refused anyway; checking each entry would only let a
            // hostile batch buy work.
            for (index, entry) in entries.prefix(ServiceLimits.maxBatchRecords).enumerated() {
                let path = entryPath(index)
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
        guard let size = records.appendBase64(data) else { throw invalidBase64(path: path) }
        if size > ServiceLimits.maxRecordBytes {
            records.removeLast()
            violations.append(oversizedRecord(size: size, path: path))
        }
    }

    // MARK: Messages both paths share

    /// `records.N.member`, 1-based as AWS reports it.
    static func entryPath(_ index: Int) -> String { "records.\(index + 1).member" }

    static func recordCountViolation(_ count: Int) -> ValidationViolation? {
        if count == 0 {
            return ValidationViolation(
                value: "[]", path: "records", constraint: "Member must have length greater than or equal to 1")
        }
        if count > ServiceLimits.maxBatchRecords {
            return ValidationViolation(
                value: "[\(count) records]", path: "records",
                constraint: "Member must have length less than or equal to \(ServiceLimits.maxBatchRecords)")
        }
        return nil
    }

    /// AWS reports an undecodable blob as a SerializationException, not a constraint violation.
    static func invalidBase64(path: String) -> FirehoseError {
        .serialization("Value at '\(path).data' is not valid base64.")
    }

    /// AWS's validator prints the Java buffer it decoded into; matching it keeps log-scrapers working.
    static func oversizedRecord(size: Int, path: String) -> ValidationViolation {
        ValidationViolation(
            value: "java.nio.HeapByteBuffer[pos=0 lim=\(size) cap=\(size)]", path: "\(path).data",
            constraint: "Member must have length less than or equal to \(ServiceLimits.maxRecordBytes)")
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
package enum PutRecordsResponse {
    /// `{"RecordId": "...", "Encrypted": false}`; `Encrypted` says whether the stream's server-side
    /// encryption is on.
    package static func putRecord(recordID: String, encrypted: Bool = false) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 96)
        writer.beginObject()
        writer.key("RecordId")
        writer.string(recordID)
        writer.key("Encrypted")
        writer.bool(encrypted)
        writer.endObject()
        return writer.bytes
    }

    /// `{"FailedPutCount": 0, "Encrypted": false, "RequestResponses": [{"RecordId": "..."}, ...]}`
    package static func putRecordBatch(recordIDs: some Collection<String>, encrypted: Bool = false) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64 + recordIDs.count * 80)
        writer.beginObject()
        writer.key("FailedPutCount")
        writer.integer(0)
        writer.key("Encrypted")
        writer.bool(encrypted)
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

    /// A record of a PutRecordBatch that was not stored, and why, in AWS's words.
    package struct RecordFailure: Sendable, Equatable {
        package var position: Int
        package var code: String
        package var message: String

        package init(position: Int, code: String, message: String) {
            self.position = position
            self.code = code
            self.message = message
        }

        /// The per-record error codes PutRecordBatch answers (its API reference).
        package static let codes = ["ServiceUnavailableException", "InternalFailure"]

        /// What AWS says with each of them: "Slow down." when throttled; InternalFailure's per-record
        /// text is not documented, this is ours.
        package static func message(of code: String) -> String {
            code == "InternalFailure" ? "Internal service failure." : FirehoseError.throttled.message
        }
    }

    /// The same with failed entries, `{"ErrorCode": ..., "ErrorMessage": ...}` in the place of the
    /// records that failed (`failures` in ascending positions), and `FailedPutCount` counting them.
    package static func putRecordBatch(
        records: Int, failures: [RecordFailure], encrypted: Bool = false, recordID: () -> String
    ) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64 + records * 80)
        writer.beginObject()
        writer.key("FailedPutCount")
        writer.integer(failures.count)
        writer.key("Encrypted")
        writer.bool(encrypted)
        writer.key("RequestResponses")
        writer.beginArray()
        var failures = failures[...]
        for position in 0..<records {
            writer.beginObject()
            if let failure = failures.first, failure.position == position {
                failures.removeFirst()
                writer.key("ErrorCode")
                writer.string(failure.code)
                writer.key("ErrorMessage")
                writer.string(failure.message)
            } else {
                writer.key("RecordId")
                writer.string(recordID())
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
