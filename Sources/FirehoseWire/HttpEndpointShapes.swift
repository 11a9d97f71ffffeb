// `HttpEndpointDestinationConfiguration` and its parts, member for member as in the API model.
// Members firehose-local does not interpret are kept as `JSONValue` to be checked and described back.

public struct HttpEndpointDestinationConfiguration: Codable, Sendable, Equatable {
    public var endpointConfiguration: HttpEndpointConfiguration?
    public var bufferingHints: BufferingHints?
    public var cloudWatchLoggingOptions: JSONValue?
    public var requestConfiguration: HttpEndpointRequestConfiguration?
    public var processingConfiguration: ProcessingConfiguration?
    public var roleARN: String?
    public var retryOptions: HttpEndpointRetryOptions?
    public var s3BackupMode: String?
    public var s3Configuration: S3DestinationConfiguration?
    public var secretsManagerConfiguration: JSONValue?

    public init(
        endpointConfiguration: HttpEndpointConfiguration?, s3Configuration: S3DestinationConfiguration?,
        bufferingHints: BufferingHints? = nil, requestConfiguration: HttpEndpointRequestConfiguration? = nil,
        processingConfiguration: ProcessingConfiguration? = nil, retryOptions: HttpEndpointRetryOptions? = nil,
        s3BackupMode: String? = nil
    ) {
        self.endpointConfiguration = endpointConfiguration
        self.s3Configuration = s3Configuration
        self.bufferingHints = bufferingHints
        self.requestConfiguration = requestConfiguration
        self.processingConfiguration = processingConfiguration
        self.retryOptions = retryOptions
        self.s3BackupMode = s3BackupMode
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case endpointConfiguration = "EndpointConfiguration"
        case bufferingHints = "BufferingHints"
        case cloudWatchLoggingOptions = "CloudWatchLoggingOptions"
        case requestConfiguration = "RequestConfiguration"
        case processingConfiguration = "ProcessingConfiguration"
        case roleARN = "RoleARN"
        case retryOptions = "RetryOptions"
        case s3BackupMode = "S3BackupMode"
        case s3Configuration = "S3Configuration"
        case secretsManagerConfiguration = "SecretsManagerConfiguration"
    }

    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, s3Member: CodingKeys.s3Configuration.rawValue)
    }

    /// The members, the S3 configuration's named `s3Member` (`S3Update` in an update).
    init(from decoder: any Decoder, s3Member: String) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        endpointConfiguration = try container.decodeIfPresent(
            HttpEndpointConfiguration.self, forKey: .endpointConfiguration)
        bufferingHints = try container.decodeIfPresent(BufferingHints.self, forKey: .bufferingHints)
        cloudWatchLoggingOptions = try container.decodeIfPresent(JSONValue.self, forKey: .cloudWatchLoggingOptions)
        requestConfiguration = try container.decodeIfPresent(
            HttpEndpointRequestConfiguration.self, forKey: .requestConfiguration)
        processingConfiguration = try container.decodeIfPresent(
            ProcessingConfiguration.self, forKey: .processingConfiguration)
        roleARN = try container.decodeIfPresent(String.self, forKey: .roleARN)
        retryOptions = try container.decodeIfPresent(HttpEndpointRetryOptions.self, forKey: .retryOptions)
        s3BackupMode = try container.decodeIfPresent(String.self, forKey: .s3BackupMode)
        s3Configuration = try decoder.container(keyedBy: AnyCodingKey.self).decodeIfPresent(
            S3DestinationConfiguration.self, forKey: AnyCodingKey(stringValue: s3Member))
        secretsManagerConfiguration = try container.decodeIfPresent(
            JSONValue.self, forKey: .secretsManagerConfiguration)
    }
}

public struct HttpEndpointConfiguration: Codable, Sendable, Equatable {
    public var url: String?
    public var name: String?
    public var accessKey: String?

    public init(url: String?, name: String? = nil, accessKey: String? = nil) {
        self.url = url
        self.name = name
        self.accessKey = accessKey
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case url = "Url"
        case name = "Name"
        case accessKey = "AccessKey"
    }
}

public struct HttpEndpointRequestConfiguration: Codable, Sendable, Equatable {
    public var contentEncoding: String?
    public var commonAttributes: [HttpEndpointCommonAttribute]?

    public init(contentEncoding: String? = nil, commonAttributes: [HttpEndpointCommonAttribute]? = nil) {
        self.contentEncoding = contentEncoding
        self.commonAttributes = commonAttributes
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case contentEncoding = "ContentEncoding"
        case commonAttributes = "CommonAttributes"
    }
}

public struct HttpEndpointCommonAttribute: Codable, Sendable, Equatable {
    public var attributeName: String?
    public var attributeValue: String?

    public init(attributeName: String?, attributeValue: String?) {
        self.attributeName = attributeName
        self.attributeValue = attributeValue
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case attributeName = "AttributeName"
        case attributeValue = "AttributeValue"
    }
}

public struct HttpEndpointRetryOptions: Codable, Sendable, Equatable {
    public var durationInSeconds: Int?

    public init(durationInSeconds: Int?) {
        self.durationInSeconds = durationInSeconds
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case durationInSeconds = "DurationInSeconds"
    }
}

/// UpdateDestination's `HttpEndpointDestinationUpdate`: the configuration's members, with `S3Update`
/// (an `S3DestinationUpdate`) for `S3Configuration`.
public struct HttpEndpointDestinationUpdate: Decodable, Sendable, Equatable {
    /// The members given, `S3Update` as `s3Configuration`.
    public var members: HttpEndpointDestinationConfiguration

    public init(_ members: HttpEndpointDestinationConfiguration) {
        self.members = members
    }

    public init(from decoder: any Decoder) throws {
        members = try HttpEndpointDestinationConfiguration(from: decoder, s3Member: "S3Update")
    }
}

extension HttpEndpointDestinationConfiguration {
    /// What an UpdateDestination leaves: each member `update` gives replaces this one's, as for an S3
    /// destination, except that the endpoint's `Url`, `Name` and `AccessKey` are taken one by one (an
    /// `AccessKey` can never be read back, so an update that does not give it keeps it) and `S3Update`
    /// merges into `S3Configuration` as an S3 update does.
    package func merging(_ change: HttpEndpointDestinationUpdate) -> HttpEndpointDestinationConfiguration {
        let update = change.members
        var merged = self
        if let endpoint = update.endpointConfiguration {
            var current = merged.endpointConfiguration ?? HttpEndpointConfiguration(url: nil)
            if let value = endpoint.url { current.url = value }
            if let value = endpoint.name { current.name = value }
            if let value = endpoint.accessKey { current.accessKey = value }
            merged.endpointConfiguration = current
        }
        if let value = update.bufferingHints { merged.bufferingHints = value }
        if let value = update.cloudWatchLoggingOptions { merged.cloudWatchLoggingOptions = value }
        if let value = update.requestConfiguration { merged.requestConfiguration = value }
        if let value = update.processingConfiguration { merged.processingConfiguration = value }
        if let value = update.roleARN { merged.roleARN = value }
        if let value = update.retryOptions { merged.retryOptions = value }
        if let value = update.s3BackupMode { merged.s3BackupMode = value }
        if let value = update.s3Configuration {
            merged.s3Configuration = S3DestinationConfiguration(
                merged.s3Configuration.map { $0.configuration.merging(value.configuration) } ?? value.configuration)
        }
        if let value = update.secretsManagerConfiguration { merged.secretsManagerConfiguration = value }
        return merged
    }
}
