public import Foundation

/// How one destination names its objects: `<evaluated prefix><stream>-<VersionId>-<yyyy>-<MM>-<dd>-
/// <HH>-<mm>-<ss>-<uuid><ext>`, read in UTC or the destination's `CustomTimeZone`.
///
/// Everything that can be wrong with the configuration is found by `init`, so computing a key
/// cannot fail and costs no parsing.
public struct ObjectKeyLayout: Sendable, Equatable {
    public let streamName: String
    /// `nil` when `Prefix` is absent or empty.
    public let prefix: S3Prefix?
    /// `nil` when `ErrorOutputPrefix` is absent or empty.
    public let errorOutputPrefix: S3Prefix?
    /// Appended to every key, e.g. `.gz`; empty for none.
    public let fileExtension: String
    /// The zone keys are read in: `CustomTimeZone`, or UTC.
    public let timeZone: TimeZone

    /// The `!{firehose:error-output-type}` values AWS documents.
    public enum ErrorOutputType {
        public static let processingFailed = "processing-failed"
        public static let formatConversionFailed = "format-conversion-failed"
        public static let elasticsearchFailed = "elasticsearch-failed"
        public static let splunkFailed = "splunk-failed"
    }

    /// Validates the fields together, as CreateDeliveryStream and UpdateDestination do.
    ///
    /// - Parameters:
    ///   - fileExtension: the extension to append, e.g. `.gz` for GZIP or the destination's
    ///     `FileExtension`; `""` for none.
    ///   - customTimeZone: an IANA zone ID; `nil` or `""` means UTC.
    public init(
        streamName: String,
        prefix: String?,
        errorOutputPrefix: String?,
        fileExtension: String,
        customTimeZone: String?
    ) throws(KeyLayoutError) {
        try Self.validateStreamName(streamName)
        // The model's length and pattern checks come first, as AWS's validation layer runs before
        // the service looks at what the values mean.
        for (value, member) in [(prefix, "prefix"), (errorOutputPrefix, "errorOutputPrefix")] {
            if let value, value.utf16.count > S3Prefix.maxLength {
                throw KeyLayoutError.validation(
                    value: value, memberPath: member,
                    constraint: "Member must have length less than or equal to \(S3Prefix.maxLength)"
                )
            }
        }
        try Self.validateCustomTimeZonePattern(customTimeZone ?? "", memberPath: "customTimeZone")
        try Self.validateFileExtension(fileExtension)

        let parsedPrefix = try Self.parsePrefix(prefix, role: .prefix)
        let parsedErrorPrefix = try Self.parsePrefix(errorOutputPrefix, role: .errorOutputPrefix)
        if parsedPrefix?.hasExpressions == true && parsedErrorPrefix == nil {
            throw KeyLayoutError.prefixConstraint(
                "ErrorOutputPrefix cannot be null or empty when Prefix contains expressions"
            )
        }

        self.streamName = streamName
        self.prefix = parsedPrefix
        self.errorOutputPrefix = parsedErrorPrefix
        self.fileExtension = fileExtension
        self.timeZone = try Self.resolveTimeZone(customTimeZone)
        try checkSegmentLengths()
    }

    private static func parsePrefix(_ value: String?, role: S3Prefix.Role) throws(KeyLayoutError) -> S3Prefix? {
        guard let value, !value.isEmpty else { return nil }
        return try S3Prefix(value, role: role)
    }

    // MARK: - Keys

    /// The key of a delivered object.
    ///
    /// - Parameters:
    ///   - versionId: the destination's VersionId (1, then +1 per UpdateDestination).
    ///   - firstArrival: arrival time of the oldest record in the object; every timestamp in the key
    ///     reads this one instant.
    ///   - partition: the values of the prefix's dynamic-partitioning keys, already accepted by
    ///     `checkPartition`.
    ///   - objectID: printed lowercase; pass a random (v4) UUID.
    ///   - randomSource: draws `!{firehose:random-string}`.
    public func objectKey(
        versionId: Int,
        firstArrival: Date,
        partition: PartitionValues = .none,
        objectID: UUID,
        randomSource: inout some RandomNumberGenerator
    ) -> String {
        let time = CivilDateTime(date: firstArrival, timeZone: timeZone)
        var key = ""
        if let prefix, prefix.hasExpressions {
            prefix.append(
                at: time, errorOutputType: nil, partition: partition, randomSource: &randomSource, to: &key)
        } else {
            // A literal prefix is glued to the hour path with no `/` in between (`logs` gives
            // `logs2026/…`), as AWS does.
            key += prefix?.raw ?? ""
            Self.hourPath.append(time, to: &key)
        }
        appendSuffix(time: time, versionId: versionId, objectID: objectID, to: &key)
        return key
    }

