import FirehoseWire

/// Request bodies as a client sends them: compact AWS JSON 1.1 with base64 `Data`, written straight
/// into one byte buffer (a full 4 MiB batch becomes ~5.6 MB of JSON without intermediate strings).
package enum ClientRequestEncoding {
    /// `{"DeliveryStreamName":"...","Record":{"Data":"<base64>"}}`
    package static func putRecord(deliveryStreamName: String, record: some Collection<UInt8>) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(64 + deliveryStreamName.utf8.count + base64Length(record.count))
        body.append(contentsOf: #"{"DeliveryStreamName":"#.utf8)
        appendJSONString(deliveryStreamName, to: &body)
        body.append(contentsOf: #","Record":{"Data":""#.utf8)
        appendBase64(record, to: &body)
        body.append(contentsOf: #""}}"#.utf8)
        return body
    }

    /// `{"DeliveryStreamName":"...","Records":[{"Data":"..."},...]}`, records in the given order.
    package static func putRecordBatch<Records: Collection>(deliveryStreamName: String, records: Records) -> [UInt8]
    where Records.Element: Collection<UInt8> {
        var capacity = 64 + deliveryStreamName.utf8.count
        for record in records { capacity += 12 + base64Length(record.count) }
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
            appendBase64(record, to: &body)
            body.append(contentsOf: #""}"#.utf8)
        }
        body.append(contentsOf: "]}".utf8)
        return body
    }

    /// The `X-Amz-Target` value of an operation.
    package static func target(_ operation: FirehoseOperation) -> String {
        FirehoseOperation.targetPrefix + operation.rawValue
    }

    static func base64Length(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    private static func appendJSONString(_ value: String, to body: inout [UInt8]) {
        var writer = JSONWriter(reservingCapacity: value.utf8.count + 2)
        writer.string(value)
        body.append(contentsOf: writer.bytes)
    }

    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding, appended in place.
    static func appendBase64(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { appendBase64Contiguous($0, to: &out) }
        if done == nil { Array(bytes).withUnsafeBufferPointer { appendBase64Contiguous($0, to: &out) } }
    }

    private static func appendBase64Contiguous(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while index + 3 <= count {
                let a = bytes[index], b = bytes[index + 1], c = bytes[index + 2]
                out.append(table[Int(a >> 2)])
                out.append(table[Int((a & 0x03) << 4 | b >> 4)])
                out.append(table[Int((b & 0x0F) << 2 | c >> 6)])
                out.append(table[Int(c & 0x3F)])
                index += 3
            }
            switch count - index {
            case 1:
                let a = bytes[index]
                out.append(table[Int(a >> 2)])
                out.append(table[Int((a & 0x03) << 4)])
                out.append(UInt8(ascii: "="))
                out.append(UInt8(ascii: "="))
            case 2:
                let a = bytes[index], b = bytes[index + 1]
                out.append(table[Int(a >> 2)])
                out.append(table[Int((a & 0x03) << 4 | b >> 4)])
                out.append(table[Int((b & 0x0F) << 2)])
                out.append(UInt8(ascii: "="))
            default:
                break
            }
        }
    }
}
