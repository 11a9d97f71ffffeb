import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

@Suite("PutRecord / PutRecordBatch decoding")
struct PutRecordsDecodingTests {
    // MARK: Accepted bodies

    @Test("boto3-style PutRecord (JSON with spaces) decodes")
    func boto3StylePutRecord() throws {
        let body = utf8(#"{"DeliveryStreamName": "s1", "Record": {"Data": "aGVsbG8K"}}"#)
        let request = try PutRecordsRequest.decodePutRecord(body)
        #expect(request.deliveryStreamName == "s1")
        #expect(request.records.records == [Array("hello\n".utf8)])
        #expect(request.records.totalBytes == 6)
    }

    @Test("Compact and pretty-printed PutRecord bodies decode alike")
    func compactAndPretty() throws {
        let compact = try PutRecordsRequest.decodePutRecord(
            utf8(#"{"DeliveryStreamName":"s1","Record":{"Data":"aGVsbG8K"}}"#))
        let pretty = try PutRecordsRequest.decodePutRecord(
            utf8("{\n\t\"Record\" : {\r\n \"Data\" : \"aGVsbG8K\" } ,\n  \"DeliveryStreamName\" :\"s1\"\n}\n"))
        #expect(compact == pretty)
        #expect(compact.records.records == [Array("hello\n".utf8)])
    }

    @Test("boto3-style and compact PutRecordBatch decode to the same records, in order")
    func batchStyles() throws {
        let spaced = utf8(
            #"{"DeliveryStreamName": "stream_1.a-b", "Records": [{"Data": "b25l"}, {"Data": "dHdv"}, {"Data": "dGhyZWU="}]}"#
        )
        let compact = utf8(
            #"{"DeliveryStreamName":"stream_1.a-b","Records":[{"Data":"b25l"},{"Data":"dHdv"},{"Data":"dGhyZWU="}]}"#)
        let a = try PutRecordsRequest.decodePutRecordBatch(spaced)
        let b = try PutRecordsRequest.decodePutRecordBatch(compact)
        #expect(a == b)
        #expect(a.deliveryStreamName == "stream_1.a-b")
        #expect(a.records.records == [Array("one".utf8), Array("two".utf8), Array("three".utf8)])
        #expect(a.records.count == 3)
        #expect(a.records.totalBytes == 11)
        #expect(a.records.range(of: 0) == 0..<3)
        #expect(a.records.range(of: 2) == 6..<11)
    }

    @Test("All 256 byte values round-trip through base64, in PutRecord and PutRecordBatch")
    func binarySafe() throws {
        let all = (0...255).map { UInt8($0) }
        let single = try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: "bin", data: Base64.encode(all)))
        #expect(single.records.records == [all])

        // Every length remainder (0, 1, 2 mod 3) and every byte in every position of a base64 quantum.
        let records = [all, Array(all.reversed()), Array(all.dropFirst()), Array(all.dropFirst(2)), [0], [255, 0]]
        let batch = try PutRecordsRequest.decodePutRecordBatch(boto3PutRecordBatch(stream: "bin", records: records))
        #expect(batch.records.records == records)
        #expect(batch.records.totalBytes == records.map(\.count).reduce(0, +))
    }

    @Test("An empty record (\"Data\": \"\") is allowed")
    func emptyRecord() throws {
        let single = try PutRecordsRequest.decodePutRecord(
            utf8(#"{"DeliveryStreamName": "s1", "Record": {"Data": ""}}"#))
        #expect(single.records.count == 1)
        #expect(single.records.records == [[]])
        #expect(single.records.totalBytes == 0)

        let batch = try PutRecordsRequest.decodePutRecordBatch(
            utf8(#"{"DeliveryStreamName": "s1", "Records": [{"Data": ""}, {"Data": "YQ=="}, {"Data": ""}]}"#))
        #expect(batch.records.records == [[], [UInt8(ascii: "a")], []])
    }

    @Test("JSON escapes such as \\/ are honoured inside strings")
    func escapedSlash() throws {
        // [0xFF, 0xFF, 0xFF] is "////" in base64; some JSON encoders write "/" as "\/".
        let body = utf8(#"{"DeliveryStreamName": "s\u0031", "Record": {"Data": "\/\/\/\/"}}"#)
        let request = try PutRecordsRequest.decodePutRecord(body)
        #expect(request.deliveryStreamName == "s1")
        #expect(request.records.records == [[0xFF, 0xFF, 0xFF]])

        let batch = try PutRecordsRequest.decodePutRecordBatch(
            utf8(#"{"DeliveryStreamName": "s1", "Records": [{"Data": "+\/8="}]}"#))
        #expect(batch.records.records == [[0xFB, 0xFF]])
    }

    @Test("Unpadded base64 is accepted")
    func unpadded() throws {
        let request = try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: "s1", data: "aGk"))
        #expect(request.records.records == [Array("hi".utf8)])
    }

    // MARK: Validation messages

    @Test("Missing DeliveryStreamName: AWS's exact ValidationException")
    func missingStreamName() {
        let expected = FirehoseError(
            code: "ValidationException",
            message:
                "1 validation error detected: Value null at 'deliveryStreamName' failed to satisfy constraint: Member must not be null"
        )
        #expect(caught { try PutRecordsRequest.decodePutRecord(utf8(#"{"Record": {"Data": "aGk="}}"#)) } == expected)
        #expect(
            caught { try PutRecordsRequest.decodePutRecordBatch(utf8(#"{"Records": [{"Data": "aGk="}]}"#)) } == expected
        )
        #expect(
            caught {
                try PutRecordsRequest.decodePutRecord(
                    utf8(#"{"DeliveryStreamName": null, "Record": {"Data": "aGk="}}"#))
            } == expected)
        #expect(expected.httpStatus == 400)
    }

    @Test("Missing Record / Records / Data are null-constraint violations")
    func missingMembers() {
        #expect(
            caught { try PutRecordsRequest.decodePutRecord(utf8(#"{"DeliveryStreamName": "s1"}"#)) }?.message
                == "1 validation error detected: Value null at 'record' failed to satisfy constraint: Member must not be null"
        )
        #expect(
            caught { try PutRecordsRequest.decodePutRecord(utf8(#"{"DeliveryStreamName": "s1", "Record": {}}"#)) }?
                .message
                == "1 validation error detected: Value null at 'record.data' failed to satisfy constraint: Member must not be null"
        )
        #expect(
            caught { try PutRecordsRequest.decodePutRecordBatch(utf8(#"{"DeliveryStreamName": "s1"}"#)) }?.message
                == "1 validation error detected: Value null at 'records' failed to satisfy constraint: Member must not be null"
        )
        #expect(
            caught {
                try PutRecordsRequest.decodePutRecordBatch(
                    utf8(#"{"DeliveryStreamName": "s1", "Records": [{"Data": "YQ=="}, null, {}]}"#))
            }?.message
                == "2 validation errors detected: Value null at 'records.2.member' failed to satisfy constraint: Member must not be null; Value null at 'records.3.member.data' failed to satisfy constraint: Member must not be null"
        )
    }

    @Test("A stream name outside [a-zA-Z0-9_.-]+ is refused")
    func badNamePattern() {
        let error = caught { try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: "my stream!", data: "aGk=")) }
        #expect(
            error
                == FirehoseError(
                    code: "ValidationException",
                    message:
                        "1 validation error detected: Value 'my stream!' at 'deliveryStreamName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
                ))
        let slash = caught {
            try PutRecordsRequest.decodePutRecordBatch(boto3PutRecordBatch(stream: "a/b", records: [[1]]))
        }
        #expect(slash?.code == "ValidationException")
        #expect(slash?.message.hasSuffix("Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+") == true)
    }

    @Test("Stream names of 64 characters pass, 65 do not, and the empty name is refused")
    func nameLength() throws {
        let sixtyFour = String(repeating: "a", count: 64)
        #expect(
            try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: sixtyFour, data: "")).deliveryStreamName
                == sixtyFour)

        let sixtyFive = String(repeating: "b", count: 65)
        #expect(
            caught { try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: sixtyFive, data: "")) }
                == FirehoseError(
                    code: "ValidationException",
                    message:
                        "1 validation error detected: Value '\(sixtyFive)' at 'deliveryStreamName' failed to satisfy constraint: Member must have length less than or equal to 64"
                ))

        let empty = caught { try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: "", data: "")) }
        #expect(empty?.code == "ValidationException")
        #expect(
            empty?.message.contains(
                "Value '' at 'deliveryStreamName' failed to satisfy constraint: Member must have length greater than or equal to 1"
            )
                == true)
    }

    @Test("A record of 1,024,001 bytes is refused with AWS's HeapByteBuffer message; 1,024,000 is accepted")
    func recordSizeLimit() throws {
        var generator = SeededGenerator(seed: 7)
        let limit = generator.bytes(1_024_000)
        let accepted = try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: "s1", data: Base64.encode(limit)))
        #expect(accepted.records.totalBytes == 1_024_000)
        #expect(accepted.records.records == [limit])

        let tooLarge = limit + [42]
        #expect(
            caught {
                try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: "s1", data: Base64.encode(tooLarge)))
            }
                == FirehoseError(
                    code: "ValidationException",
                    message:
                        "1 validation error detected: Value 'java.nio.HeapByteBuffer[pos=0 lim=1024001 cap=1024001]' at 'record.data' failed to satisfy constraint: Member must have length less than or equal to 1024000"
                ))
        #expect(ServiceLimits.maxRecordBytes == 1_024_000)
    }

