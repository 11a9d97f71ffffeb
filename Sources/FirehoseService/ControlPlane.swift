import FirehoseSink
import FirehoseWire
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// CreateDeliveryStream, DescribeDeliveryStream, ListDeliveryStreams, DeleteDeliveryStream,
/// UpdateDestination and the tag operations, over the sink's stream registry.
struct ControlPlane {
    let service: FirehoseService

    static let destinationID = "destinationId-000000000001"
    static let maxStreams = 5_000
    static let maxTagsPerStream = 50

    var configuration: FirehoseService.Configuration { service.configuration }
    var sink: FirehoseSink { service.sink }

    func handle(_ operation: FirehoseOperation, body: [UInt8], now: Date) async throws(FirehoseError) -> [UInt8] {
        switch operation {
        case .createDeliveryStream, .deleteDeliveryStream, .updateDestination, .tagDeliveryStream,
            .untagDeliveryStream:
            // Calls that change streams run one at a time, each checked against the state the previous
            // one left and saved before it answers: concurrent calls neither lose updates nor share a
            // file write.
            return try await sink.changingStreams { () async throws(FirehoseError) in
                try await change(operation, body: body, now: now)
            }
        case .describeDeliveryStream: return try describe(body, now: now)
        case .listDeliveryStreams: return try list(body)
        case .listTagsForDeliveryStream: return try listTags(body)
        case .startDeliveryStreamEncryption, .stopDeliveryStreamEncryption:
            return try await sink.changingStreams { () async throws(FirehoseError) in
                try await changeEncryption(start: operation == .startDeliveryStreamEncryption, body: body, now: now)
            }
        case .putRecord, .putRecordBatch:
            preconditionFailure("data-plane operation routed to the control plane")
        }
    }

    // MARK: Operations

    private func change(_ operation: FirehoseOperation, body: [UInt8], now: Date) async throws(FirehoseError)
        -> [UInt8]
    {
        switch operation {
        case .createDeliveryStream: return try await create(body, now: now)
        case .deleteDeliveryStream: return try await delete(body)
        case .updateDestination: return try await update(body, now: now)
        case .tagDeliveryStream: return try await tag(body)
        case .untagDeliveryStream: return try await untag(body)
        default: preconditionFailure("\(operation.rawValue) changes no stream")
        }
    }

    private func create(_ body: [UInt8], now: Date) async throws(FirehoseError) -> [UInt8] {
        let input = try decode(CreateDeliveryStreamInput.self, body)
        var violations = ServiceLimits.streamNameViolations(input.deliveryStreamName)
        if let tags = input.tags { violations += Self.tagListViolations(tags) }
        if !violations.isEmpty { throw .validation(violations) }
        let name = input.deliveryStreamName!
        if sink.settings(of: name) != nil {
            throw SinkError.streamExists(name).firehoseError(accountID: configuration.accountID)
        }
        if sink.streamNames.count >= Self.maxStreams {
            throw FirehoseError(
                code: "LimitExceededException",
                message:
                    "You have already consumed your firehose quota of \(Self.maxStreams) hoses. Firehose names: \(name)"
            )
        }
        let settings = try validatedSettings(input, versionID: 1)
        var tags: [Tag] = []
        for tag in input.tags ?? [] {
            if let index = tags.firstIndex(where: { $0.key == tag.key }) { tags[index] = tag } else { tags.append(tag) }
        }
        let record = StreamRecord(
            definition: input, versionID: 1, createTime: now, tags: tags, origin: .api,
            activeAt: now.addingTimeInterval(configuration.streamActivationDelay))
        do {
            try await sink.createSavedStream(settings, record: record)
        } catch {
            throw error.firehoseError(accountID: configuration.accountID)
        }
        if input.kinesisStreamSourceConfiguration != nil {
            // Positions a deleted stream of this name left (a delete whose reset failed) are not its.
            await service.kinesisSource?.reset(name, to: record)
        }
        return OrderedJSONEncoder.encode(CreateDeliveryStreamOutput(deliveryStreamARN: arn(name)))
    }

