// The CreateDeliveryStream request shapes, member for member as in the API model, so a config file
// can hold exactly what a user already sends to AWS. Members firehose-local does not interpret are
// kept as `JSONValue` so they can be validated ("not supported yet") and described back.

public struct CreateDeliveryStreamInput: Codable, Sendable, Equatable, DeclaresKnownMembers {
    public var deliveryStreamName: String?
    public var deliveryStreamType: String?
    public var s3DestinationConfiguration: S3DestinationConfiguration?
    public var extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration?
    public var httpEndpointDestinationConfiguration: HttpEndpointDestinationConfiguration?
    /// Where a `KinesisStreamAsSource` delivery stream reads its records.
    public var kinesisStreamSourceConfiguration: KinesisStreamSourceConfiguration?
    /// A DirectPut stream's expected throughput: informational only, as at AWS.
    public var directPutSourceConfiguration: DirectPutSourceConfiguration?
    /// Server-side encryption from creation on (nothing is encrypted at rest here).
    public var deliveryStreamEncryptionConfigurationInput: DeliveryStreamEncryptionConfigurationInput?
    public var tags: [Tag]?
    /// Destinations and sources other than S3 / DirectPut: present only to be refused clearly.
    public var otherMembers: [String: JSONValue] = [:]

    public init(
        deliveryStreamName: String?, deliveryStreamType: String? = nil,
        s3DestinationConfiguration: S3DestinationConfiguration? = nil,
        extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration? = nil,
        httpEndpointDestinationConfiguration: HttpEndpointDestinationConfiguration? = nil,
        kinesisStreamSourceConfiguration: KinesisStreamSourceConfiguration? = nil, tags: [Tag]? = nil
    ) {
        self.deliveryStreamName = deliveryStreamName
        self.deliveryStreamType = deliveryStreamType
        self.s3DestinationConfiguration = s3DestinationConfiguration
        self.extendedS3DestinationConfiguration = extendedS3DestinationConfiguration
        self.httpEndpointDestinationConfiguration = httpEndpointDestinationConfiguration
        self.kinesisStreamSourceConfiguration = kinesisStreamSourceConfiguration
        self.tags = tags
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case deliveryStreamName = "DeliveryStreamName"
        case deliveryStreamType = "DeliveryStreamType"
        case s3DestinationConfiguration = "S3DestinationConfiguration"
        case extendedS3DestinationConfiguration = "ExtendedS3DestinationConfiguration"
        case httpEndpointDestinationConfiguration = "HttpEndpointDestinationConfiguration"
        case kinesisStreamSourceConfiguration = "KinesisStreamSourceConfiguration"
        case directPutSourceConfiguration = "DirectPutSourceConfiguration"
        case deliveryStreamEncryptionConfigurationInput = "DeliveryStreamEncryptionConfigurationInput"
        case tags = "Tags"
    }

    /// Its members and the model's others, which validation refuses as not supported.
    package static var knownMembers: [String] { CodingKeys.allCases.map(\.stringValue) + unsupportedMembers }

