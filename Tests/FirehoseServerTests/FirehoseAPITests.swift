import AWSSigV4
import FirehoseService
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Logging
import ServerCore
import ServiceTestSupport
import Testing

@testable import FirehoseServer

/// Drives the API core the way the HTTP layer does, with real SigV4 signing and a fixed clock.
final class APIHarness {
    let directory: String
    let clock = ManualClock(date: Date(timeIntervalSince1970: 1_795_266_309))  // 2026-11-21T13:05:09Z
    let sink: FirehoseSink
    let api: FirehoseAPI
    let credentials = AWSCredentials(accessKeyId: "AKIDLOCAL", secretAccessKey: "local-secret")

    init(
        authentication: FirehoseAPI.Authentication? = nil,
        maxBodyBytes: Int = FirehoseAPI.Configuration.defaultMaxBodyBytes, activationDelay: TimeInterval = 0,
        directory existing: String? = nil, configure: (inout FirehoseAPI.Configuration) -> Void = { _ in }
    ) throws {
        directory =
            existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("api-\(UUID().uuidString)").path
        let logger = Logger(label: "test")
        sink = try FirehoseSink(
            configuration: .init(dataDirectory: directory), clock: clock, now: clock.wallClock, logger: logger)
        try sink.createStream(
            DeliveryStreamSettings(
                validating: CreateDeliveryStreamInput(
                    deliveryStreamName: "events",
                    extendedS3DestinationConfiguration: ExtendedS3DestinationConfiguration(
                        bucketARN: "arn:aws:s3:::bucket", compressionFormat: "GZIP")), dataDirectory: directory))
        var configuration = FirehoseAPI.Configuration(
            region: "us-east-1", accountID: "123456789012",
            authentication: authentication ?? .verify([credentials]), maxBodyBytes: maxBodyBytes,
            streamActivationDelay: activationDelay)
        configure(&configuration)
        api = try FirehoseAPI(configuration: configuration, sink: sink, logger: logger)
    }

    /// Keep the directory when a test restarts over it.
    var keepDirectory = false

    deinit { if !keepDirectory { try? FileManager.default.removeItem(atPath: directory) } }

    func request(
        operation: String?, body: [UInt8], contentType: String? = "application/x-amz-json-1.1",
        extraHeaders: [(name: String, value: String)] = [], sign: Bool = true, signingRegion: String = "us-east-1",
        signedBody: [UInt8]? = nil, signingDate: Date? = nil, service: String = "firehose",
        targetPrefix: String = "Firehose_20150804.", signingCredentials: AWSCredentials? = nil
    ) -> APIRequest {
        SignedRequests.post(
            target: operation.map { targetPrefix + $0 }, body: body,
            credentials: sign ? signingCredentials ?? credentials : nil, region: signingRegion, service: service,
            date: signingDate ?? clock.date, contentType: contentType, extraHeaders: extraHeaders,
            signedBody: signedBody)
    }

    func putRecordBody(stream: String = "events", data: [UInt8]) -> [UInt8] {
        Array(#"{"DeliveryStreamName": "\#(stream)", "Record": {"Data": "\#(Base64.encode(data))"}}"#.utf8)
    }

    func batchBody(stream: String = "events", records: [[UInt8]]) -> [UInt8] {
        let entries = records.map { #"{"Data": "\#(Base64.encode($0))"}"# }.joined(separator: ", ")
        return Array(#"{"DeliveryStreamName": "\#(stream)", "Records": [\#(entries)]}"#.utf8)
    }
}

@Suite struct FirehoseAPITests {
    @Test func putRecordIsAcknowledgedAndDelivered() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: Array("hello\n".utf8))))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/x-amz-json-1.1")
        let body = try json(response)
        #expect(body["Encrypted"] as? Bool == false)
        #expect((body["RecordId"] as? String)?.isEmpty == false)
        #expect(body["__type"] == nil)

