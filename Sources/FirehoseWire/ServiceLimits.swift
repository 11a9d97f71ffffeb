/// The documented Firehose data-plane limits (API model and service quotas).
public enum ServiceLimits {
    /// Largest record after base64 decoding.
    public static let maxRecordBytes = 1_024_000
    public static let maxBatchRecords = 500
    /// Sum of decoded record sizes in one PutRecordBatch ("4 MB" in AWS's message, 4 MiB in bytes).
    public static let maxBatchBytes = 4 * 1024 * 1024
    package static let streamNameLength = 1...64
    package static let streamNamePattern = "[a-zA-Z0-9_.-]+"

    /// A delivery stream's ARN, as AWS writes it.
    package static func streamARN(region: String, accountID: String, name: String) -> String {
        "arn:aws:firehose:\(region):\(accountID):deliverystream/\(name)"
    }

    package static func isValidStreamNameCharacter(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    /// Violations of the `DeliveryStreamName` shape; empty when the name is valid.
    package static func streamNameViolations(_ name: String?, path: String = "deliveryStreamName")
        -> [ValidationViolation]
    {
        guard let name else { return [.missing(path)] }
        var violations: [ValidationViolation] = []
        // UTF-16 code units, as AWS's Java validator counts.
        let length = name.utf16.count
        if length < streamNameLength.lowerBound {
            violations.append(
                ValidationViolation(
                    value: name, path: path, constraint: "Member must have length greater than or equal to 1")
            )
        }
        if length > streamNameLength.upperBound {
            violations.append(
                ValidationViolation(
                    value: name, path: path, constraint: "Member must have length less than or equal to 64")
            )
        }
        if length > 0, !name.utf8.allSatisfy(isValidStreamNameCharacter) {
            violations.append(
                ValidationViolation(
                    value: name, path: path,
                    constraint: "Member must satisfy regular expression pattern: \(streamNamePattern)")
            )
        }
        return violations
    }

    /// Violations of Kinesis Data Streams' `StreamName` shape (1–128 of the same characters); empty
    /// when the name is valid or absent and optional.
    package static func kinesisStreamNameViolations(
        _ name: String?, path: String = "streamName", required: Bool = false
    ) -> [ValidationViolation] {
        ValidationViolation.string(
            name, path: path, required: required, length: 1...128, pattern: streamNamePattern,
            matches: { $0.utf8.allSatisfy(isValidStreamNameCharacter) })
    }

    /// `arn:<partition>:kinesis:<region>:<account>:stream/<name>`, per the model's pattern.
    package static func kinesisStreamARNParts(_ arn: String) -> (region: String, account: String, name: String)? {
        let fields = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0] == "arn", fields[2] == "kinesis", !fields[3].isEmpty,
            fields[3].utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0.isASCIIAlphanumeric }),
            fields[4].utf8.count == 12, fields[4].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            fields[5].hasPrefix("stream/")
        else { return nil }
        let name = fields[5].dropFirst(7)
        guard !name.isEmpty, ServiceLimits.kinesisStreamNameViolations(String(name)).isEmpty else { return nil }
        return (String(fields[3]), String(fields[4]), String(name))
    }
}

extension UInt8 {
    /// `[A-Za-z0-9]`: what names (streams, buckets, error codes) are mostly made of.
    package var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