    /// The model's other members of CreateDeliveryStreamInput, which firehose-local refuses.
    public static let unsupportedMembers = [
        "RedshiftDestinationConfiguration",
        "ElasticsearchDestinationConfiguration", "AmazonopensearchserviceDestinationConfiguration",
        "SplunkDestinationConfiguration",
        "AmazonOpenSearchServerlessDestinationConfiguration", "MSKSourceConfiguration",
        "SnowflakeDestinationConfiguration", "IcebergDestinationConfiguration", "DatabaseSourceConfiguration",
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deliveryStreamName = try container.decodeIfPresent(String.self, forKey: .deliveryStreamName)
        deliveryStreamType = try container.decodeIfPresent(String.self, forKey: .deliveryStreamType)
        s3DestinationConfiguration = try container.decodeIfPresent(
            S3DestinationConfiguration.self, forKey: .s3DestinationConfiguration)
        extendedS3DestinationConfiguration = try container.decodeIfPresent(
            ExtendedS3DestinationConfiguration.self, forKey: .extendedS3DestinationConfiguration)
        httpEndpointDestinationConfiguration = try container.decodeIfPresent(
            HttpEndpointDestinationConfiguration.self, forKey: .httpEndpointDestinationConfiguration)
        kinesisStreamSourceConfiguration = try container.decodeIfPresent(
            KinesisStreamSourceConfiguration.self, forKey: .kinesisStreamSourceConfiguration)
        directPutSourceConfiguration = try container.decodeIfPresent(
            DirectPutSourceConfiguration.self, forKey: .directPutSourceConfiguration)
        deliveryStreamEncryptionConfigurationInput = try container.decodeIfPresent(
            DeliveryStreamEncryptionConfigurationInput.self, forKey: .deliveryStreamEncryptionConfigurationInput)
        tags = try container.decodeIfPresent([Tag].self, forKey: .tags)
        let all = try decoder.container(keyedBy: AnyCodingKey.self)
        for key in all.allKeys where Self.unsupportedMembers.contains(key.stringValue) {
            otherMembers[key.stringValue] = try all.decode(JSONValue.self, forKey: key)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(deliveryStreamName, forKey: .deliveryStreamName)
        try container.encodeIfPresent(deliveryStreamType, forKey: .deliveryStreamType)
        try container.encodeIfPresent(s3DestinationConfiguration, forKey: .s3DestinationConfiguration)
        try container.encodeIfPresent(
            extendedS3DestinationConfiguration, forKey: .extendedS3DestinationConfiguration)
        try container.encodeIfPresent(
            httpEndpointDestinationConfiguration, forKey: .httpEndpointDestinationConfiguration)
        try container.encodeIfPresent(kinesisStreamSourceConfiguration, forKey: .kinesisStreamSourceConfiguration)
        try container.encodeIfPresent(directPutSourceConfiguration, forKey: .directPutSourceConfiguration)
        try container.encodeIfPresent(
            deliveryStreamEncryptionConfigurationInput, forKey: .deliveryStreamEncryptionConfigurationInput)
        try container.encodeIfPresent(tags, forKey: .tags)
        var others = encoder.container(keyedBy: AnyCodingKey.self)
        for (name, value) in otherMembers {
            try others.encode(value, forKey: AnyCodingKey(stringValue: name))
        }
    }
}

/// `DirectPutSourceConfiguration`: `ThroughputHintInMBs` (1–100) is for information only.
public struct DirectPutSourceConfiguration: Codable, Sendable, Equatable {
    public var throughputHintInMBs: Int?

    public init(throughputHintInMBs: Int?) { self.throughputHintInMBs = throughputHintInMBs }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case throughputHintInMBs = "ThroughputHintInMBs"
    }
}

/// `DeliveryStreamEncryptionConfigurationInput`: the KMS key server-side encryption uses.
public struct DeliveryStreamEncryptionConfigurationInput: Codable, Sendable, Equatable {
    public var keyARN: String?
    /// `AWS_OWNED_CMK` or `CUSTOMER_MANAGED_CMK` (which needs `KeyARN`).
    public var keyType: String?

    public init(keyARN: String? = nil, keyType: String?) {
        self.keyARN = keyARN
        self.keyType = keyType
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case keyARN = "KeyARN"
        case keyType = "KeyType"
    }
}

public struct Tag: Codable, Sendable, Equatable {
    public var key: String?
    public var value: String?

    package init(key: String?, value: String?) {
        self.key = key
        self.value = value
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case key = "Key"
        case value = "Value"
    }
}

public struct BufferingHints: Codable, Sendable, Equatable {
    public var sizeInMBs: Int?
    public var intervalInSeconds: Int?

    public init(sizeInMBs: Int? = nil, intervalInSeconds: Int? = nil) {
        self.sizeInMBs = sizeInMBs
        self.intervalInSeconds = intervalInSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case sizeInMBs = "SizeInMBs"
        case intervalInSeconds = "IntervalInSeconds"
    }
}

public struct ProcessorParameter: Codable, Sendable, Equatable {
    public var parameterName: String?
    public var parameterValue: String?

    public init(parameterName: String?, parameterValue: String?) {
        self.parameterName = parameterName
        self.parameterValue = parameterValue
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case parameterName = "ParameterName"
        case parameterValue = "ParameterValue"
    }
}

public struct Processor: Codable, Sendable, Equatable {
    public var type: String?
    public var parameters: [ProcessorParameter]?

    public init(type: String?, parameters: [ProcessorParameter]? = nil) {
        self.type = type
        self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case type = "Type"
        case parameters = "Parameters"
    }
}

