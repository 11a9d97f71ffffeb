import AWSSigV4
import FirehoseKeyLayout
import FirehoseService
import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import ServerCore
import ServiceTestSupport
import Testing

@testable import FirehoseServer

extension APIHarness {
    func call(_ operation: String, _ json: String) async -> APIResponse {
        await api.handle(request(operation: operation, body: Array(json.utf8)))
    }

    static let role = "arn:aws:iam::123456789012:role/firehose"

    func create(_ name: String, bucket: String = "created", extra: String = "", tags: String? = nil) async
        -> APIResponse
    {
        let tagMember = tags.map { #", "Tags": \#($0)"# } ?? ""
        return await call(
            "CreateDeliveryStream",
            #"{"DeliveryStreamName": "\#(name)", "ExtendedS3DestinationConfiguration": {"RoleARN": "\#(Self.role)", "BucketARN": "arn:aws:s3:::\#(bucket)"\#(extra)}\#(tagMember)}"#
        )
    }
}

@Suite("Control plane")
struct ControlPlaneTests {
    @Test func createDescribePutAndDelete() async throws {
        let harness = try APIHarness()
        let created = await harness.create("made", extra: #", "CompressionFormat": "GZIP""#)
        #expect(created.status == 200)
        #expect(
            try json(created)["DeliveryStreamARN"] as? String
                == "arn:aws:firehose:us-east-1:123456789012:deliverystream/made")

        let described = try json(await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "made"}"#))
        let description = try #require(described["DeliveryStreamDescription"] as? [String: Any])
        #expect(description["DeliveryStreamStatus"] as? String == "ACTIVE")
        #expect(description["VersionId"] as? String == "1")
        #expect(description["DeliveryStreamType"] as? String == "DirectPut")
        #expect(description["HasMoreDestinations"] as? Bool == false)
        let destination = try #require((description["Destinations"] as? [[String: Any]])?.first)
        #expect(destination["DestinationId"] as? String == "destinationId-000000000001")
        let extended = try #require(destination["ExtendedS3DestinationDescription"] as? [String: Any])
        #expect((extended["BufferingHints"] as? [String: Any])?["SizeInMBs"] as? Int == 5)
        #expect((extended["BufferingHints"] as? [String: Any])?["IntervalInSeconds"] as? Int == 300)
        #expect(extended["CompressionFormat"] as? String == "GZIP")
        #expect(extended["Prefix"] as? String == "")
        #expect(extended["S3BackupMode"] as? String == "Disabled")
        #expect(
            (extended["EncryptionConfiguration"] as? [String: Any])?["NoEncryptionConfig"] as? String == "NoEncryption")
        #expect((extended["CloudWatchLoggingOptions"] as? [String: Any])?["Enabled"] as? Bool == false)
        #expect(destination["S3DestinationDescription"] is [String: Any])

