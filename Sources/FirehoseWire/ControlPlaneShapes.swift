// Request shapes of the control-plane operations, member names as in the API model. Decoding is
// lenient about unknown members (as AWS's JSON protocol is); required members are checked by the
// operations themselves so the error is AWS's ValidationException, not a decoding failure.

package struct DescribeDeliveryStreamInput: Decodable, Sendable {
    package var deliveryStreamName: String?
    package var limit: Int?
    package var exclusiveStartDestinationId: String?

    enum CodingKeys: String, CodingKey {
        case deliveryStreamName = "DeliveryStreamName"
        case limit = "Limit"
        case exclusiveStartDestinationId = "ExclusiveStartDestinationId"
    }
}

package struct ListDeliveryStreamsInput: Decodable, Sendable {
    package var limit: Int?
    package var deliveryStreamType: String?
    package var exclusiveStartDeliveryStreamName: String?

    enum CodingKeys: String, CodingKey {
        case limit = "Limit"
        case deliveryStreamType = "DeliveryStreamType"
        case exclusiveStartDeliveryStreamName = "ExclusiveStartDeliveryStreamName"
    }
}

package struct DeleteDeliveryStreamInput: Decodable, Sendable {
    package var deliveryStreamName: String?
    package var allowForceDelete: Bool?

    enum CodingKeys: String, CodingKey {
        case deliveryStreamName = "DeliveryStreamName"
        case allowForceDelete = "AllowForceDelete"
    }
}

/// StartDeliveryStreamEncryption's input; without a configuration, an AWS-owned key.
package struct StartDeliveryStreamEncryptionInput: Decodable, Sendable {
    package var deliveryStreamName: String?
    package var deliveryStreamEncryptionConfigurationInput: DeliveryStreamEncryptionConfigurationInput?

    enum CodingKeys: String, CodingKey {
        case deliveryStreamName = "DeliveryStreamName"
        case deliveryStreamEncryptionConfigurationInput = "DeliveryStreamEncryptionConfigurationInput"
    }
}

/// StopDeliveryStreamEncryption's input.
package struct StopDeliveryStreamEncryptionInput: Decodable, Sendable {
    package var deliveryStreamName: String?

    enum CodingKeys: String, CodingKey {
        case deliveryStreamName = "DeliveryStreamName"
    }
}

package struct UpdateDestinationInput: Decodable, Sendable {
    package var deliveryStreamName: String?
    package var currentDeliveryStreamVersionId: String?
    package var destinationId: String?
    package var s3DestinationUpdate: S3DestinationConfiguration?
    package var extendedS3DestinationUpdate: ExtendedS3DestinationConfiguration?
    package var httpEndpointDestinationUpdate: HttpEndpointDestinationUpdate?
    /// Updates for destinations firehose-local does not have, present only to be refused clearly.
    package var otherUpdates: [String] = []

    enum CodingKeys: String, CodingKey, CaseIterable {
        case deliveryStreamName = "DeliveryStreamName"
        case currentDeliveryStreamVersionId = "CurrentDeliveryStreamVersionId"
        case destinationId = "DestinationId"
        case s3DestinationUpdate = "S3DestinationUpdate"
        case extendedS3DestinationUpdate = "ExtendedS3DestinationUpdate"
        case httpEndpointDestinationUpdate = "HttpEndpointDestinationUpdate"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        deliveryStreamName = try container.decodeIfPresent(String.self, forKey: .deliveryStreamName)
        currentDeliveryStreamVersionId = try container.decodeIfPresent(
            String.self, forKey: .currentDeliveryStreamVersionId)
        destinationId = try container.decodeIfPresent(String.self, forKey: .destinationId)
        s3DestinationUpdate = try container.decodeIfPresent(
            S3DestinationConfiguration.self, forKey: .s3DestinationUpdate)
        extendedS3DestinationUpdate = try container.decodeIfPresent(
            ExtendedS3DestinationConfiguration.self, forKey: .extendedS3DestinationUpdate)
        httpEndpointDestinationUpdate = try container.decodeIfPresent(
            HttpEndpointDestinationUpdate.self, forKey: .httpEndpointDestinationUpdate)
        // The update shape names the backup's member S3BackupUpdate (an S3DestinationUpdate).
        if extendedS3DestinationUpdate != nil {
            let members = try container.nestedContainer(
                keyedBy: AnyCodingKey.self, forKey: .extendedS3DestinationUpdate)
            extendedS3DestinationUpdate?.s3BackupConfiguration = try members.decodeIfPresent(
                S3DestinationConfiguration.self, forKey: AnyCodingKey(stringValue: "S3BackupUpdate"))
        }
        let all = try decoder.container(keyedBy: AnyCodingKey.self)
        otherUpdates = all.allKeys.map(\.stringValue).filter { $0.hasSuffix("DestinationUpdate") }
            .filter { !CodingKeys.allCases.map(\.rawValue).contains($0) }.sorted()
    }
}

package struct TagDeliveryStreamInput: Decodable, Sendable {
    package var deliveryStreamName: String?
    package var tags: [Tag]?

    enum CodingKeys: String, CodingKey {
        case deliveryStreamName = "DeliveryStreamName"
        case tags = "Tags"
    }
}

package struct UntagDeliveryStreamInput: Decodable, Sendable {
    package var deliveryStreamName: String?
    package var tagKeys: [String]?

    enum CodingKeys: String, CodingKey {
        case deliveryStreamName = "DeliveryStreamName"
        case tagKeys = "TagKeys"
    }
}