public struct ProcessingConfiguration: Codable, Sendable, Equatable {
    public var enabled: Bool?
    public var processors: [Processor]?

    public init(enabled: Bool?, processors: [Processor]?) {
        self.enabled = enabled
        self.processors = processors
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled = "Enabled"
        case processors = "Processors"
    }
}

/// `S3DestinationConfiguration` and `ExtendedS3DestinationConfiguration` in one type: the plain
/// one is the extended one without its extra members, and `S3DestinationConfiguration` rejects
/// those members on decoding so a config cannot use a field AWS would refuse there.
public struct ExtendedS3DestinationConfiguration: Codable, Sendable, Equatable {
    public var roleARN: String?
    public var bucketARN: String?
    public var prefix: String?
    public var errorOutputPrefix: String?
    public var bufferingHints: BufferingHints?
    public var compressionFormat: String?
    public var encryptionConfiguration: JSONValue?
    public var cloudWatchLoggingOptions: JSONValue?
    public var processingConfiguration: ProcessingConfiguration?
    public var s3BackupMode: String?
    /// The source-record backup's destination (`S3BackupMode: Enabled`); in an update, its
    /// `S3BackupUpdate`.
    public var s3BackupConfiguration: S3DestinationConfiguration? {
        get { backupStorage.first }
        set { backupStorage = newValue.map { [$0] } ?? [] }
    }
    /// At most one: an array, as a struct cannot hold an optional of itself.
    private var backupStorage: [S3DestinationConfiguration] = []
    public var dataFormatConversionConfiguration: JSONValue?
    public var dynamicPartitioningConfiguration: JSONValue?
    public var fileExtension: String?
    public var customTimeZone: String?

    public init(
        bucketARN: String?, roleARN: String? = nil, prefix: String? = nil, errorOutputPrefix: String? = nil,
        bufferingHints: BufferingHints? = nil, compressionFormat: String? = nil,
        processingConfiguration: ProcessingConfiguration? = nil, fileExtension: String? = nil,
        customTimeZone: String? = nil
    ) {
        self.bucketARN = bucketARN
        self.roleARN = roleARN
        self.prefix = prefix
        self.errorOutputPrefix = errorOutputPrefix
        self.bufferingHints = bufferingHints
        self.compressionFormat = compressionFormat
        self.processingConfiguration = processingConfiguration
        self.fileExtension = fileExtension
        self.customTimeZone = customTimeZone
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case roleARN = "RoleARN"
        case bucketARN = "BucketARN"
        case prefix = "Prefix"
        case errorOutputPrefix = "ErrorOutputPrefix"
        case bufferingHints = "BufferingHints"
        case compressionFormat = "CompressionFormat"
        case encryptionConfiguration = "EncryptionConfiguration"
        case cloudWatchLoggingOptions = "CloudWatchLoggingOptions"
        case processingConfiguration = "ProcessingConfiguration"
        case s3BackupMode = "S3BackupMode"
        case s3BackupConfiguration = "S3BackupConfiguration"
        case dataFormatConversionConfiguration = "DataFormatConversionConfiguration"
        case dynamicPartitioningConfiguration = "DynamicPartitioningConfiguration"
        case fileExtension = "FileExtension"
        case customTimeZone = "CustomTimeZone"
    }

