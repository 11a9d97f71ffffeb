import AWSSigV4
import FirehoseSink
import FirehoseWire
import Foundation
import ServerCore
import Synchronization
import Testing

@testable import FirehoseServer

/// Property-style fuzzing of the whole request path (auth, content checks, gzip, JSON, base64,
/// validation) with a seeded generator: every input must get a well-formed AWS error or a success —
/// never a crash or a hang. Bounded so it runs in every test run; the libFuzzer harnesses in `Fuzz/`
/// run the same decoders for as long as you like.
@Suite("Hostile input")
struct HostileInputTests {
    typealias Generator = SplitMix64

    static let allowedStatuses: Set<Int> = [200, 400, 404, 413, 503]

    func expectWellFormed(_ response: APIResponse, input: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            Self.allowedStatuses.contains(response.status), "status \(response.status) for \(input)",
            sourceLocation: sourceLocation)
        guard response.status != 200 else { return }
        let body = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(body?["__type"] is String, "no __type for \(input)", sourceLocation: sourceLocation)
        #expect(response.header("x-amzn-ErrorType") != nil, sourceLocation: sourceLocation)
    }

    func mutate(_ input: [UInt8], using generator: inout Generator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...8, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<7, using: &generator) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &generator)
            case 1:
                bytes.insert(
                    Array(#"{}[]":,\"0123456789-+.eE aA=/ntrufl"#.utf8).randomElement(using: &generator)!, at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            case 3: bytes = Array(bytes.prefix(position))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...32, using: &generator))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 5: bytes.insert(contentsOf: [0xC3, 0x28, 0xFF, 0xFE, 0x00], at: position)
            default: bytes.insert(contentsOf: Array("\\u0000\\ud800".utf8), at: position)
            }
        }
        return bytes
    }

    @Test("Mutated PutRecord/PutRecordBatch bodies are answered, never crash (auth off)")
    func mutatedBodies() async throws {
        let harness = try APIHarness(authentication: .off)
        var generator = Generator(seed: 20_261_121)
        let seeds = [
            harness.putRecordBody(data: Array("hello".utf8)),
            harness.batchBody(records: [Array("a".utf8), [0, 255], []]),
            Array(#"{"DeliveryStreamName":"events","Records":[{"Data":"aGVsbG8="},{"Data":""}]}"#.utf8),
        ]
        for iteration in 0..<3_000 {
            let seed = seeds[iteration % seeds.count]
            let body = mutate(seed, using: &generator)
            let operation = iteration % 2 == 0 ? "PutRecord" : "PutRecordBatch"
            let response = await harness.api.handle(harness.request(operation: operation, body: body, sign: false))
            expectWellFormed(response, input: "\(operation) \(String(decoding: body, as: UTF8.self))")
        }
    }

    @Test("Mutated gzip bodies are answered, never crash")
    func mutatedGzipBodies() async throws {
        let harness = try APIHarness(authentication: .off)
        var generator = Generator(seed: 7)
        let compressor = try GzipCompressor()
        compressor.append(harness.batchBody(records: (0..<50).map { Array("record \($0)".utf8) }))
        compressor.finish()
        let seed = compressor.takeOutput()
        for _ in 0..<500 {
            let body = mutate(seed, using: &generator)
            let response = await harness.api.handle(
                harness.request(
                    operation: "PutRecordBatch", body: body, extraHeaders: [("Content-Encoding", "gzip")], sign: false))
            expectWellFormed(response, input: "gzip \(body.count) bytes")
        }
    }

    @Test("Random and mangled Authorization headers are refused with an auth error")
    func mangledAuthorization() async throws {
        let harness = try APIHarness()
        var generator = Generator(seed: 99)
        let valid = harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]))
        let authorization = try #require(valid.header("Authorization"))
        let fragments = [
            "AWS4-HMAC-SHA256", "Credential=", "SignedHeaders=", "Signature=", ",", " ", "/", ";", "=", "aws4_request",
            "firehose", "us-east-1", "20261121", "host", "x-amz-date", "\u{0}", "é", String(repeating: "A", count: 300),
        ]
        for iteration in 0..<2_000 {
            var request = valid
            let value: String
            if iteration % 2 == 0 {
                value = String(decoding: mutate(Array(authorization.utf8), using: &generator), as: UTF8.self)
            } else {
                value = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                    fragments.randomElement(using: &generator)!
                }
                .joined()
            }
            request.headers = request.headers.map { $0.name == "Authorization" ? ($0.name, value) : $0 }
            if iteration % 7 == 0 { request.headers.append(("Authorization", value)) }
            if iteration % 5 == 0 {
                request.headers = request.headers.map {
                    $0.name == "X-Amz-Date"
                        ? ($0.name, String(decoding: mutate(Array($0.value.utf8), using: &generator), as: UTF8.self))
                        : $0
                }
            }
            let response = await harness.api.handle(request)
            expectWellFormed(response, input: value)
            // Whitespace between parameters is not significant (the header itself is not signed).
            let squeezed = { (text: String) in text.filter { $0 != " " } }
            #expect(
                response.status != 200 || squeezed(value) == squeezed(authorization),
                "accepted: \(value.debugDescription)")
        }
    }

    @Test("Deeply nested JSON is refused, not a stack overflow", arguments: [1_000, 100_000])
    func deepNesting(depth: Int) async throws {
        let harness = try APIHarness(authentication: .off)
        let body =
            Array(#"{"DeliveryStreamName":"events","Records":"#.utf8)
            + [UInt8](repeating: UInt8(ascii: "["), count: depth)
        let response = await harness.api.handle(harness.request(operation: "PutRecordBatch", body: body, sign: false))
        #expect(response.status == 400)
        #expect(response.header("x-amzn-ErrorType") == "SerializationException")
    }

    @Test(
        "Path tricks in stream names are validation errors and write nothing",
        arguments: [
            "../escape", "..", "a/b", "%2e%2e", "name\u{0}", "", String(repeating: "x", count: 65),
        ])
    func pathTricksInStreamNames(name: String) async throws {
        let harness = try APIHarness(authentication: .off)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("DeliveryStreamName")
        writer.string(name)
        writer.key("Record")
        writer.beginObject()
        writer.key("Data")
        writer.string("eA==")
        writer.endObject()
        writer.endObject()
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: writer.bytes, sign: false))
        let expected = name == ".." ? "ResourceNotFoundException" : "ValidationException"
        #expect(response.header("x-amzn-ErrorType") == expected)
        let written = FileManager.default.enumerator(atPath: harness.directory)?.allObjects as? [String] ?? []
        #expect(written.allSatisfy { $0.hasPrefix(".firehose-local") })
    }
}

