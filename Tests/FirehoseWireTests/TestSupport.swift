import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

/// So "random" inputs are reproducible from a seed.
typealias SeededGenerator = SeededBytes

/// The error a typed-throwing call raised, or nil when it returned normally.
func caught<T>(_ body: () throws -> T) -> FirehoseError? {
    do {
        _ = try body()
        return nil
    } catch let error as FirehoseError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// Bytes of a JSON text.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A PutRecord body the way boto3 sends it (separators with spaces).
func boto3PutRecord(stream: String, data: String) -> [UInt8] {
    utf8(#"{"DeliveryStreamName": "\#(stream)", "Record": {"Data": "\#(data)"}}"#)
}

/// A PutRecordBatch body the way boto3 sends it.
func boto3PutRecordBatch(stream: String, records: [[UInt8]]) -> [UInt8] {
    let entries = records.map { #"{"Data": "\#(Base64.encode($0))"}"# }.joined(separator: ", ")
    return utf8(#"{"DeliveryStreamName": "\#(stream)", "Records": [\#(entries)]}"#)
}

/// Parses a JSON object with Foundation, independently of the code under test.
func parseJSONObject(_ bytes: [UInt8]) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
    return try #require(object as? [String: Any])
}

extension RecordBatch {
    /// The records as separate arrays, for comparisons.
    var records: [[UInt8]] { (0..<count).map { Array(self[$0]) } }
}
