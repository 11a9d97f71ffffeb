import FirehoseWire

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The `Lambda` processor's contract with a transformation function, as AWS documents it
/// (data-transformation.html, data-transformation-status-model.html) and as its error records were
/// seen (docs/compatibility.md): the invocation event Firehose sends, and how the function's answer
/// is read — every record given back exactly once, with `result` `Ok`, `Dropped` or
/// `ProcessingFailed`, base64 `data`, and `metadata.partitionKeys` for `!{partitionKeyFromLambda:…}`.
/// Pure: no invocation, no clock; the transformation stage (and its tests) drive it.
package enum LambdaContract {
    /// The largest invocation payload and answer: Lambda's synchronous invoke limit, 6 MB
    /// (data-transformation.html: the request and the response must stay under it).
    package static let maxPayloadBytes = 6 * 1024 * 1024

    /// One record as the function sees it.
    package struct Record: Sendable {
        /// Opaque to the function; it must give it back.
        package var id: String
        /// Epoch milliseconds.
        package var approximateArrivalTimestamp: Int64
        package var data: [UInt8]

        package var arrival: Date { Date(timeIntervalSince1970: TimeInterval(approximateArrivalTimestamp) / 1000) }

        package init(id: String, approximateArrivalTimestamp: Int64, data: [UInt8]) {
            self.id = id
            self.approximateArrivalTimestamp = approximateArrivalTimestamp
            self.data = data
        }
    }

    /// The invocation event: `{invocationId, deliveryStreamArn, region, records: [{recordId,
    /// approximateArrivalTimestamp, data}]}`, `data` base64.
    package static func event(invocationID: String, deliveryStreamARN: String, region: String, records: [Record])
        -> [UInt8]
    {
        // Written by hand, as the PutRecordBatch answer is: the event carries every record, and
        // through OrderedJSONEncoder delivery through a function ran at 0.95 x (docs/benchmarks.md).
        var json = JSONWriter(reservingCapacity: 128 + records.reduce(0) { $0 + 96 + $1.data.count * 4 / 3 })
        json.beginObject()
        json.key("invocationId")
        json.string(invocationID)
        json.key("deliveryStreamArn")
        json.string(deliveryStreamARN)
        json.key("region")
        json.string(region)
        json.key("records")
        json.beginArray()
        for record in records {
            json.beginObject()
            json.key("recordId")
            json.string(record.id)
            json.key("approximateArrivalTimestamp")
            json.integer(Int(record.approximateArrivalTimestamp))
            json.key("data")
            json.base64(record.data)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    /// Encoded size of one record in the event, to batch records under `maxPayloadBytes`.
    package static func eventBytes(of record: Record) -> Int {
        96 + record.id.utf8.count + Base64.encodedLength(record.data.count)
    }

    /// Why a record (or a whole invocation) failed: the error record's `errorCode` and `errorMessage`.
    package struct Failure: Error, Sendable, Equatable {
        package var code: String
        package var message: String

        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }

        /// The function answered `ProcessingFailed` for the record.
        package static let processingFailed = Failure(
            code: "Lambda.ProcessingFailedStatus", message: "ProcessingFailed status set for record")
        /// The function's answer left out records it was given.
        package static let missingRecordID = Failure(
            code: "Lambda.MissingRecordId",
            message:
                "One or more record Ids were not returned. Ensure that the Lambda function returns all received record Ids."
        )
        /// The function's answer gave a record back more than once.
        package static let duplicatedRecordID = Failure(
            code: "Lambda.DuplicatedRecordId",
            message:
                "Multiple records were returned with the same record Id. Ensure that the Lambda function returns a unique record Id for each record."
        )
        /// The function failed (an error result, a crash, a non-zero exit).
        package static func functionError(_ detail: String) -> Failure {
            Failure(
                code: "Lambda.FunctionError",
                message: "The Lambda function was successfully invoked but it returned an error result. \(detail)")
        }
        /// The function could not be invoked: its command did not start, its Invoke API endpoint
        /// could not be reached or refused the call. *Chosen*: the function-error code (AWS names
        /// none for a function it cannot reach), with a message that says so.
        package static func invocationFailed(_ detail: String) -> Failure {
            Failure(code: "Lambda.FunctionError", message: "The Lambda function could not be invoked. \(detail)")
        }
        /// A record too large for any invocation event (`maxPayloadBytes` with its base64): not sent.
        package static func recordTooLarge(_ bytes: Int) -> Failure {
            Failure(
                code: "Lambda.RequestTooLarge",
                message:
                    "The record is \(bytes) bytes after the processors before the function; as base64 in an invocation event it exceeds the 6 MB a Lambda invocation accepts, so it was not sent to the function."
            )
        }
        /// No function of the processor's `LambdaArn` exists here (none is mapped): the code and
        /// message of the developer guide's "Lambda invocation errors" table for a function that
        /// does not exist (monitoring-with-cloudwatch-logs.html#lambda-invocation-errors).
        package static let resourceNotFound = Failure(
            code: "Lambda.ResourceNotFound",
            message: "The specified Lambda function does not exist. Use a different function that does exist.")
        /// The function did not answer in time.
        package static let functionTimedOut = Failure(
            code: "Lambda.FunctionTimedOut",
            message: "The Lambda function invocation timed out. Increase the Timeout setting in the Lambda function.")
        /// The answer is not the status model: not JSON, or a record in it is malformed.
        package static func invalidResponse(_ detail: String) -> Failure {
            Failure(
                code: "Lambda.JsonProcessingException",
                message:
                    "There was an error parsing returned records from the Lambda function. Ensure that the returned records follow the status model required by Kinesis Firehose. \(detail)"
            )
        }
    }

    /// What the function made of one record.
    package enum Outcome: Sendable, Equatable {
        /// `Ok`: the transformed record, and the partition keys it gave (empty without metadata).
        case ok(data: [UInt8], partitionKeys: [String: String])
        /// `Dropped`: the record is gone on purpose.
        case dropped
        /// `ProcessingFailed`: it goes to the error output.
        case failed(Failure)
    }

    /// Reads the function's answer to an invocation of `records`. Returns each record's outcome, in
    /// the order of `records`, or the failure of the whole invocation: an answer that is not the
    /// status model, or that leaves out or repeats a record (a mismatch of record ids is a failed
    /// transformation, data-transformation-status-model.html). Records the function made up are
    /// ignored, as AWS was seen to do. Read as Jackson reads JSON: strictly (RFC 8259, UTF-8), any
    /// number (members this does not read may hold numbers beyond a Double's range), a repeated
    /// member's last value; never decoded into a tree, so an answer costs little beyond its records.
    package static func outcomes(of answer: [UInt8], for records: [Record]) -> Result<[Outcome], Failure> {
        guard answer.count <= maxPayloadBytes else {
            return .failure(.functionError("The response is \(answer.count) bytes, more than the 6 MB Lambda allows."))
        }
        guard String(validating: answer, as: UTF8.self) != nil else {
            return .failure(.invalidResponse("The response is not UTF-8 text."))
        }
        return answer.withUnsafeBufferPointer { bytes in
            var reader = AnswerReader(bytes: bytes)
            return reader.outcomes(for: records)
        }
    }

    /// Nesting beyond which an answer is refused rather than read (Jackson's default limit is 1000).
    static let maxAnswerDepth = 512

    /// The status model read off the answer's text with `StrictJSONCursor`.
    private struct AnswerReader: StrictJSONReading {
        var cursor: StrictJSONCursor
        static var maxDepth: Int { maxAnswerDepth }

        init(bytes: UnsafeBufferPointer<UInt8>) { cursor = StrictJSONCursor(bytes) }

        mutating func outcomes(for records: [Record]) -> Result<[Outcome], Failure> {
            // Well-formed first, so that a malformed answer is reported as such whatever it holds.
            guard wholeObject() else { return .failure(.invalidResponse("The response is not a JSON object.")) }
            var entries: Int?
            var errorMessage: String?
            forEachMember { reader, name in
                switch name {
                case "records":
                    entries = reader.cursor.current == UInt8(ascii: "[") ? reader.cursor.position : nil
                    reader.skipValue()
                case "errorMessage":
                    errorMessage = reader.stringValue()
                default:
                    reader.skipValue()
                }
            }
            guard let entries else {
                // A function's error object, as a runtime that does not set X-Amz-Function-Error (the
                // Runtime Interface Emulator) answers it.
                if let errorMessage { return .failure(.functionError("The function failed: \(errorMessage)")) }
                return .failure(.invalidResponse("The response has no records array."))
            }
            cursor.position = entries
            return read(entriesFor: records)
        }

        private mutating func read(entriesFor records: [Record]) -> Result<[Outcome], Failure> {
            var index: [String: Int] = [:]
            for (position, record) in records.enumerated() { index[record.id] = position }
            var outcomes: [Outcome?] = Array(repeating: nil, count: records.count)
            var number = 0
            var failure: Failure?
            forEachElement { reader in
                defer { number += 1 }
                guard reader.cursor.current == UInt8(ascii: "{") else {
                    failure = .invalidResponse("records[\(number)] has no string recordId.")
                    return false
                }
                let entry = reader.entry()
                guard let id = entry.recordID else {
                    failure = .invalidResponse("records[\(number)] has no string recordId.")
                    return false
                }
                guard let position = index[id] else { return true }
                guard outcomes[position] == nil else {
                    failure = .duplicatedRecordID
                    return false
                }
                switch entry.outcome() {
                case .success(let outcome): outcomes[position] = outcome
                case .failure(let problem):
                    failure = .invalidResponse("records[\(number)] (recordId \(id))\(problem.message)")
                    return false
                }
                return true
            }
            if let failure { return .failure(failure) }
            guard outcomes.allSatisfy({ $0 != nil }) else { return .failure(.missingRecordID) }
            return .success(outcomes.map { $0! })
        }

        /// One element of `records`, as far as the status model goes.
        struct Entry {
            var recordID: String?
            var result: String?
            /// The `data` member's text, still base64; nil when absent or not a string.
            var data: [UInt8]?
            /// `metadata.partitionKeys`, or what is wrong with `metadata`.
            var partitionKeys: Result<[String: String], Problem> = .success([:])

            func outcome() -> Result<Outcome, Problem> {
                switch result {
                case "Ok":
                    guard let data else { return .failure(Problem(message: " has result Ok and no string data.")) }
                    var decoded: [UInt8] = []
                    guard Base64.decode(data, appendingTo: &decoded) != nil else {
                        return .failure(Problem(message: " has data that is not base64."))
                    }
                    return partitionKeys.map { .ok(data: decoded, partitionKeys: $0) }
                case "Dropped": return .success(.dropped)
                case "ProcessingFailed": return .success(.failed(.processingFailed))
                default:
                    return .failure(Problem(message: " has a result that is not Ok, Dropped or ProcessingFailed."))
                }
            }
        }

        /// Reads the object at the cursor into an `Entry`.
        private mutating func entry() -> Entry {
            var entry = Entry()
            forEachMember { reader, name in
                switch name {
                case "recordId": entry.recordID = reader.stringValue()
                case "result": entry.result = reader.stringValue()
                case "data":
                    // Base64 needs no escapes; a writer that escapes `/` anyway is read too.
                    if reader.cursor.current == UInt8(ascii: "\""), let (text, escaped) = reader.cursor.string() {
                        entry.data =
                            escaped
                            ? reader.cursor.unescaped(text)
                            : Array(reader.cursor.bytes[(text.lowerBound + 1)..<(text.upperBound - 1)])
                    } else {
                        entry.data = nil
                        reader.skipValue()
                    }
                case "metadata":
                    switch reader.cursor.current {
                    case UInt8(ascii: "{"):
                        entry.partitionKeys = reader.partitionKeys()
                    case UInt8(ascii: "n"):
                        entry.partitionKeys = .success([:])
                        reader.skipValue()
                    default:
                        entry.partitionKeys = .failure(Problem(message: ": metadata is not an object."))
                        reader.skipValue()
                    }
                default:
                    reader.skipValue()
                }
            }
            return entry
        }

        /// `partitionKeys` of the `metadata` object at the cursor: an object of strings
        /// (dynamic-partitioning.html); absent, null or empty without partitioning.
        private mutating func partitionKeys() -> Result<[String: String], Problem> {
            var keys: Result<[String: String], Problem> = .success([:])
            forEachMember { reader, name in
                guard name == "partitionKeys" else { return reader.skipValue() }
                switch reader.cursor.current {
                case UInt8(ascii: "{"):
                    var values: [String: String] = [:]
                    var problem: Problem?
                    reader.forEachMember { reader, key in
                        if let value = reader.stringValue() {
                            values[key] = value
                        } else {
                            problem = problem ?? Problem(message: ": metadata.partitionKeys.\(key) is not a string.")
                        }
                    }
                    keys = problem.map { .failure($0) } ?? .success(values)
                case UInt8(ascii: "n"):
                    keys = .success([:])
                    reader.skipValue()
                default:
                    keys = .failure(Problem(message: ": metadata.partitionKeys is not an object."))
                    reader.skipValue()
                }
            }
            return keys
        }
    }

    struct Problem: Error {
        var message: String
    }
}
