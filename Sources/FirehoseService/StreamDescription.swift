import FirehoseSink
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// DescribeDeliveryStream's output, with every default filled in as AWS does (see docs/compatibility.md,
/// "Control plane").
enum StreamDescription {
    static func describe(
        settings: DeliveryStreamSettings, record: StreamRecord, arn: String, status: String, destinations: [JSONValue]
    ) -> JSONValue {
        var members: [String: JSONValue] = [
            "DeliveryStreamName": .string(settings.name),
            "DeliveryStreamARN": .string(arn),
            "DeliveryStreamStatus": .string(status),
            "DeliveryStreamType": .string(record.definition.deliveryStreamType ?? "DirectPut"),
            "VersionId": .string(String(record.versionID)),
            "CreateTimestamp": .number(record.createTime.timeIntervalSince1970),
            "Destinations": .array(destinations),
            "HasMoreDestinations": .bool(false),
        ]
        members["DeliveryStreamEncryptionConfiguration"] = ControlPlane.encryptionDescription(of: record)
        if let hint = record.definition.directPutSourceConfiguration?.throughputHintInMBs {
            members["Source"] = .object([
                "DirectPutSourceDescription": .object(["ThroughputHintInMBs": .number(Double(hint))])
            ])
        }
        if let source = record.definition.kinesisStreamSourceConfiguration {
            members["Source"] = .object([
                "KinesisStreamSourceDescription": .object([
                    "KinesisStreamARN": .string(source.kinesisStreamARN ?? ""),
                    "RoleARN": .string(source.roleARN ?? ""),
                    "DeliveryStartTimestamp": .number(record.createTime.timeIntervalSince1970),
                ])
            ])
        }
        if let updated = record.lastUpdateTime {
            members["LastUpdateTimestamp"] = .number(updated.timeIntervalSince1970)
        }
        return .object(members)
    }

    /// The one destination, described both as ExtendedS3 and as S3 (AWS describes an S3 destination
    /// both ways whichever shape created it).
    static func destination(settings: DeliveryStreamSettings, record: StreamRecord, accountID: String) -> JSONValue {
        let definition = record.definition
        if let http = definition.httpEndpointDestinationConfiguration, let endpoint = settings.httpEndpoint,
            let s3 = settings.backupStage
        {
            return httpEndpointDestination(http, endpoint: endpoint, settings: settings, s3: s3, accountID: accountID)
        }
        let given =
            definition.extendedS3DestinationConfiguration ?? definition.s3DestinationConfiguration?.configuration
            ?? ExtendedS3DestinationConfiguration(bucketARN: nil)
        var extended: [String: JSONValue] = [:]
        if case .object(let members)? = jsonValue(of: given) { extended = members }
        let plain = s3Description(extended, settings: settings, accountID: accountID)
        extended.merge(plain) { _, filled in filled }
        extended["S3BackupMode"] = extended["S3BackupMode"] ?? .string("Disabled")
        // Recorded: a stream created with partitioning enabled and no RetryOptions describes AWS's
        // default of 300 s.
        if case .object(var partitioning)? = extended["DynamicPartitioningConfiguration"],
            partitioning["Enabled"] == .bool(true), partitioning["RetryOptions"] == nil
        {
            partitioning["RetryOptions"] = .object(["DurationInSeconds": .number(300)])
            extended["DynamicPartitioningConfiguration"] = .object(partitioning)
        }
        extended["ProcessingConfiguration"] =
            extended["ProcessingConfiguration"].map { withLambdaDefaults($0, role: extended["RoleARN"]!) }
            ?? .object(["Enabled": .bool(false), "Processors": .array([])])
        if let backup = settings.backupStage, case .object(let members)? = extended["S3BackupConfiguration"] {
            extended["S3BackupDescription"] = .object(s3Description(members, settings: backup, accountID: accountID))
        }
        extended.removeValue(forKey: "S3BackupConfiguration")
        return .object([
            "DestinationId": .string(ControlPlane.destinationID),
            "ExtendedS3DestinationDescription": .object(extended),
            "S3DestinationDescription": .object(plain),
        ])
    }

