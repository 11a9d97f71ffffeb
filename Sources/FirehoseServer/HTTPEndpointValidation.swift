import FirehoseSink
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// CreateDeliveryStream's rules for `HttpEndpointDestinationConfiguration` (the API model's
/// constraints; httpdeliveryrequestresponse.html), with AWS's defaults filled in.
extension DeliveryStreamSettings {
    static let httpEndpointField = "HttpEndpointDestinationConfiguration"

    // swift-format-ignore: FunctionParameterCount
    static func httpEndpointStream(
        _ http: HttpEndpointDestinationConfiguration, definition: CreateDeliveryStreamInput, name: String,
        gzipLevel: Int32, versionID: Int, requireRoleARN: Bool, dataDirectory: String?,
        lambdaFunctions: LambdaFunctionDirectory?, region: String, accountID: String
    ) throws(StreamConfigurationError) -> DeliveryStreamSettings {
        let field = httpEndpointField
        let path = "httpEndpointDestinationConfiguration"
        func fail(_ member: String, _ error: FirehoseError) -> StreamConfigurationError {
            StreamConfigurationError(field: member.isEmpty ? field : "\(field).\(member)", error: error)
        }
        func invalid(_ member: String, _ message: String) -> StreamConfigurationError {
            fail(member, .invalidArgument(message))
        }
        func violation(_ member: String, _ value: String, _ memberPath: String, _ constraint: String)
            -> StreamConfigurationError
        {
            fail(member, .validation([ValidationViolation(value: value, path: memberPath, constraint: constraint)]))
        }

        // EndpointConfiguration.
        guard let endpoint = http.endpointConfiguration else {
            throw fail("EndpointConfiguration", .validation([.missing("\(path).endpointConfiguration")]))
        }
        guard let urlText = endpoint.url else {
            throw fail("EndpointConfiguration.Url", .validation([.missing("\(path).endpointConfiguration.url")]))
        }
        guard (1...1000).contains(urlText.count) else {
            throw violation(
                "EndpointConfiguration.Url", "*** Sensitive Data Redacted ***", "\(path).endpointConfiguration.url",
                "Member must have length less than or equal to 1000")
        }
        guard let url = URL(string: urlText), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.fragment == nil
        else {
            throw invalid(
                "EndpointConfiguration.Url", "Url '\(urlText)' is not an http:// or https:// URL with a host.")
        }
        guard scheme == "http" else {
            throw invalid(
                "EndpointConfiguration.Url",
                scheme == "https"
                    ? "firehose-local delivers to HTTP endpoints over plain http only (AWS requires https): point Url at an http:// receiver, e.g. http://127.0.0.1:8080/."
                    : "Url '\(urlText)' is not an http:// URL.")
        }
        if let endpointName = endpoint.name,
            endpointName.isEmpty || endpointName.count > 256
                || endpointName.allSatisfy(\.isWhitespace)
        {
            throw violation(
                "EndpointConfiguration.Name", endpointName, "\(path).endpointConfiguration.name",
                "Member must satisfy regular expression pattern: ^(?!\\s*$).+ and have length from 1 to 256")
        }
        if let key = endpoint.accessKey {
            guard key.utf8.count <= 4096 else {
                throw violation(
                    "EndpointConfiguration.AccessKey", "*** Sensitive Data Redacted ***",
                    "\(path).endpointConfiguration.accessKey", "Member must have length less than or equal to 4096")
            }
            // The model's `.*` matches no line terminator; in a header one would end it.
            guard !key.unicodeScalars.contains(where: { $0.properties.isWhitespace && $0 != " " && $0 != "\t" }) else {
                throw invalid("EndpointConfiguration.AccessKey", "AccessKey must not contain line breaks.")
            }
        }

        // BufferingHints: 1–64 MB, 0–900 s, both or neither (default 5 MB / 300 s).
        let (sizeInMBs, intervalInSeconds) = try bufferingHints(
            http.bufferingHints, sizeRange: 1...64, field: field, path: path)

        // RequestConfiguration.
        var contentEncoding = HTTPEndpointSettings.ContentEncoding.none
        var attributes: [HTTPEndpointSettings.Attribute] = []
        if let request = http.requestConfiguration {
            if let encoding = request.contentEncoding {
                guard let known = HTTPEndpointSettings.ContentEncoding(rawValue: encoding) else {
                    throw violation(
                        "RequestConfiguration.ContentEncoding", encoding,
                        "\(path).requestConfiguration.contentEncoding",
                        "Member must satisfy enum value set: [NONE, GZIP]")
                }
                contentEncoding = known
            }
            let given = request.commonAttributes ?? []
            guard given.count <= 50 else {
                throw fail(
                    "RequestConfiguration.CommonAttributes",
                    .validation([
                        ValidationViolation(
                            value: "\(given.count) attributes", path: "\(path).requestConfiguration.commonAttributes",
                            constraint: "Member must have length less than or equal to 50")
                    ]))
            }
            for (index, attribute) in given.enumerated() {
                let member = "RequestConfiguration.CommonAttributes[\(index)]"
                guard let attributeName = attribute.attributeName, let value = attribute.attributeValue else {
                    throw invalid(member, "Each common attribute needs an AttributeName and an AttributeValue.")
                }
                guard (1...256).contains(attributeName.count), !attributeName.allSatisfy(\.isWhitespace),
                    value.count <= 1024
                else {
                    throw invalid(
                        member,
                        "AttributeName must be 1 to 256 characters, not blank, and AttributeValue at most 1024 characters."
                    )
                }
                attributes.append(.init(name: attributeName, value: value))
            }
        }

        // RetryOptions: 0–7200 s.
        var retrySeconds = Int(HTTPEndpointSettings.defaultRetryDuration.components.seconds)
        if let seconds = http.retryOptions?.durationInSeconds {
            if let violation = ValidationViolation.outOfRange(
                seconds, path: "\(path).retryOptions.durationInSeconds", range: 0...7200)
            {
                throw fail("RetryOptions.DurationInSeconds", .validation([violation]))
            }
            retrySeconds = seconds
        }

        let mode = http.s3BackupMode ?? HTTPEndpointSettings.BackupMode.failedDataOnly.rawValue
        guard let backupMode = HTTPEndpointSettings.BackupMode(rawValue: mode) else {
            throw violation(
                "S3BackupMode", mode, "\(path).s3BackupMode",
                "Member must satisfy enum value set: [FailedDataOnly, AllData]")
        }
        if case .object(let secrets)? = http.secretsManagerConfiguration, secrets["Enabled"]?.boolValue == true {
            throw invalid(
                "SecretsManagerConfiguration",
                "Secrets Manager is not supported yet by firehose-local: give the key as EndpointConfiguration.AccessKey."
            )
        }
        if requireRoleARN || http.roleARN != nil, let role = http.roleARN, !isValidRoleARN(role) {
            throw violation(
                "RoleARN", role, "\(path).roleARN",
                "Member must satisfy regular expression pattern: arn:.*:iam::\\d{12}:role/[a-zA-Z_0-9+=,.@\\-_/]+")
        }

        // S3Configuration: checked as the S3 destination it is.
        guard let s3Configuration = http.s3Configuration else {
            throw fail("S3Configuration", .validation([.missing("\(path).s3Configuration")]))
        }
        let s3 = try DeliveryStreamSettings(
            validating: CreateDeliveryStreamInput(
                deliveryStreamName: name, s3DestinationConfiguration: s3Configuration),
            gzipLevel: gzipLevel, versionID: versionID, requireRoleARN: requireRoleARN,
            destinationMember: "\(field).S3Configuration", dataDirectory: dataDirectory, lambdaFunctions: nil,
            region: region, accountID: accountID)

        // The processors, as for an S3 destination; no dynamic partitioning (the shape has none).
        var view = ExtendedS3DestinationConfiguration(bucketARN: nil)
        view.processingConfiguration = http.processingConfiguration
        let processing = try processors(of: view, field: field, path: path, lambdaFunctions: lambdaFunctions)
        if let extraction = processing.metadataExtraction {
            throw invalid(
                String(extraction.field.dropFirst(field.count + 1)),
                "MetadataExtraction is only available with dynamic partitioning, which an HTTP endpoint destination does not have."
            )
        }

        var settings = DeliveryStreamSettings(
            name: name, bucket: s3.bucket, keyLayout: s3.keyLayout, compression: .uncompressed, gzipLevel: gzipLevel,
            bufferSizeBytes: sizeInMBs * 1024 * 1024, bufferIntervalSeconds: intervalInSeconds,
            appendsNewline: processing.appendsNewline, versionID: versionID, definition: definition)
        settings.processRecords(processing.steps)
        let streamARN = "arn:aws:firehose:\(region):\(accountID):deliverystream/\(name)"
        if let lambda = processing.lambda, let function = lambda.function {
            settings.transform(
                with: LambdaTransformationSettings(
                    function: function.function, functionARN: lambda.arn, numberOfRetries: lambda.numberOfRetries,
                    bufferSizeBytes: lambda.bufferSizeBytes, bufferIntervalSeconds: lambda.bufferIntervalSeconds,
                    deliveryStreamARN: streamARN, region: region, invocationTimeout: function.timeout))
        }
        settings.deliver(
            to: HTTPEndpointSettings(
                url: url, accessKey: endpoint.accessKey, contentEncoding: contentEncoding, commonAttributes: attributes,
                retryDuration: .seconds(retrySeconds), backupMode: backupMode, deliveryStreamARN: streamARN),
            s3: s3)
        return settings
    }
}
