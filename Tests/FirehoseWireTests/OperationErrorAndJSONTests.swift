import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

@Suite("X-Amz-Target and Content-Type")
struct FirehoseOperationTests {
    @Test("Every operation parses from its X-Amz-Target")
    func allTargets() throws {
        #expect(FirehoseOperation.allCases.count == 12)
        for operation in FirehoseOperation.allCases {
            #expect(try FirehoseOperation(target: "Firehose_20150804.\(operation.rawValue)") == operation)
        }
        #expect(try FirehoseOperation(target: "Firehose_20150804.PutRecord") == .putRecord)
        #expect(try FirehoseOperation(target: "Firehose_20150804.PutRecordBatch") == .putRecordBatch)
        #expect(try FirehoseOperation(target: "Firehose_20150804.CreateDeliveryStream") == .createDeliveryStream)
    }

    @Test(
        "Unknown targets are UnknownOperationException with HTTP 404",
        arguments: [
            "Firehose_20150804.PutRecords", "Firehose_20150804.putRecord", "firehose_20150804.PutRecord",
            "Kinesis_20131202.PutRecord", "PutRecord", "Firehose_20150804.", "", "Firehose_20150804.PutRecord ",
        ])
    func unknownTarget(target: String) {
        let error = caught { try FirehoseOperation(target: target) }
        #expect(
            error
                == FirehoseError(
                    code: "UnknownOperationException", message: "Unknown operation \(target).", httpStatus: 404))
    }

    @Test("A missing X-Amz-Target is UnknownOperationException with HTTP 404")
    func missingTarget() {
        let error = caught { try FirehoseOperation(target: nil) }
        #expect(error?.code == "UnknownOperationException")
        #expect(error?.httpStatus == 404)
        #expect(error?.message == "Missing X-Amz-Target header: expected Firehose_20150804.<Operation>.")
    }

    @Test(
        "Accepted content types: AWS JSON 1.1, any case, with parameters",
        arguments: [
            "application/x-amz-json-1.1", "application/x-amz-json-1.1; charset=utf-8",
            "application/x-amz-json-1.1;charset=UTF-8",
            "Application/X-Amz-Json-1.1", "APPLICATION/X-AMZ-JSON-1.1; CHARSET=UTF-8", " application/x-amz-json-1.1 ",
        ])
    func acceptedContentType(value: String) {
        #expect(FirehoseOperation.isAcceptedContentType(value))
    }

    @Test(
        "Other content types are refused",
        arguments: [
            nil, "", "application/json", "application/x-amz-json-1.0", "application/x-amz-json-1.1x", "text/plain",
            "application/x-amz-json", "application/x-www-form-urlencoded", "application/x-amz-json-1.1/x",
        ] as [String?])
    func refusedContentType(value: String?) {
        #expect(!FirehoseOperation.isAcceptedContentType(value))
    }

    @Test("Malformed media types are refused: empty before ';', or whitespace inside the token")
    func malformedMediaType() {
        // The media type of "; application/x-amz-json-1.1" is empty; the rest is a (malformed) parameter.
        #expect(!FirehoseOperation.isAcceptedContentType("; application/x-amz-json-1.1"))
        #expect(!FirehoseOperation.isAcceptedContentType(";application/x-amz-json-1.1"))
        // RFC 9110 tokens cannot contain whitespace.
        #expect(!FirehoseOperation.isAcceptedContentType("application/ x-amz-json-1.1"))
        #expect(!FirehoseOperation.isAcceptedContentType("application/x-amz-json-1. 1"))
    }
}

