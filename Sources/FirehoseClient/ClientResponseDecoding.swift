import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a PutRecord call returned.
public struct PutRecordOutput: Sendable, Equatable {
    /// Opaque id Firehose gave the record.
    public var recordID: String
    /// Whether server-side encryption was enabled for the record (absent in some peers' answers).
    public var encrypted: Bool?

    public init(recordID: String, encrypted: Bool? = nil) {
        self.recordID = recordID
        self.encrypted = encrypted
    }
}

/// What a PutRecordBatch call returned: one entry per input record, in input order.
public struct PutRecordBatchOutput: Sendable, Equatable {
    public enum Entry: Sendable, Equatable {
        case success(recordID: String)
        /// The record was not accepted; Firehose uses `ServiceUnavailableException` and `InternalFailure`.
        case failure(code: String, message: String)

        public var isSuccess: Bool {
            if case .success = self { return true }
            return false
        }
    }

    public var failedPutCount: Int
    public var encrypted: Bool?
    public var entries: [Entry]

    public init(failedPutCount: Int, encrypted: Bool? = nil, entries: [Entry]) {
        self.failedPutCount = failedPutCount
        self.encrypted = encrypted
        self.entries = entries
    }
}

/// Decoding of response bodies on the client side. Lenient where AWS and its peers differ (message
/// key case, namespaced `__type`), strict where a mistake would lose records (one entry per record).
package enum ClientResponseDecoding {
    package struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package static func putRecord(_ body: [UInt8]) throws(Malformed) -> PutRecordOutput {
        let shape = try decode(PutRecordOutputShape.self, body, what: "PutRecord")
        guard let id = shape.RecordId else { throw Malformed("PutRecord response has no RecordId.") }
        return PutRecordOutput(recordID: id, encrypted: shape.Encrypted)
    }

    /// - Parameter expectedCount: the number of records sent; a response with another number of
    ///   entries is malformed, since entries are matched to records by position.
    package static func putRecordBatch(_ body: [UInt8], expectedCount: Int) throws(Malformed) -> PutRecordBatchOutput {
        let shape = try decode(PutRecordBatchOutputShape.self, body, what: "PutRecordBatch")
        guard let responses = shape.RequestResponses else {
            throw Malformed("PutRecordBatch response has no RequestResponses.")
        }
        guard responses.count == expectedCount else {
            throw Malformed("PutRecordBatch response has \(responses.count) entries for \(expectedCount) records.")
        }
        var failed = 0
        let entries: [PutRecordBatchOutput.Entry] = responses.map { entry in
            if let code = entry.ErrorCode, !code.isEmpty {
                failed += 1
                return .failure(code: code, message: entry.ErrorMessage ?? "")
            }
            // An entry without a RecordId and without an error is not a success we can trust.
            guard let id = entry.RecordId else {
                failed += 1
                return .failure(code: "InternalFailure", message: "Response entry has neither RecordId nor ErrorCode.")
            }
            return .success(recordID: id)
        }
        return PutRecordBatchOutput(
            failedPutCount: max(shape.FailedPutCount ?? failed, failed), encrypted: shape.Encrypted, entries: entries)
    }

    /// The AWS error in a non-2xx response: code from `x-amzn-ErrorType` or the body's `__type`
    /// (namespace and URI suffixes removed), message from `message` / `Message`.
    package static func error(status: Int, errorTypeHeader: String?, body: [UInt8]) -> FirehoseError {
        let shape = try? JSONDecoder().decode(ErrorShape.self, from: Data(body))
        let rawCode = [errorTypeHeader, shape?.__type, shape?.code, shape?.Code]
            .compactMap { $0 }
            .first { !$0.isEmpty }
        let code = rawCode.map(normalizeCode) ?? Self.fallbackCode(status: status)
        var message = shape?.message ?? shape?.Message ?? shape?.errorMessage ?? ""
        if message.isEmpty, shape == nil, !body.isEmpty {
            // Not JSON (a proxy's HTML page, say): keep the start of it for the person reading logs.
            message = String(decoding: body.prefix(200), as: UTF8.self)
        }
        return FirehoseError(code: code, message: message, httpStatus: status)
    }

    /// `com.amazonaws.firehose#ResourceNotFoundException` and `ResourceNotFoundException:http://…`
    /// both become `ResourceNotFoundException`.
    static func normalizeCode(_ raw: String) -> String {
        var code = Substring(raw)
        if let hash = code.lastIndex(of: "#") { code = code[code.index(after: hash)...] }
        if let colon = code.firstIndex(of: ":") { code = code[..<colon] }
        return String(code.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }

    static func fallbackCode(status: Int) -> String {
        switch status {
        case 429: return "ThrottlingException"
        case 503: return "ServiceUnavailableException"
        case 500...599: return "InternalFailure"
        case 413: return "RequestEntityTooLarge"
        case 403: return "AccessDeniedException"
        default: return "HTTP\(status)"
        }
    }

    private static func decode<Shape: Decodable>(_ type: Shape.Type, _ body: [UInt8], what: String) throws(Malformed)
        -> Shape
    {
        do {
            return try JSONDecoder().decode(Shape.self, from: Data(body))
        } catch {
            throw Malformed(
                "\(what) response is not the expected JSON: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
private struct PutRecordOutputShape: Decodable {
    var RecordId: String?
    var Encrypted: Bool?
}

private struct PutRecordBatchOutputShape: Decodable {
    struct Entry: Decodable {
        var RecordId: String?
        var ErrorCode: String?
        var ErrorMessage: String?
    }
    var FailedPutCount: Int?
    var Encrypted: Bool?
    var RequestResponses: [Entry]?
}

private struct ErrorShape: Decodable {
    var __type: String?
    var code: String?
    var Code: String?
    var message: String?
    var Message: String?
    var errorMessage: String?
}
