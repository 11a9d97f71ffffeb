import FirehoseKeyLayout
import FirehoseSink
import FirehoseWire
import Foundation
import Testing

@testable import FirehoseService

@Suite("CreateDeliveryStream validation")
struct StreamDefinitionValidationTests {
    static let extendedField = "ExtendedS3DestinationConfiguration"

    @Test("Defaults: 5 MiB / 300 s, UNCOMPRESSED, no extension, versionID 1, no delimiter")
    func defaults() throws {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo",
            extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration(
                bucketARN: "arn:aws:s3:::demo-bucket"))
        let settings = try DeliveryStreamSettings(validating: input, dataDirectory: nil)
        #expect(settings.name == "demo")
        #expect(settings.bucket == "demo-bucket")
        #expect(settings.bufferSizeBytes == 5 * 1024 * 1024)
        #expect(settings.bufferIntervalSeconds == 300)
        #expect(settings.compression == .uncompressed)
        #expect(settings.keyLayout.fileExtension == "")
        #expect(settings.keyLayout.prefix == nil)
        #expect(settings.versionID == 1)
        #expect(settings.gzipLevel == 6)
        #expect(settings.appendsNewline == false)
        #expect(settings.definition == input)
    }

    @Test("Explicit hints, GZIP and the gzip level are taken over")
    func explicitValues() throws {
        let resolved = try settings(
            destination(sizeInMBs: 1, intervalInSeconds: 0, compression: "GZIP"), gzipLevel: 9)
        #expect(resolved.bufferSizeBytes == 1_048_576)
        #expect(resolved.bufferIntervalSeconds == 0)
        #expect(resolved.compression == .gzip)
        #expect(resolved.keyLayout.fileExtension == ".gz")
        #expect(resolved.gzipLevel == 9)
        let max = try settings(destination(sizeInMBs: 128, intervalInSeconds: 900))
        #expect(max.bufferSizeBytes == 128 * 1_048_576)
        #expect(max.bufferIntervalSeconds == 900)
    }

    @Test("The plain S3DestinationConfiguration works and its errors use its own member path")
    func plainDestination() throws {
        let ok = try DeliveryStreamSettings(
            validating: CreateDeliveryStreamInput(
                deliveryStreamName: "demo",
                s3DestinationConfiguration: S3DestinationConfiguration(
                    ExtendedS3DestinationConfiguration(bucketARN: "arn:aws-cn:s3:::b1", compressionFormat: "GZIP"))),
            dataDirectory: nil)
        #expect(ok.bucket == "b1")
        #expect(ok.compression == .gzip)

        let error = configurationError(
            CreateDeliveryStreamInput(
                deliveryStreamName: "demo",
                s3DestinationConfiguration: S3DestinationConfiguration(
                    ExtendedS3DestinationConfiguration(bucketARN: nil))))
        #expect(error?.field == "S3DestinationConfiguration.BucketARN")
        #expect(
            error?.error.message
                == "1 validation error detected: Value null at 's3DestinationConfiguration.bucketARN' failed to satisfy constraint: Member must not be null"
        )
    }

    @Test("Missing BucketARN is a ValidationException on .BucketARN")
    func missingBucketARN() {
        let error = configurationError(ExtendedS3DestinationConfiguration(bucketARN: nil))
        #expect(
            error
                == StreamConfigurationError(
                    field: "ExtendedS3DestinationConfiguration.BucketARN",
                    error: FirehoseError(
                        code: "ValidationException",
                        message:
                            "1 validation error detected: Value null at 'extendedS3DestinationConfiguration.bucketARN' failed to satisfy constraint: Member must not be null"
                    )))
    }

    @Test(
        "Malformed bucket ARNs are ValidationExceptions",
        arguments: [
            "demo-bucket", "arn:aws:s3:::", "arn:aws:s3::demo", "arn:aws:s3:::a/b", "arn:aws:s3:::a b",
            "s3://demo-bucket",
            "arn:aws:iam:::demo", "arn:aws:s3:::\(String(repeating: "b", count: 256))",
        ])
    func badBucketARN(arn: String) {
        let error = configurationError(ExtendedS3DestinationConfiguration(bucketARN: arn))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.BucketARN")
        #expect(
            error?.error
                == FirehoseError(
                    code: "ValidationException",
                    message:
                        "1 validation error detected: Value '\(arn)' at 'extendedS3DestinationConfiguration.bucketARN' failed to satisfy constraint: Member must satisfy regular expression pattern: arn:.*:s3:::[\\w\\.\\-]{1,255}"
                ))
    }

    @Test(
        "Bucket names that would not be a plain directory are refused",
        arguments: [
            ("..", "must begin and end with a letter or digit (firehose-local stores each bucket as a directory)."),
            (".", "must begin and end with a letter or digit (firehose-local stores each bucket as a directory)."),
            (
                ".hidden",
                "must begin and end with a letter or digit (firehose-local stores each bucket as a directory)."
            ),
            (
                "bucket-",
                "must begin and end with a letter or digit (firehose-local stores each bucket as a directory)."
            ),
            ("a..b", "must not contain '..'."),
        ])
    func localBucketNames(bucket: String, problem: String) {
        let error = configurationError(ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::\(bucket)"))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.BucketARN")
        #expect(error?.error == .invalidArgument("Bucket name '\(bucket)' \(problem)"))
    }

    @Test("Ordinary bucket names with dots, dashes and underscores are fine")
    func goodBucketNames() throws {
        for bucket in ["a", "my.bucket-1", "B_2", "0"] {
            #expect(try settings(destination(bucket: bucket)).bucket == bucket)
        }
    }

    @Test("One buffering hint without the other is refused")
    func hintsAlone() {
        for hints in [BufferingHints(sizeInMBs: 5), BufferingHints(intervalInSeconds: 60)] {
            var destination = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
            destination.bufferingHints = hints
            let error = configurationError(destination)
            #expect(error?.field == "ExtendedS3DestinationConfiguration.BufferingHints")
            #expect(
                error?.error
                    == .invalidArgument(
                        "BufferingHints must specify both SizeInMBs and IntervalInSeconds, or neither (then 5 MB / 300 s apply)."
                    ))
        }
        // Empty hints are "neither".
        var empty = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
        empty.bufferingHints = BufferingHints()
        #expect(configurationError(empty) == nil)
    }

    @Test(
        "Hints out of range are ValidationExceptions naming the exact hint",
        arguments: [
            (
                0, 60, ".SizeInMBs",
                "Value '0' at 'extendedS3DestinationConfiguration.bufferingHints.sizeInMBs' failed to satisfy constraint: Member must have value greater than or equal to 1"
            ),
            (
                129, 60, ".SizeInMBs",
                "Value '129' at 'extendedS3DestinationConfiguration.bufferingHints.sizeInMBs' failed to satisfy constraint: Member must have value less than or equal to 128"
            ),
            (
                5, 901, ".IntervalInSeconds",
                "Value '901' at 'extendedS3DestinationConfiguration.bufferingHints.intervalInSeconds' failed to satisfy constraint: Member must have value less than or equal to 900"
            ),
            (
                5, -1, ".IntervalInSeconds",
                "Value '-1' at 'extendedS3DestinationConfiguration.bufferingHints.intervalInSeconds' failed to satisfy constraint: Member must have value greater than or equal to 0"
            ),
        ])
    func hintsOutOfRange(size: Int, interval: Int, member: String, violation: String) {
        let error = configurationError(destination(sizeInMBs: size, intervalInSeconds: interval))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.BufferingHints\(member)")
        #expect(
            error?.error
                == FirehoseError(code: "ValidationException", message: "1 validation error detected: \(violation)"))
    }

    @Test("Both hints out of range: two violations in one message")
    func bothHintsOutOfRange() {
        let error = configurationError(destination(sizeInMBs: 0, intervalInSeconds: 901))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.BufferingHints")
        #expect(error?.error.message.hasPrefix("2 validation errors detected: Value '0' at ") == true)
        #expect(
            error?.error.message.contains(
                "; Value '901' at 'extendedS3DestinationConfiguration.bufferingHints.intervalInSeconds'") == true)
    }

    @Test("CompressionFormat is a case-sensitive enum: 'gzip' is invalid")
    func compressionEnum() {
        for format in ["gzip", "Gzip", "uncompressed", "SNAPPY", "zip", ""] {
            let error = configurationError(destination(compression: format))
            #expect(error?.field == "ExtendedS3DestinationConfiguration.CompressionFormat")
            #expect(
                error?.error
                    == FirehoseError(
                        code: "ValidationException",
                        message:
                            "1 validation error detected: Value '\(format)' at 'extendedS3DestinationConfiguration.compressionFormat' failed to satisfy constraint: Member must satisfy enum value set: [UNCOMPRESSED, GZIP, ZIP, Snappy, HADOOP_SNAPPY]"
                    ), "\(format)")
        }
    }

    @Test(
        "Every model compression format is accepted, each with its extension",
        arguments: [
            ("UNCOMPRESSED", ""), ("GZIP", ".gz"), ("ZIP", ".zip"), ("Snappy", ".snappy"), ("HADOOP_SNAPPY", ".snappy"),
        ])
    func compressionFormats(format: String, fileExtension: String) throws {
        let settings = try settings(destination(compression: format))
        #expect(settings.compression.rawValue == format)
        #expect(settings.keyLayout.fileExtension == fileExtension)
    }

    @Test("gzip levels outside 1...9 are refused")
    func gzipLevel() {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo", extendedS3DestinationConfiguration: destination())
        #expect(configurationError(input, gzipLevel: 0)?.field == "GzipLevel")
        #expect(
            configurationError(input, gzipLevel: 10)?.error
                == .invalidArgument("gzip level must be between 1 and 9, got 10."))
        #expect(configurationError(input, gzipLevel: 1) == nil)
    }

    // MARK: Processors

    static func processing(_ types: [String?], enabled: Bool? = true) -> ExtendedS3DestinationConfiguration {
        var destination = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
        destination.processingConfiguration = ProcessingConfiguration(
            enabled: enabled, processors: types.map { Processor(type: $0) })
        return destination
    }

    @Test("AppendDelimiterToRecord turns on the newline")
    func appendDelimiter() throws {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo", extendedS3DestinationConfiguration: Self.processing(["AppendDelimiterToRecord"])
        )
        #expect(try DeliveryStreamSettings(validating: input, dataDirectory: nil).appendsNewline)
    }

    @Test("An unknown processor type is a ValidationException naming processors.N (1-based)")
    func unknownProcessor() {
        let error = configurationError(Self.processing(["AppendDelimiterToRecord", "Uppercase"]))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.ProcessingConfiguration.Processors[1].Type")
        #expect(
            error?.error
                == FirehoseError(
                    code: "ValidationException",
                    message:
                        "1 validation error detected: Value 'Uppercase' at 'extendedS3DestinationConfiguration.processingConfiguration.processors.2.member.type' failed to satisfy constraint: Member must satisfy enum value set: [RecordDeAggregation, Decompression, CloudWatchLogProcessing, Lambda, MetadataExtraction, AppendDelimiterToRecord]"
                ))
        let missing = configurationError(Self.processing([nil]))
        #expect(
            missing?.error.message
                == "1 validation error detected: Value null at 'extendedS3DestinationConfiguration.processingConfiguration.processors.1.member.type' failed to satisfy constraint: Member must not be null"
        )
    }

    static let lambdaARN = "arn:aws:lambda:us-east-1:000000000000:function:enrich"

    private func lambdaError(
        _ parameters: [String: String], functions: LambdaFunctionDirectory? = LambdaFunctionDirectory()
    ) -> StreamConfigurationError? {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo",
            extendedS3DestinationConfiguration: Self.processors([Self.processor("Lambda", parameters)]))
        do {
            _ = try DeliveryStreamSettings(validating: input, dataDirectory: nil, lambdaFunctions: functions)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "The Lambda processor's parameters are checked as the API documents them",
        arguments: [
            (
                [:],
                "The Lambda processor requires the LambdaArn parameter (the ARN of the function that transforms records)."
            ),
            (
                ["LambdaArn": "enrich"],
                "LambdaArn 'enrich' is not a Lambda function ARN (arn:aws:lambda:REGION:ACCOUNT:function:NAME, with an optional :QUALIFIER)."
            ),
            (
                ["LambdaArn": lambdaARN, "NumberOfRetries": "301"],
                "NumberOfRetries must be a whole number from 0 to 300, not '301'."
            ),
            (
                ["LambdaArn": lambdaARN, "NumberOfRetries": "1.5"],
                "NumberOfRetries must be a whole number from 0 to 300, not '1.5'."
            ),
            (
                ["LambdaArn": lambdaARN, "BufferSizeInMBs": "0.1"],
                "BufferSizeInMBs must be a number from 0.2 to 3.0, not '0.1'."
            ),
            (
                ["LambdaArn": lambdaARN, "BufferIntervalInSeconds": "901"],
                "BufferIntervalInSeconds must be a whole number from 0 to 900, not '901'."
            ),
            (
                ["LambdaArn": lambdaARN, "RoleArn": "admin"],
                "RoleArn 'admin' is not an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME)."
            ),
        ] as [([String: String], String)])
    func lambdaParameters(parameters: [String: String], message: String) {
        let error = lambdaError(parameters)
        #expect(error?.field == "ExtendedS3DestinationConfiguration.ProcessingConfiguration.Processors[0].Parameters")
        #expect(error?.error == .invalidArgument(message))
    }

    @Test("A Lambda processor whose function is not mapped here is accepted, as AWS accepts it, with a warning")
    func lambdaNotMapped() throws {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo",
            extendedS3DestinationConfiguration: Self.processors([
                Self.processor("Lambda", ["LambdaArn": Self.lambdaARN])
            ]))
        let settings = try DeliveryStreamSettings(
            validating: input, dataDirectory: nil, lambdaFunctions: LambdaFunctionDirectory())
        #expect(settings.transformation?.function == .notMapped)
        #expect(settings.warnings.count == 1)
        #expect(settings.warnings.first?.contains("Lambda.ResourceNotFound") == true)
        #expect(settings.warnings.first?.contains("--lambda-endpoint") == true)
        let mapped = try DeliveryStreamSettings(
            validating: input, dataDirectory: nil,
            lambdaFunctions: LambdaFunctionDirectory(defaultEndpoint: URL(string: "http://127.0.0.1:9001")!))
        #expect(mapped.warnings.isEmpty)
    }

    @Test("A Lambda processor whose function runs here becomes the stream's transformation, with AWS's defaults")
    func lambdaResolved() throws {
        let functions = LambdaFunctionDirectory(entries: [
            .init(name: "enrich", function: .command(["python3", "enrich.py"]))
        ])
        func settings(_ parameters: [String: String], functions: LambdaFunctionDirectory?) throws
            -> DeliveryStreamSettings
        {
            try DeliveryStreamSettings(
                validating: CreateDeliveryStreamInput(
                    deliveryStreamName: "demo",
                    extendedS3DestinationConfiguration: Self.processors([Self.processor("Lambda", parameters)])),
                dataDirectory: nil, lambdaFunctions: functions, region: "eu-west-1", accountID: "123456789012")
        }
        let given = try settings(
            [
                "LambdaArn": Self.lambdaARN + ":live", "NumberOfRetries": "5", "BufferSizeInMBs": "0.5",
                "BufferIntervalInSeconds": "0",
            ], functions: functions)
        #expect(
            given.transformation
                == LambdaTransformationSettings(
                    function: .command(["python3", "enrich.py"]), functionARN: Self.lambdaARN + ":live",
                    numberOfRetries: 5, bufferSizeBytes: 524_288, bufferIntervalSeconds: 0,
                    deliveryStreamARN: "arn:aws:firehose:eu-west-1:123456789012:deliverystream/demo",
                    region: "eu-west-1"))
        let defaults = try #require(try settings(["LambdaArn": Self.lambdaARN], functions: functions).transformation)
        #expect(defaults.numberOfRetries == 3)
        #expect(defaults.bufferSizeBytes == 1_048_576)
        #expect(defaults.bufferIntervalSeconds == 60)
        #expect(defaults.invocationTimeout == .seconds(300))
        // Without a directory (the objects command reading definitions) nothing is resolved, or run.
        #expect(try settings(["LambdaArn": Self.lambdaARN], functions: nil).transformation == nil)
    }

    static func processors(_ processors: [Processor]) -> ExtendedS3DestinationConfiguration {
        var destination = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
        destination.processingConfiguration = ProcessingConfiguration(enabled: true, processors: processors)
        return destination
    }

    static func processor(_ type: String, _ parameters: [String: String] = [:]) -> Processor {
        Processor(
            type: type,
            parameters: parameters.sorted { $0.key < $1.key }.map {
                ProcessorParameter(parameterName: $0.key, parameterValue: $0.value)
            })
    }

    @Test("Processors run in AWS's order whatever the list's: decompression, extraction, de-aggregation")
    func processorOrder() throws {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo",
            extendedS3DestinationConfiguration: Self.processors([
                Self.processor("RecordDeAggregation", ["SubRecordType": "DELIMITED", "Delimiter": "IyMjIw=="]),
                Self.processor("AppendDelimiterToRecord"),
                Self.processor("Decompression", ["CompressionFormat": "GZIP"]),
                Self.processor("CloudWatchLogProcessing", ["DataMessageExtraction": "true"]),
            ]))
        let settings = try DeliveryStreamSettings(validating: input, dataDirectory: nil)
        #expect(
            settings.recordProcessing == [
                .decompressGzip, .extractCloudWatchLogsMessages, .deaggregateDelimited(Array("####".utf8)),
            ])
        #expect(settings.appendsNewline)
        let json = CreateDeliveryStreamInput(
            deliveryStreamName: "demo",
            extendedS3DestinationConfiguration: Self.processors([
                Self.processor("RecordDeAggregation", ["SubRecordType": "JSON"]), Self.processor("Decompression"),
            ]))
        #expect(
            try DeliveryStreamSettings(validating: json, dataDirectory: nil).recordProcessing == [
                .decompressGzip, .deaggregateJSON,
            ])
    }

    @Test(
        "Processor parameters AWS refuses are InvalidArgumentExceptions naming the member",
        arguments: [
            (
                [processor("CloudWatchLogProcessing", ["DataMessageExtraction": "true"])], "Processors[0].Type",
                "CloudWatchLogProcessingProcessor can only be enabled with DecompressionProcessor (a Decompression processor before it)."
            ),
            (
                [
                    processor("CloudWatchLogProcessing", ["DataMessageExtraction": "true"]),
                    processor("Decompression"),
                ], "Processors[0].Type",
                "CloudWatchLogProcessingProcessor can only be enabled with DecompressionProcessor (a Decompression processor before it)."
            ),
            (
                [processor("Decompression"), processor("CloudWatchLogProcessing")], "Processors[1].Parameters",
                "The CloudWatchLogProcessing processor requires the DataMessageExtraction parameter with the value true."
            ),
            (
                [processor("Decompression", ["CompressionFormat": "ZIP"])], "Processors[0].Parameters",
                "The Decompression processor supports CompressionFormat GZIP only, not 'ZIP'."
            ),
            (
                [processor("RecordDeAggregation")], "Processors[0].Parameters",
                "The RecordDeAggregation processor requires the SubRecordType parameter with the value JSON or DELIMITED."
            ),
            (
                [processor("RecordDeAggregation", ["SubRecordType": "DELIMITED", "Delimiter": "not base64!"])],
                "Processors[0].Parameters",
                "The delimiter must be specified when subRecordType is DELIMITED: give the Delimiter parameter, base64-encoded (IyMjIw== for ####)."
            ),
            (
                [processor("Decompression"), processor("Decompression")], "Processors[1].Type",
                "At most one Decompression processor is allowed."
            ),
        ])
    func processorRules(processors: [Processor], member: String, message: String) {
        let error = configurationError(Self.processors(processors))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.ProcessingConfiguration.\(member)")
        #expect(error?.error == .invalidArgument(message))
    }

    @Test("With Enabled: false the processors are ignored")
    func disabledProcessing() throws {
        for types in [["Lambda"], ["AppendDelimiterToRecord"], ["Nonsense"]] {
            let input = CreateDeliveryStreamInput(
                deliveryStreamName: "demo", extendedS3DestinationConfiguration: Self.processing(types, enabled: false))
            let settings = try DeliveryStreamSettings(validating: input, dataDirectory: nil)
            #expect(settings.appendsNewline == false)
        }
    }

    // MARK: Other unsupported features

    // MARK: Dynamic partitioning

    static let partitionedPrefix = "customer=!{partitionKeyFromQuery:customer}/!{timestamp:yyyy}/"
    static let errorPrefix = "errors/!{firehose:error-output-type}/"

    /// A destination with dynamic partitioning as AWS's documentation shows it: enabled, a
    /// MetadataExtraction query, keys in Prefix, an ErrorOutputPrefix.
    static func partitioned(
        enabled: Bool = true, prefix: String? = partitionedPrefix, errorOutputPrefix: String? = errorPrefix,
        parameters: [ProcessorParameter]? = [
            ProcessorParameter(parameterName: "MetadataExtractionQuery", parameterValue: "{customer: .customer_id}"),
            ProcessorParameter(parameterName: "JsonParsingEngine", parameterValue: "JQ-1.6"),
        ],
        intervalInSeconds: Int = 60
    ) -> ExtendedS3DestinationConfiguration {
        var destination = destination(
            prefix: prefix, errorOutputPrefix: errorOutputPrefix, sizeInMBs: 64, intervalInSeconds: intervalInSeconds)
        destination.dynamicPartitioningConfiguration = .object(["Enabled": .bool(enabled)])
        if let parameters {
            destination.processingConfiguration = ProcessingConfiguration(
                enabled: true, processors: [Processor(type: "MetadataExtraction", parameters: parameters)])
        }
        return destination
    }

    @Test("A documented dynamic-partitioning definition is accepted and partitions by its query")
    func dynamicPartitioningAccepted() throws {
        let input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo", extendedS3DestinationConfiguration: Self.partitioned())
        let settings = try DeliveryStreamSettings(validating: input, dataDirectory: "/tmp/data")
        #expect(settings.metadataExtractionQuery == "{customer: .customer_id}")
        #expect(settings.keyLayout.prefix?.partitionKeys.map(\.name) == ["customer"])
        var disabled = Self.partitioned(enabled: false, prefix: "plain/", parameters: nil)
        disabled.dynamicPartitioningConfiguration = .object(["Enabled": .bool(false)])
        #expect(configurationError(disabled) == nil)
    }

    @Test(
        "Dynamic partitioning's rules are InvalidArgumentExceptions naming the member",
        arguments: [
            (
                partitioned(enabled: false, parameters: nil), "Prefix",
                "Dynamic Partitioning Namespaces can only be part of a prefix expression when Dynamic Partitioning is enabled."
            ),
            (
                partitioned(enabled: false, prefix: "plain/"), "ProcessingConfiguration",
                "MetadataExtraction processor can only be present when Dynamic Partitioning is enabled (DynamicPartitioningConfiguration.Enabled: true)."
            ),
            (
                partitioned(prefix: "!{timestamp:yyyy}/"), "Prefix",
                "S3 Prefix should contain Dynamic Partitioning namespaces when Dynamic Partitioning is enabled (for example !{partitionKeyFromQuery:customer_id})."
            ),
            (
                partitioned(prefix: "c=!{partitionKeyFromQuery:customer}/", errorOutputPrefix: nil), "Prefix",
                "Ths supplied prefix(es) do not satisfy the following constraint: ErrorOutputPrefix cannot be null or empty when Prefix contains expressions"
            ),
            (
                partitioned(intervalInSeconds: 0), "BufferingHints.IntervalInSeconds",
                "Zero buffering feature is not available for dynamic partitioning (IntervalInSeconds is 0)."
            ),
            (
                partitioned(parameters: nil), "Prefix",
                "MetadataExtraction processor should be present when S3 Prefix has partitionKeyFromQuery namespace ('!{partitionKeyFromQuery:customer}')."
            ),
            (
                partitioned(prefix: "d=!{partitionKeyFromLambda:device}/"), "Prefix",
                "Lambda should be present when S3 Prefix contains keys from partitionKeyFromLambda namespace ('!{partitionKeyFromLambda:device}')."
            ),
            (
                partitioned(parameters: [
                    ProcessorParameter(parameterName: "JsonParsingEngine", parameterValue: "JQ-1.6")
                ]), "ProcessingConfiguration.Processors[0].Parameters",
                "The MetadataExtraction processor requires the MetadataExtractionQuery parameter (a jq query such as {customer_id: .customer_id})."
            ),
            (
                partitioned(parameters: [
                    ProcessorParameter(parameterName: "MetadataExtractionQuery", parameterValue: "{c: .c}"),
                    ProcessorParameter(parameterName: "JsonParsingEngine", parameterValue: "JQ-1.5"),
                ]), "ProcessingConfiguration.Processors[0].Parameters",
                "The MetadataExtraction processor requires the JsonParsingEngine parameter with the value JQ-1.6."
            ),
        ])
    func dynamicPartitioningRules(destination: ExtendedS3DestinationConfiguration, member: String, message: String) {
        let error = configurationError(destination)
        #expect(error?.field == "\(Self.extendedField).\(member)")
        #expect(error?.error == .invalidArgument(message))
    }

    @Test("A processor parameter value beyond the model's 5,120 characters, or blank, is a ValidationException")
    func parameterValueLength() {
        let long = configurationError(
            Self.partitioned(parameters: [
                ProcessorParameter(
                    parameterName: "MetadataExtractionQuery", parameterValue: String(repeating: " ", count: 5121)),
                ProcessorParameter(parameterName: "JsonParsingEngine", parameterValue: "JQ-1.6"),
            ]))
        #expect(long?.error.code == "ValidationException")
        #expect(long?.error.message.hasSuffix("Member must have length less than or equal to 5120") == true)
        let blank = configurationError(
            Self.partitioned(parameters: [
                ProcessorParameter(parameterName: "MetadataExtractionQuery", parameterValue: "  "),
                ProcessorParameter(parameterName: "JsonParsingEngine", parameterValue: "JQ-1.6"),
            ]))
        #expect(blank?.error.code == "ValidationException")
        #expect(
            blank?.field
                == "ExtendedS3DestinationConfiguration.ProcessingConfiguration.Processors[0].Parameters[0].ParameterValue"
        )
    }

    @Test("A query jq cannot compile is refused with jq's own words, at create")
    func uncompilableQuery() {
        let error = configurationError(
            Self.partitioned(parameters: [
                ProcessorParameter(
                    parameterName: "MetadataExtractionQuery", parameterValue: "{customer: .a | nosuchfn}"),
                ProcessorParameter(parameterName: "JsonParsingEngine", parameterValue: "JQ-1.6"),
            ]))
        #expect(error?.field == "\(Self.extendedField).ProcessingConfiguration.Processors[0].Parameters")
        #expect(error?.error.code == "InvalidArgumentException")
        #expect(error?.error.message.hasPrefix("MetadataExtractionQuery is not a valid JQ-1.6 query: ") == true)
        #expect(error?.error.message.contains("nosuchfn/0 is not defined") == true)
    }

    @Test(
        "RetryOptions.DurationInSeconds out of range is a ValidationException, however large",
        arguments: [
            (7201.0, "'7201'", "less than or equal to 7200"), (-1.0, "'-1'", "greater than or equal to 0"),
            (1e300, "'1e+300'", "less than or equal to 7200"),
        ])
    func retryDurationRange(seconds: Double, rendered: String, constraint: String) {
        var destination = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
        destination.dynamicPartitioningConfiguration = .object([
            "Enabled": .bool(false), "RetryOptions": .object(["DurationInSeconds": .number(seconds)]),
        ])
        let error = configurationError(destination)
        #expect(error?.error.code == "ValidationException")
        #expect(error?.error.message.contains("Value \(rendered) at") == true)
        #expect(error?.error.message.contains("Member must have value \(constraint)") == true)
    }

    @Test("DataFormatConversionConfiguration present is not supported unless Enabled is false")
    func dataFormatConversion() {
        for value in [JSONValue.object([:]), .object(["Enabled": .bool(true)])] {
            var destination = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
            destination.dataFormatConversionConfiguration = value
            let error = configurationError(destination)
            #expect(error?.field == "ExtendedS3DestinationConfiguration.DataFormatConversionConfiguration")
            #expect(error?.error == .invalidArgument("Data format conversion is not supported yet by firehose-local."))
        }
        var off = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
        off.dataFormatConversionConfiguration = .object(["Enabled": .bool(false)])
        #expect(configurationError(off) == nil)
    }

    @Test("S3BackupMode Enabled backs records up with S3BackupConfiguration, checked as the S3 destination it is")
    func backupMode() throws {
        var extended = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
        extended.s3BackupMode = "Enabled"
        var error = configurationError(extended)
        #expect(error?.field == "ExtendedS3DestinationConfiguration.S3BackupConfiguration")
        #expect(error?.error.code == "InvalidArgumentException")

        extended.s3BackupConfiguration = S3DestinationConfiguration(
            destination(
                bucket: "backup-bucket", prefix: "source/", sizeInMBs: 1, intervalInSeconds: 0, compression: "GZIP"))
        error = configurationError(extended)
        #expect(
            error?.field == "ExtendedS3DestinationConfiguration.S3BackupConfiguration.BufferingHints.IntervalInSeconds")
        #expect(
            error?.error.message.hasPrefix("Zero buffering is not available for the Amazon S3 backup destination")
                == true)

        extended.s3BackupConfiguration?.configuration.bufferingHints = BufferingHints(
            sizeInMBs: 129, intervalInSeconds: 60)
        error = configurationError(extended)
        #expect(error?.field == "ExtendedS3DestinationConfiguration.S3BackupConfiguration.BufferingHints.SizeInMBs")
        #expect(
            error?.error.message.contains(
                "extendedS3DestinationConfiguration.s3BackupConfiguration.bufferingHints.sizeInMBs") == true)

        extended.s3BackupConfiguration?.configuration.bufferingHints = BufferingHints(
            sizeInMBs: 1, intervalInSeconds: 60)
        let backup = try #require(try settings(extended).backupStage)
        #expect(backup.bucket == "backup-bucket")
        #expect(backup.name == "demo")
        #expect(backup.compression == .gzip)
        #expect(backup.bufferSizeBytes == 1_048_576 && backup.bufferIntervalSeconds == 60)
        #expect(backup.isBackupStage && backup.processors.isEmpty && !backup.appendsNewline)
        #expect(backup.keyLayout.prefix != nil)

        // Given with the mode Disabled: checked, not used.
        extended.s3BackupMode = "Disabled"
        #expect(try settings(extended).backupStage == nil)
        extended.s3BackupConfiguration?.configuration.compressionFormat = "BROTLI"
        #expect(
            configurationError(extended)?.field
                == "ExtendedS3DestinationConfiguration.S3BackupConfiguration.CompressionFormat")
        extended.s3BackupMode = "enabled"
        #expect(configurationError(extended)?.error.code == "ValidationException")
    }

    // MARK: Prefixes and extensions

    @Test("A Prefix with expressions needs an ErrorOutputPrefix (AWS's 'Ths supplied prefix(es)' text)")
    func prefixNeedsErrorOutputPrefix() {
        let error = configurationError(destination(prefix: "logs/!{timestamp:yyyy}/"))
        #expect(error?.field.hasSuffix(".Prefix") == true)
        #expect(error?.field == "ExtendedS3DestinationConfiguration.Prefix")
        #expect(
            error?.error
                == FirehoseError(
                    code: "InvalidArgumentException",
                    message:
                        "Ths supplied prefix(es) do not satisfy the following constraint: ErrorOutputPrefix cannot be null or empty when Prefix contains expressions"
                ))
        #expect(configurationError(destination(prefix: "logs/!{timestamp:yyyy}/", errorOutputPrefix: "")) == error)
        #expect(
            configurationError(
                destination(prefix: "logs/!{timestamp:yyyy}/", errorOutputPrefix: "err/!{firehose:error-output-type}/"))
                == nil)
    }

    @Test("A prefix that would leave the bucket folder is refused")
    func parentDirectoryPrefix() {
        let error = configurationError(destination(prefix: "../x/"))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.Prefix")
        #expect(
            error?.error
                == .invalidArgument(
                    "Prefix '../x/' cannot be stored locally: path segment '..' is not allowed (firehose-local maps keys to directories)."
                ))
        #expect(configurationError(destination(prefix: "/abs/"))?.field == "ExtendedS3DestinationConfiguration.Prefix")
    }

    @Test("FileExtension replaces the compression's extension; invalid ones are refused")
    func fileExtension() throws {
        #expect(
            try settings(destination(compression: "GZIP", fileExtension: ".json.gz")).keyLayout.fileExtension
                == ".json.gz")
        #expect(try settings(destination(fileExtension: ".ndjson")).keyLayout.fileExtension == ".ndjson")
        #expect(try settings(destination(compression: "GZIP", fileExtension: "")).keyLayout.fileExtension == ".gz")
        let error = configurationError(destination(fileExtension: "json"))
        #expect(error?.field == "ExtendedS3DestinationConfiguration.FileExtension")
        #expect(error?.error.code == "ValidationException")
        #expect(
            configurationError(destination(fileExtension: ".JSON"))?.field
                == "ExtendedS3DestinationConfiguration.FileExtension")
    }

    // MARK: Request-level rules

    @Test("Both destinations, or none, are refused")
    func destinationCount() {
        let plain = S3DestinationConfiguration(ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::b"))
        let both = configurationError(
            CreateDeliveryStreamInput(
                deliveryStreamName: "demo", s3DestinationConfiguration: plain,
                extendedS3DestinationConfiguration: destination()))
        #expect(both?.field == Self.extendedField)
        #expect(
            both?.error
                == .invalidArgument(
                    "Exactly one destination configuration is allowed: give ExtendedS3DestinationConfiguration or S3DestinationConfiguration, not both."
                ))
        let none = configurationError(CreateDeliveryStreamInput(deliveryStreamName: "demo"))
        #expect(none?.field == Self.extendedField)
        #expect(
            none?.error
                == .invalidArgument(
                    "A destination configuration is required: give ExtendedS3DestinationConfiguration (or S3DestinationConfiguration) with a BucketARN."
                ))
    }

    @Test("DirectPut and KinesisStreamAsSource are supported; unknown types are invalid")
    func streamType() {
        func input(_ type: String?, source: KinesisStreamSourceConfiguration? = nil) -> CreateDeliveryStreamInput {
            CreateDeliveryStreamInput(
                deliveryStreamName: "demo", deliveryStreamType: type, extendedS3DestinationConfiguration: destination(),
                kinesisStreamSourceConfiguration: source)
        }
        #expect(configurationError(input(nil)) == nil)
        #expect(configurationError(input("DirectPut")) == nil)
        for type in ["MSKAsSource", "DatabaseAsSource"] {
            let error = configurationError(input(type))
            #expect(error?.field == "DeliveryStreamType")
            #expect(
                error?.error
                    == .invalidArgument(
                        "DeliveryStreamType \(type) is not supported yet by firehose-local; use DirectPut or KinesisStreamAsSource."
                    ))
        }
        let role = "arn:aws:iam::000000000000:role/firehose"
        let source = KinesisStreamSourceConfiguration(
            kinesisStreamARN: "arn:aws:kinesis:us-east-1:000000000000:stream/orders", roleARN: role)
        #expect(configurationError(input("KinesisStreamAsSource", source: source)) == nil)
        #expect(
            configurationError(input("KinesisStreamAsSource"))?.error.message
                == "KinesisStreamSourceConfiguration is required when DeliveryStreamType is KinesisStreamAsSource.")
        #expect(
            configurationError(input(nil, source: source))?.error.message
                == "KinesisStreamSourceConfiguration is only allowed with DeliveryStreamType KinesisStreamAsSource.")
        let elsewhere = KinesisStreamSourceConfiguration(
            kinesisStreamARN: "arn:aws:kinesis:eu-west-1:000000000000:stream/orders", roleARN: role)
        #expect(
            configurationError(input("KinesisStreamAsSource", source: elsewhere))?.error.message.contains(
                "firehose-local serves the data streams of region us-east-1 and account 000000000000") == true)
        let malformed = KinesisStreamSourceConfiguration(
            kinesisStreamARN: "arn:aws:kinesis:us-east-1:1:stream/o", roleARN: nil)
        #expect(
            configurationError(input("KinesisStreamAsSource", source: malformed))?.error.message
                == "2 validation errors detected: Value 'arn:aws:kinesis:us-east-1:1:stream/o' at 'kinesisStreamSourceConfiguration.kinesisStreamARN' failed to satisfy constraint: Member must satisfy regular expression pattern: arn:.*:kinesis:[a-zA-Z0-9\\-]+:\\d{12}:stream/[a-zA-Z0-9_.-]+; Value null at 'kinesisStreamSourceConfiguration.roleARN' failed to satisfy constraint: Member must not be null"
        )
        let bogus = configurationError(input("directput"))
        #expect(bogus?.field == "DeliveryStreamType")
        #expect(
            bogus?.error.message
                == "1 validation error detected: Value 'directput' at 'deliveryStreamType' failed to satisfy constraint: Member must satisfy enum value set: [DirectPut, KinesisStreamAsSource, MSKAsSource, DatabaseAsSource]"
        )
    }

    @Test("The stream name is validated like the API's")
    func streamName() {
        let missing = configurationError(
            CreateDeliveryStreamInput(deliveryStreamName: nil, extendedS3DestinationConfiguration: destination()))
        #expect(missing?.field == "DeliveryStreamName")
        #expect(
            missing?.error.message
                == "1 validation error detected: Value null at 'deliveryStreamName' failed to satisfy constraint: Member must not be null"
        )
        let bad = configurationError(
            CreateDeliveryStreamInput(deliveryStreamName: "a/b", extendedS3DestinationConfiguration: destination()))
        #expect(bad?.field == "DeliveryStreamName")
        #expect(bad?.error.code == "ValidationException")
    }

    @Test("Other destinations are refused by name")
    func otherDestination() throws {
        var input = CreateDeliveryStreamInput(
            deliveryStreamName: "demo", extendedS3DestinationConfiguration: destination())
        input.otherMembers["SplunkDestinationConfiguration"] = .object([:])
        let error = configurationError(input)
        #expect(error?.field == "SplunkDestinationConfiguration")
        #expect(error?.error.code == "InvalidArgumentException")
        #expect(
            error?.error.message.hasPrefix("SplunkDestinationConfiguration is not supported yet by firehose-local")
                == true)
    }

    @Test("RoleARN must look like an IAM role ARN")
    func roleARN() {
        var good = ExtendedS3DestinationConfiguration(bucketARN: "arn:aws:s3:::demo-bucket")
        good.roleARN = "arn:aws:iam::123456789012:role/firehose_delivery-role"
        #expect(configurationError(good) == nil)
        var bad = good
        bad.roleARN = "arn:aws:iam::1234:role/x"
        #expect(configurationError(bad)?.field == "ExtendedS3DestinationConfiguration.RoleARN")
        #expect(configurationError(bad)?.error.code == "ValidationException")
    }
}

