import FirehoseKeyLayout
package import FirehoseSink
public import FirehoseWire
import JQ

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A configuration problem with the member it concerns, so a config file error can name the field and
/// an API call can answer with the AWS error.
public struct StreamConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Member path in the request's own spelling, e.g. `ExtendedS3DestinationConfiguration.BufferingHints`.
    public var field: String
    public var error: FirehoseError

    public init(field: String, error: FirehoseError) {
        self.field = field
        self.error = error
    }

    public var description: String { "\(field): \(error.message)" }
}

/// CreateDeliveryStream's rules: a definition given to the API or written in a configuration file
/// becomes the sink's settings here, with AWS's defaults filled in and AWS's error for each member
/// that breaks a rule. The sink takes the result as it is.
extension DeliveryStreamSettings {
    static let defaultSizeInMBs = 5
    static let defaultIntervalInSeconds = 300
    static let modelCompressionFormats = ["UNCOMPRESSED", "GZIP", "ZIP", "Snappy", "HADOOP_SNAPPY"]
    static let processorTypes = [
        "RecordDeAggregation", "Decompression", "CloudWatchLogProcessing", "Lambda", "MetadataExtraction",
        "AppendDelimiterToRecord",
    ]

    /// - Parameter requireRoleARN: the API model requires `RoleARN`; a config file may leave it out.
    /// - Parameter destinationMember: names the destination member in errors when it is not the one
    ///   the definition uses (UpdateDestination validates the merged result but reports its own member).
    /// - Parameter dataDirectory: where objects will be written; every object path under it must fit
    ///   the file system's path limit. nil skips that check (nothing will be written).
    /// - Parameter lambdaFunctions: where `Lambda` processors' functions run here (by default
    ///   nowhere); nil skips the check that each one has a place to run (the settings then run none).
    /// - Parameter region: the stream's region and account, for what a function is told (its ARN).
    package init(
        validating definition: CreateDeliveryStreamInput, gzipLevel: Int32 = 6, versionID: Int = 1,
        requireRoleARN: Bool = false, destinationMember: String? = nil, dataDirectory: String?,
        lambdaFunctions: LambdaFunctionDirectory? = LambdaFunctionDirectory(), region: String = "us-east-1",
        accountID: String = "000000000000"
    ) throws(StreamConfigurationError) {
        func fail(_ field: String, _ error: FirehoseError) -> StreamConfigurationError {
            StreamConfigurationError(field: field, error: error)
        }
        let nameViolations = ServiceLimits.streamNameViolations(definition.deliveryStreamName)
        if !nameViolations.isEmpty { throw fail("DeliveryStreamName", .validation(nameViolations)) }
        let name = definition.deliveryStreamName!

        if let type = definition.deliveryStreamType, type != "DirectPut", type != "KinesisStreamAsSource" {
            let known = ["DirectPut", "KinesisStreamAsSource", "MSKAsSource", "DatabaseAsSource"]
            guard known.contains(type) else {
                throw fail(
                    "DeliveryStreamType",
                    .validation([
                        ValidationViolation(
                            value: type, path: "deliveryStreamType",
                            constraint: "Member must satisfy enum value set: [\(known.joined(separator: ", "))]")
                    ]))
            }
            throw fail(
                "DeliveryStreamType",
                .invalidArgument(
                    "DeliveryStreamType \(type) is not supported yet by firehose-local; use DirectPut or KinesisStreamAsSource."
                ))
        }
        try Self.checkKinesisSource(definition, region: region, accountID: accountID)
        try Self.checkSourceAndEncryption(definition)
        if let other = definition.otherMembers.keys.sorted().first {
            throw fail(
                other,
                .invalidArgument(
                    "\(other) is not supported yet by firehose-local; use ExtendedS3DestinationConfiguration, S3DestinationConfiguration or HttpEndpointDestinationConfiguration."
                ))
        }

        if let http = definition.httpEndpointDestinationConfiguration {
            guard definition.extendedS3DestinationConfiguration == nil, definition.s3DestinationConfiguration == nil
            else {
                throw fail(
                    Self.httpEndpointField,
                    .invalidArgument(
                        "Exactly one destination configuration is allowed: give HttpEndpointDestinationConfiguration or an S3 destination, not both."
                    ))
            }
            self = try Self.httpEndpointStream(
                http, definition: definition, name: name, gzipLevel: gzipLevel, versionID: versionID,
                requireRoleARN: requireRoleARN, dataDirectory: dataDirectory, lambdaFunctions: lambdaFunctions,
                region: region, accountID: accountID, updateMember: destinationMember)
            return
        }
        let destination: ExtendedS3DestinationConfiguration
        var field: String
        switch (definition.extendedS3DestinationConfiguration, definition.s3DestinationConfiguration) {
        case (let extended?, nil):
            destination = extended
            field = "ExtendedS3DestinationConfiguration"
        case (nil, let plain?):
            destination = plain.configuration
            field = "S3DestinationConfiguration"
        case (.some, .some):
            throw fail(
                "ExtendedS3DestinationConfiguration",
                .invalidArgument(
                    "Exactly one destination configuration is allowed: give ExtendedS3DestinationConfiguration or S3DestinationConfiguration, not both."
                ))
        case (nil, nil):
            throw fail(
                "ExtendedS3DestinationConfiguration",
                .invalidArgument(
                    "A destination configuration is required: give ExtendedS3DestinationConfiguration (or S3DestinationConfiguration) with a BucketARN."
                ))
        }
        if let destinationMember { field = destinationMember }
        let path = Self.memberPath(field)

        guard let bucketARN = destination.bucketARN else {
            throw fail("\(field).BucketARN", .validation([.missing("\(path).bucketARN")]))
        }
        guard let bucket = Self.bucketName(fromARN: bucketARN) else {
            throw fail(
                "\(field).BucketARN",
                .validation([
                    ValidationViolation(
                        value: bucketARN, path: "\(path).bucketARN",
                        constraint: "Member must satisfy regular expression pattern: arn:.*:s3:::[\\w\\.\\-]{1,255}")
                ]))
        }
        if let problem = Self.localBucketNameProblem(bucket) {
            throw fail("\(field).BucketARN", .invalidArgument("Bucket name '\(bucket)' \(problem)"))
        }
        if requireRoleARN, destination.roleARN == nil {
            throw fail("\(field).RoleARN", .validation([.missing("\(path).roleARN")]))
        }
        if let role = destination.roleARN, !Self.isValidRoleARN(role) {
            throw fail(
                "\(field).RoleARN",
                .validation([
                    ValidationViolation(
                        value: role, path: "\(path).roleARN",
                        constraint:
                            "Member must satisfy regular expression pattern: arn:.*:iam::\\d{12}:role/[a-zA-Z_0-9+=,.@\\-_/]+"
                    )
                ]))
        }

        let (sizeInMBs, intervalInSeconds) = try Self.bufferingHints(
            destination.bufferingHints, sizeRange: 1...128, field: field, path: path)

        let format = destination.compressionFormat ?? "UNCOMPRESSED"
        // Every format of the model is one the sink writes.
        guard let compression = Compression(rawValue: format) else {
            throw fail(
                "\(field).CompressionFormat",
                .validation([
                    ValidationViolation(
                        value: format, path: "\(path).compressionFormat",
                        constraint:
                            "Member must satisfy enum value set: [\(Self.modelCompressionFormats.joined(separator: ", "))]"
                    )
                ]))
        }
        guard (1...9).contains(gzipLevel) else {
            throw fail("GzipLevel", .invalidArgument("gzip level must be between 1 and 9, got \(gzipLevel)."))
        }

        let processing = try Self.processors(
            of: destination, field: field, path: path, lambdaFunctions: lambdaFunctions)
        let appendsNewline = processing.appendsNewline
        let metadataExtraction = processing.metadataExtraction
        let partitioning = destination.dynamicPartitioningConfiguration
        if let enabled = partitioning?["Enabled"], case .bool = enabled {
        } else if partitioning?["Enabled"] != nil {
            throw fail(
                "\(field).DynamicPartitioningConfiguration.Enabled",
                .serialization("\(field).DynamicPartitioningConfiguration.Enabled must be true or false."))
        }
        let partitioned = partitioning?["Enabled"]?.boolValue == true
        // AWS defaults `Enabled` to true once the member is present.
        if let conversion = destination.dataFormatConversionConfiguration, conversion["Enabled"]?.boolValue ?? true {
            throw fail(
                "\(field).DataFormatConversionConfiguration",
                .invalidArgument("Data format conversion is not supported yet by firehose-local."))
        }
        if let mode = destination.s3BackupMode {
            guard mode == "Disabled" || mode == "Enabled" else {
                throw fail(
                    "\(field).S3BackupMode",
                    .validation([
                        ValidationViolation(
                            value: mode, path: "\(path).s3BackupMode",
                            constraint: "Member must satisfy enum value set: [Disabled, Enabled]")
                    ]))
            }
        }
        let backup = try Self.backup(
            of: destination, field: field, name: name, gzipLevel: gzipLevel, versionID: versionID,
            requireRoleARN: requireRoleARN, isUpdate: destinationMember != nil, dataDirectory: dataDirectory,
            region: region, accountID: accountID)

        try Self.checkPassThroughMembers(destination, field: field, path: path)

        let fileExtension = destination.fileExtension ?? ""
        // Each member on its own first, so an error names the member; then the cross-member rules.
        func check(_ member: String, _ body: () throws(KeyLayoutError) -> Void) throws(StreamConfigurationError) {
            do {
                try body()
            } catch {
                throw fail("\(field).\(member)", FirehoseError(code: error.errorType, message: error.message))
            }
        }
        try check("Prefix") { () throws(KeyLayoutError) in
            if let prefix = destination.prefix, !prefix.isEmpty {
                _ = try S3Prefix(prefix, role: .prefix, memberPath: "\(path).prefix")
            }
        }
        try check("ErrorOutputPrefix") { () throws(KeyLayoutError) in
            if let prefix = destination.errorOutputPrefix, !prefix.isEmpty {
                _ = try S3Prefix(prefix, role: .errorOutputPrefix, memberPath: "\(path).errorOutputPrefix")
            }
        }
        try check("FileExtension") { () throws(KeyLayoutError) in
            try ObjectKeyLayout.validateFileExtension(fileExtension, memberPath: "\(path).fileExtension")
        }
        try check("CustomTimeZone") { () throws(KeyLayoutError) in
            _ = try ObjectKeyLayout.validateCustomTimeZone(
                destination.customTimeZone, memberPath: "\(path).customTimeZone")
        }
        var keyLayout: ObjectKeyLayout?
        try check("Prefix") { () throws(KeyLayoutError) in
            keyLayout = try ObjectKeyLayout(
                streamName: name, prefix: destination.prefix, errorOutputPrefix: destination.errorOutputPrefix,
                fileExtension: fileExtension.isEmpty ? compression.defaultExtension : fileExtension,
                customTimeZone: destination.customTimeZone)
        }

        let bucketPathBytes = (dataDirectory.map { $0.utf8.count + 1 } ?? 0) + bucket.utf8.count + 1
        let limit = FirehoseSink.Configuration.maxPathBytes
        if dataDirectory != nil {
            let (keyBytes, keyField) = keyLayout!.longestKey
            let pathBytes = bucketPathBytes + keyBytes
            if pathBytes > limit {
                // No local path in the message: it goes to API clients.
                throw fail(
                    "\(field).\(keyField)",
                    .invalidArgument(
                        "\(keyField) cannot be stored locally: in bucket \(bucket) under the data directory, object paths can reach \(pathBytes) bytes with every expression at its longest, beyond the \(limit)-byte path limit of the local file system (firehose-local maps keys to directories). Use a shorter prefix or a shorter --data-dir."
                    ))
            }
        }

        var settings = DeliveryStreamSettings(
            name: name, bucket: bucket, keyLayout: keyLayout!, compression: compression, gzipLevel: gzipLevel,
            bufferSizeBytes: sizeInMBs * 1024 * 1024, bufferIntervalSeconds: intervalInSeconds,
            appendsNewline: appendsNewline, versionID: versionID, definition: definition)
        settings.processRecords(processing.steps)
        if let backup { settings.backUp(with: backup) }
        if let lambda = processing.lambda, let function = lambda.function {
            settings.transform(
                with: LambdaTransformationSettings(
                    function: function.function, functionARN: lambda.arn, numberOfRetries: lambda.numberOfRetries,
                    bufferSizeBytes: lambda.bufferSizeBytes, bufferIntervalSeconds: lambda.bufferIntervalSeconds,
                    deliveryStreamARN: ServiceLimits.streamARN(region: region, accountID: accountID, name: name),
                    region: region,
                    invocationTimeout: function.timeout)
            )
        }
        try Self.checkDynamicPartitioning(
            enabled: partitioned, layout: keyLayout!, metadataExtraction: metadataExtraction,
            hasLambda: processing.lambda != nil, intervalInSeconds: intervalInSeconds, field: field)
        if partitioned {
            do {
                try settings.partitionByKeys(query: metadataExtraction?.query, maxKeyBytes: limit - bucketPathBytes)
            } catch {
                throw fail(
                    metadataExtraction?.field ?? field,
                    .invalidArgument(
                        "MetadataExtractionQuery is not a valid JQ-1.6 query: \(error.message.split(separator: "\n").joined(separator: "; "))"
                    ))
            }
        }
        self = settings
    }

