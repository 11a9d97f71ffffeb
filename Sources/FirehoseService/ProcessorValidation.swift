import FirehoseKeyLayout
import FirehoseSink
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The processors of a stream definition, checked as AWS checks them.
extension DeliveryStreamSettings {
    /// The processors of an enabled `ProcessingConfiguration`, each checked, in the order AWS runs
    /// them whatever the list's order (create-destination.html: de-aggregation, Lambda, partitioning;
    /// decomp-faq.html: decompression before the steps after it): Decompression,
    /// CloudWatchLogProcessing, RecordDeAggregation, then MetadataExtraction (partitioning) and
    /// AppendDelimiterToRecord.
    static func processors(
        of destination: ExtendedS3DestinationConfiguration, field: String, path: String,
        lambdaFunctions: LambdaFunctionDirectory?
    ) throws(StreamConfigurationError) -> Processing {
        func fail(_ member: String, _ message: String) -> StreamConfigurationError {
            StreamConfigurationError(field: member, error: .invalidArgument(message))
        }
        var processing = Processing()
        guard let configuration = destination.processingConfiguration, configuration.enabled == true else {
            return processing
        }
        var seen: Set<String> = []
        var decompression: RecordProcessing?
        var extraction: RecordProcessing?
        var deaggregation: RecordProcessing?
        for (index, processor) in (configuration.processors ?? []).enumerated() {
            let processorField = "\(field).ProcessingConfiguration.Processors[\(index)].Type"
            let parametersField = "\(field).ProcessingConfiguration.Processors[\(index)].Parameters"
            guard let type = processor.type else {
                throw StreamConfigurationError(
                    field: processorField,
                    error: .validation([.missing("\(path).processingConfiguration.processors.\(index + 1).member.type")]
                    ))
            }
            guard Self.processorTypes.contains(type) else {
                throw StreamConfigurationError(
                    field: processorField,
                    error: .validation([
                        ValidationViolation(
                            value: type, path: "\(path).processingConfiguration.processors.\(index + 1).member.type",
                            constraint:
                                "Member must satisfy enum value set: [\(Self.processorTypes.joined(separator: ", "))]")
                    ]))
            }
            guard seen.insert(type).inserted else {
                throw fail(processorField, "At most one \(type) processor is allowed.")
            }
            let parameters = processor.parameters ?? []
            func parameter(_ name: String) -> String? {
                parameters.last { $0.parameterName == name }?.parameterValue
            }
            switch type {
            case "AppendDelimiterToRecord":
                processing.appendsNewline = true
            case "MetadataExtraction":
                guard let query = parameter("MetadataExtractionQuery") else {
                    throw fail(
                        parametersField,
                        "The MetadataExtraction processor requires the MetadataExtractionQuery parameter (a jq query such as {customer_id: .customer_id})."
                    )
                }
                guard parameter("JsonParsingEngine") == "JQ-1.6" else {
                    throw fail(
                        parametersField,
                        "The MetadataExtraction processor requires the JsonParsingEngine parameter with the value JQ-1.6."
                    )
                }
                processing.metadataExtraction = (query, parametersField)
            case "Decompression":
                guard (parameter("CompressionFormat") ?? "GZIP") == "GZIP" else {
                    throw fail(
                        parametersField,
                        "The Decompression processor supports CompressionFormat GZIP only, not '\(parameter("CompressionFormat")!)'."
                    )
                }
                decompression = .decompressGzip
            case "CloudWatchLogProcessing":
                guard decompression != nil else {
                    throw fail(
                        processorField,
                        "CloudWatchLogProcessingProcessor can only be enabled with DecompressionProcessor (a Decompression processor before it)."
                    )
                }
                guard parameter("DataMessageExtraction")?.lowercased() == "true" else {
                    throw fail(
                        parametersField,
                        "The CloudWatchLogProcessing processor requires the DataMessageExtraction parameter with the value true."
                    )
                }
                extraction = .extractCloudWatchLogsMessages
            case "RecordDeAggregation":
                switch parameter("SubRecordType") {
                case "JSON":
                    deaggregation = .deaggregateJSON
                case "DELIMITED":
                    guard let encoded = parameter("Delimiter"),
                        let delimiter = Data(base64Encoded: encoded).map(Array.init), !delimiter.isEmpty
                    else {
                        throw fail(
                            parametersField,
                            "The delimiter must be specified when subRecordType is DELIMITED: give the Delimiter parameter, base64-encoded (IyMjIw== for ####)."
                        )
                    }
                    deaggregation = .deaggregateDelimited(delimiter)
                default:
                    throw fail(
                        parametersField,
                        "The RecordDeAggregation processor requires the SubRecordType parameter with the value JSON or DELIMITED."
                    )
                }
            case "Lambda":
                processing.lambda = try lambdaProcessor(
                    parameter, field: parametersField, lambdaFunctions: lambdaFunctions)
            default:
                throw fail(
                    processorField,
                    "Processor \(type) is not supported yet by firehose-local (supported: AppendDelimiterToRecord, MetadataExtraction, Decompression, CloudWatchLogProcessing, RecordDeAggregation, Lambda)."
                )
            }
        }
        processing.steps = [decompression, extraction, deaggregation].compactMap { $0 }
        return processing
    }

