import FirehoseWire

/// The PutRecordBatch body, byte for byte what `ClientRequestEncoding.putRecordBatch` writes, built
/// into one buffer sized up front with the base64 written through a pointer (`Base64.encode(_:into:)`).
/// A 500-record batch is about 440 KB of base64, and encoding it a byte-append at a time was a fifth
/// of what a FirehoseRecorder submit cost the client. The stream name has been validated
/// (`[a-zA-Z0-9_.-]`), so it needs no JSON escaping; any other name goes through FirehoseWire.
enum BatchBody {
    static func encode<Records: Collection>(deliveryStreamName: String, records: Records) -> [UInt8]
    where Records.Element: Collection<UInt8> {
        guard deliveryStreamName.utf8.allSatisfy(ServiceLimits.isValidStreamNameCharacter) else {
            return ClientRequestEncoding.putRecordBatch(deliveryStreamName: deliveryStreamName, records: records)
        }
        let head =
            Array(#"{"DeliveryStreamName":""#.utf8) + Array(deliveryStreamName.utf8) + Array(#"","Records":["#.utf8)
        let open = Array(#"{"Data":""#.utf8)
        let close = Array(#""}"#.utf8)
        var capacity = head.count + 2
        for record in records { capacity += open.count + close.count + 1 + Base64.encodedLength(record.count) }
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var offset = 0
            func put(_ bytes: [UInt8]) {
                bytes.withUnsafeBufferPointer {
                    UnsafeMutableRawPointer(buffer.baseAddress! + offset).copyMemory(
                        from: $0.baseAddress!, byteCount: $0.count)
                }
                offset += bytes.count
            }
            put(head)
            var first = true
            for record in records {
                if !first {
                    buffer[offset] = UInt8(ascii: ",")
                    offset += 1
                }
                first = false
                put(open)
                offset += Base64.encode(record, into: buffer.baseAddress! + offset)
                put(close)
            }
            buffer[offset] = UInt8(ascii: "]")
            buffer[offset + 1] = UInt8(ascii: "}")
            initialized = offset + 2
        }
    }
}

/// PutRecordBatch answers as Firehose and firehose-local write them, read with a byte scanner:
/// `JSONDecoder` took an eighth of a recorder submit's client CPU on 500-entry answers. Anything
/// unusual — an escape or non-ASCII byte in a string, a null, a repeated key, a fractional count —
/// returns nil, and the caller decodes with `ClientResponseDecoding`, the reference; what this
/// accepts, it decodes exactly as that does (tests compare the two).
enum BatchResponse {
    static func decode(_ body: [UInt8], expectedCount: Int) -> PutRecordBatchOutput? {
        body.withUnsafeBufferPointer { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.output(expectedCount: expectedCount)
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func output(expectedCount: Int) -> PutRecordBatchOutput? {
            var failedPutCount: Int?
            var encrypted: Bool?
            var responses: [PutRecordBatchOutput.Entry]?
            var failed = 0
            let whole = object { scanner, key in
                switch key {
                case "FailedPutCount":
                    failedPutCount = scanner.integer()
                    return failedPutCount != nil
                case "Encrypted":
                    encrypted = scanner.boolean()
                    return encrypted != nil
                case "RequestResponses":
                    responses = scanner.entries(failed: &failed)
                    return responses != nil
                default:
                    return scanner.skipValue()
                }
            }
            guard whole else { return nil }
            skipSpace()
            guard index == bytes.count, let responses, responses.count == expectedCount else { return nil }
            return PutRecordBatchOutput(
                failedPutCount: max(failedPutCount ?? failed, failed), encrypted: encrypted, entries: responses)
        }

        private mutating func entries(failed: inout Int) -> [PutRecordBatchOutput.Entry]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var entries: [PutRecordBatchOutput.Entry] = []
            if take(UInt8(ascii: "]")) { return entries }
            repeat {
                var recordID: String?
                var errorCode: String?
                var errorMessage: String?
                let whole = object { scanner, key in
                    switch key {
                    case "RecordId":
                        recordID = scanner.plainString()
                        return recordID != nil
                    case "ErrorCode":
                        errorCode = scanner.plainString()
                        return errorCode != nil
                    case "ErrorMessage":
                        errorMessage = scanner.plainString()
                        return errorMessage != nil
                    default:
                        return scanner.skipValue()
                    }
                }
                guard whole else { return nil }
                if let errorCode, !errorCode.isEmpty {
                    failed += 1
                    entries.append(.failure(code: errorCode, message: errorMessage ?? ""))
                } else if let recordID {
                    entries.append(.success(recordID: recordID))
                } else {
                    failed += 1
                    entries.append(
                        .failure(code: "InternalFailure", message: "Response entry has neither RecordId nor ErrorCode.")
                    )
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
            return entries
        }

        /// An object: each member's key goes to `member`, which reads the value and says whether it
        /// could. False for anything else, a repeated key included.
        private mutating func object(_ member: (inout Scanner, String) -> Bool) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            var seen = Set<String>()
            repeat {
                guard let key = plainString(), seen.insert(key).inserted, take(UInt8(ascii: ":")),
                    member(&self, key)
                else { return false }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// Skips white space, then consumes `byte` if it is next.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string of printable ASCII without escapes; nil for anything else.
        private mutating func plainString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return value
                }
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        /// A JSON integer that fits an Int (no fraction, no exponent).
        private mutating func integer() -> Int? {
            skipSpace()
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            let start = index
            var value = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                value = sum
                index += 1
            }
            let digits = index - start
            guard digits > 0, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { return nil }
            if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                return nil
            }
            return negative ? -value : value
        }

        private mutating func boolean() -> Bool? {
            if literal("true") { return true }
            if literal("false") { return false }
            return nil
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            skipSpace()
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// Skips a value of a key this reader does not use. Only what is surely valid JSON is
        /// skipped: strings without escapes, integers, true and false; anything else returns false.
        private mutating func skipValue() -> Bool {
            skipSpace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""): return plainString() != nil
            case UInt8(ascii: "t"), UInt8(ascii: "f"): return boolean() != nil
            default: return integer() != nil
            }
        }
    }
}