extension StreamDefinitionValidationTests {
    @Test("Every object path under the data directory must fit the file system's path limit")
    func pathLimit() throws {
        // 80-character segments of "€" (3 bytes each): 240 bytes, within the file-name limit.
        let segment = String(repeating: "€", count: 80) + "/"
        let prefix = String(repeating: segment, count: 12)  // 972 UTF-16 units, 2,892 bytes
        let layout = try #require(try? settings(destination(prefix: prefix, errorOutputPrefix: "e/")).keyLayout)
        let keyBytes = layout.longestKey.bytes
        let limit = FirehoseSink.Configuration.maxPathBytes
        // <data directory>/demo-bucket/<key> at exactly the limit is fine; one byte more is not.
        let fitting = "/" + String(repeating: "d", count: limit - keyBytes - "/demo-bucket/".utf8.count - 1)
        #expect(configurationError(destination(prefix: prefix, errorOutputPrefix: "e/"), dataDirectory: fitting) == nil)
        let error = configurationError(
            destination(prefix: prefix, errorOutputPrefix: "e/"), dataDirectory: fitting + "d")
        #expect(error?.field == "ExtendedS3DestinationConfiguration.Prefix")
        #expect(error?.error.code == "InvalidArgumentException")
        #expect(
            error?.error.message
                == "Prefix cannot be stored locally: in bucket demo-bucket under the data directory, object paths can reach \(limit + 1) bytes with every expression at its longest, beyond the \(limit)-byte path limit of the local file system (firehose-local maps keys to directories). Use a shorter prefix or a shorter --data-dir."
        )
        #expect(error?.error.message.contains(fitting) == false, "the message must not reveal the local path")
        // The error objects' key decides when it is the longer one.
        let longError = destination(prefix: "p/", errorOutputPrefix: prefix)
        #expect(
            configurationError(longError, dataDirectory: fitting + "d")?.field
                == "ExtendedS3DestinationConfiguration.ErrorOutputPrefix")
    }
}

