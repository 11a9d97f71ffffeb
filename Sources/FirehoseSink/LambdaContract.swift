import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
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
            json.string(Base64.encode(record.data))
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
    /// ignored, as AWS was seen to do.
    package static func outcomes(of answer: [UInt8], for records: [Record]) -> Result<[Outcome], Failure> {
        guard answer.count <= maxPayloadBytes else {
            return .failure(.functionError("The response is \(answer.count) bytes, more than the 6 MB Lambda allows."))
        }
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(answer)) else {
            return .failure(.invalidResponse("The response is not a JSON object."))
        }
        guard case .array(let entries)? = object["records"] else {
            // A function's error object, as a runtime that does not set X-Amz-Function-Error (the
            // Runtime Interface Emulator) answers it.
            if case .string(let message)? = object["errorMessage"] {
                return .failure(.functionError("The function failed: \(message)"))
            }
            return .failure(.invalidResponse("The response has no records array."))
        }
        var index: [String: Int] = [:]
        for (position, record) in records.enumerated() { index[record.id] = position }
        var outcomes: [Outcome?] = Array(repeating: nil, count: records.count)
        for (number, element) in entries.enumerated() {
            guard case .object(let entry) = element, case .string(let id)? = entry["recordId"] else {
                return .failure(.invalidResponse("records[\(number)] has no string recordId."))
            }
            guard let position = index[id] else { continue }
            guard outcomes[position] == nil else { return .failure(.duplicatedRecordID) }
            switch entry["result"] {
            case .string("Ok")?:
                guard case .string(let text)? = entry["data"] else {
                    return .failure(
                        .invalidResponse("records[\(number)] (recordId \(id)) has result Ok and no string data."))
                }
                var data: [UInt8] = []
                guard Base64.decode(Array(text.utf8), appendingTo: &data) != nil else {
                    return .failure(
                        .invalidResponse("records[\(number)] (recordId \(id)) has data that is not base64."))
                }
                switch partitionKeys(of: entry) {
                case .success(let keys): outcomes[position] = .ok(data: data, partitionKeys: keys)
                case .failure(let problem):
                    return .failure(.invalidResponse("records[\(number)] (recordId \(id)): \(problem.message)"))
                }
            case .string("Dropped")?:
                outcomes[position] = .dropped
            case .string("ProcessingFailed")?:
                outcomes[position] = .failed(.processingFailed)
            default:
                return .failure(
                    .invalidResponse(
                        "records[\(number)] (recordId \(id)) has a result that is not Ok, Dropped or ProcessingFailed.")
                )
            }
        }
        guard outcomes.allSatisfy({ $0 != nil }) else { return .failure(.missingRecordID) }
        return .success(outcomes.map { $0! })
    }

    private struct Problem: Error {
        var message: String
    }

    /// `metadata.partitionKeys`: an object of strings (dynamic-partitioning.html), absent or empty
    /// without partitioning.
    private static func partitionKeys(of entry: [String: JSONValue]) -> Result<[String: String], Problem> {
        var keys: [String: JSONValue] = [:]
        switch entry["metadata"] {
        case nil, .null?: return .success([:])
        case .object(let metadata)?:
            switch metadata["partitionKeys"] {
            case nil, .null?: return .success([:])
            case .object(let object)?: keys = object
            default: return .failure(Problem(message: "metadata.partitionKeys is not an object."))
            }
        default: return .failure(Problem(message: "metadata is not an object."))
        }
        var result: [String: String] = [:]
        for (name, value) in keys {
            guard case .string(let text) = value else {
                return .failure(Problem(message: "metadata.partitionKeys.\(name) is not a string."))
            }
            result[name] = text
        }
        return .success(result)
    }
}