        let put = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "made", data: Array("x".utf8))))
        #expect(put.status == 200)

        #expect(await harness.call("DeleteDeliveryStream", #"{"DeliveryStreamName": "made"}"#).status == 200)
        // The buffer was discarded, as AWS does: nothing is delivered, and the stream is gone.
        #expect(try await harness.sink.flush().isEmpty)
        let gone = await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "made"}"#)
        #expect(
            try expectError(gone, status: 400, code: "ResourceNotFoundException")
                == "Firehose made under account 123456789012 not found.")
        #expect(harness.files(in: "created").isEmpty)
    }

    @Test func duplicateAndInvalidCreates() async throws {
        let harness = try APIHarness()
        let duplicate = await harness.create("events")
        #expect(try expectError(duplicate, status: 400, code: "ResourceInUseException").contains("already exists"))
        let badName = await harness.create("bad/name")
        #expect(try expectError(badName, status: 400, code: "ValidationException").contains("deliveryStreamName"))
        let noRole = await harness.call(
            "CreateDeliveryStream",
            #"{"DeliveryStreamName": "r", "ExtendedS3DestinationConfiguration": {"BucketARN": "arn:aws:s3:::b"}}"#)
        #expect(
            try expectError(noRole, status: 400, code: "ValidationException").contains(
                "Value null at 'extendedS3DestinationConfiguration.roleARN'"))
        let hints = await harness.create("h", extra: #", "BufferingHints": {"SizeInMBs": 1}"#)
        _ = try expectError(hints, status: 400, code: "InvalidArgumentException")
        let lzo = await harness.create("z", extra: #", "CompressionFormat": "LZO""#)
        #expect(try expectError(lzo, status: 400, code: "ValidationException").contains("compressionFormat"))
        let prefix = await harness.create("p", extra: #", "Prefix": "y=!{timestamp:yyyy}/""#)
        #expect(try expectError(prefix, status: 400, code: "InvalidArgumentException").contains("ErrorOutputPrefix"))
        let redshift = await harness.call(
            "CreateDeliveryStream", #"{"DeliveryStreamName": "rs", "RedshiftDestinationConfiguration": {}}"#)
        #expect(try expectError(redshift, status: 400, code: "InvalidArgumentException").contains("not supported yet"))
        let kinesis = await harness.call(
            "CreateDeliveryStream",
            #"{"DeliveryStreamName": "k", "DeliveryStreamType": "KinesisStreamAsSource", "ExtendedS3DestinationConfiguration": {"RoleARN": "\#(APIHarness.role)", "BucketARN": "arn:aws:s3:::b"}}"#
        )
        _ = try expectError(kinesis, status: 400, code: "InvalidArgumentException")
        let badTag = await harness.create("t", tags: #"[{"Key": "aws:reserved", "Value": "x"}]"#)
        #expect(try expectError(badTag, status: 400, code: "ValidationException").contains("tags.1.member.key"))
        #expect(harness.sink.streamNames == ["events"])
    }

    @Test func listIsAlphabeticalAndPaged() async throws {
        let harness = try APIHarness()
        for name in ["charlie", "alpha", "bravo", "delta"] { #expect(await harness.create(name).status == 200) }
        let first = try json(await harness.call("ListDeliveryStreams", #"{"Limit": 2}"#))
        #expect(first["DeliveryStreamNames"] as? [String] == ["alpha", "bravo"])
        #expect(first["HasMoreDeliveryStreams"] as? Bool == true)
        let rest = try json(
            await harness.call("ListDeliveryStreams", #"{"Limit": 10, "ExclusiveStartDeliveryStreamName": "bravo"}"#))
        #expect(rest["DeliveryStreamNames"] as? [String] == ["charlie", "delta", "events"])
        #expect(rest["HasMoreDeliveryStreams"] as? Bool == false)
        let defaults = try json(await harness.call("ListDeliveryStreams", "{}"))
        #expect((defaults["DeliveryStreamNames"] as? [String])?.count == 5)
        let other = try json(
            await harness.call("ListDeliveryStreams", #"{"DeliveryStreamType": "KinesisStreamAsSource"}"#))
        #expect((other["DeliveryStreamNames"] as? [String]) == [])
        _ = try expectError(
            await harness.call("ListDeliveryStreams", #"{"Limit": 0}"#), status: 400, code: "ValidationException")
    }

    @Test("UpdateDestination of an HTTP endpoint stream merges HttpEndpointDestinationUpdate; the AccessKey stays")
    func updateDestinationOfAnHTTPEndpoint() async throws {
        let harness = try APIHarness()
        let created = await harness.call(
            "CreateDeliveryStream",
            #"{"DeliveryStreamName": "web", "HttpEndpointDestinationConfiguration": {"RoleARN": "\#(APIHarness.role)", "EndpointConfiguration": {"Url": "http://127.0.0.1:9/old", "Name": "receiver", "AccessKey": "key"}, "S3Configuration": {"RoleARN": "\#(APIHarness.role)", "BucketARN": "arn:aws:s3:::fails"}}}"#
        )
        #expect(created.status == 200)
        func update(_ version: Int, _ member: String) async -> APIResponse {
            await harness.call(
                "UpdateDestination",
                #"{"DeliveryStreamName": "web", "CurrentDeliveryStreamVersionId": "\#(version)", "DestinationId": "destinationId-000000000001", \#(member)}"#
            )
        }
        let merged = await update(
            1,
            #""HttpEndpointDestinationUpdate": {"EndpointConfiguration": {"Url": "https://receiver.example.com/new"}, "RetryOptions": {"DurationInSeconds": 10}, "S3Update": {"Prefix": "fails/"}}"#
        )
        #expect(merged.status == 200)
        let settings = try #require(harness.sink.settings(of: "web"))
        let endpoint = try #require(settings.httpEndpoint)
        #expect(endpoint.url.absoluteString == "https://receiver.example.com/new")
        #expect(endpoint.accessKey == "key" && endpoint.retryDuration == .seconds(10))
        #expect(settings.versionID == 2 && settings.backupStage?.keyLayout.prefix?.raw == "fails/")
        let described = try json(await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "web"}"#))
        let description = try #require(described["DeliveryStreamDescription"] as? [String: Any])
        let destination = try #require((description["Destinations"] as? [[String: Any]])?.first)
        let http = try #require(destination["HttpEndpointDestinationDescription"] as? [String: Any])
        #expect(
            http["EndpointConfiguration"] as? [String: String]
                == ["Url": "https://receiver.example.com/new", "Name": "receiver"])

        let wrongType = await update(2, #""ExtendedS3DestinationUpdate": {"Prefix": "x/"}"#)
        #expect(
            try expectError(wrongType, status: 400, code: "InvalidArgumentException").contains(
                "give HttpEndpointDestinationUpdate"))
        let invalid = await update(2, #""HttpEndpointDestinationUpdate": {"EndpointConfiguration": {"Url": ""}}"#)
        #expect(
            try expectError(invalid, status: 400, code: "ValidationException").contains(
                "'httpEndpointDestinationUpdate.endpointConfiguration.url'"))
        let s3Invalid = await update(2, #""HttpEndpointDestinationUpdate": {"S3Update": {"BucketARN": "nope"}}"#)
        #expect(
            try expectError(s3Invalid, status: 400, code: "ValidationException").contains(
                "httpEndpointDestinationUpdate.s3Update.bucketARN"))
        #expect(harness.sink.settings(of: "web")?.versionID == 2)
    }

    @Test func updateDestinationMergesChecksTheVersionAndNewObjectsCarryIt() async throws {
        let harness = try APIHarness()
        #expect(await harness.create("u", extra: #", "Prefix": "v1/""#).status == 200)
        _ = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "u", data: Array("old".utf8))))
        let update =
            #"{"DeliveryStreamName": "u", "CurrentDeliveryStreamVersionId": "1", "DestinationId": "destinationId-000000000001", "ExtendedS3DestinationUpdate": {"Prefix": "v2/", "CompressionFormat": "GZIP"}}"#
        #expect(await harness.call("UpdateDestination", update).status == 200)
        let stale = await harness.call("UpdateDestination", update)
        #expect(
            try expectError(stale, status: 400, code: "ConcurrentModificationException").contains(
                "current version id: 2"))
        let wrongDestination = await harness.call(
            "UpdateDestination",
            #"{"DeliveryStreamName": "u", "CurrentDeliveryStreamVersionId": "2", "DestinationId": "destinationId-000000000009", "S3DestinationUpdate": {}}"#
        )
        _ = try expectError(wrongDestination, status: 400, code: "InvalidArgumentException")
        // Both S3 updates in one call: refused whole, as CreateDeliveryStream refuses both destinations.
        let both = await harness.call(
            "UpdateDestination",
            #"{"DeliveryStreamName": "u", "CurrentDeliveryStreamVersionId": "2", "DestinationId": "destinationId-000000000001", "S3DestinationUpdate": {"Prefix": "plain/"}, "ExtendedS3DestinationUpdate": {"Prefix": "extended/"}}"#
        )
        #expect(
            try expectError(both, status: 400, code: "InvalidArgumentException").contains(
                "give ExtendedS3DestinationUpdate or S3DestinationUpdate, not both"))
        #expect(harness.sink.settings(of: "u")?.versionID == 2)

        _ = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "u", data: Array("new".utf8))))
        let delivered = try await harness.sink.flush(stream: "u")
        // What was buffered before the update was delivered with the old settings at update time.
        let keys = harness.files(in: "created")
        #expect(keys.count == 2)
        #expect(keys.contains { $0.hasPrefix("v1/2026/11/21/13/u-1-") && !$0.hasSuffix(".gz") })
        #expect(delivered.map(\.key).allSatisfy { $0.hasPrefix("v2/2026/11/21/13/u-2-") && $0.hasSuffix(".gz") })
        let described = try json(await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "u"}"#))
        let description = try #require(described["DeliveryStreamDescription"] as? [String: Any])
        #expect(description["VersionId"] as? String == "2")
        #expect(description["LastUpdateTimestamp"] != nil)
        let destination = try #require((description["Destinations"] as? [[String: Any]])?.first)
        let extended = try #require(destination["ExtendedS3DestinationDescription"] as? [String: Any])
        #expect(extended["Prefix"] as? String == "v2/")
        #expect(extended["BucketARN"] as? String == "arn:aws:s3:::created")
    }

    @Test func tagsAddReplaceRemoveAndPage() async throws {
        let harness = try APIHarness()
        #expect(await harness.create("t", tags: #"[{"Key": "team", "Value": "a"}]"#).status == 200)
        #expect(
            await harness.call(
                "TagDeliveryStream",
                #"{"DeliveryStreamName": "t", "Tags": [{"Key": "team", "Value": "b"}, {"Key": "env", "Value": "ci"}, {"Key": "x"}]}"#
            ).status == 200)
        let listed = try json(
            await harness.call("ListTagsForDeliveryStream", #"{"DeliveryStreamName": "t", "Limit": 2}"#))
        let tags = try #require(listed["Tags"] as? [[String: String]])
        #expect(tags == [["Key": "team", "Value": "b"], ["Key": "env", "Value": "ci"]])
        #expect(listed["HasMoreTags"] as? Bool == true)
        let next = try json(
            await harness.call(
                "ListTagsForDeliveryStream", #"{"DeliveryStreamName": "t", "ExclusiveStartTagKey": "env"}"#))
        #expect(next["Tags"] as? [[String: String]] == [["Key": "x"]])
        #expect(
            await harness.call("UntagDeliveryStream", #"{"DeliveryStreamName": "t", "TagKeys": ["team", "x"]}"#).status
                == 200)
        let left = try json(await harness.call("ListTagsForDeliveryStream", #"{"DeliveryStreamName": "t"}"#))
        #expect(left["Tags"] as? [[String: String]] == [["Key": "env", "Value": "ci"]])

        let fifty = (0..<50).map { #"{"Key": "k\#($0)", "Value": "v"}"# }.joined(separator: ", ")
        let tooMany = await harness.call("TagDeliveryStream", #"{"DeliveryStreamName": "t", "Tags": [\#(fifty)]}"#)
        _ = try expectError(tooMany, status: 400, code: "LimitExceededException")
        let empty = await harness.call("TagDeliveryStream", #"{"DeliveryStreamName": "t", "Tags": []}"#)
        _ = try expectError(empty, status: 400, code: "ValidationException")
        let missing = await harness.call(
            "TagDeliveryStream", #"{"DeliveryStreamName": "nope", "Tags": [{"Key": "a"}]}"#)
        _ = try expectError(missing, status: 400, code: "ResourceNotFoundException")
    }

    @Test func streamIsCreatingUntilTheActivationDelayPasses() async throws {
        let harness = try APIHarness(activationDelay: 5)
        #expect(await harness.create("slow").status == 200)
        let status = { () async throws -> String? in
            let described = try json(await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "slow"}"#))
            return (described["DeliveryStreamDescription"] as? [String: Any])?["DeliveryStreamStatus"] as? String
        }
        #expect(try await status() == "CREATING")
        let early = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "slow", data: [1])))
        #expect(try expectError(early, status: 400, code: "ResourceNotFoundException").contains("not ACTIVE"))
        harness.clock.advance(by: .seconds(5))
        #expect(try await status() == "ACTIVE")
        let put = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "slow", data: [1])))
        #expect(put.status == 200)
    }

    @Test func createdStreamsArePersistedForTheNextStart() async throws {
        var harness: APIHarness? = try APIHarness()
        let directory = harness!.directory
        harness!.keepDirectory = true
        #expect(await harness!.create("kept", tags: #"[{"Key": "a", "Value": "b"}]"#).status == 200)
        #expect(await harness!.create("dropped").status == 200)
        #expect(await harness!.call("DeleteDeliveryStream", #"{"DeliveryStreamName": "dropped"}"#).status == 200)
        harness = nil

        let restarted = try APIHarness(directory: directory)
        let records = try restarted.sink.loadPersistedStreams()
        #expect(records.map { $0.definition.deliveryStreamName } == ["kept"])
        #expect(records.first?.tags.map(\.key) == ["a"])
        #expect(records.first?.origin == .api)
    }

    /// Makes saving `name`'s record fail: its temporary file's name is taken by a directory.
    private func blockSaving(_ name: String, in harness: APIHarness) throws {
        try FileManager.default.createDirectory(
            atPath: "\(harness.directory)/.firehose-local/streams/\(name).json.tmp", withIntermediateDirectories: true)
    }

    @Test func aCreateThatCannotBeSavedLeavesNoStream() async throws {
        let harness = try APIHarness()
        try blockSaving("unsaved", in: harness)
        let response = await harness.create("unsaved")
        #expect(try expectError(response, status: 503, code: "ServiceUnavailableException") == "Slow down.")
        let describe = await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "unsaved"}"#)
        _ = try expectError(describe, status: 400, code: "ResourceNotFoundException")
        #expect(harness.sink.streamNames == ["events"])
        let put = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: "unsaved", data: [1])))
        _ = try expectError(put, status: 400, code: "ResourceNotFoundException")
        #expect(try harness.sink.loadPersistedStreams().isEmpty)
    }

    @Test func updateAndTagThatCannotBeSavedChangeNothing() async throws {
        let harness = try APIHarness()
        #expect(await harness.create("kept", tags: #"[{"Key": "a", "Value": "1"}]"#).status == 200)
        let before = try #require(harness.sink.record(of: "kept"))
        try blockSaving("kept", in: harness)
        let update = await harness.call(
            "UpdateDestination",
            #"{"DeliveryStreamName": "kept", "CurrentDeliveryStreamVersionId": "1", "DestinationId": "destinationId-000000000001", "ExtendedS3DestinationUpdate": {"Prefix": "new/"}}"#
        )
        _ = try expectError(update, status: 503, code: "ServiceUnavailableException")
        let tag = await harness.call(
            "TagDeliveryStream", #"{"DeliveryStreamName": "kept", "Tags": [{"Key": "b", "Value": "2"}]}"#)
        _ = try expectError(tag, status: 503, code: "ServiceUnavailableException")
        let untag = await harness.call("UntagDeliveryStream", #"{"DeliveryStreamName": "kept", "TagKeys": ["a"]}"#)
        _ = try expectError(untag, status: 503, code: "ServiceUnavailableException")
        #expect(harness.sink.record(of: "kept") == before)
        #expect(harness.sink.settings(of: "kept")?.versionID == 1)
        #expect(try harness.sink.loadPersistedStreams() == [before])
    }

    @Test func aDeleteThatCannotForgetTheSavedStreamLeavesItInPlace() async throws {
        let harness = try APIHarness()
        #expect(await harness.create("stays").status == 200)
        // A directory of that name cannot be unlinked.
        let saved = "\(harness.directory)/.firehose-local/streams/stays.json"
        try FileManager.default.removeItem(atPath: saved)
        try FileManager.default.createDirectory(atPath: saved, withIntermediateDirectories: false)
        let delete = await harness.call("DeleteDeliveryStream", #"{"DeliveryStreamName": "stays"}"#)
        _ = try expectError(delete, status: 503, code: "ServiceUnavailableException")
        #expect(harness.sink.streamNames.contains("stays"))
    }

    @Test func aCatalogOfEarlierVersionsIsConvertedAtStart() async throws {
        var harness: APIHarness? = try APIHarness()
        let directory = harness!.directory
        harness!.keepDirectory = true
        #expect(await harness!.create("old-a").status == 200)
        #expect(await harness!.create("old-b").status == 200)
        let records = try harness!.sink.loadPersistedStreams()
        harness = nil
        // The single file earlier versions wrote, and no per-stream files.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .deferredToDate
        struct Legacy: Encodable {
            var format = 1
            var streams: [StreamRecord]
        }
        try encoder.encode(Legacy(streams: records)).write(
            to: URL(fileURLWithPath: "\(directory)/.firehose-local/streams.json"))
        try FileManager.default.removeItem(atPath: "\(directory)/.firehose-local/streams")

        let restarted = try APIHarness(directory: directory)
        #expect(try FirehoseSink.savedStreams(dataDirectory: directory) == records)  // reads without converting
        #expect(FileManager.default.fileExists(atPath: "\(directory)/.firehose-local/streams.json"))
        #expect(try restarted.sink.loadPersistedStreams() == records)
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/.firehose-local/streams.json"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: "\(directory)/.firehose-local/streams").sorted()
                == ["old-a.json", "old-b.json"])
        #expect(try restarted.sink.loadPersistedStreams() == records)
    }

    static let keyARN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"

    func encryption(_ harness: APIHarness, _ name: String) async throws -> [String: Any]? {
        let described = try json(await harness.call("DescribeDeliveryStream", #"{"DeliveryStreamName": "\#(name)"}"#))
        let description = try #require(described["DeliveryStreamDescription"] as? [String: Any])
        return description["DeliveryStreamEncryptionConfiguration"] as? [String: Any]
    }

    func putIsEncrypted(_ harness: APIHarness, _ name: String) async throws -> Bool? {
        let put = await harness.api.handle(
            harness.request(operation: "PutRecord", body: harness.putRecordBody(stream: name, data: [1])))
        return try json(put)["Encrypted"] as? Bool
    }

    @Test func serverSideEncryptionIsKeptDescribedAndAnsweredAndSurvivesARestart() async throws {
        var harness: APIHarness? = try APIHarness()
        let directory = harness!.directory
        harness!.keepDirectory = true
        let created = await harness!.call(
            "CreateDeliveryStream",
            #"{"DeliveryStreamName": "enc", "ExtendedS3DestinationConfiguration": {"RoleARN": "\#(APIHarness.role)", "BucketARN": "arn:aws:s3:::b"}, "DeliveryStreamEncryptionConfigurationInput": {"KeyType": "CUSTOMER_MANAGED_CMK", "KeyARN": "\#(Self.keyARN)"}}"#
        )
        #expect(created.status == 200)
        var described = try #require(try await encryption(harness!, "enc"))
        #expect(described["Status"] as? String == "ENABLED" && described["KeyARN"] as? String == Self.keyARN)
        #expect(try await putIsEncrypted(harness!, "enc") == true)
        #expect(await harness!.call("StopDeliveryStreamEncryption", #"{"DeliveryStreamName": "enc"}"#).status == 200)
        #expect(try await encryption(harness!, "enc")?.count == 1)
        #expect(try await putIsEncrypted(harness!, "enc") == false)
        // Start without a configuration: an AWS-owned key, AWS's default.
        #expect(
            await harness!.call("StartDeliveryStreamEncryption", #"{"DeliveryStreamName": "events"}"#).status == 200)
        described = try #require(try await encryption(harness!, "events"))
        #expect(described["KeyType"] as? String == "AWS_OWNED_CMK" && described["KeyARN"] == nil)
        #expect(described["Status"] as? String == "ENABLED")
        harness = nil

        let restarted = try APIHarness(directory: directory)
        let saved = try restarted.sink.loadPersistedStreams()
        let enc = try #require(saved.first { $0.definition.deliveryStreamName == "enc" })
        #expect(
            enc.encryptionInForce
                == StreamEncryption(keyType: "CUSTOMER_MANAGED_CMK", keyARN: Self.keyARN, enabled: false))
        let events = try #require(saved.first { $0.definition.deliveryStreamName == "events" })
        #expect(events.encryptionInForce == StreamEncryption(keyType: "AWS_OWNED_CMK", enabled: true))
    }

    @Test func encryptionRequestsAreCheckedAsAWSChecksThem() async throws {
        let harness = try APIHarness()
        func start(_ configuration: String, stream: String = "events") async throws -> (code: String, message: String) {
            let response = await harness.call(
                "StartDeliveryStreamEncryption",
                #"{"DeliveryStreamName": "\#(stream)", "DeliveryStreamEncryptionConfigurationInput": \#(configuration)}"#
            )
            let body = try json(response)
            return (body["__type"] as? String ?? "", body["message"] as? String ?? "")
        }
        #expect(try await start(#"{"KeyType": "CUSTOMER_MANAGED_CMK"}"#).message.contains("KeyARN is required"))
        #expect(
            try await start(#"{"KeyType": "AWS_OWNED_CMK", "KeyARN": "\#(Self.keyARN)"}"#).code
                == "InvalidArgumentException")
        let wrongType = try await start(#"{"KeyType": "MY_KEY"}"#)
        #expect(wrongType.code == "ValidationException")
        #expect(
            wrongType.message
                == "1 validation error detected: Value 'MY_KEY' at 'deliveryStreamEncryptionConfigurationInput.keyType' failed to satisfy constraint: Member must satisfy enum value set: [AWS_OWNED_CMK, CUSTOMER_MANAGED_CMK]"
        )
        for arn in ["arn:aws:kms:us-east-1:12345:key/x", "arn:aws:kms:us-east-1:123456789012:key/a\\nb", ""] {
            #expect(
                try await start(#"{"KeyType": "CUSTOMER_MANAGED_CMK", "KeyARN": "\#(arn)"}"#).code
                    == "ValidationException",
                "\(arn)")
        }
        #expect(
            try await start(#"{"KeyType": "AWS_OWNED_CMK"}"#, stream: "missing").code == "ResourceNotFoundException")
        let stop = await harness.call("StopDeliveryStreamEncryption", #"{"DeliveryStreamName": "missing"}"#)
        _ = try expectError(stop, status: 400, code: "ResourceNotFoundException")
        // Nothing was changed by the refused calls.
        #expect(try await encryption(harness, "events")?.count == 1)
    }

    @Test func encryptionOfACreatingStreamIsRefusedUntilItIsActive() async throws {
        let harness = try APIHarness(activationDelay: 5)
        #expect(await harness.create("slow").status == 200)
        let body =
            #"{"DeliveryStreamName": "slow", "DeliveryStreamEncryptionConfigurationInput": {"KeyType": "AWS_OWNED_CMK"}}"#
        let early = await harness.call("StartDeliveryStreamEncryption", body)
        #expect(try expectError(early, status: 400, code: "ResourceInUseException").contains("CREATING"))
        harness.clock.advance(by: .seconds(5))
        #expect(await harness.call("StartDeliveryStreamEncryption", body).status == 200)
    }

}

extension APIHarness {
    /// Object keys under a bucket folder, sorted.
    func files(in bucket: String) -> [String] {
        let root = "\(directory)/\(bucket)"
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var keys: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(root)/\(name)", isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                keys.append(name)
            }
        }
        return keys.sorted()
    }
}
