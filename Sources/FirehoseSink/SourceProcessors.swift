import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `Decompression` (`CompressionFormat: GZIP`): each record gunzipped, as CloudWatch Logs
/// subscriptions send them. A record that does not decompress is delivered as it came (still
/// compressed) to the `decompression-failed` error output (decomp-faq.html). What records decompress
/// to is charged to the request's memory budget; when it is spent the request fails as a whole.
struct GzipDecompression: RecordProcessor {
    /// Bound on one record's decompressed size: a CloudWatch Logs data message holds at most one
    /// PutLogEvents batch (1 MiB of events), so this leaves ample room and stops a gzip bomb.
    static let maxRecordBytes = 8 * 1024 * 1024
    /// Bound on what one request's records decompress to together.
    static let maxRequestBytes = 256 * 1024 * 1024

    func process(_ records: RecordBatch, context: RecordContext, outcome: inout ProcessingOutcome) -> RecordBatch {
        var output = RecordBatch()
        var total = 0
        let failure = ErrorOutput.Failure.decompression
        for index in 0..<records.count {
            let record = records[index]
            let limit = min(Self.maxRecordBytes, Self.maxRequestBytes - total)
            do {
                // Charged as gzip bodies are: the output, then the copy into the batch.
                let content = try Gzip.decompress(Array(record), limit: limit) { context.reserveMemory(2 * $0) }
                total += content.count
                output.append(content)
            } catch .refused {
                outcome.memorySpent = true
                return RecordBatch()
            } catch {
                let reason =
                    switch error {
                    case .tooLarge where limit < Self.maxRecordBytes:
                        "the request's records decompress to more than \(Self.maxRequestBytes) bytes together"
                    case .tooLarge: "the record decompresses to more than \(Self.maxRecordBytes) bytes"
                    default: "the record is not valid GZIP data"
                    }
                outcome.fail(
                    record, type: failure.type, code: failure.code, message: "Decompression failed: \(reason).",
                    context: context)
            }
        }
        return output
    }
}

/// `CloudWatchLogProcessing` with `DataMessageExtraction: true`: a CloudWatch Logs data message
/// becomes its log events' messages, one record each, without the owner, log group and other
/// metadata (Message_extraction.html); a control message (CloudWatch Logs checking the destination)
/// is dropped. A record that is neither goes to the `processing-failed` error output.
struct CloudWatchLogsMessageExtraction: RecordProcessor {
    private struct Message: Decodable {
        struct Event: Decodable {
            var message: String
        }

        var messageType: String
        var logEvents: [Event]?
    }

    func process(_ records: RecordBatch, context: RecordContext, outcome: inout ProcessingOutcome) -> RecordBatch {
        var output = RecordBatch()
        let failure = ErrorOutput.Failure.cloudWatchLogsMessage
        let decoder = JSONDecoder()
        for index in 0..<records.count {
            let record = records[index]
            guard let message = try? decoder.decode(Message.self, from: Data(record)) else {
                outcome.fail(
                    record, type: failure.type, code: failure.code,
                    message:
                        "CloudWatch Logs message extraction failed: the record is not a CloudWatch Logs subscription message (JSON with messageType and logEvents).",
                    context: context)
                continue
            }
            switch message.messageType {
            case "DATA_MESSAGE":
                let events = message.logEvents ?? []
                // A data message without events holds no record: counted, not lost silently.
                if events.isEmpty { outcome.dropped += 1 }
                for event in events { output.append(Array(event.message.utf8)) }
            case "CONTROL_MESSAGE":
                outcome.dropped += 1
            default:
                outcome.fail(
                    record, type: failure.type, code: failure.code,
                    message:
                        "CloudWatch Logs message extraction failed: messageType '\(message.messageType)' is neither DATA_MESSAGE nor CONTROL_MESSAGE.",
                    context: context)
            }
        }
        return output
    }
}

/// `RecordDeAggregation`: each record split into the records aggregated in it
/// (dynamic-partitioning-multirecord-deaggergation.html). `JSON`: JSON objects one after another,
/// with or without newlines between them (an array is not valid input), newlines removed;
/// `DELIMITED`: the parts between occurrences of the delimiter. A record of more than 500 parts passes
/// whole, as AWS documents; one that is not valid goes to the `processing-failed` error output.
struct RecordDeAggregation: RecordProcessor {
    enum SubRecordType: Sendable, Equatable {
        case json
        case delimited([UInt8])
    }

    /// AWS: "Record deaggregation by JSON or by delimiter is capped at 500 per record."
    static let maxSubRecords = 500

    var subRecordType: SubRecordType

    func process(_ records: RecordBatch, context: RecordContext, outcome: inout ProcessingOutcome) -> RecordBatch {
        var output = RecordBatch()
        let failure = ErrorOutput.Failure.deaggregation
        for index in 0..<records.count {
            let record = records[index]
            let parts: [Range<Int>]?
            switch subRecordType {
            case .json: parts = Self.jsonObjects(in: record)
            case .delimited(let delimiter): parts = Self.split(record, on: delimiter)
            }
            switch parts {
            case nil:
                outcome.fail(
                    record, type: failure.type, code: failure.code,
                    message:
                        "Record de-aggregation failed: the record is not JSON objects one after another (with or without newlines between them).",
                    context: context)
            case let parts? where parts.count > Self.maxSubRecords:
                output.append(record)
            case let parts? where parts.isEmpty:
                // An empty record holds no record: counted, not lost silently.
                outcome.dropped += 1
            case let parts?:
                for part in parts { output.append(record[part]) }
            }
        }
        return output
    }

    /// The ranges (indices of `bytes`) of the top-level JSON objects of `bytes`, which may be
    /// separated by whitespace only; nil when anything else is there (an array, a bare value, a
    /// broken object). Scanning stops after `maxSubRecords + 1` objects (the record then passes
    /// whole), and objects are only checked as JSON when there are at most `maxSubRecords`, so a
    /// record of a million `{}` costs one pass over its bytes.
    static func jsonObjects(in bytes: ArraySlice<UInt8>) -> [Range<Int>]? {
        var objects: [Range<Int>] = []
        var index = bytes.startIndex
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        while true {
            while index < bytes.endIndex, whitespace.contains(bytes[index]) { index += 1 }
            guard index < bytes.endIndex else { break }
            guard bytes[index] == UInt8(ascii: "{") else { return nil }
            let start = index
            var depth = 0
            var inString = false
            var escaped = false
            repeat {
                let byte = bytes[index]
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                }
                index += 1
            } while depth > 0 && index < bytes.endIndex
            guard depth == 0 else { return nil }
            objects.append(start..<index)
            if objects.count > maxSubRecords { return objects }
        }
        let decoder = JSONDecoder()
        for object in objects {
            guard case .object? = try? decoder.decode(JSONValue.self, from: Data(bytes[object])) else { return nil }
        }
        return objects.isEmpty ? nil : objects
    }

    /// The parts of `bytes` between occurrences of `delimiter` (a trailing delimiter ends the last
    /// part rather than starting an empty one).
    static func split(_ bytes: ArraySlice<UInt8>, on delimiter: [UInt8]) -> [Range<Int>]? {
        var parts: [Range<Int>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index + delimiter.count <= bytes.endIndex {
            if bytes[index..<index + delimiter.count].elementsEqual(delimiter) {
                parts.append(start..<index)
                index += delimiter.count
                start = index
            } else {
                index += 1
            }
        }
        if start < bytes.endIndex { parts.append(start..<bytes.endIndex) }
        return parts
    }
}