    /// A member as AWS's messages spell its path: `ExtendedS3DestinationUpdate.S3BackupUpdate` is
    /// `extendedS3DestinationUpdate.s3BackupUpdate`.
    static func memberPath(_ field: String) -> String {
        field.split(separator: ".").map { $0.prefix(1).lowercased() + $0.dropFirst() }.joined(separator: ".")
    }

    /// `BufferingHints` checked (both members or neither, each in its range), or AWS's defaults
    /// (5 MB / 300 s): size in MB and interval in seconds.
    static func bufferingHints(
        _ hints: BufferingHints?, sizeRange: ClosedRange<Int>, field: String, path: String
    ) throws(StreamConfigurationError) -> (sizeInMBs: Int, intervalInSeconds: Int) {
        guard let hints else { return (defaultSizeInMBs, defaultIntervalInSeconds) }
        switch (hints.sizeInMBs, hints.intervalInSeconds) {
        case (let size?, let interval?):
            let violations = [
                ValidationViolation.outOfRange(size, path: "\(path).bufferingHints.sizeInMBs", range: sizeRange),
                ValidationViolation.outOfRange(
                    interval, path: "\(path).bufferingHints.intervalInSeconds", range: 0...900),
            ].compactMap { $0 }
            if !violations.isEmpty {
                let member =
                    violations.count == 2
                    ? "" : violations[0].path.hasSuffix("sizeInMBs") ? ".SizeInMBs" : ".IntervalInSeconds"
                throw StreamConfigurationError(
                    field: "\(field).BufferingHints\(member)", error: .validation(violations))
            }
            return (size, interval)
        case (nil, nil):
            return (defaultSizeInMBs, defaultIntervalInSeconds)
        default:
            throw StreamConfigurationError(
                field: "\(field).BufferingHints",
                error: .invalidArgument(
                    "BufferingHints must specify both SizeInMBs and IntervalInSeconds, or neither (then 5 MB / 300 s apply)."
                ))
        }
    }