        let flush = await harness.api.handle(APIRequest(method: "POST", target: "/_local/flush", headers: [], body: []))
        #expect(flush.status == 200)
        let objects = try #require(try json(flush)["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        let key = try #require(objects.first?["key"] as? String)
        #expect(key.hasPrefix("2026/11/21/13/events-1-2026-11-21-13-05-09-"))
        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(harness.directory)/bucket/\(key)"))
        #expect(try Gzip.decompress(Array(stored), limit: 1 << 20) == Array("hello\n".utf8))
    }

    @Test func putRecordBatchAnswersOneIdPerRecordInOrder() async throws {
        let harness = try APIHarness()
        let records = (0..<7).map { Array("record-\($0)".utf8) }
        let response = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(records: records)))
        #expect(response.status == 200)
        let body = try json(response)
        #expect(body["FailedPutCount"] as? Int == 0)
        let entries = try #require(body["RequestResponses"] as? [[String: Any]])
        let ids = entries.compactMap { $0["RecordId"] as? String }
        #expect(ids.count == 7)
        #expect(Set(ids).count == 7)
        let delivered = try await harness.sink.flush()
        let stored = try Data(contentsOf: URL(fileURLWithPath: delivered[0].path))
        #expect(try Gzip.decompress(Array(stored), limit: 1 << 20) == Array(records.joined()))
    }

    @Test func missingAuthorizationIsRejected() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]), sign: false))
        let message = try expectError(response, status: 400, code: "MissingAuthenticationTokenException")
        #expect(message == "Missing Authentication Token")
    }

    @Test func wrongSecretIsRejectedAndNothingIsBuffered() async throws {
        let harness = try APIHarness(
            authentication: .verify([AWSCredentials(accessKeyId: "AKIDLOCAL", secretAccessKey: "other-secret")]))
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1])))
        let message = try expectError(response, status: 400, code: "InvalidSignatureException")
        #expect(message.hasPrefix("The request signature we calculated does not match the signature you provided."))
        #expect(try await harness.sink.flush().isEmpty)
    }

    @Test func requestSignedForAnotherRegionIsRejected() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]), signingRegion: "eu-west-1"))
        let message = try expectError(response, status: 400, code: "InvalidSignatureException")
        #expect(message.contains("'eu-west-1'"))
    }

    @Test func signatureOlderThanFiveMinutesIsRejected() async throws {
        let harness = try APIHarness()
        let request = harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]))
        harness.clock.advance(by: .seconds(299))
        #expect(await harness.api.handle(request).status == 200)
        harness.clock.advance(by: .seconds(2))
        let message = try expectError(await harness.api.handle(request), status: 400, code: "InvalidSignatureException")
        #expect(message.hasPrefix("Signature expired: 20261121T130509Z is now earlier than"))
    }

    @Test func expiredTemporaryCredentialsAreRejected() async throws {
        let expiring = AWSCredentials(
            accessKeyId: "AKIDLOCAL", secretAccessKey: "local-secret", sessionToken: "token",
            expiration: Date(timeIntervalSince1970: 1_795_266_309 + 60))
        let harness = try APIHarness(authentication: .verify([expiring]))
        func request() -> APIRequest {
            SignedRequests.post(
                target: "Firehose_20150804.PutRecord", body: harness.putRecordBody(data: [1]), credentials: expiring,
                service: "firehose", date: harness.clock.date)
        }
        #expect(await harness.api.handle(request()).status == 200)
        harness.clock.advance(by: .seconds(60))
        let message = try expectError(await harness.api.handle(request()), status: 400, code: "ExpiredTokenException")
        #expect(message == "The security token included in the request is expired")
    }

    @Test func authenticationOffAcceptsUnsignedRequests() async throws {
        let harness = try APIHarness(authentication: .off)
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]), sign: false))
        #expect(response.status == 200)
    }

    @Test(arguments: [nil, "application/json", "text/plain", "application/x-amz-json-1.0"])
    func contentTypeOtherThanJSON11IsAnUnknownOperation(contentType: String?) async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]), contentType: contentType))
        _ = try expectError(response, status: 404, code: "UnknownOperationException")
    }

    @Test func contentTypeParametersAreAllowed() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(
                operation: "PutRecord", body: harness.putRecordBody(data: [1]),
                contentType: "application/x-amz-json-1.1; charset=utf-8"))
        #expect(response.status == 200)
    }

    @Test(arguments: [nil, "PutRecords", "putRecord"])
    func unknownTargetIsAnUnknownOperation(operation: String?) async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(operation: operation, body: harness.putRecordBody(data: [1])))
        _ = try expectError(response, status: 404, code: "UnknownOperationException")
    }

    @Test func unknownStreamNamesTheAccount() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "nope", data: [1])))
        let message = try expectError(response, status: 400, code: "ResourceNotFoundException")
        #expect(message == "Firehose nope under account 123456789012 not found.")
    }

    @Test func batchOverFourMebibytesIsAnInvalidArgument() async throws {
        let harness = try APIHarness()
        let records =
            Array(repeating: [UInt8](repeating: 7, count: 1_000_000), count: 4) + [
                [UInt8](repeating: 1, count: 194_305)
            ]
        let response = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(records: records)))
        let message = try expectError(response, status: 400, code: "InvalidArgumentException")
        #expect(message == "Records size exceeds 4 MB limit")
        let exact = Array(records.dropLast()) + [[UInt8](repeating: 1, count: 194_304)]
        let accepted = await harness.api.handle(
            harness.request(operation: "PutRecordBatch", body: harness.batchBody(records: exact)))
        #expect(accepted.status == 200)
    }

    @Test func malformedJSONIsASerializationException() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: Array(#"{"DeliveryStreamName": "events", "Record": "#.utf8)))
        _ = try expectError(response, status: 400, code: "SerializationException")
    }

    @Test func gzipBodyIsSignedOverCompressedBytes() async throws {
        let harness = try APIHarness()
        let plain = harness.batchBody(records: [Array("a".utf8), Array("b".utf8)])
        let compressor = try GzipCompressor()
        compressor.append(plain)
        compressor.finish()
        let compressed = compressor.takeOutput()
        let response = await harness.api.handle(
            harness.request(
                operation: "PutRecordBatch", body: compressed, extraHeaders: [("Content-Encoding", "gzip")]))
        #expect(response.status == 200)

        let signedOverPlain = await harness.api.handle(
            harness.request(
                operation: "PutRecordBatch", body: compressed, extraHeaders: [("Content-Encoding", "gzip")],
                signedBody: plain))
        _ = try expectError(signedOverPlain, status: 400, code: "InvalidSignatureException")

        let delivered = try await harness.sink.flush()
        let stored = try Data(contentsOf: URL(fileURLWithPath: delivered[0].path))
        #expect(try Gzip.decompress(Array(stored), limit: 1 << 20) == Array("ab".utf8))
    }

    @Test func invalidGzipBodyIsASerializationException() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            harness.request(
                operation: "PutRecord", body: [0x1F, 0x8B, 8, 0, 1, 2, 3], extraHeaders: [("Content-Encoding", "gzip")])
        )
        _ = try expectError(response, status: 400, code: "SerializationException")
    }

    @Test func gzipBodyExpandingPastTheLimitIsRefused() async throws {
        let harness = try APIHarness(maxBodyBytes: 64 * 1024)
        let compressor = try GzipCompressor(level: 9)
        compressor.append([UInt8](repeating: 0x20, count: 10 * 1024 * 1024))
        compressor.finish()
        let bomb = compressor.takeOutput()
        #expect(bomb.count < 64 * 1024)
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: bomb, extraHeaders: [("Content-Encoding", "gzip")]))
        _ = try expectError(response, status: 413, code: "SerializationException")
    }

    @Test func bodyOverTheLimitIsRefused() async throws {
        let harness = try APIHarness(maxBodyBytes: 1024)
        let response = await harness.api.handle(
            harness.request(
                operation: "PutRecord", body: harness.putRecordBody(data: [UInt8](repeating: 1, count: 2000))))
        _ = try expectError(response, status: 413, code: "SerializationException")
    }

    @Test func storageFailureIsServiceUnavailableAndTheServerRecovers() async throws {
        let harness = try APIHarness()
        // A file where the staging folder belongs: every write fails (ENOTDIR), as on a broken disk.
        let staging = harness.sink.configuration.stagingDirectory
        try FileManager.default.removeItem(atPath: staging)
        FileManager.default.createFile(atPath: staging, contents: Data())
        let failed = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1])))
        // AWS's words only: the staging path and errno go to the log, not to the client.
        #expect(try expectError(failed, status: 503, code: "ServiceUnavailableException") == "Slow down.")
        #expect(!String(decoding: failed.body, as: UTF8.self).contains(harness.sink.configuration.dataDirectory))

        try FileManager.default.removeItem(atPath: staging)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let recovered = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [2])))
        #expect(recovered.status == 200)
        let delivered = try await harness.sink.flush()
        #expect(delivered.map(\.records) == [1])
    }

    @Test func vanishedStagingFolderIsRecreated() async throws {
        let harness = try APIHarness()
        try FileManager.default.removeItem(atPath: harness.directory)
        let response = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [3])))
        #expect(response.status == 200)
        #expect(try await harness.sink.flush().map(\.records) == [1])
    }

}

