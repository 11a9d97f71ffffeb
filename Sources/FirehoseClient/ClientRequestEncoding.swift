import FirehoseWire

/// Request bodies as a client sends them: compact AWS JSON 1.1 with base64 `Data`, written straight
/// into one byte buffer (a full 4 MiB batch becomes ~5.6 MB of JSON without intermediate strings).
package enum ClientRequestEncoding {
    /// `{"DeliveryStreamName":"...","Record":{"Data":"<base64>"}}`
    package static func putRecord(deliveryStreamName: String, record: some Collection<UInt8>) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(64 + deliveryStreamName.utf8.count + Base64.encodedLength(record.count))
        body.append(contentsOf: #"{"DeliveryStreamName":"#.utf8)
        appendJSONString(deliveryStreamName, to: &body)
        body.append(contentsOf: #","Record":{"Data":""#.utf8)
        Base64.append(record, to: &body)
        body.append(contentsOf: #""}}"#.utf8)
        return body
    }

    /// `{"DeliveryStreamName":"...","Records":[{"Data":"..."},...]}`, records in the given order.
    package static func putRecordBatch<Records: Collection>(deliveryStreamName: String, records: Records) -> [UInt8]
    where Records.Element: Collection<UInt8> {
        var capacity = 64 + deliveryStreamName.utf8.count
        for record in records { capacity += 12 + Base64.encodedLength(record.count) }
        var body: [UInt8] = []
        body.reserveCapacity(capacity)
        body.append(contentsOf: #"{"DeliveryStreamName":"#.utf8)
        appendJSONString(deliveryStreamName, to: &body)
        body.append(contentsOf: #","Records":["#.utf8)
        var first = true
        for record in records {
            if !first { body.append(UInt8(ascii: ",")) }
            first = false
            body.append(contentsOf: #"{"Data":""#.utf8)
            Base64.append(record, to: &body)
            body.append(contentsOf: #""}"#.utf8)
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }

    /// The `X-Amz-Target` value of an operation.
    package static func target(_ operation: FirehoseOperation) -> String {
        FirehoseOperation.targetPrefix + operation.rawValue
    }

    private static func appendJSONString(_ value: String, to body: inout [UInt8]) {
        var writer = JSONWriter(reservingCapacity: value.utf8.count + 2)
        writer.string(value)
        body.append(contentsOf: writer.bytes)
    }
}