    /// The source-record backup's settings when `S3BackupMode` is `Enabled`: its `S3BackupConfiguration`
    /// checked as the S3 destination it is (data-transformation-source-record-backup.html; its
    /// prefixes, buffering and compression are its own), except that it may not buffer for 0 seconds
    /// (create-configure-backup.html). A configuration given with the mode `Disabled` is checked too,
    /// and not used.
    private static func backup(
        of destination: ExtendedS3DestinationConfiguration, field: String, name: String, gzipLevel: Int32,
        versionID: Int, requireRoleARN: Bool, isUpdate: Bool, dataDirectory: String?, region: String,
        accountID: String
    ) throws(StreamConfigurationError) -> DeliveryStreamSettings? {
        let enabled = destination.s3BackupMode == "Enabled"
        let member = "\(field).\(isUpdate ? "S3BackupUpdate" : "S3BackupConfiguration")"
        guard let configuration = destination.s3BackupConfiguration else {
            guard !enabled else {
                throw StreamConfigurationError(
                    field: member,
                    error: .invalidArgument(
                        "S3BackupMode Enabled requires \(isUpdate ? "S3BackupUpdate (or an S3BackupConfiguration given at creation)" : "S3BackupConfiguration"): the bucket (with its own Prefix, BufferingHints and CompressionFormat) that every source record is backed up to."
                    ))
            }
            return nil
        }
        let backup = try DeliveryStreamSettings(
            validating: CreateDeliveryStreamInput(deliveryStreamName: name, s3DestinationConfiguration: configuration),
            gzipLevel: gzipLevel, versionID: versionID, requireRoleARN: requireRoleARN, destinationMember: member,
            dataDirectory: dataDirectory, lambdaFunctions: nil, region: region, accountID: accountID)
        if backup.bufferIntervalSeconds == 0 {
            throw StreamConfigurationError(
                field: "\(member).BufferingHints.IntervalInSeconds",
                error: .invalidArgument(
                    "Zero buffering is not available for the Amazon S3 backup destination: give IntervalInSeconds from 1 to 900."
                ))
        }
        return enabled ? backup : nil
    }