private func destination(
    bucket: String = "demo-bucket", prefix: String? = nil, errorOutputPrefix: String? = nil,
    sizeInMBs: Int? = 128, intervalInSeconds: Int? = 900, compression: String? = nil, fileExtension: String? = nil
) -> ExtendedS3DestinationConfiguration {
    ExtendedS3DestinationConfiguration(
        bucketARN: "arn:aws:s3:::\(bucket)", prefix: prefix, errorOutputPrefix: errorOutputPrefix,
        bufferingHints: sizeInMBs == nil && intervalInSeconds == nil
            ? nil : BufferingHints(sizeInMBs: sizeInMBs, intervalInSeconds: intervalInSeconds),
        compressionFormat: compression, fileExtension: fileExtension)
}

private func settings(
    _ destination: ExtendedS3DestinationConfiguration, gzipLevel: Int32 = 6
) throws -> DeliveryStreamSettings {
    try DeliveryStreamSettings(
        validating: CreateDeliveryStreamInput(
            deliveryStreamName: "demo", deliveryStreamType: "DirectPut", extendedS3DestinationConfiguration: destination
        ),
        gzipLevel: gzipLevel, dataDirectory: nil)
}

/// The configuration error a definition raises, or nil when it validates.
private func configurationError(
    _ input: CreateDeliveryStreamInput, gzipLevel: Int32 = 6, dataDirectory: String? = nil
) -> StreamConfigurationError? {
    do {
        _ = try DeliveryStreamSettings(validating: input, gzipLevel: gzipLevel, dataDirectory: dataDirectory)
        return nil
    } catch {
        return error
    }
}

private func configurationError(
    _ destination: ExtendedS3DestinationConfiguration, dataDirectory: String? = nil
) -> StreamConfigurationError? {
    configurationError(
        CreateDeliveryStreamInput(deliveryStreamName: "demo", extendedS3DestinationConfiguration: destination),
        dataDirectory: dataDirectory)
}