@Suite struct LocalEndpointTests {
    @Test func healthAnswersOK() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            APIRequest(method: "GET", target: "/_local/health", headers: [], body: []))
        #expect(response.status == 200)
        #expect(try json(response)["status"] as? String == "ok")
    }

    @Test func flushOfAnUnknownStreamIs404() async throws {
        let harness = try APIHarness()
        let response = await harness.api.handle(
            APIRequest(method: "POST", target: "/_local/flush?stream=missing", headers: [], body: []))
        _ = try expectError(response, status: 404, code: "ResourceNotFoundException")
    }

    @Test func flushOfOneStreamByName() async throws {
        let harness = try APIHarness()
        _ = await harness.api.handle(harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [9])))
        let response = await harness.api.handle(
            APIRequest(method: "POST", target: "/_local/flush?stream=events", headers: [], body: []))
        let objects = try #require(try json(response)["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects.first?["stream"] as? String == "events")
        #expect(objects.first?["records"] as? Int == 1)
    }

    @Test func wrongMethodAndUnknownPath() async throws {
        let harness = try APIHarness()
        let get = await harness.api.handle(APIRequest(method: "GET", target: "/_local/flush", headers: [], body: []))
        #expect(get.status == 405)
        let unknown = await harness.api.handle(
            APIRequest(method: "GET", target: "/_local/nothing", headers: [], body: []))
        #expect(unknown.status == 404)
    }

    @Test func queryParametersArePercentDecoded() {
        let request = APIRequest(method: "POST", target: "/_local/flush?x=1&stream=a%2Eb+c", headers: [], body: [])
        #expect(request.queryParameter("stream") == "a.b c")
        #expect(request.queryParameter("missing") == nil)
    }
}
