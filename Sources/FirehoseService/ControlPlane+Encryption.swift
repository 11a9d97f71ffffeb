import FirehoseSink
import FirehoseWire
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// StartDeliveryStreamEncryption and StopDeliveryStreamEncryption: validated, and their state kept
/// and described, as AWS does; nothing is encrypted at rest (docs/compatibility.md, "Control plane").
extension ControlPlane {
    /// *Chosen*: the change takes effect at once (AWS passes through ENABLING or DISABLING for a
    /// while; waiters, Terraform's among them, accept either), and a Stop of a stream that is not
    /// encrypted answers 200, as does a Start of one that is (AWS: it changes the key).
    func changeEncryption(start: Bool, body: [UInt8], now: Date) async throws(FirehoseError) -> [UInt8] {
        let name: String?
        var requested: DeliveryStreamEncryptionConfigurationInput?
        if start {
            let input = try decode(StartDeliveryStreamEncryptionInput.self, body)
            name = input.deliveryStreamName
            requested = input.deliveryStreamEncryptionConfigurationInput
        } else {
            name = try decode(StopDeliveryStreamEncryptionInput.self, body).deliveryStreamName
        }
        let violations = ServiceLimits.streamNameViolations(name)
        if !violations.isEmpty { throw .validation(violations) }
        // Without a configuration, AWS's default key type.
        let encryption =
            start
            ? try DeliveryStreamSettings.encryption(
                requested ?? DeliveryStreamEncryptionConfigurationInput(keyType: StreamEncryption.awsOwnedKey),
                path: "deliveryStreamEncryptionConfigurationInput") : nil
        let (_, record) = try existing(name!)
        guard record.definition.deliveryStreamType != "KinesisStreamAsSource" else {
            throw DeliveryStreamSettings.encryptionOfKinesisSource
        }
        guard record.isActive(at: now) else {
            throw FirehoseError(
                code: "ResourceInUseException",
                message: "Firehose \(name!) under account \(configuration.accountID) is not ACTIVE (status CREATING).")
        }
        let stopped = record.encryptionInForce.map {
            StreamEncryption(keyType: $0.keyType, keyARN: $0.keyARN, enabled: false)
        }
        try await modify(name!) { record in
            record.encryption =
                encryption ?? stopped ?? StreamEncryption(keyType: StreamEncryption.awsOwnedKey, enabled: false)
            record.origin = .api
        }
        service.log(
            start
                ? "Server-side encryption enabled (nothing is encrypted at rest here)"
                : "Server-side encryption disabled",
            ["stream": .string(name!), "key_type": .string(encryption?.keyType ?? "")])
        return Array("{}".utf8)
    }

    /// `DeliveryStreamEncryptionConfiguration` as DescribeDeliveryStream shows it: `Status` DISABLED
    /// for a DirectPut stream never encrypted (recorded); with encryption on, its `KeyType`, the
    /// `KeyARN` of a customer-managed key, and ENABLED; nothing at all for a KinesisStreamAsSource
    /// stream (recorded). *Chosen*: after a Stop, `Status` DISABLED alone, as never encrypted.
    static func encryptionDescription(of record: StreamRecord) -> JSONValue? {
        guard record.definition.deliveryStreamType != "KinesisStreamAsSource" else { return nil }
        guard let encryption = record.encryptionInForce, encryption.enabled else {
            return .object(["Status": .string("DISABLED")])
        }
        var members: [String: JSONValue] = ["KeyType": .string(encryption.keyType), "Status": .string("ENABLED")]
        if let arn = encryption.keyARN { members["KeyARN"] = .string(arn) }
        return .object(members)
    }
}
