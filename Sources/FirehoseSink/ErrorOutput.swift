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
        var json = JSONWriter(reservingCapacity: 160 + raw.count * 4 / 3)
        json.beginObject()
        json.key("attemptsMade")
        json.integer(attemptsMade)
        json.key("arrivalTimestamp")
        json.integer(milliseconds(context.arrival))
        json.key("errorCode")
        json.string(code)
        json.key("errorMessage")
        json.string(message)
        json.key("attemptEndingTimestamp")
        json.integer(milliseconds(context.now))
        json.key("rawData")
        json.string(Base64.encode(raw))
        json.endObject()
        var line = json.bytes
        line.append(UInt8(ascii: "\n"))
        batch.append(line)
    }

    /// Appends the error record of `raw` (the record as the `Lambda` processor got it) to `batch`,
    /// in the shape real Firehose writes for Lambda failures today: this member order, and the
    /// function's ARN as `lambdaARN` (seen in error objects of 2025–2026; the developer guide's
    /// sample, older, lists `lambdaArn` last, docs/compatibility.md).
    static func appendLambdaFailure(
        _ raw: some Collection<UInt8>, failure: LambdaContract.Failure, arrival: Date, attemptEnding: Date,
        attemptsMade: Int, lambdaARN: String, to batch: inout RecordBatch
    ) {
        var json = JSONWriter(reservingCapacity: 256 + raw.count * 4 / 3)
        json.beginObject()
        json.key("rawData")
        json.string(Base64.encode(raw))
        json.key("errorCode")
        json.string(failure.code)
        json.key("errorMessage")
        json.string(failure.message)
        json.key("attemptsMade")
        json.integer(attemptsMade)
        json.key("arrivalTimestamp")
        json.integer(milliseconds(arrival))
        json.key("attemptEndingTimestamp")
        json.integer(milliseconds(attemptEnding))
        json.key("lambdaARN")
        json.string(lambdaARN)
        json.endObject()
        var line = json.bytes
        line.append(UInt8(ascii: "\n"))
        batch.append(line)
    }

    private static func milliseconds(_ date: Date) -> Int {
        Int((date.timeIntervalSince1970 * 1000).rounded())
    }
}
