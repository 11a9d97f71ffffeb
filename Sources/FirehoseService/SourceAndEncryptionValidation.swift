import FirehoseSink
import FirehoseWire

/// `DirectPutSourceConfiguration` and server-side encryption, checked as AWS checks them
/// (docs/compatibility.md, "Control plane"). Neither changes delivery: the throughput hint is
/// informational at AWS too, and nothing is encrypted at rest here.
extension DeliveryStreamSettings {
    static let throughputHintRange = 1...100
    static let keyTypes = [StreamEncryption.awsOwnedKey, StreamEncryption.customerManagedKey]
    /// The model's `AWSKMSKeyARN` pattern; Java's `.` and `\d`: no line terminator, ASCII digits.
    static let kmsKeyARNPattern = #"arn:.*:kms:[a-zA-Z0-9\-]+:\d{12}:(key|alias)/[a-zA-Z_0-9+=,.@\-_/]+"#
    nonisolated(unsafe) private static let kmsKeyARN = try! Regex(kmsKeyARNPattern).asciiOnlyDigits()

    static func checkSourceAndEncryption(_ definition: CreateDeliveryStreamInput) throws(StreamConfigurationError) {
        let fromKinesis = definition.deliveryStreamType == "KinesisStreamAsSource"
        if let direct = definition.directPutSourceConfiguration {
            let field = "DirectPutSourceConfiguration.ThroughputHintInMBs"
            let path = "directPutSourceConfiguration.throughputHintInMBs"
            guard let hint = direct.throughputHintInMBs else {
                throw StreamConfigurationError(field: field, error: .validation([.missing(path)]))
            }
            if let violation = ValidationViolation.outOfRange(hint, path: path, range: throughputHintRange) {
                throw StreamConfigurationError(field: field, error: .validation([violation]))
            }
            if fromKinesis {
                throw StreamConfigurationError(
                    field: "DirectPutSourceConfiguration",
                    error: .invalidArgument(
                        "DirectPutSourceConfiguration is for DirectPut streams; a KinesisStreamAsSource stream reads its data stream."
                    ))
            }
        }
        if let input = definition.deliveryStreamEncryptionConfigurationInput {
            do throws(FirehoseError) {
                _ = try encryption(input, path: "deliveryStreamEncryptionConfigurationInput")
                if fromKinesis { throw encryptionOfKinesisSource }
            } catch {
                throw StreamConfigurationError(field: "DeliveryStreamEncryptionConfigurationInput", error: error)
            }
        }
    }

    /// AWS: "You can enable SSE for a Firehose stream only if it's a Firehose stream that uses
    /// DirectPut as its source" (API_StartDeliveryStreamEncryption.html); its error text is not
    /// documented.
    static let encryptionOfKinesisSource = FirehoseError.invalidArgument(
        "Server-side encryption can be enabled only for a stream whose source is DirectPut; with KinesisStreamAsSource the data stream's own encryption applies."
    )

    /// The encryption `input` asks for, or AWS's error for it: the model's constraints, then a key
    /// ARN with `CUSTOMER_MANAGED_CMK` only (*chosen* for an ARN with `AWS_OWNED_CMK`, which AWS
    /// does not document: refused rather than ignored).
    static func encryption(_ input: DeliveryStreamEncryptionConfigurationInput, path: String) throws(FirehoseError)
        -> StreamEncryption
    {
        var violations = [ValidationViolation.enumValue(input.keyType, path: "\(path).keyType", allowed: keyTypes)]
            .compactMap { $0 }
        violations += ValidationViolation.string(
            input.keyARN, path: "\(path).keyARN", length: 1...512, pattern: kmsKeyARNPattern,
            matches: { (try? kmsKeyARN.wholeMatch(in: $0)) != nil && ModelPattern.isSingleLine($0) })
        if !violations.isEmpty { throw .validation(violations) }
        let keyType = input.keyType!
        switch (keyType, input.keyARN) {
        case (StreamEncryption.customerManagedKey, nil):
            throw .invalidArgument("KeyARN is required when KeyType is CUSTOMER_MANAGED_CMK.")
        case (StreamEncryption.awsOwnedKey, .some):
            throw .invalidArgument(
                "KeyARN is given only with KeyType CUSTOMER_MANAGED_CMK; with AWS_OWNED_CMK Firehose uses a key of its own."
            )
        default:
            return StreamEncryption(keyType: keyType, keyARN: input.keyARN, enabled: true)
        }
    }
}