    private func describe(_ body: [UInt8], now: Date) throws(FirehoseError) -> [UInt8] {
        let input = try decode(DescribeDeliveryStreamInput.self, body)
        var violations = ServiceLimits.streamNameViolations(input.deliveryStreamName)
        violations += Self.rangeViolations(input.limit, path: "limit", range: 1...10_000)
        if let start = input.exclusiveStartDestinationId {
            violations += Self.destinationIDViolations(start, path: "exclusiveStartDestinationId")
        }
        if !violations.isEmpty { throw .validation(violations) }
        let (settings, record) = try existing(input.deliveryStreamName!)
        let destinations =
            input.exclusiveStartDestinationId.map { $0 >= Self.destinationID } == true
            ? []
            : [
                StreamDescription.destination(settings: settings, record: record, accountID: configuration.accountID)
            ]
        let description = StreamDescription.describe(
            settings: settings, record: record, arn: arn(settings.name),
            status: record.isActive(at: now) ? "ACTIVE" : "CREATING",
            destinations: destinations)
        return StreamDescription.encode(.object(["DeliveryStreamDescription": description]))
    }

    private func list(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        let input = try decode(ListDeliveryStreamsInput.self, body)
        var violations = Self.rangeViolations(input.limit, path: "limit", range: 1...10_000)
        if let type = input.deliveryStreamType, !Self.streamTypes.contains(type) {
            violations.append(
                ValidationViolation(
                    value: type, path: "deliveryStreamType",
                    constraint: "Member must satisfy enum value set: [\(Self.streamTypes.joined(separator: ", "))]"))
        }
        if let start = input.exclusiveStartDeliveryStreamName {
            violations += ServiceLimits.streamNameViolations(start, path: "exclusiveStartDeliveryStreamName")
        }
        if !violations.isEmpty { throw .validation(violations) }
        // Without a type, streams of every type.
        var names = sink.streamNames
        if let type = input.deliveryStreamType {
            names = names.filter { (sink.record(of: $0)?.definition.deliveryStreamType ?? "DirectPut") == type }
        }
        if let start = input.exclusiveStartDeliveryStreamName { names = names.filter { $0 > start } }
        let limit = input.limit ?? 10
        return OrderedJSONEncoder.encode(
            ListDeliveryStreamsOutput(
                deliveryStreamNames: Array(names.prefix(limit)), hasMoreDeliveryStreams: names.count > limit))
    }

    private func delete(_ body: [UInt8]) async throws(FirehoseError) -> [UInt8] {
        let input = try decode(DeleteDeliveryStreamInput.self, body)
        let violations = ServiceLimits.streamNameViolations(input.deliveryStreamName)
        if !violations.isEmpty { throw .validation(violations) }
        let name = input.deliveryStreamName!
        let (_, record) = try existing(name)
        do {
            try await sink.deleteStream(name)
        } catch {
            throw error.firehoseError(accountID: configuration.accountID)
        }
        if record.definition.kinesisStreamSourceConfiguration != nil {
            // A stream made again under this name reads from its own creation.
            await service.kinesisSource?.reset(name, to: nil)
        }
        return Array("{}".utf8)
    }