    public init(from decoder: any Decoder) throws {
        try self.init(decoding: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(roleARN, forKey: .roleARN)
        try container.encodeIfPresent(bucketARN, forKey: .bucketARN)
        try container.encodeIfPresent(prefix, forKey: .prefix)
        try container.encodeIfPresent(errorOutputPrefix, forKey: .errorOutputPrefix)
        try container.encodeIfPresent(bufferingHints, forKey: .bufferingHints)
        try container.encodeIfPresent(compressionFormat, forKey: .compressionFormat)
        try container.encodeIfPresent(encryptionConfiguration, forKey: .encryptionConfiguration)
        try container.encodeIfPresent(cloudWatchLoggingOptions, forKey: .cloudWatchLoggingOptions)
        try container.encodeIfPresent(processingConfiguration, forKey: .processingConfiguration)
        try container.encodeIfPresent(s3BackupMode, forKey: .s3BackupMode)
        try container.encodeIfPresent(s3BackupConfiguration, forKey: .s3BackupConfiguration)
        try container.encodeIfPresent(dataFormatConversionConfiguration, forKey: .dataFormatConversionConfiguration)
        try container.encodeIfPresent(dynamicPartitioningConfiguration, forKey: .dynamicPartitioningConfiguration)
        try container.encodeIfPresent(fileExtension, forKey: .fileExtension)
        try container.encodeIfPresent(customTimeZone, forKey: .customTimeZone)
    }

    fileprivate init(decoding decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        roleARN = try container.decodeIfPresent(String.self, forKey: .roleARN)
        bucketARN = try container.decodeIfPresent(String.self, forKey: .bucketARN)
        prefix = try container.decodeIfPresent(String.self, forKey: .prefix)
        errorOutputPrefix = try container.decodeIfPresent(String.self, forKey: .errorOutputPrefix)
        bufferingHints = try container.decodeIfPresent(BufferingHints.self, forKey: .bufferingHints)
        compressionFormat = try container.decodeIfPresent(String.self, forKey: .compressionFormat)
        encryptionConfiguration = try container.decodeIfPresent(JSONValue.self, forKey: .encryptionConfiguration)
        cloudWatchLoggingOptions = try container.decodeIfPresent(JSONValue.self, forKey: .cloudWatchLoggingOptions)
        processingConfiguration = try container.decodeIfPresent(
            ProcessingConfiguration.self, forKey: .processingConfiguration)
        s3BackupMode = try container.decodeIfPresent(String.self, forKey: .s3BackupMode)
        s3BackupConfiguration = try container.decodeIfPresent(
            S3DestinationConfiguration.self, forKey: .s3BackupConfiguration)
        dataFormatConversionConfiguration = try container.decodeIfPresent(
            JSONValue.self, forKey: .dataFormatConversionConfiguration)
        dynamicPartitioningConfiguration = try container.decodeIfPresent(
            JSONValue.self, forKey: .dynamicPartitioningConfiguration)
        fileExtension = try container.decodeIfPresent(String.self, forKey: .fileExtension)
        customTimeZone = try container.decodeIfPresent(String.self, forKey: .customTimeZone)
    }
}

public struct S3DestinationConfiguration: Codable, Sendable, Equatable, DeclaresKnownMembers {
    public var configuration: ExtendedS3DestinationConfiguration

    public init(_ configuration: ExtendedS3DestinationConfiguration) {
        self.configuration = configuration
    }

    /// The members of the plain shape: the extended shape's first eight.
    static let members: [ExtendedS3DestinationConfiguration.CodingKeys] = [
        .roleARN, .bucketARN, .prefix, .errorOutputPrefix, .bufferingHints, .compressionFormat,
        .encryptionConfiguration, .cloudWatchLoggingOptions,
    ]

    /// The extended shape's members are read, but only these are the plain shape's.
    package static var knownMembers: [String] { members.map(\.stringValue) }

    public init(from decoder: any Decoder) throws {
        var configuration = try ExtendedS3DestinationConfiguration(decoding: decoder)
        // Members only the extended shape has are not part of this one, even when sent.
        configuration.processingConfiguration = nil
        configuration.s3BackupMode = nil
        configuration.s3BackupConfiguration = nil
        configuration.dataFormatConversionConfiguration = nil
        configuration.dynamicPartitioningConfiguration = nil
        configuration.fileExtension = nil
        configuration.customTimeZone = nil
        self.configuration = configuration
    }

    public func encode(to encoder: any Encoder) throws {
        try configuration.encode(to: encoder)
    }
}

/// A `KinesisStreamAsSource` delivery stream's source: the data stream it reads, and the role AWS
/// would read it as.
public struct KinesisStreamSourceConfiguration: Codable, Sendable, Equatable {
    public var kinesisStreamARN: String?
    public var roleARN: String?

    public init(kinesisStreamARN: String?, roleARN: String?) {
        self.kinesisStreamARN = kinesisStreamARN
        self.roleARN = roleARN
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kinesisStreamARN = "KinesisStreamARN"
        case roleARN = "RoleARN"
    }

    /// The data stream's name, the ARN's last part (`…:stream/NAME`); nil for an ARN that is not a
    /// data stream's.
    public var streamName: String? {
        kinesisStreamARN.flatMap { ServiceLimits.kinesisStreamARNParts($0)?.name }
    }
}
