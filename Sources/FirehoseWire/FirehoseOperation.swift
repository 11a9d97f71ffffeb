/// The operations of the `Firehose_20150804` target prefix.
public enum FirehoseOperation: String, Sendable, CaseIterable {
    case putRecord = "PutRecord"
    case putRecordBatch = "PutRecordBatch"
    case createDeliveryStream = "CreateDeliveryStream"
    case describeDeliveryStream = "DescribeDeliveryStream"
    case listDeliveryStreams = "ListDeliveryStreams"
    case deleteDeliveryStream = "DeleteDeliveryStream"
    case updateDestination = "UpdateDestination"
    case tagDeliveryStream = "TagDeliveryStream"
    case untagDeliveryStream = "UntagDeliveryStream"
    case listTagsForDeliveryStream = "ListTagsForDeliveryStream"
    case startDeliveryStreamEncryption = "StartDeliveryStreamEncryption"
    case stopDeliveryStreamEncryption = "StopDeliveryStreamEncryption"

    package static let targetPrefix = "Firehose_20150804."
    package static let contentType = "application/x-amz-json-1.1"

    /// Parses an `X-Amz-Target` header value.
    package init(target: String?) throws(FirehoseError) {
        guard let target else {
            throw .unknownOperation("Missing X-Amz-Target header: expected Firehose_20150804.<Operation>.")
        }
        guard target.hasPrefix(Self.targetPrefix),
            let operation = FirehoseOperation(rawValue: String(target.dropFirst(Self.targetPrefix.count)))
        else {
            throw .unknownOperation("Unknown operation \(target).")
        }
        self = operation
    }

    /// AWS JSON 1.1 services accept their own media type; `application/json` is not routed by AWS either.
    package static func isAcceptedContentType(_ value: String?) -> Bool {
        guard let value else { return false }
        let mediaType = value.prefix { $0 != ";" }.trimmingLinearWhitespace()
        return mediaType.lowercased() == contentType
    }
}

extension StringProtocol {
    /// Drops spaces and tabs at both ends (HTTP's optional whitespace), nothing else.
    func trimmingLinearWhitespace() -> Substring {
        let isLinear: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let text = Substring(self)
        guard let start = text.firstIndex(where: { !isLinear($0) }) else { return "" }
        let end = text.lastIndex(where: { !isLinear($0) })!
        return text[start...end]
    }
}