    /// The key of an object of records that failed with `errorOutputType` (e.g. `processing-failed`).
    ///
    /// With an `ErrorOutputPrefix` that has expressions, that prefix alone. Otherwise AWS's rule for
    /// an unset `ErrorOutputPrefix` (developer guide, "Semantic rules"): `<Prefix><error-output-type>`
    /// followed by the hour path; the AWS examples put a `/` after the error type
    /// (`processing-failed/2018/08/27/`), and a literal `ErrorOutputPrefix` stands in for `Prefix`.
    /// `errorOutputType` becomes part of the path as is: pass one of `ErrorOutputType`'s values.
    public func errorObjectKey(
        errorOutputType: String,
        versionId: Int,
        firstArrival: Date,
        objectID: UUID,
        randomSource: inout some RandomNumberGenerator
    ) -> String {
        let time = CivilDateTime(date: firstArrival, timeZone: timeZone)
        var key = ""
        if let errorOutputPrefix, errorOutputPrefix.hasExpressions {
            errorOutputPrefix.append(
                at: time, errorOutputType: errorOutputType, partition: .none, randomSource: &randomSource, to: &key)
        } else {
            // `init` guarantees `prefix` has no expressions when `errorOutputPrefix` is nil.
            key += (errorOutputPrefix ?? prefix)?.raw ?? ""
            key += errorOutputType
            key += "/"
            Self.hourPath.append(time, to: &key)
        }
        appendSuffix(time: time, versionId: versionId, objectID: objectID, to: &key)
        return key
    }

    private static let hourPath = try! JavaDateTimePattern("yyyy/MM/dd/HH/")
    private static let suffixTime = try! JavaDateTimePattern("yyyy-MM-dd-HH-mm-ss")

    private func appendSuffix(time: CivilDateTime, versionId: Int, objectID: UUID, to key: inout String) {
        key += streamName
        key += "-"
        key += String(versionId)
        key += "-"
        Self.suffixTime.append(time, to: &key)
        key += "-"
        key += objectID.uuidString.lowercased()
        key += fileExtension
    }

    // MARK: - Local storage