    private func update(_ body: [UInt8], now: Date) async throws(FirehoseError) -> [UInt8] {
        let input = try decode(UpdateDestinationInput.self, body)
        var violations = ServiceLimits.streamNameViolations(input.deliveryStreamName)
        if let version = input.currentDeliveryStreamVersionId {
            if version.isEmpty || version.count > 50 || !version.allSatisfy({ $0.isASCII && $0.isNumber }) {
                violations.append(
                    ValidationViolation(
                        value: version, path: "currentDeliveryStreamVersionId",
                        constraint: "Member must satisfy regular expression pattern: [0-9]+"))
            }
        } else {
            violations.append(.missing("currentDeliveryStreamVersionId"))
        }
        if let destination = input.destinationId {
            violations += Self.destinationIDViolations(destination, path: "destinationId")
        } else {
            violations.append(.missing("destinationId"))
        }
        if !violations.isEmpty { throw .validation(violations) }
        let name = input.deliveryStreamName!
        let (_, record) = try existing(name)
        guard record.isActive(at: now) else {
            throw FirehoseError(
                code: "ResourceInUseException",
                message: "Firehose \(name) under account \(configuration.accountID) is not ACTIVE (status CREATING).")
        }
        guard input.currentDeliveryStreamVersionId == String(record.versionID) else {
            throw FirehoseError(
                code: "ConcurrentModificationException",
                message:
                    "Cannot update firehose: \(name) since the current version id: \(record.versionID) and specified version id: \(input.currentDeliveryStreamVersionId!) do not match"
            )
        }
        guard input.destinationId == Self.destinationID else {
            throw .invalidArgument(
                "Destination Id \(input.destinationId!) not found for firehose \(name); its destination is \(Self.destinationID)."
            )
        }
        // As CreateDeliveryStream refuses two destinations: taking one of two updates would drop
        // the other without a word.
        let given = [
            input.extendedS3DestinationUpdate.map { _ in "ExtendedS3DestinationUpdate" },
            input.s3DestinationUpdate.map { _ in "S3DestinationUpdate" },
            input.httpEndpointDestinationUpdate.map { _ in "HttpEndpointDestinationUpdate" },
        ].compactMap { $0 }
        guard given.count <= 1 else {
            throw .invalidArgument(
                "Exactly one destination update is allowed: give \(given.joined(separator: " or ")), not \(given.count == 2 ? "both" : "several")."
            )
        }
        if let other = input.otherUpdates.first {
            throw .invalidArgument(
                "\(other) is not supported yet by firehose-local; give ExtendedS3DestinationUpdate, S3DestinationUpdate or HttpEndpointDestinationUpdate."
            )
        }
        let (definition, settings) =
            if let current = record.definition.httpEndpointDestinationConfiguration {
                try Self.httpEndpointUpdate(input, of: record, current: current, validate: validatedSettings)
            } else {
                try Self.s3Update(input, of: record, validate: validatedSettings)
            }
        var updated = record
        updated.definition = definition
        updated.versionID += 1
        updated.lastUpdateTime = now
        updated.origin = .api
        do {
            try await sink.updateStream(settings, record: updated)
        } catch {
            throw error.firehoseError(accountID: configuration.accountID)
        }
        service.log("Destination updated", ["stream": .string(name), "version": .stringConvertible(updated.versionID)])
        return Array("{}".utf8)
    }

    /// The definition and settings an update leaves: `validate` checks the definition (as
    /// `validatedSettings`, with the update's member named in errors).
    typealias Validate = (CreateDeliveryStreamInput, Int, String?) throws(FirehoseError) -> DeliveryStreamSettings

    /// ExtendedS3DestinationUpdate or S3DestinationUpdate, merged into an S3 stream's destination.
    private static func s3Update(
        _ input: UpdateDestinationInput, of record: StreamRecord, validate: Validate
    ) throws(FirehoseError) -> (CreateDeliveryStreamInput, DeliveryStreamSettings) {
        let name = record.definition.deliveryStreamName ?? ""
        guard input.httpEndpointDestinationUpdate == nil else {
            throw .invalidArgument(
                "\(name) delivers to S3: give ExtendedS3DestinationUpdate or S3DestinationUpdate (changing the destination type is not supported yet by firehose-local; delete and create the stream again)."
            )
        }
        guard input.extendedS3DestinationUpdate != nil || input.s3DestinationUpdate != nil else {
            throw .invalidArgument(
                "A destination update is required: give ExtendedS3DestinationUpdate or S3DestinationUpdate.")
        }
        var definition = record.definition
        let current =
            definition.extendedS3DestinationConfiguration ?? definition.s3DestinationConfiguration?.configuration
            ?? ExtendedS3DestinationConfiguration(bucketARN: nil)
        if var extended = input.extendedS3DestinationUpdate {
            // An update that gives DynamicPartitioningConfiguration without Enabled (only RetryOptions)
            // leaves partitioning as it is.
            if case .object(var members)? = extended.dynamicPartitioningConfiguration, members["Enabled"] == nil {
                members["Enabled"] = .bool(Self.isPartitioned(current))
                extended.dynamicPartitioningConfiguration = .object(members)
            }
            definition.extendedS3DestinationConfiguration = current.merging(extended)
            definition.s3DestinationConfiguration = nil
        } else if let plain = input.s3DestinationUpdate {
            let merged = current.merging(plain.configuration)
            if definition.extendedS3DestinationConfiguration != nil {
                definition.extendedS3DestinationConfiguration = merged
            } else {
                definition.s3DestinationConfiguration = S3DestinationConfiguration(merged)
            }
        }
        // Developer guide, "Dynamic partitioning": enabled only at creation, never disabled.
        let destination =
            definition.extendedS3DestinationConfiguration ?? definition.s3DestinationConfiguration?.configuration
        switch (Self.isPartitioned(current), destination.map(Self.isPartitioned) ?? false) {
        case (false, true):
            throw .invalidArgument(
                "Dynamic partitioning can only be enabled when the Firehose stream is created; \(name) was created without it."
            )
        case (true, false):
            throw .invalidArgument("Dynamic partitioning cannot be disabled on a Firehose stream that has it enabled.")
        default: break
        }
        // The API model: "If backup is enabled, you can't update the Firehose stream to disable it";
        // the message is AWS's (awsdocs/amazon-kinesis-data-firehose-developer-guide#11).
        if current.s3BackupMode == "Enabled", destination?.s3BackupMode != "Enabled" {
            throw .invalidArgument("Disabling S3 backup is not currently supported.")
        }
        let settings = try validate(
            definition, record.versionID + 1,
            input.extendedS3DestinationUpdate != nil ? "ExtendedS3DestinationUpdate" : "S3DestinationUpdate")
        return (definition, settings)
    }