    /// An HTTP endpoint destination as AWS describes it (`HttpEndpointDestinationDescription`): the
    /// endpoint's Url and Name (never its AccessKey), the defaults filled in, and its S3 configuration
    /// as an S3 destination.
    private static func httpEndpointDestination(
        _ http: HttpEndpointDestinationConfiguration, endpoint: HTTPEndpointSettings, settings: DeliveryStreamSettings,
        s3: DeliveryStreamSettings, accountID: String
    ) -> JSONValue {
        var given: [String: JSONValue] = [:]
        if case .object(let members)? = jsonValue(of: http) { given = members }
        var described: [String: JSONValue] = [:]
        var endpointDescription: [String: JSONValue] = ["Url": .string(endpoint.url.absoluteString)]
        if let name = http.endpointConfiguration?.name { endpointDescription["Name"] = .string(name) }
        described["EndpointConfiguration"] = .object(endpointDescription)
        described["BufferingHints"] = bufferingHints(of: settings)
        described["CloudWatchLoggingOptions"] = given["CloudWatchLoggingOptions"] ?? .object(["Enabled": .bool(false)])
        var request: [String: JSONValue] = ["ContentEncoding": .string(endpoint.contentEncoding.rawValue)]
        if !endpoint.commonAttributes.isEmpty {
            request["CommonAttributes"] = .array(
                endpoint.commonAttributes.map {
                    .object(["AttributeName": .string($0.name), "AttributeValue": .string($0.value)])
                })
        }
        described["RequestConfiguration"] = .object(request)
        let role = given["RoleARN"] ?? .string("arn:aws:iam::\(accountID):role/firehose-local")
        described["RoleARN"] = role
        described["ProcessingConfiguration"] =
            given["ProcessingConfiguration"].map { withLambdaDefaults($0, role: role) }
            ?? .object(["Enabled": .bool(false), "Processors": .array([])])
        described["RetryOptions"] = .object([
            "DurationInSeconds": .number(Double(endpoint.retryDuration.components.seconds))
        ])
        described["S3BackupMode"] = .string(endpoint.backupMode.rawValue)
        var s3Given: [String: JSONValue] = [:]
        if case .object(let members)? = given["S3Configuration"] { s3Given = members }
        described["S3DestinationDescription"] = .object(s3Description(s3Given, settings: s3, accountID: accountID))
        return .object([
            "DestinationId": .string(ControlPlane.destinationID),
            "HttpEndpointDestinationDescription": .object(described),
        ])
    }

    /// The buffering hints a stage runs with, as AWS describes them.
    private static func bufferingHints(of settings: DeliveryStreamSettings) -> JSONValue {
        .object([
            "SizeInMBs": .number(Double(settings.bufferSizeBytes / (1024 * 1024))),
            "IntervalInSeconds": .number(Double(settings.bufferIntervalSeconds)),
        ])
    }

    /// An S3 destination's members as AWS describes them (`S3DestinationDescription`): those of the
    /// plain shape, with the defaults AWS fills in; `ErrorOutputPrefix` only when given.
    private static func s3Description(
        _ given: [String: JSONValue], settings: DeliveryStreamSettings, accountID: String
    ) -> [String: JSONValue] {
        let plainKeys: Set<String> = [
            "RoleARN", "BucketARN", "Prefix", "ErrorOutputPrefix", "BufferingHints", "CompressionFormat",
            "EncryptionConfiguration", "CloudWatchLoggingOptions",
        ]
        var described = given.filter { plainKeys.contains($0.key) }
        described["RoleARN"] = described["RoleARN"] ?? .string("arn:aws:iam::\(accountID):role/firehose-local")
        described["BufferingHints"] = bufferingHints(of: settings)
        described["CompressionFormat"] = .string(settings.compression.rawValue)
        described["EncryptionConfiguration"] =
            described["EncryptionConfiguration"] ?? .object(["NoEncryptionConfig": .string("NoEncryption")])
        described["Prefix"] = described["Prefix"] ?? .string("")
        described["CloudWatchLoggingOptions"] =
            described["CloudWatchLoggingOptions"] ?? .object(["Enabled": .bool(false)])
        return described
    }

    /// A `Lambda` processor's parameters as AWS describes them: every one, in this order, those not
    /// given with their defaults (recorded from AWS: the mythical-mysfits scenario's description) —
    /// 3 retries, the destination's role, 1 MB, 60 s.
    static func withLambdaDefaults(_ processing: JSONValue, role: JSONValue) -> JSONValue {
        guard case .object(var configuration) = processing, case .array(var processors)? = configuration["Processors"]
        else { return processing }
        for index in processors.indices {
            guard case .object(var processor) = processors[index], processor["Type"] == .string("Lambda") else {
                continue
            }
            var given: [String: JSONValue] = [:]
            if case .array(let parameters)? = processor["Parameters"] {
                for case .object(let parameter) in parameters {
                    if case .string(let name)? = parameter["ParameterName"], let value = parameter["ParameterValue"] {
                        given[name] = value
                    }
                }
            }
            typealias Defaults = LambdaTransformationSettings
            let defaults: [(String, JSONValue?)] = [
                ("LambdaArn", nil), ("NumberOfRetries", .string(String(Defaults.defaultNumberOfRetries))),
                ("RoleArn", role), ("BufferSizeInMBs", .string(String(Defaults.defaultBufferSizeBytes / 1_048_576))),
                ("BufferIntervalInSeconds", .string(String(Defaults.defaultBufferIntervalSeconds))),
            ]
            processor["Parameters"] = .array(
                defaults.compactMap { name, fallback in
                    (given[name] ?? fallback).map {
                        .object(["ParameterName": .string(name), "ParameterValue": $0])
                    }
                })
            processors[index] = .object(processor)
        }
        configuration["Processors"] = .array(processors)
        return .object(configuration)
    }

    static func jsonValue(of value: some Encodable) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(OrderedJSONEncoder.encode(value)))
    }

    /// The description's members sorted by name, the same every run.
    static func encode(_ value: JSONValue) -> [UInt8] { OrderedJSONEncoder.encode(value, reservingCapacity: 4096) }
}
