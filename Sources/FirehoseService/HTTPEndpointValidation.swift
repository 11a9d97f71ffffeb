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
        lambdaFunctions: LambdaFunctionDirectory?, region: String, accountID: String,
        updateMember: String? = nil
    ) throws(StreamConfigurationError) -> DeliveryStreamSettings {
        // UpdateDestination reports its own member (HttpEndpointDestinationUpdate, with S3Update).
        let field = updateMember ?? httpEndpointField
        let path = Self.memberPath(field)
        let s3Member = updateMember == nil ? "S3Configuration" : "S3Update"
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

        let redacted = "*** Sensitive Data Redacted ***"

        // EndpointConfiguration.
        guard let endpoint = http.endpointConfiguration else {
            throw fail("EndpointConfiguration", .validation([.missing("\(path).endpointConfiguration")]))
        }
        guard let urlText = endpoint.url else {
            throw fail("EndpointConfiguration.Url", .validation([.missing("\(path).endpointConfiguration.url")]))
        }
        guard (1...1000).contains(urlText.utf16.count) else {
            throw violation(
                "EndpointConfiguration.Url", redacted, "\(path).endpointConfiguration.url",
                urlText.isEmpty
                    ? "Member must have length greater than or equal to 1"
                    : "Member must have length less than or equal to 1000")
        }
        // The model's `https://.*`: its `.` matches no line terminator, and a CR or LF in a URL would
        // be a header line of its own in the request sent to it.
        guard ModelPattern.isSingleLine(urlText) else {
            throw violation(
                "EndpointConfiguration.Url", redacted, "\(path).endpointConfiguration.url",
                "Member must satisfy regular expression pattern: https://.*")
        }
        guard let url = URL(string: urlText), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.fragment == nil
        else {
            throw invalid(
                "EndpointConfiguration.Url", "Url '\(urlText)' is not an http:// or https:// URL with a host.")
        }
        // AWS's pattern is `https://.*`; plain http is allowed here for local receivers.
        guard scheme == "http" || scheme == "https" else {
            throw invalid("EndpointConfiguration.Url", "Url '\(urlText)' is not an http:// or https:// URL.")
        }
        if let endpointName = endpoint.name,
            let constraint = Self.nonBlankConstraint(endpointName, maxLength: 256)
        {
            throw violation(
                "EndpointConfiguration.Name", endpointName, "\(path).endpointConfiguration.name", constraint)
        }
        if let key = endpoint.accessKey {
            let member = "EndpointConfiguration.AccessKey"
            let keyPath = "\(path).endpointConfiguration.accessKey"
            guard key.utf16.count <= 4096 else {
                throw violation(member, redacted, keyPath, "Member must have length less than or equal to 4096")
            }
            guard ModelPattern.isSingleLine(key) else {
                throw violation(member, redacted, keyPath, "Member must satisfy regular expression pattern: .*")
            }
            // AWS's pattern allows them, but the key is sent as a header, where no control character
            // but a tab may stand.
            guard !key.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw invalid(
                    member,
                    "AccessKey must not contain control characters (it is sent as the X-Amz-Firehose-Access-Key header)."
                )
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
                let memberPath = "\(path).requestConfiguration.commonAttributes.\(index + 1).member"
                guard let attributeName = attribute.attributeName else {
                    throw fail("\(member).AttributeName", .validation([.missing("\(memberPath).attributeName")]))
                }
                guard let value = attribute.attributeValue else {
                    throw fail("\(member).AttributeValue", .validation([.missing("\(memberPath).attributeValue")]))
                }
                if let constraint = Self.nonBlankConstraint(attributeName, maxLength: 256) {
                    throw violation("\(member).AttributeName", redacted, "\(memberPath).attributeName", constraint)
                }
                guard value.utf16.count <= 1024 else {
                    throw violation(
                        "\(member).AttributeValue", redacted, "\(memberPath).attributeValue",
                        "Member must have length less than or equal to 1024")
                }
                guard ModelPattern.isSingleLine(value) else {
                    throw violation(
                        "\(member).AttributeValue", redacted, "\(memberPath).attributeValue",
                        "Member must satisfy regular expression pattern: .*")
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
        if let secrets = http.secretsManagerConfiguration {
            guard case .object(let members) = secrets else {
                throw fail(
                    "SecretsManagerConfiguration", .serialization("SecretsManagerConfiguration must be an object."))
            }
            guard let enabled = members["Enabled"] else {
                throw fail(
                    "SecretsManagerConfiguration.Enabled",
                    .validation([.missing("\(path).secretsManagerConfiguration.enabled")]))
            }
            guard let isEnabled = enabled.boolValue else {
                throw fail(
                    "SecretsManagerConfiguration.Enabled",
                    .serialization("SecretsManagerConfiguration.Enabled must be true or false."))
            }
            if isEnabled {
                throw invalid(
                    "SecretsManagerConfiguration",
                    "Secrets Manager is not supported yet by firehose-local: give the key as EndpointConfiguration.AccessKey."
                )
            }
        }
        if requireRoleARN || http.roleARN != nil, let role = http.roleARN, !isValidRoleARN(role) {
            throw violation(
                "RoleARN", role, "\(path).roleARN",
                "Member must satisfy regular expression pattern: arn:.*:iam::\\d{12}:role/[a-zA-Z_0-9+=,.@\\-_/]+")
        }

        // S3Configuration: checked as the S3 destination it is.
        guard let s3Configuration = http.s3Configuration else {
            throw fail(
                s3Member, .validation([.missing("\(path).\(Self.memberPath(s3Member))")]))
        }
        let s3 = try DeliveryStreamSettings(
            validating: CreateDeliveryStreamInput(
                deliveryStreamName: name, s3DestinationConfiguration: s3Configuration),
            gzipLevel: gzipLevel, versionID: versionID, requireRoleARN: requireRoleARN,
            destinationMember: "\(field).\(s3Member)", dataDirectory: dataDirectory, lambdaFunctions: nil,
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
        let streamARN = ServiceLimits.streamARN(region: region, accountID: accountID, name: name)
        if let lambda = processing.lambda, let function = lambda.function {
            settings.transform(
                with: LambdaTransformationSettings(
                    function: function.function, functionARN: lambda.arn, numberOfRetries: lambda.numberOfRetries,
                    bufferSizeBytes: lambda.bufferSizeBytes, bufferIntervalSeconds: lambda.bufferIntervalSeconds,
                    deliveryStreamARN: streamARN, region: region, invocationTimeout: function.timeout))
        }
        settings.deliver(
            to: HTTPEndpointDestination(
                HTTPEndpointSettings(
                    url: url, accessKey: endpoint.accessKey, contentEncoding: contentEncoding,
                    commonAttributes: attributes, retryDuration: .seconds(retrySeconds), backupMode: backupMode,
                    deliveryStreamARN: streamARN)),
            s3: s3)
        return settings
    }

    /// What a value breaks of a `^(?!\s*$).+` member of `maxLength` characters; nil when it is valid.
    private static func nonBlankConstraint(_ value: String, maxLength: Int) -> String? {
        if value.isEmpty { return "Member must have length greater than or equal to 1" }
        if value.utf16.count > maxLength { return "Member must have length less than or equal to \(maxLength)" }
        if !ModelPattern.isNonBlank(value) {
            return "Member must satisfy regular expression pattern: \(ModelPattern.nonBlankPattern)"
        }
        return nil
    }
}