    /// The `Lambda` processor's parameters (API_ProcessorParameter, data-transformation.html):
    /// `LambdaArn` a function ARN with a place to run here, `NumberOfRetries` 0–300 (default 3),
    /// `BufferSizeInMBs` 0.2–3 (default 1), `BufferIntervalInSeconds` 0–900 (default 60), `RoleArn` an
    /// IAM role ARN.
    static func lambdaProcessor(
        _ parameter: (String) -> String?, field: String, lambdaFunctions: LambdaFunctionDirectory?
    ) throws(StreamConfigurationError) -> LambdaProcessor {
        func fail(_ message: String) -> StreamConfigurationError {
            StreamConfigurationError(field: field, error: .invalidArgument(message))
        }
        guard let arn = parameter("LambdaArn") else {
            throw fail(
                "The Lambda processor requires the LambdaArn parameter (the ARN of the function that transforms records)."
            )
        }
        guard LambdaFunctionDirectory.functionName(inARN: arn) != nil else {
            throw fail(
                "LambdaArn '\(arn)' is not a Lambda function ARN (arn:aws:lambda:REGION:ACCOUNT:function:NAME, with an optional :QUALIFIER)."
            )
        }
        func number(_ name: String, _ range: ClosedRange<Double>, integer: Bool) throws(StreamConfigurationError)
            -> Double?
        {
            guard let text = parameter(name) else { return nil }
            guard let value = Double(text), range.contains(value), !integer || value == value.rounded() else {
                let bounds =
                    integer
                    ? "\(Int(range.lowerBound)) to \(Int(range.upperBound))"
                    : "\(range.lowerBound) to \(range.upperBound)"
                throw fail("\(name) must be \(integer ? "a whole number" : "a number") from \(bounds), not '\(text)'.")
            }
            return value
        }
        var processor = LambdaProcessor(arn: arn)
        if let retries = try number("NumberOfRetries", 0...300, integer: true) {
            processor.numberOfRetries = Int(retries)
        }
        if let megabytes = try number("BufferSizeInMBs", 0.2...3, integer: false) {
            processor.bufferSizeBytes = Int((megabytes * 1_048_576).rounded())
        }
        if let seconds = try number("BufferIntervalInSeconds", 0...900, integer: true) {
            processor.bufferIntervalSeconds = Int(seconds)
        }
        if let role = parameter("RoleArn"), !Self.isValidRoleARN(role) {
            throw fail("RoleArn '\(role)' is not an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME).")
        }
        guard let lambdaFunctions else { return processor }
        // AWS creates a stream whose function does not exist (a recorded CloudFormation stack does);
        // its invocations fail, and the stream says why (`DeliveryStreamSettings.warnings`).
        processor.function = lambdaFunctions.entry(for: arn) ?? LambdaFunctionDirectory.Entry(function: .notMapped)
        return processor
    }

    /// Dynamic partitioning's rules (developer guide, "Dynamic partitioning" and "Buffering hints"):
    /// the partitioning namespaces only with it enabled, each key from a source the stream has, an
    /// ErrorOutputPrefix, and a buffer interval above zero.
    static func checkDynamicPartitioning(
        enabled: Bool, layout: ObjectKeyLayout, metadataExtraction: (query: String, field: String)?,
        hasLambda: Bool, intervalInSeconds: Int, field: String
    ) throws(StreamConfigurationError) {
        func fail(_ member: String, _ message: String) -> StreamConfigurationError {
            StreamConfigurationError(field: "\(field).\(member)", error: .invalidArgument(message))
        }
        let keys = layout.prefix?.partitionKeys ?? []
        guard enabled else {
            if !keys.isEmpty {
                throw fail(
                    "Prefix",
                    "Dynamic Partitioning Namespaces can only be part of a prefix expression when Dynamic Partitioning is enabled."
                )
            }
            if metadataExtraction != nil {
                throw fail(
                    "ProcessingConfiguration",
                    "MetadataExtraction processor can only be present when Dynamic Partitioning is enabled (DynamicPartitioningConfiguration.Enabled: true)."
                )
            }
            return
        }
        if keys.isEmpty {
            throw fail(
                "Prefix",
                "S3 Prefix should contain Dynamic Partitioning namespaces when Dynamic Partitioning is enabled (for example !{partitionKeyFromQuery:customer_id})."
            )
        }
        // An ErrorOutputPrefix is required too: the partition keys make Prefix an expression, which
        // `ObjectKeyLayout` already refuses without one, with AWS's message.
        if intervalInSeconds == 0 {
            throw fail(
                "BufferingHints.IntervalInSeconds",
                "Zero buffering feature is not available for dynamic partitioning (IntervalInSeconds is 0).")
        }
        if !hasLambda, let lambda = keys.first(where: { $0.source == .lambda }) {
            throw fail(
                "Prefix",
                "Lambda should be present when S3 Prefix contains keys from partitionKeyFromLambda namespace ('!{partitionKeyFromLambda:\(lambda.name)}')."
            )
        }
        if metadataExtraction == nil, let key = keys.first(where: { $0.source == .query }) {
            throw fail(
                "Prefix",
                "MetadataExtraction processor should be present when S3 Prefix has partitionKeyFromQuery namespace ('!{partitionKeyFromQuery:\(key.name)}')."
            )
        }
    }
}