    @Test("Batch entries are reported 1-based: the 97th record is records.97")
    func batchIndexIsOneBased() {
        var records = [[UInt8]](repeating: Array("x".utf8), count: 100)
        records[96] = [UInt8](repeating: 0x41, count: 1_024_001)
        let error = caught {
            try PutRecordsRequest.decodePutRecordBatch(boto3PutRecordBatch(stream: "s1", records: records))
        }
        #expect(
            error
                == FirehoseError(
                    code: "ValidationException",
                    message:
                        "1 validation error detected: Value 'java.nio.HeapByteBuffer[pos=0 lim=1024001 cap=1024001]' at 'records.97.member.data' failed to satisfy constraint: Member must have length less than or equal to 1024000"
                ))
    }

    @Test("Several violations: 'N validation errors detected: ...; ...' in member order")
    func severalViolations() {
        var records = [[UInt8]](repeating: [1, 2, 3], count: 5)
        records[1] = [UInt8](repeating: 0, count: 1_024_001)
        records[4] = [UInt8](repeating: 0, count: 1_024_002)
        let error = caught {
            try PutRecordsRequest.decodePutRecordBatch(boto3PutRecordBatch(stream: "bad name", records: records))
        }
        #expect(error?.code == "ValidationException")
        #expect(
            error?.message
                == "3 validation errors detected: "
                + "Value 'bad name' at 'deliveryStreamName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
                + "Value 'java.nio.HeapByteBuffer[pos=0 lim=1024001 cap=1024001]' at 'records.2.member.data' failed to satisfy constraint: Member must have length less than or equal to 1024000; "
                + "Value 'java.nio.HeapByteBuffer[pos=0 lim=1024002 cap=1024002]' at 'records.5.member.data' failed to satisfy constraint: Member must have length less than or equal to 1024000"
        )

        let nameTooLongAndBad = String(repeating: "!", count: 65)
        let two = caught { try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: nameTooLongAndBad, data: "")) }
        #expect(
            two?.message.hasPrefix("2 validation errors detected: Value '\(nameTooLongAndBad)' at 'deliveryStreamName'")
                == true)
        #expect(two?.message.components(separatedBy: "; ").count == 2)
    }

    @Test("A batch of 0 records is refused")
    func zeroRecords() {
        let error = caught {
            try PutRecordsRequest.decodePutRecordBatch(utf8(#"{"DeliveryStreamName": "s1", "Records": []}"#))
        }
        #expect(
            error
                == FirehoseError(
                    code: "ValidationException",
                    message:
                        "1 validation error detected: Value '[]' at 'records' failed to satisfy constraint: Member must have length greater than or equal to 1"
                ))
    }

    @Test("500 records decode; 501 are refused")
    func recordCountLimit() throws {
        let fiveHundred = (0..<500).map { Array("record-\($0)".utf8) }
        let request = try PutRecordsRequest.decodePutRecordBatch(
            boto3PutRecordBatch(stream: "s1", records: fiveHundred))
        #expect(request.records.count == 500)
        #expect(request.records.records == fiveHundred)

        let error = caught {
            try PutRecordsRequest.decodePutRecordBatch(boto3PutRecordBatch(stream: "s1", records: fiveHundred + [[0]]))
        }
        #expect(error?.code == "ValidationException")
        #expect(
            error?.message
                == "1 validation error detected: Value '[501 records]' at 'records' failed to satisfy constraint: Member must have length less than or equal to 500"
        )
    }

    @Test("A 4 MiB batch decodes; its totalBytes is the sum of decoded sizes")
    func fourMebibytes() throws {
        var generator = SeededGenerator(seed: 4)
        let big = generator.bytes(1_024_000)
        let records = [big, big, big, big, generator.bytes(4 * 1024 * 1024 - 4 * 1_024_000)]
        let request = try PutRecordsRequest.decodePutRecordBatch(boto3PutRecordBatch(stream: "s1", records: records))
        #expect(request.records.totalBytes == ServiceLimits.maxBatchBytes)
        #expect(request.records.totalBytes == 4_194_304)
        #expect(request.records.records == records)
    }

    // MARK: Serialization errors

    @Test(
        "Malformed JSON is a SerializationException",
        arguments: [
            "", "{", "not json", #"{"DeliveryStreamName": "s1", "Record": {"Data": "aGk="}"#,
            #"{"DeliveryStreamName": "s1",, "Record": {"Data": "aGk="}}"#, "[]", "null", "\"text\"",
        ])
    func malformedJSON(body: String) {
        let single = caught { try PutRecordsRequest.decodePutRecord(utf8(body)) }
        let batch = caught { try PutRecordsRequest.decodePutRecordBatch(utf8(body)) }
        for error in [single, batch] {
            #expect(error?.code == "SerializationException", "\(body)")
            #expect(error?.httpStatus == 400)
        }
    }

    @Test("Wrong JSON types are SerializationExceptions that name the member")
    func wrongTypes() {
        let name = caught {
            try PutRecordsRequest.decodePutRecord(utf8(#"{"DeliveryStreamName": 5, "Record": {"Data": "aGk="}}"#))
        }
        #expect(name == .serialization("Unexpected JSON type at DeliveryStreamName: expected String."))

        let data = caught {
            try PutRecordsRequest.decodePutRecordBatch(
                utf8(#"{"DeliveryStreamName": "s1", "Records": [{"Data": "aGk="}, {"Data": true}]}"#))
        }
        #expect(data?.code == "SerializationException")
        #expect(data?.message.contains("Records[1].Data") == true, "\(String(describing: data))")

        let records = caught {
            try PutRecordsRequest.decodePutRecordBatch(
                utf8(#"{"DeliveryStreamName": "s1", "Records": {"Data": "aGk="}}"#))
        }
        #expect(records?.code == "SerializationException")
        let record = caught {
            try PutRecordsRequest.decodePutRecord(utf8(#"{"DeliveryStreamName": "s1", "Record": "aGk="}"#))
        }
        #expect(record?.code == "SerializationException")
    }

    @Test(
        "Bad base64 (bad characters, impossible length, non-canonical trailing bits) is a SerializationException",
        arguments: [
            "a", "aGk=a", "aGk==", "aGV$bG8K", "aGVs bG8K", "aGVsbG8K=", "a===", "====", "=aGk", "aG=k",
            "aGl=",  // 'l' leaves a set bit below the 2 decoded bytes
            "aR==",  // 'R' leaves set bits below the single decoded byte
            "aGVsbG8_", "aGVsbG8-",  // URL-safe alphabet is not base64
            "\\u00e9aGk",
        ])
    func badBase64(text: String) {
        let single = caught { try PutRecordsRequest.decodePutRecord(boto3PutRecord(stream: "s1", data: text)) }
        #expect(single == .serialization("Value at 'record.data' is not valid base64."), "\(text)")
        let batch = caught {
            try PutRecordsRequest.decodePutRecordBatch(
                utf8(#"{"DeliveryStreamName": "s1", "Records": [{"Data": "YQ=="}, {"Data": "\#(text)"}]}"#))
        }
        #expect(batch == .serialization("Value at 'records.2.member.data' is not valid base64."), "\(text)")
    }
}