@Suite("Request memory budget")
struct RequestMemoryBudgetTests {
    @Test func chargesUpToTheCapacityAndRefusesBeyond() {
        let budget = RequestMemoryBudget(capacity: 100)
        #expect(budget.tryReserve(60))
        #expect(!budget.tryReserve(41))
        #expect(budget.availableBytes == 40)
        #expect(budget.tryReserve(40))
        budget.release(60)
        #expect(budget.availableBytes == 60)
        #expect(!budget.tryReserve(101))
    }

    @Test func anAccountReturnsAllItChargedAtOnce() {
        let budget = RequestMemoryBudget(capacity: 100)
        let account = RequestMemoryBudget.Account(budget)
        #expect(account.tryReserve(30))
        #expect(account.tryReserve(50))
        #expect(!account.tryReserve(21))
        #expect(budget.availableBytes == 20)
        account.releaseAll()
        #expect(budget.availableBytes == 100)
        account.releaseAll()
        #expect(budget.availableBytes == 100)
    }

    @Test func aGzipBodyIsChargedAsItDecodesAndShedWhenTheBudgetIsSpent() async throws {
        let harness = try APIHarness()
        // 400 records of 3 KB: a 1.6 MB JSON body that gzip shrinks to a few KB.
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("DeliveryStreamName")
        writer.string("events")
        writer.key("Records")
        writer.beginArray()
        for _ in 0..<400 {
            writer.beginObject()
            writer.key("Data")
            writer.string(String(repeating: "QUFB", count: 1000))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        let json = writer.bytes
        let compressor = try GzipCompressor()
        compressor.append(json)
        compressor.finish()
        let compressed = compressor.takeOutput()
        #expect(compressed.count * 50 < json.count)

        let charged = Mutex(0)
        var request = harness.request(
            operation: "PutRecordBatch", body: compressed, extraHeaders: [("Content-Encoding", "gzip")])
        request.reserveMemory = { bytes in
            charged.withLock { $0 += bytes }
            return true
        }
        #expect(await harness.api.handle(request).status == 200)
        #expect(charged.withLock { $0 } >= 2 * json.count)

        let budget = RequestMemoryBudget(capacity: json.count)  // less than twice the decoded body
        let account = RequestMemoryBudget.Account(budget)
        request.reserveMemory = { account.tryReserve($0) }
        let shed = await harness.api.handle(request)
        #expect(shed.status == 503)
        #expect(shed.header("x-amzn-ErrorType") == "ServiceUnavailableException")
        account.releaseAll()
        #expect(budget.availableBytes == json.count)
    }
}