    /// HttpEndpointDestinationUpdate, merged into an HTTP endpoint stream's destination.
    private static func httpEndpointUpdate(
        _ input: UpdateDestinationInput, of record: StreamRecord, current: HttpEndpointDestinationConfiguration,
        validate: Validate
    ) throws(FirehoseError) -> (CreateDeliveryStreamInput, DeliveryStreamSettings) {
        let name = record.definition.deliveryStreamName ?? ""
        guard input.extendedS3DestinationUpdate == nil, input.s3DestinationUpdate == nil else {
            throw .invalidArgument(
                "\(name) delivers to an HTTP endpoint: give HttpEndpointDestinationUpdate (changing the destination type is not supported yet by firehose-local; delete and create the stream again)."
            )
        }
        guard let update = input.httpEndpointDestinationUpdate else {
            throw .invalidArgument("A destination update is required: give HttpEndpointDestinationUpdate.")
        }
        var definition = record.definition
        definition.httpEndpointDestinationConfiguration = current.merging(update)
        return (definition, try validate(definition, record.versionID + 1, "HttpEndpointDestinationUpdate"))
    }

    private func tag(_ body: [UInt8]) async throws(FirehoseError) -> [UInt8] {
        let input = try decode(TagDeliveryStreamInput.self, body)
        var violations = ServiceLimits.streamNameViolations(input.deliveryStreamName)
        if let tags = input.tags {
            violations += Self.tagListViolations(tags)
        } else {
            violations.append(.missing("tags"))
        }
        if !violations.isEmpty { throw .validation(violations) }
        let name = input.deliveryStreamName!
        var merged = try existing(name).record.tags
        for tag in input.tags! {
            if let index = merged.firstIndex(where: { $0.key == tag.key }) {
                merged[index] = tag
            } else {
                merged.append(tag)
            }
        }
        guard merged.count <= Self.maxTagsPerStream else {
            throw FirehoseError(
                code: "LimitExceededException",
                message:
                    "A delivery stream can have at most \(Self.maxTagsPerStream) tags; this request would give \(name) \(merged.count)."
            )
        }
        try await modify(name) { record in
            record.tags = merged
            record.origin = .api
        }
        return Array("{}".utf8)
    }

    private func untag(_ body: [UInt8]) async throws(FirehoseError) -> [UInt8] {
        let input = try decode(UntagDeliveryStreamInput.self, body)
        var violations = ServiceLimits.streamNameViolations(input.deliveryStreamName)
        if let keys = input.tagKeys {
            if let violation = ValidationViolation.length(of: keys.count, path: "tagKeys", noun: "keys", range: 1...50)
            {
                violations.append(violation)
            }
            for (index, key) in keys.enumerated() {
                violations += Tag(key: key, value: nil).violations(path: "tagKeys.\(index + 1).member")
                    .map { violation in
                        var violation = violation
                        violation.path = "tagKeys.\(index + 1).member"
                        return violation
                    }
            }
        } else {
            violations.append(.missing("tagKeys"))
        }
        if !violations.isEmpty { throw .validation(violations) }
        let name = input.deliveryStreamName!
        _ = try existing(name)
        let keys = Set(input.tagKeys!)
        try await modify(name) { record in
            record.tags.removeAll { $0.key.map(keys.contains) ?? false }
            record.origin = .api
        }
        return Array("{}".utf8)
    }