@Suite("Error bodies")
struct FirehoseErrorTests {
    @Test("jsonBody is {\"__type\", \"message\"} in that order and parses as JSON")
    func simpleBody() throws {
        let error = FirehoseError.resourceNotFound(stream: "demo", accountID: "123456789012")
        #expect(
            String(decoding: error.jsonBody, as: UTF8.self)
                == #"{"__type":"ResourceNotFoundException","message":"Firehose demo under account 123456789012 not found."}"#
        )
        let object = try parseJSONObject(error.jsonBody)
        #expect(object.count == 2)
        #expect(object["__type"] as? String == "ResourceNotFoundException")
        #expect(object["message"] as? String == "Firehose demo under account 123456789012 not found.")
        #expect(error.httpStatus == 400)
    }

    @Test("Quotes, backslashes, newlines, tabs and every control character are escaped")
    func escaping() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let message = "say \"hi\" \\ path C:\\x\nline2\r\n\ttab \(controls) \u{7F} é 😀 </script>"
        let error = FirehoseError(code: "Weird\"Code\n", message: message)
        let body = error.jsonBody
        // No raw control characters may appear in JSON text.
        #expect(!body.contains { $0 < 0x20 })
        let object = try parseJSONObject(body)
        #expect(object["__type"] as? String == "Weird\"Code\n")
        #expect(object["message"] as? String == message)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#"say \"hi\" \\ path C:\\x\nline2\r\n\ttab "#))
        #expect(text.contains(#"\u0000\u0001"#))
        #expect(text.contains(#"\u001f"#))
    }

    @Test("Status codes: 400 by default, 404 unknown operation, 503 throttling, 500 internal, 413 too large")
    func statuses() {
        #expect(FirehoseError.validation([.missing("x")]).httpStatus == 400)
        #expect(FirehoseError.invalidArgument("x").httpStatus == 400)
        #expect(FirehoseError.serialization("x").httpStatus == 400)
        #expect(FirehoseError.unknownOperation("x").httpStatus == 404)
        #expect(
            FirehoseError.serviceUnavailable("Slow down.")
                == FirehoseError(code: "ServiceUnavailableException", message: "Slow down.", httpStatus: 503))
        #expect(FirehoseError.internalFailure("x").code == "InternalFailure")
        #expect(FirehoseError.internalFailure("x").httpStatus == 500)
        #expect(FirehoseError.requestTooLarge(limit: 10).httpStatus == 413)
        #expect(FirehoseError.requestTooLarge(limit: 10).code == "SerializationException")
    }

    @Test("ValidationViolation renders value, path and constraint the AWS way")
    func violations() {
        #expect(
            ValidationViolation(value: "a'b", path: "records.1.member.data", constraint: "Member must x").description
                == "Value 'a'b' at 'records.1.member.data' failed to satisfy constraint: Member must x")
        #expect(
            ValidationViolation.missing("deliveryStreamName").description
                == "Value null at 'deliveryStreamName' failed to satisfy constraint: Member must not be null")
        let two = FirehoseError.validation([.missing("a"), .missing("b")])
        #expect(
            two.message
                == "2 validation errors detected: Value null at 'a' failed to satisfy constraint: Member must not be null; Value null at 'b' failed to satisfy constraint: Member must not be null"
        )
        #expect(two.description == "ValidationException: \(two.message)")
    }
}

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test("Nested objects and arrays get commas exactly between members")
    func nesting() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.integer(-12)
        writer.key("b")
        writer.beginArray()
        writer.bool(true)
        writer.bool(false)
        writer.null()
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.string("s")
        writer.endArray()
        writer.key("c")
        writer.beginObject()
        writer.key("d")
        writer.string("x\"y")
        writer.key("e")
        writer.integer(Int.max)
        writer.endObject()
        writer.endObject()
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == #"{"a":-12,"b":[true,false,null,{},[],"s"],"c":{"d":"x\"y","e":9223372036854775807}}"#)
        let object = try parseJSONObject(writer.bytes)
        #expect(object["a"] as? Int == -12)
        let array = try #require(object["b"] as? [Any])
        #expect(array.count == 6)
        #expect(array[0] as? Bool == true)
        #expect(array[2] is NSNull)
        #expect((object["c"] as? [String: Any])?["d"] as? String == "x\"y")
    }

    @Test("Random strings survive a write and a JSONSerialization parse")
    func randomStrings() throws {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            let scalars = (0..<Int.random(in: 0...40, using: &generator)).map { _ -> Character in
                let pick = Int.random(in: 0..<4, using: &generator)
                let value: UInt32 =
                    switch pick {
                    case 0: UInt32.random(in: 0..<0x20, using: &generator)
                    case 1: UInt32.random(in: 0x20..<0x80, using: &generator)
                    case 2: UInt32.random(in: 0x80..<0xD800, using: &generator)
                    default: UInt32.random(in: 0x1_0000..<0x1_0FFF, using: &generator)
                    }
                return Character(Unicode.Scalar(value)!)
            }
            let value = String(scalars)
            var writer = JSONWriter()
            writer.beginObject()
            writer.key(value)
            writer.string(value)
            writer.endObject()
            let object = try parseJSONObject(writer.bytes)
            #expect(object[value] as? String == value, "\(value.debugDescription)")
        }
    }
}

@Suite("PutRecord responses")
struct PutRecordsResponseTests {
    @Test("PutRecord: {\"RecordId\", \"Encrypted\": false}")
    func putRecord() throws {
        let body = PutRecordsResponse.putRecord(recordID: "abc/123+=")
        #expect(String(decoding: body, as: UTF8.self) == #"{"RecordId":"abc/123+=","Encrypted":false}"#)
        let object = try parseJSONObject(body)
        #expect(object["RecordId"] as? String == "abc/123+=")
        #expect(object["Encrypted"] as? Bool == false)
        #expect(object["__type"] == nil)
    }

    @Test("PutRecordBatch: FailedPutCount 0, Encrypted false, one RequestResponses entry per record in order")
    func putRecordBatch() throws {
        let ids = (0..<500).map { "id-\($0)" }
        let body = PutRecordsResponse.putRecordBatch(recordIDs: ids)
        let object = try parseJSONObject(body)
        #expect(Set(object.keys) == ["FailedPutCount", "Encrypted", "RequestResponses"])
        #expect(object["FailedPutCount"] as? Int == 0)
        #expect(object["Encrypted"] as? Bool == false)
        let responses = try #require(object["RequestResponses"] as? [[String: Any]])
        #expect(responses.count == 500)
        #expect(responses.map { $0["RecordId"] as? String } == ids)
        #expect(responses.allSatisfy { $0.count == 1 })

        let small = String(decoding: PutRecordsResponse.putRecordBatch(recordIDs: ["a", "b"]), as: UTF8.self)
        #expect(
            small == #"{"FailedPutCount":0,"Encrypted":false,"RequestResponses":[{"RecordId":"a"},{"RecordId":"b"}]}"#)
        let empty = String(decoding: PutRecordsResponse.putRecordBatch(recordIDs: [String]()), as: UTF8.self)
        #expect(empty == #"{"FailedPutCount":0,"Encrypted":false,"RequestResponses":[]}"#)
    }
}
