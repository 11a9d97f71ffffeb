import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The error output stage's record format: what a record that failed a stage becomes under
/// `ErrorOutputPrefix` — one JSON object per line, in the shape AWS documents for its error records
/// (`attemptsMade`, `arrivalTimestamp`, `errorCode`, `errorMessage`, `attemptEndingTimestamp`,
/// `rawData` as base64), timestamps in epoch milliseconds.
enum ErrorOutput {
    /// Error codes and output types, as AWS names them.
    enum Failure {
        /// The `MetadataExtraction` query failed on a record or gave no usable key. AWS documents
        /// neither; both are what deliveries from AWS were seen to carry (docs/compatibility.md).
        static let metadataExtraction = (
            code: "DynamicPartitioning.MetadataExtractionFailed", type: "metadata-extraction-failed"
        )
        /// A record of a new partition while the stream has its limit of active partitions. AWS names
        /// only `activePartitionExceeded`; the code is firehose-local's.
        static let activePartitionExceeded = (
            code: "DynamicPartitioning.ActivePartitionExceeded", type: "activePartitionExceeded"
        )
        /// A record `Decompression` could not gunzip: AWS names the folder (decomp-faq.html), not the code.
        static let decompression = (code: "Decompression.Failed", type: "decompression-failed")
        /// A record `CloudWatchLogProcessing` could not read as a CloudWatch Logs message.
        static let cloudWatchLogsMessage = (code: "CloudWatchLogProcessing.Failed", type: "processing-failed")
        /// A record `RecordDeAggregation` could not split.
        static let deaggregation = (code: "RecordDeAggregation.Failed", type: "processing-failed")
        /// A record the `Lambda` processor failed on (data-transformation-failure-handling.html).
        static let lambdaProcessingType = "processing-failed"
        /// As AWS words the two failures seen from it.
        static let nonJSONRecord = "Non JSON record provided"
        static let missingKeyValue = "partitionKeys values must not be null or empty"
    }

    /// Appends the error record of `raw` (the record as the failed stage got it) to `batch`.
    static func append(
        _ raw: some Collection<UInt8>, code: String, message: String, context: RecordContext, attemptsMade: Int = 1,
        to batch: inout RecordBatch
    ) {
        appendLine(
            [
                ("attemptsMade", .integer(attemptsMade)), ("arrivalTimestamp", .time(context.arrival)),
                ("errorCode", .string(code)), ("errorMessage", .string(message)),
                ("attemptEndingTimestamp", .time(context.now)), ("rawData", .base64(raw)),
            ], to: &batch)
    }

    /// Appends the error record of `raw` (the record as the `Lambda` processor got it) to `batch`,
    /// in the shape real Firehose writes for Lambda failures today: this member order, and the
    /// function's ARN as `lambdaARN` (seen in error objects of 2025–2026; the developer guide's
    /// sample, older, lists `lambdaArn` last, docs/compatibility.md).
    static func appendLambdaFailure(
        _ raw: some Collection<UInt8>, failure: LambdaContract.Failure, arrival: Date, attemptEnding: Date,
        attemptsMade: Int, lambdaARN: String, to batch: inout RecordBatch
    ) {
        appendLine(
            [
                ("rawData", .base64(raw)), ("errorCode", .string(failure.code)),
                ("errorMessage", .string(failure.message)), ("attemptsMade", .integer(attemptsMade)),
                ("arrivalTimestamp", .time(arrival)), ("attemptEndingTimestamp", .time(attemptEnding)),
                ("lambdaARN", .string(lambdaARN)),
            ], to: &batch)
    }

    /// Staged error records (`bytes`) cut after each newline: one record each.
    static func lines(_ bytes: [UInt8]) -> RecordBatch {
        var lines = RecordBatch()
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            lines.append(bytes[start...index])
            start = index + 1
        }
        if start < bytes.count { lines.append(bytes[start...]) }
        return lines
    }

    /// The output type of records an HTTP endpoint did not accept before `RetryOptions` ran out.
    static let httpEndpointFailedType = "http-endpoint-failed"

    /// Appends the error record of `raw` (a record as it was sent to an HTTP endpoint) to `batch`, in
    /// the shape and order AWS documents for HTTP endpoint failures (retry.html): the record's
    /// `dataId` is firehose-local's own (AWS's is the record's sequence number).
    static func appendHTTPEndpointFailure(
        _ raw: some Collection<UInt8>, failure: HTTPEndpointContract.Failure, arrival: Date, attemptEnding: Date,
        attemptsMade: Int, dataID: String, to batch: inout RecordBatch
    ) {
        appendLine(
            [
                ("attemptsMade", .integer(attemptsMade)), ("arrivalTimestamp", .time(arrival)),
                ("errorCode", .string(failure.code)), ("errorMessage", .string(failure.message)),
                ("attemptEndingTimestamp", .time(attemptEnding)), ("rawData", .base64(raw)),
                ("subsequenceNumber", .integer(0)), ("dataId", .string(dataID)),
            ], to: &batch)
    }

    private enum Value<Raw: Collection<UInt8>> {
        case integer(Int)
        case string(String)
        /// Epoch milliseconds.
        case time(Date)
        case base64(Raw)
    }

    /// One error record: a JSON object of `members`, in order, and a newline.
    private static func appendLine<Raw: Collection<UInt8>>(
        _ members: [(String, Value<Raw>)], to batch: inout RecordBatch
    ) {
        var json = JSONWriter(reservingCapacity: 256)
        json.beginObject()
        for (name, value) in members {
            json.key(name)
            switch value {
            case .integer(let number): json.integer(number)
            case .string(let text): json.string(text)
            case .time(let date): json.integer(Int(date.epochMilliseconds))
            case .base64(let raw): json.base64(raw)
            }
        }
        json.endObject()
        var line = json.bytes
        line.append(UInt8(ascii: "\n"))
        batch.append(line)
    }
}