    /// Whether `key` can be used as a path relative to the bucket folder: not empty, no NUL, and no
    /// empty, `.` or `..` segment (so no leading, trailing or doubled `/`), each segment at most
    /// 255 bytes. `init` already refuses layouts that could break this; the sink checks again right
    /// before writing because that is where a mistake would escape the folder.
    public static func isSafeRelativePath(_ key: String) -> Bool {
        if key.isEmpty || key.utf8.contains(0) { return false }
        for segment in key.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.isEmpty || segment.count > PathShape.maxSegmentBytes { return false }
            if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { return false }
        }
        return true
    }

    /// The longest the VersionId is assumed to print; it grows by one per UpdateDestination.
    private static let maxVersionDigits = 10
    /// `yyyy/MM/dd/HH/`
    private static let hourPathBytes = 14

    /// `<stream>-<VersionId>-<yyyy-MM-dd-HH-mm-ss>-<uuid><ext>` at its longest.
    private var objectNameBytes: Int {
        streamName.utf8.count + 1 + Self.maxVersionDigits + 1 + 19 + 1 + 36 + fileExtension.utf8.count
    }

    /// The longest key an object can get, in UTF-8 bytes, with every expression at its longest, and
    /// the field that decides it: `Prefix` for data objects, or the field error objects are named by.
    public var longestKey: (bytes: Int, field: String) {
        let dataKey: Int
        if let prefix, prefix.hasExpressions {
            dataKey = PathShape(prefix.parts).maxBytes + objectNameBytes
        } else {
            dataKey = (prefix?.raw.utf8.count ?? 0) + Self.hourPathBytes + objectNameBytes
        }
        let errorKey: Int
        if let errorOutputPrefix, errorOutputPrefix.hasExpressions {
            errorKey = PathShape(errorOutputPrefix.parts).maxBytes + objectNameBytes
        } else {
            errorKey =
                ((errorOutputPrefix ?? prefix)?.raw.utf8.count ?? 0) + PathShape.maxErrorOutputTypeBytes + 1
                + Self.hourPathBytes + objectNameBytes
        }
        if dataKey >= errorKey { return (dataKey, S3Prefix.Role.prefix.fieldName) }
        return (errorKey, (errorOutputPrefix?.role ?? .prefix).fieldName)
    }

    /// Refuses partition key values whose object keys could not be stored locally: a value missing for
    /// a key the prefix uses, or values that make an empty, `.` or `..` path segment, a NUL, a segment
    /// beyond the file-name limit, or a key longer than `maxKeyBytes` (UTF-8).
    ///
    /// AWS stores any such key in S3; a record of such a partition goes to the error output here, with
    /// this message (which names no local path).
    public func checkPartition(_ values: PartitionValues, maxKeyBytes: Int) throws(KeyLayoutError) {
        guard let prefix, !prefix.partitionKeys.isEmpty else { return }
        guard let parts = prefix.substituting(values) else {
            let missing = prefix.partitionKeys.first { values[$0.source, $0.name] == nil }!
            throw KeyLayoutError.invalidArgument(
                "The record has no value for !{\(missing.source.rawValue):\(missing.name)}, which Prefix uses.")
        }
        let shape = PathShape(parts)
        let reason: String? =
            if let reason = shape.unstorableReason {
                reason
            } else if shape.trailing.maxBytes + objectNameBytes > PathShape.maxSegmentBytes {
                PathShape.segmentTooLongReason
            } else if shape.maxBytes + objectNameBytes > maxKeyBytes {
                "its keys can reach \(shape.maxBytes + objectNameBytes) bytes, beyond the \(maxKeyBytes) the local path limit leaves"
            } else {
                nil
            }
        if let reason {
            throw KeyLayoutError.invalidArgument(
                "The partition key values make an object key that cannot be stored locally: \(reason) (firehose-local maps keys to directories)."
            )
        }
    }

    /// The key's last segment and the segment a prefix's tail runs into must fit a file name.
    private func checkSegmentLengths() throws(KeyLayoutError) {
        let suffixBytes = objectNameBytes
        if suffixBytes > PathShape.maxSegmentBytes {
            throw KeyLayoutError.invalidArgument(
                "FileExtension '\(fileExtension)' cannot be stored locally with stream name '\(streamName)': object names can exceed \(PathShape.maxSegmentBytes) bytes, the file-name limit of the local file system (firehose-local maps keys to directories)."
            )
        }
        let yearBytes = 4
        if let prefix {
            let tail = PathShape(prefix.parts).trailing.maxBytes
            if tail + (prefix.hasExpressions ? suffixBytes : yearBytes) > PathShape.maxSegmentBytes {
                throw PathShape.segmentTooLong(raw: prefix.raw, field: prefix.role.fieldName)
            }
        }
        if let literalErrorBase = errorOutputPrefix ?? prefix {
            let tail = PathShape(literalErrorBase.parts).trailing.maxBytes
            let next = literalErrorBase.hasExpressions ? suffixBytes : PathShape.maxErrorOutputTypeBytes
            if tail + next > PathShape.maxSegmentBytes {
                throw PathShape.segmentTooLong(raw: literalErrorBase.raw, field: literalErrorBase.role.fieldName)
            }
        }
    }

    // MARK: - Field validation

    /// `FileExtension` as the API model constrains it: at most 128 characters matching
    /// `^$|\.[0-9a-z!\-_.*'()]+`.
    public static func validateFileExtension(_ value: String, memberPath: String = "fileExtension")
        throws(KeyLayoutError)
    {
        if value.utf16.count > 128 {
            throw KeyLayoutError.validation(
                value: value, memberPath: memberPath, constraint: "Member must have length less than or equal to 128"
            )
        }
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyz!-_.*'()".unicodeScalars)
        let scalars = value.unicodeScalars
        let matches =
            value.isEmpty
            || (scalars.first == "." && scalars.count > 1 && scalars.dropFirst().allSatisfy { allowed.contains($0) })
        if !matches {
            throw KeyLayoutError.validation(
                value: value, memberPath: memberPath,
                constraint: "Member must satisfy regular expression pattern: ^$|\\.[0-9a-z!\\-_.*'()]+"
            )
        }
    }

    /// `CustomTimeZone` as the API model constrains it (at most 50 characters matching
    /// `^$|[a-zA-Z/_]+`), then resolved; `nil` and `""` are UTC.
    public static func validateCustomTimeZone(
        _ value: String?,
        memberPath: String = "customTimeZone"
    ) throws(KeyLayoutError) -> TimeZone {
        try validateCustomTimeZonePattern(value ?? "", memberPath: memberPath)
        return try resolveTimeZone(value)
    }

    private static func validateCustomTimeZonePattern(_ value: String, memberPath: String) throws(KeyLayoutError) {
        if value.utf16.count > 50 {
            throw KeyLayoutError.validation(
                value: value, memberPath: memberPath, constraint: "Member must have length less than or equal to 50"
            )
        }
        let matches = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "/" || scalar == "_")
        }
        if !matches {
            throw KeyLayoutError.validation(
                value: value, memberPath: memberPath,
                constraint: "Member must satisfy regular expression pattern: ^$|[a-zA-Z/_]+"
            )
        }
    }

    private static func resolveTimeZone(_ value: String?) throws(KeyLayoutError) -> TimeZone {
        guard let value, !value.isEmpty else { return .gmt }
        guard let zone = TimeZone(identifier: value) else {
            throw KeyLayoutError.invalidArgument(
                "CustomTimeZone '\(value)' is not a supported time zone; use an IANA time zone ID such as Asia/Tokyo."
            )
        }
        return zone
    }

    /// The delivery stream name as the model constrains it; it becomes part of every object name.
    public static func validateStreamName(_ value: String, memberPath: String = "deliveryStreamName")
        throws(KeyLayoutError)
    {
        if value.isEmpty || value.utf16.count > 64 {
            throw KeyLayoutError.validation(
                value: value, memberPath: memberPath,
                constraint: value.isEmpty
                    ? "Member must have length greater than or equal to 1"
                    : "Member must have length less than or equal to 64"
            )
        }
        let matches = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "." || scalar == "-")
        }
        if !matches {
            throw KeyLayoutError.validation(
                value: value, memberPath: memberPath,
                constraint: "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
            )
        }
    }
}