    private func listTags(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        let input = try decode(ListTagsForDeliveryStreamInput.self, body)
        var violations = ServiceLimits.streamNameViolations(input.deliveryStreamName)
        violations += Self.rangeViolations(input.limit, path: "limit", range: 1...50)
        if let start = input.exclusiveStartTagKey {
            violations += Tag(key: start, value: nil).violations(path: "exclusiveStartTagKey").map { violation in
                var violation = violation
                violation.path = "exclusiveStartTagKey"
                return violation
            }
        }
        if !violations.isEmpty { throw .validation(violations) }
        var tags = try existing(input.deliveryStreamName!).record.tags
        if let start = input.exclusiveStartTagKey {
            if let index = tags.firstIndex(where: { $0.key == start }) { tags = Array(tags[(index + 1)...]) }
        }
        let limit = input.limit ?? 50
        // Every stored tag has its key: TagDeliveryStream and CreateDeliveryStream require it.
        return OrderedJSONEncoder.encode(
            ListTagsForDeliveryStreamOutput(tags: Array(tags.prefix(limit)), hasMoreTags: tags.count > limit))
    }

    // MARK: Helpers

    static let streamTypes = ["DirectPut", "KinesisStreamAsSource", "MSKAsSource", "DatabaseAsSource"]

    func arn(_ name: String) -> String {
        ServiceLimits.streamARN(region: configuration.region, accountID: configuration.accountID, name: name)
    }

    func existing(_ name: String) throws(FirehoseError) -> (
        settings: DeliveryStreamSettings, record: StreamRecord
    ) {
        guard let settings = sink.settings(of: name), let record = sink.record(of: name) else {
            throw .resourceNotFound(stream: name, accountID: configuration.accountID)
        }
        return (settings, record)
    }

    func modify(_ name: String, _ change: (inout StreamRecord) -> Void) async throws(FirehoseError) {
        do {
            try await sink.updateRecord(of: name, change)
        } catch {
            throw error.firehoseError(accountID: configuration.accountID)
        }
    }

    private func validatedSettings(
        _ definition: CreateDeliveryStreamInput, versionID: Int, destinationMember: String? = nil
    ) throws(FirehoseError) -> DeliveryStreamSettings {
        do {
            var settings = try DeliveryStreamSettings(
                validating: definition, gzipLevel: configuration.gzipLevel, versionID: versionID, requireRoleARN: true,
                destinationMember: destinationMember, dataDirectory: sink.configuration.dataDirectory,
                lambdaFunctions: configuration.lambdaFunctions, region: configuration.region,
                accountID: configuration.accountID)
            settings.compressGzip(with: configuration.gzipImplementation)
            return settings
        } catch {
            throw error.error
        }
    }

    func decode<Shape: Decodable>(_ type: Shape.Type, _ body: [UInt8]) throws(FirehoseError) -> Shape {
        let text = body.isEmpty ? Array("{}".utf8) : body
        return try RequestJSON.decode(Shape.self, from: text)
    }

    private static func isPartitioned(_ destination: ExtendedS3DestinationConfiguration) -> Bool {
        destination.dynamicPartitioningConfiguration?["Enabled"]?.boolValue == true
    }

    /// The `Tags` list of CreateDeliveryStream and TagDeliveryStream: 1–50 tags, each valid.
    static func tagListViolations(_ tags: [Tag]) -> [ValidationViolation] {
        var violations: [ValidationViolation] = []
        if tags.isEmpty || tags.count > maxTagsPerStream {
            violations.append(
                ValidationViolation(
                    value: "[\(tags.count) tags]", path: "tags",
                    constraint: tags.isEmpty
                        ? "Member must have length greater than or equal to 1"
                        : "Member must have length less than or equal to \(maxTagsPerStream)"))
        }
        for (index, tag) in tags.enumerated() { violations += tag.violations(path: "tags.\(index + 1).member") }
        return violations
    }

    static func rangeViolations(_ value: Int?, path: String, range: ClosedRange<Int>) -> [ValidationViolation] {
        value.flatMap { ValidationViolation.outOfRange($0, path: path, range: range) }.map { [$0] } ?? []
    }

    static func destinationIDViolations(_ value: String, path: String) -> [ValidationViolation] {
        let valid =
            (1...100).contains(value.count)
            && value.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
            }
        return valid
            ? []
            : [
                ValidationViolation(
                    value: value, path: path,
                    constraint: "Member must satisfy regular expression pattern: [a-zA-Z0-9-]+")
            ]
    }
}