package struct ListTagsForDeliveryStreamInput: Decodable, Sendable {
    package var deliveryStreamName: String?
    package var exclusiveStartTagKey: String?
    package var limit: Int?

    enum CodingKeys: String, CodingKey {
        case deliveryStreamName = "DeliveryStreamName"
        case exclusiveStartTagKey = "ExclusiveStartTagKey"
        case limit = "Limit"
    }
}

extension Tag {
    /// `^(?!aws:)[\p{L}\p{Z}\p{N}_.:\/=+\-@%]*$` for keys, the same set without the prefix rule for values.
    package static func isAllowedCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .spaceSeparator, .lineSeparator, .paragraphSeparator, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return "_.:/=+-@%".unicodeScalars.contains(scalar)
        }
    }

    /// Model constraint violations of a tag, with member paths under `path` (e.g. `tags.1.member`).
    package func violations(path: String) -> [ValidationViolation] {
        var violations: [ValidationViolation] = []
        if let key {
            if key.count < 1 || key.count > 128 {
                violations.append(
                    ValidationViolation(
                        value: key, path: "\(path).key",
                        constraint: key.isEmpty
                            ? "Member must have length greater than or equal to 1"
                            : "Member must have length less than or equal to 128"))
            }
            if key.hasPrefix("aws:") || !key.unicodeScalars.allSatisfy(Self.isAllowedCharacter) {
                violations.append(
                    ValidationViolation(
                        value: key, path: "\(path).key",
                        constraint:
                            #"Member must satisfy regular expression pattern: ^(?!aws:)[\p{L}\p{Z}\p{N}_.:\/=+\-@%]*$"#)
                )
            }
        } else {
            violations.append(.missing("\(path).key"))
        }
        if let value {
            if value.count > 256 {
                violations.append(
                    ValidationViolation(
                        value: value, path: "\(path).value",
                        constraint: "Member must have length less than or equal to 256"))
            }
            if !value.unicodeScalars.allSatisfy(Self.isAllowedCharacter) {
                violations.append(
                    ValidationViolation(
                        value: value, path: "\(path).value",
                        constraint: #"Member must satisfy regular expression pattern: ^[\p{L}\p{Z}\p{N}_.:\/=+\-@%]*$"#)
                )
            }
        }
        return violations
    }
}

extension ExtendedS3DestinationConfiguration {
    /// UpdateDestination's merge: every member the update gives replaces the current one; the others
    /// stay as they are.
    package func merging(_ update: ExtendedS3DestinationConfiguration) -> ExtendedS3DestinationConfiguration {
        var merged = self
        if let value = update.roleARN { merged.roleARN = value }
        if let value = update.bucketARN { merged.bucketARN = value }
        if let value = update.prefix { merged.prefix = value }
        if let value = update.errorOutputPrefix { merged.errorOutputPrefix = value }
        if let value = update.bufferingHints { merged.bufferingHints = value }
        if let value = update.compressionFormat { merged.compressionFormat = value }
        if let value = update.encryptionConfiguration { merged.encryptionConfiguration = value }
        if let value = update.cloudWatchLoggingOptions { merged.cloudWatchLoggingOptions = value }
        if let value = update.processingConfiguration { merged.processingConfiguration = value }
        if let value = update.s3BackupMode { merged.s3BackupMode = value }
        if let value = update.s3BackupConfiguration {
            merged.s3BackupConfiguration = S3DestinationConfiguration(
                merged.s3BackupConfiguration.map { $0.configuration.merging(value.configuration) }
                    ?? value.configuration)
        }
        if let value = update.dataFormatConversionConfiguration { merged.dataFormatConversionConfiguration = value }
        if let value = update.dynamicPartitioningConfiguration { merged.dynamicPartitioningConfiguration = value }
        if let value = update.fileExtension { merged.fileExtension = value }
        if let value = update.customTimeZone { merged.customTimeZone = value }
        return merged
    }
}

// MARK: Answers, members in the order firehose-local writes them

package struct CreateDeliveryStreamOutput: Encodable, Sendable {
    package var deliveryStreamARN: String

    package init(deliveryStreamARN: String) { self.deliveryStreamARN = deliveryStreamARN }

    enum CodingKeys: String, CodingKey {
        case deliveryStreamARN = "DeliveryStreamARN"
    }
}

package struct ListDeliveryStreamsOutput: Encodable, Sendable {
    package var deliveryStreamNames: [String]
    package var hasMoreDeliveryStreams: Bool

    package init(deliveryStreamNames: [String], hasMoreDeliveryStreams: Bool) {
        self.deliveryStreamNames = deliveryStreamNames
        self.hasMoreDeliveryStreams = hasMoreDeliveryStreams
    }

    enum CodingKeys: String, CodingKey {
        case deliveryStreamNames = "DeliveryStreamNames"
        case hasMoreDeliveryStreams = "HasMoreDeliveryStreams"
    }
}

package struct ListTagsForDeliveryStreamOutput: Encodable, Sendable {
    package var tags: [Tag]
    package var hasMoreTags: Bool

    package init(tags: [Tag], hasMoreTags: Bool) {
        self.tags = tags
        self.hasMoreTags = hasMoreTags
    }

    enum CodingKeys: String, CodingKey {
        case tags = "Tags"
        case hasMoreTags = "HasMoreTags"
    }
}