    /// What `ProcessingConfiguration` asks for, checked.
    struct Processing {
        var steps: [RecordProcessing] = []
        var appendsNewline = false
        var metadataExtraction: (query: String, field: String)?
        var lambda: LambdaProcessor?
    }

    /// A `Lambda` processor's parameters, checked, with AWS's defaults.
    struct LambdaProcessor {
        var arn: String
        /// Where it runs here; nil when that was not asked (`lambdaFunctions` nil).
        var function: LambdaFunctionDirectory.Entry?
        var numberOfRetries = LambdaTransformationSettings.defaultNumberOfRetries
        var bufferSizeBytes = LambdaTransformationSettings.defaultBufferSizeBytes
        var bufferIntervalSeconds = LambdaTransformationSettings.defaultBufferIntervalSeconds
    }

    /// `arn:<partition>:s3:::<bucket>` → bucket, per the model's pattern `arn:.*:s3:::[\w\.\-]{1,255}`.
    static func bucketName(fromARN arn: String) -> String? {
        guard arn.hasPrefix("arn:"), let range = arn.firstRange(of: ":s3:::") else { return nil }
        let bucket = arn[range.upperBound...]
        guard (1...255).contains(bucket.utf8.count),
            bucket.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    return true
                default: return false
                }
            })
        else { return nil }
        return String(bucket)
    }

    /// The bucket becomes a directory name, so it must not be able to point anywhere else.
    static func localBucketNameProblem(_ bucket: String) -> String? {
        guard let first = bucket.utf8.first, let last = bucket.utf8.last,
            first.isASCIIAlphanumeric, last.isASCIIAlphanumeric
        else {
            return "must begin and end with a letter or digit (firehose-local stores each bucket as a directory)."
        }
        if bucket.contains("..") { return "must not contain '..'." }
        return nil
    }

    /// A `KinesisStreamAsSource` stream names a data stream of this server's region and account, and
    /// only such a stream names one.
    private static func checkKinesisSource(_ definition: CreateDeliveryStreamInput, region: String, accountID: String)
        throws(StreamConfigurationError)
    {
        let field = "KinesisStreamSourceConfiguration"
        guard definition.deliveryStreamType == "KinesisStreamAsSource" else {
            if definition.kinesisStreamSourceConfiguration != nil {
                throw StreamConfigurationError(
                    field: field,
                    error: .invalidArgument(
                        "KinesisStreamSourceConfiguration is only allowed with DeliveryStreamType KinesisStreamAsSource."
                    ))
            }
            return
        }
        guard let source = definition.kinesisStreamSourceConfiguration else {
            throw StreamConfigurationError(
                field: field,
                error: .invalidArgument(
                    "KinesisStreamSourceConfiguration is required when DeliveryStreamType is KinesisStreamAsSource."))
        }
        let path = "kinesisStreamSourceConfiguration"
        var violations = ValidationViolation.string(
            source.kinesisStreamARN, path: "\(path).kinesisStreamARN", required: true, length: 1...512,
            pattern: "arn:.*:kinesis:[a-zA-Z0-9\\-]+:\\d{12}:stream/[a-zA-Z0-9_.-]+",
            matches: { ServiceLimits.kinesisStreamARNParts($0) != nil })
        violations += ValidationViolation.string(
            source.roleARN, path: "\(path).roleARN", required: true, length: 1...512,
            pattern: "arn:.*:iam::\\d{12}:role/[a-zA-Z_0-9+=,.@\\-_/]+", matches: isValidRoleARN)
        if !violations.isEmpty { throw StreamConfigurationError(field: field, error: .validation(violations)) }
        let parts = ServiceLimits.kinesisStreamARNParts(source.kinesisStreamARN!)!
        guard parts.region == region, parts.account == accountID else {
            throw StreamConfigurationError(
                field: field,
                error: .invalidArgument(
                    "KinesisStreamARN \(source.kinesisStreamARN!) is not a data stream of this server: firehose-local serves the data streams of region \(region) and account \(accountID)."
                ))
        }
    }

    static func isValidRoleARN(_ arn: String) -> Bool {
        // arn:.*:iam::\d{12}:role/[a-zA-Z_0-9+=,.@\-_/]+
        guard arn.hasPrefix("arn:"), let iam = arn.firstRange(of: ":iam::") else { return false }
        let rest = arn[iam.upperBound...]
        let account = rest.prefix(12)
        guard account.count == 12, account.allSatisfy(\.isASCII), account.allSatisfy(\.isNumber) else { return false }
        let tail = rest.dropFirst(12)
        guard tail.hasPrefix(":role/") else { return false }
        let role = tail.dropFirst(6)
        return !role.isEmpty
            && role.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "_+=,.@-/".unicodeScalars.contains(scalar))
            }
    }

    static let processorParameterNames = [
        "LambdaArn", "NumberOfRetries", "MetadataExtractionQuery", "JsonParsingEngine", "RoleArn", "BufferSizeInMBs",
        "BufferIntervalInSeconds", "SubRecordType", "Delimiter", "CompressionFormat", "DataMessageExtraction",
    ]

    /// Members firehose-local accepts without acting on them still have to be what the model allows:
    /// they are echoed by DescribeDeliveryStream, and AWS would refuse them.
    static func checkPassThroughMembers(
        _ destination: ExtendedS3DestinationConfiguration, field: String, path: String
    ) throws(StreamConfigurationError) {
        func fail(_ member: String, _ violation: ValidationViolation) -> StreamConfigurationError {
            StreamConfigurationError(field: "\(field).\(member)", error: .validation([violation]))
        }
        func typeError(_ member: String, _ expected: String) -> StreamConfigurationError {
            StreamConfigurationError(
                field: "\(field).\(member)", error: .serialization("\(field).\(member) must be \(expected)."))
        }
        for (index, processor) in (destination.processingConfiguration?.processors ?? []).enumerated() {
            for (parameterIndex, parameter) in (processor.parameters ?? []).enumerated() {
                let member =
                    "processingConfiguration.processors.\(index + 1).member.parameters.\(parameterIndex + 1).member"
                // The model's ProcessorParameterValue: 1–5120 characters, not only whitespace.
                if let value = parameter.parameterValue {
                    let field =
                        "ProcessingConfiguration.Processors[\(index)].Parameters[\(parameterIndex)].ParameterValue"
                    let path = "\(path).\(member).parameterValue"
                    if value.utf16.count > 5120 {
                        throw fail(
                            field,
                            ValidationViolation(
                                value: String(value.prefix(64)) + "…", path: path,
                                constraint: "Member must have length less than or equal to 5120"))
                    }
                    if value.allSatisfy(\.isWhitespace) {
                        throw fail(
                            field,
                            ValidationViolation(
                                value: value, path: path,
                                constraint: value.isEmpty
                                    ? "Member must have length greater than or equal to 1"
                                    : "Member must satisfy regular expression pattern: ^(?!\\s*$).+"))
                    }
                }
                if let name = parameter.parameterName, !processorParameterNames.contains(name) {
                    throw fail(
                        "ProcessingConfiguration.Processors[\(index)].Parameters[\(parameterIndex)].ParameterName",
                        ValidationViolation(
                            value: name, path: "\(path).\(member).parameterName",
                            constraint:
                                "Member must satisfy enum value set: [\(processorParameterNames.joined(separator: ", "))]"
                        ))
                }
            }
        }
        if let encryption = destination.encryptionConfiguration {
            if let value = encryption["NoEncryptionConfig"], value.stringValue != "NoEncryption" {
                throw fail(
                    "EncryptionConfiguration.NoEncryptionConfig",
                    ValidationViolation(
                        value: value.stringValue ?? "\(value)",
                        path: "\(path).encryptionConfiguration.noEncryptionConfig",
                        constraint: "Member must satisfy enum value set: [NoEncryption]"))
            }
            if let key = encryption["KMSEncryptionConfig"]?["AWSKMSKeyARN"] {
                guard let arn = key.stringValue else {
                    throw typeError("EncryptionConfiguration.KMSEncryptionConfig.AWSKMSKeyARN", "text")
                }
                if !(arn.hasPrefix("arn:") && arn.contains(":kms:")
                    && (arn.contains(":key/") || arn.contains(":alias/")))
                {
                    throw fail(
                        "EncryptionConfiguration.KMSEncryptionConfig.AWSKMSKeyARN",
                        ValidationViolation(
                            value: arn, path: "\(path).encryptionConfiguration.kMSEncryptionConfig.aWSKMSKeyARN",
                            constraint:
                                "Member must satisfy regular expression pattern: arn:.*:kms:[a-zA-Z0-9\\-]+:\\d{12}:(key|alias)/[a-zA-Z_0-9+=,.@\\-_/]+"
                        ))
                }
            }
        }
        if let logging = destination.cloudWatchLoggingOptions {
            if let enabled = logging["Enabled"], case .bool = enabled {
            } else if logging["Enabled"] != nil {
                throw typeError("CloudWatchLoggingOptions.Enabled", "true or false")
            }
            let groupAllowed = { (c: Unicode.Scalar) in
                c.isASCII
                    && (c.properties.isAlphabetic || ("0"..."9").contains(c) || ".-_/#".unicodeScalars.contains(c))
            }
            for (member, allowed, pattern) in [
                ("LogGroupName", groupAllowed, "[\\.\\-_/#A-Za-z0-9]*"),
                ("LogStreamName", { (c: Unicode.Scalar) in c != ":" && c != "*" }, "[^:*]*"),
            ] {
                guard let value = logging[member] else { continue }
                guard let text = value.stringValue else {
                    throw typeError("CloudWatchLoggingOptions.\(member)", "text")
                }
                let memberPath =
                    "\(path).cloudWatchLoggingOptions.\(Self.memberPath(member))"
                if text.count > 512 || !text.unicodeScalars.allSatisfy(allowed) {
                    throw fail(
                        "CloudWatchLoggingOptions.\(member)",
                        ValidationViolation(
                            value: text, path: memberPath,
                            constraint: text.count > 512
                                ? "Member must have length less than or equal to 512"
                                : "Member must satisfy regular expression pattern: \(pattern)"))
                }
            }
        }
        if let duration = destination.dynamicPartitioningConfiguration?["RetryOptions"]?["DurationInSeconds"] {
            guard case .number(let seconds) = duration, seconds == seconds.rounded() else {
                throw typeError("DynamicPartitioningConfiguration.RetryOptions.DurationInSeconds", "a whole number")
            }
            if let violation = ValidationViolation.outOfRange(
                seconds, path: "\(path).dynamicPartitioningConfiguration.retryOptions.durationInSeconds",
                range: 0...7200)
            {
                throw fail("DynamicPartitioningConfiguration.RetryOptions.DurationInSeconds", violation)
            }
        }
    }
}
