import FirehoseKeyLayout
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

@testable import FirehoseSink

/// A stream partitioned by customer with jq, as AWS's documentation sets one up.
func partitionedSettings(
    compression: String? = nil, delimiter: Bool = true, query: String = "{customer: .customer_id}",
    maxKeyBytes: Int = 4000
) throws -> DeliveryStreamSettings {
    var stream = try settings(
        destination(
            prefix: "customer=!{partitionKeyFromQuery:customer}/",
            errorOutputPrefix: "errors/!{firehose:error-output-type}/!{timestamp:yyyy}/", intervalInSeconds: 60,
            compression: compression, delimiter: delimiter))
    try stream.partitionByKeys(query: query, maxKeyBytes: maxKeyBytes)
    return stream
}

/// The error records of an error-output object, one JSON object per line.
func errorRecords(_ bytes: [UInt8]) throws -> [[String: Any]] {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    #expect(lines.last?.isEmpty == true, "every error record ends with a newline")
    return try lines.dropLast().map { line in
        try #require(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
    }
}

@Suite("Dynamic partitioning: MetadataExtraction with jq")
struct DynamicPartitioningTests {
    @Test("Records go to one object per customer, each at its partition's key, delimited and in order")
    func partitionsByQuery() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings())
            try await harness.put([#"{"customer_id":"a","n":1}"#, #"{"customer_id":7,"n":2}"#])
            try await harness.put([#"{"customer_id":"a","n":3}"#])
            let objects = try await harness.sink.flush(stream: "demo")
            #expect(objects.count == 2)
            let byKey = Dictionary(uniqueKeysWithValues: try objects.map { ($0.key, try harness.contents(of: $0)) })
            let a = try #require(byKey.first { $0.key.hasPrefix("customer=a/demo-1-2026-11-21-13-05-09-") })
            #expect(a.value == Array("{\"customer_id\":\"a\",\"n\":1}\n{\"customer_id\":\"a\",\"n\":3}\n".utf8))
            // A number becomes its JSON text.
            let seven = try #require(byKey.first { $0.key.hasPrefix("customer=7/demo-1-") })
            #expect(seven.value == Array("{\"customer_id\":7,\"n\":2}\n".utf8))
            #expect(objects.allSatisfy { $0.errorOutputType == nil })
        }
    }

    @Test(
        "A record the query cannot partition becomes an AWS-shaped error record under the error prefix",
        arguments: [
            ("not json", "Non JSON record provided"),
            // `.customer_id` of a record without it is null.
            (
                #"{"other":1}"#,
                "partitionKeys values must not be null or empty (the query's value for 'customer' is null)"
            ),
            (
                #"{"customer_id":null}"#,
                "partitionKeys values must not be null or empty (the query's value for 'customer' is null)"
            ),
            (
                #"{"customer_id":""}"#,
                "partitionKeys values must not be null or empty (the query's value for 'customer' is empty)"
            ),
            (
                #"{"customer_id":[1]}"#,
                "Metadata extraction failed: the query's value for 'customer' is [1], not a string, number or boolean."
            ),
            (
                #"{"customer_id":"x/.."}"#,
                "The partition key values make an object key that cannot be stored locally: path segment '..' is not allowed (firehose-local maps keys to directories)."
            ),
        ])
    func failedRecord(record: String, message: String) async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings())
            try await harness.put([#"{"customer_id":"ok"}"#, record])
            let objects = try await harness.sink.flush(stream: "demo")
            #expect(objects.count == 2)
            let failed = try #require(objects.first { $0.errorOutputType != nil })
            #expect(failed.errorOutputType == "metadata-extraction-failed")
            #expect(failed.key.hasPrefix("errors/metadata-extraction-failed/2026/demo-1-2026-11-21-13-05-09-"))
            #expect(failed.records == 1)
            let entries = try errorRecords(try harness.contents(of: failed))
            let entry = try #require(entries.first)
            #expect(entries.count == 1)
            let fields: Set<String> = [
                "attemptsMade", "arrivalTimestamp", "errorCode", "errorMessage", "attemptEndingTimestamp", "rawData",
            ]
            #expect(Set(entry.keys) == fields)
            #expect(entry["attemptsMade"] as? Int == 1)
            #expect(entry["arrivalTimestamp"] as? Int == 1_795_266_309_000)
            #expect(entry["attemptEndingTimestamp"] as? Int == 1_795_266_309_000)
            #expect(entry["errorCode"] as? String == "DynamicPartitioning.MetadataExtractionFailed")
            #expect(entry["errorMessage"] as? String == message)
            // The record as the client sent it: no delimiter.
            #expect(entry["rawData"] as? String == Data(record.utf8).base64EncodedString())
            let good = try #require(objects.first { $0.errorOutputType == nil })
            #expect(try harness.contents(of: good) == Array("{\"customer_id\":\"ok\"}\n".utf8))
        }
    }

    @Test("Values that differ only in Unicode normalization are two partitions, as S3 keys are two keys")
    func canonicallyEquivalentValues() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings())
            try await harness.put(["{\"customer_id\":\"caf\u{E9}\"}", "{\"customer_id\":\"cafe\u{301}\"}"])
            let objects = try await harness.sink.flush(stream: "demo")
            #expect(objects.count == 2)
            #expect(Set(objects.map { Array($0.key.utf8.prefix(15)) }).count == 2)
        }
    }

    @Test("A partition whose key would not fit the local path limit goes to the error output")
    func keyTooLong() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings(maxKeyBytes: 100))
            try await harness.put([
                #"{"customer_id":"short"}"#, "{\"customer_id\":\"\(String(repeating: "x", count: 60))\"}",
            ])
            let objects = try await harness.sink.flush(stream: "demo")
            let types = objects.map { $0.errorOutputType ?? "data" }.sorted()
            #expect(types == ["data", "metadata-extraction-failed"])
        }
    }

    @Test("Error objects are compressed like the stream's others")
    func gzipErrorOutput() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings(compression: "GZIP"))
            try await harness.put(["{", #"{"customer_id":"c"}"#])
            let objects = try await harness.sink.flush(stream: "demo")
            let failed = try #require(objects.first { $0.errorOutputType != nil })
            #expect(failed.key.hasSuffix(".gz"))
            let entries = try errorRecords(try Gzip.decompress(try harness.contents(of: failed), limit: 1 << 20))
            #expect(entries.first?["rawData"] as? String == Data("{".utf8).base64EncodedString())
        }
    }

    /// JSON records of `customer`, each about `bytes` long: words in a pseudo-random order, which
    /// every format compresses, but not to nothing.
    static func bulkyRecords(customer: String, count: Int, bytes: Int) -> [[UInt8]] {
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"]
        var state: UInt32 = 12345
        return (0..<count).map { index in
            var pad = ""
            while pad.utf8.count < bytes {
                state = state &* 1_103_515_245 &+ 12345
                pad += words[Int(state >> 16) % words.count] + " "
            }
            return Array(#"{"customer_id":"\#(customer)","n":\#(index),"pad":"\#(pad)"}"#.utf8) + [0x0A]
        }
    }

    @Test(
        "A partitioned stream stages its buffers as they are and encodes each whole at delivery, in every format",
        arguments: ["GZIP", "ZIP", "Snappy", "HADOOP_SNAPPY"])
    func encodesAtDelivery(format: String) async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings(compression: format, delimiter: false))
            // More than one chunk of DeliveryEncoding for one partition, a few bytes for the other.
            let big = Self.bulkyRecords(customer: "big", count: 3, bytes: 900_000)
            for record in big { try await harness.put([record]) }
            try await harness.put([Array(#"{"customer_id":"small"}"#.utf8)])
            // Staged as they are: the data files hold the records, and the journals say so.
            let staged = try harness.stagedFiles.map { try harness.contents("\(harness.stagingDirectory)/\($0)") }
            #expect(Set(staged) == [big.flatMap { $0 }, Array(#"{"customer_id":"small"}"#.utf8)])
            for journal in harness.files(under: harness.stagingDirectory) where journal.hasSuffix(".journal") {
                let text = String(
                    decoding: try harness.contents("\(harness.stagingDirectory)/\(journal)"), as: UTF8.self)
                #expect(text.contains(#""compression":"UNCOMPRESSED""#))
            }
            let objects = try await harness.sink.flush(stream: "demo")
            #expect(objects.count == 2)
            let extensionOfFormat = ["GZIP": ".gz", "ZIP": ".zip", "Snappy": ".snappy", "HADOOP_SNAPPY": ".snappy"][
                format]!
            for object in objects {
                let stored = try harness.contents(of: object)
                #expect(object.key.hasSuffix(extensionOfFormat))
                #expect(object.storedBytes == stored.count)
                let content = try ObjectContent.decode(stored, key: object.key)
                #expect(content.count == object.bytes)
                if object.key.hasPrefix("customer=big/") {
                    #expect(content == big.flatMap { $0 })
                    #expect(object.records == 3)
                    #expect(stored.count < content.count, "the object is compressed")
                } else {
                    #expect(content == Array(#"{"customer_id":"small"}"#.utf8))
                }
            }
            #expect(harness.stagingIsEmpty)
        }
    }

    @Test("A buffer recovered after the stream's compression changed is delivered in the encoding its key says")
    func recoveryKeepsTheObjectEncoding() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        try crashed.sink.createStream(try partitionedSettings(compression: "GZIP"))
        try await crashed.put([#"{"customer_id":"a"}"#])

        // Restarted with the stream now UNCOMPRESSED: the staged buffer's key ends in .gz.
        let restarted = try restartedSink(over: crashed.directory, streams: [try partitionedSettings()])
        let report = await restarted.recoverStagedBuffers()
        let object = try #require(report.delivered.first)
        #expect(object.key.hasSuffix(".gz"))
        #expect(
            try Gzip.decompress(crashed.contents(of: object), limit: 1 << 20)
                == Array("{\"customer_id\":\"a\"}\n".utf8))
        #expect(object.storedBytes == (try crashed.contents(of: object)).count)
    }

    @Test(
        "An object encoded for delivery but not yet in its bucket is removed at the next start; its buffer is delivered"
    )
    func strayEncodedObjectAfterCrash() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        let stream = try partitionedSettings(compression: "GZIP")
        try crashed.sink.createStream(stream)
        try await crashed.put([#"{"customer_id":"a"}"#])
        // What a crash during delivery encoding leaves beside the staged buffer.
        let partial = try #require(crashed.stagedFiles.first)
        let stray = "\(crashed.stagingDirectory)/\(partial.dropLast(".partial".count)).object"
        FileManager.default.createFile(atPath: stray, contents: Data([0x1F, 0x8B, 0x08]))

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.orphaned.isEmpty && report.corrupt.isEmpty)
        let object = try #require(report.delivered.first)
        #expect(
            try Gzip.decompress(crashed.contents(of: object), limit: 1 << 20) == Array("{\"customer_id\":\"a\"}\n".utf8)
        )
        #expect(crashed.stagingIsEmpty)
    }

    @Test("Staged content changed from outside is not delivered: the delivery fails and the buffer stays staged")
    func changedStagedContentIsRefused() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings(compression: "GZIP"))
            try await harness.put([#"{"customer_id":"a","n":1}"#])
            try await harness.expectChangedStagedContentRefused()
        }
    }

    @Test("Deleting a partitioned stream while its buffers are being encoded for delivery leaves no files behind")
    func deleteDuringDeliveryEncoding() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings(compression: "GZIP", delimiter: false))
            for customer in ["a", "b", "c", "d"] {
                try await harness.put(Self.bulkyRecords(customer: customer, count: 2, bytes: 500_000))
            }
            let flushing = Task { try await harness.sink.flush(stream: "demo") }
            try await harness.sink.deleteStream("demo")
            _ = try? await flushing.value
            try await eventually("the staging folder to be empty") { harness.stagingIsEmpty }
        }
    }

    @Test("Each partition fills and times out on its own buffer's hints")
    func partitionIntervals() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings())
            try await harness.put([#"{"customer_id":"early"}"#])
            // Each timer waits on the clock before it moves on (under load a timer's task can start late).
            try await eventually("the first partition's timer") { harness.clock.sleeperCount == 1 }
            harness.clock.advance(by: .seconds(30))
            try await harness.put([#"{"customer_id":"late"}"#])
            try await eventually("the second partition's timer") { harness.clock.sleeperCount == 2 }
            harness.clock.advance(by: .seconds(30))
            let first = try await harness.log.wait(count: 1)
            #expect(first.map(\.key).allSatisfy { $0.hasPrefix("customer=early/") })
            harness.clock.advance(by: .seconds(30))
            let both = try await harness.log.wait(count: 2)
            #expect(both.last?.key.hasPrefix("customer=late/") == true)
        }
    }

    @Test("Acknowledged records of every partition, and error records, are recovered to their keys after a crash")
    func recoveryKeepsPartitions() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        let stream = try partitionedSettings(compression: "GZIP")
        try crashed.sink.createStream(stream)
        try await crashed.put([#"{"customer_id":"a"}"#, #"{"customer_id":"b"}"#, "oops", #"{"customer_id":"a"}"#])
        #expect(crashed.stagedFiles.count == 3)

        let restarted = try restartedSink(over: crashed.directory, streams: [stream])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.orphaned.isEmpty && report.corrupt.isEmpty)
        let keys = report.delivered.map(\.key)
        #expect(keys.count == 3)
        let a = try #require(report.delivered.first { $0.key.hasPrefix("customer=a/demo-1-2026-11-21-13-05-09-") })
        #expect(a.records == 2)
        #expect(
            try Gzip.decompress(crashed.contents(of: a), limit: 1 << 20)
                == Array("{\"customer_id\":\"a\"}\n{\"customer_id\":\"a\"}\n".utf8))
        #expect(keys.contains { $0.hasPrefix("customer=b/") })
        let failed = try #require(report.delivered.first { $0.errorOutputType == "metadata-extraction-failed" })
        #expect(failed.key.hasPrefix("errors/metadata-extraction-failed/2026/"))
        let entries = try errorRecords(try Gzip.decompress(crashed.contents(of: failed), limit: 1 << 20))
        #expect(entries.first?["errorMessage"] as? String == "Non JSON record provided")
        #expect(crashed.stagingIsEmpty)
    }

    @Test("Beyond the active partition limit, records of new partitions go to the error output until one is delivered")
    func activePartitionLimit() async throws {
        try await SinkHarness.with(maxActivePartitions: 2) { harness in
            try harness.sink.createStream(try partitionedSettings())
            try await harness.put([#"{"customer_id":"a"}"#, #"{"customer_id":"b"}"#, #"{"customer_id":"c"}"#])
            // Active partitions keep taking records; the error output is not a partition that counts.
            try await harness.put([#"{"customer_id":"b"}"#, "not json", #"{"customer_id":"d"}"#])
            var objects = try await harness.sink.flush(stream: "demo")
            let overflow = try #require(objects.first { $0.errorOutputType == "activePartitionExceeded" })
            #expect(overflow.key.hasPrefix("errors/activePartitionExceeded/2026/demo-1-"))
            let entries = try errorRecords(try harness.contents(of: overflow))
            #expect(
                entries.map { $0["rawData"] as? String }
                    == [#"{"customer_id":"c"}"#, #"{"customer_id":"d"}"#].map {
                        Data($0.utf8).base64EncodedString()
                    })
            #expect(entries.allSatisfy { $0["errorCode"] as? String == "DynamicPartitioning.ActivePartitionExceeded" })
            #expect(
                entries.first?["errorMessage"] as? String
                    == "The Firehose stream has 2 active partitions, its limit; records of another partition go to the error output until one is delivered."
            )
            let delivered = Set(objects.compactMap { $0.errorOutputType == nil ? $0.key.prefix(11) : nil })
            #expect(delivered == ["customer=a/", "customer=b/"])
            #expect(objects.contains { $0.errorOutputType == "metadata-extraction-failed" })
            // Delivered partitions are no longer active: new ones are admitted again.
            try await harness.put([#"{"customer_id":"c"}"#])
            objects = try await harness.sink.flush(stream: "demo")
            #expect(objects.map(\.key).allSatisfy { $0.hasPrefix("customer=c/") })
        }
    }

    @Test("A buffer staged before a crash is recovered at the key it opened with, even after the prefix changed")
    func recoveryAfterPrefixChange() async throws {
        let crashed = try SinkHarness()
        defer { try? FileManager.default.removeItem(atPath: crashed.directory) }
        try crashed.sink.createStream(try partitionedSettings())
        try await crashed.put([#"{"customer_id":"a","region":"eu"}"#])

        // The stream now partitions by a key the staged buffer has no value for.
        var changed = try settings(
            destination(
                prefix: "region=!{partitionKeyFromQuery:region}/",
                errorOutputPrefix: "errors/!{firehose:error-output-type}/", intervalInSeconds: 60, delimiter: true))
        try changed.partitionByKeys(query: "{region: .region}", maxKeyBytes: 4000)
        let restarted = try restartedSink(over: crashed.directory, streams: [changed])
        let report = await restarted.recoverStagedBuffers()
        #expect(report.orphaned.isEmpty && report.corrupt.isEmpty)
        let object = try #require(report.delivered.first)
        #expect(object.key.hasPrefix("customer=a/demo-1-2026-11-21-13-05-09-"))
        #expect(try crashed.contents(of: object) == Array("{\"customer_id\":\"a\",\"region\":\"eu\"}\n".utf8))
    }

    @Test("Concurrent requests partition on every compiled copy of the query, and no record is lost")
    func concurrentRequests() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try partitionedSettings())
            try await withThrowingTaskGroup { group in
                for task in 0..<8 {
                    group.addTask {
                        for request in 0..<10 {
                            try await harness.put(
                                (0..<20).map { "{\"customer_id\":\"c\(($0 + request) % 5)\",\"t\":\(task)}" })
                        }
                    }
                }
                try await group.waitForAll()
            }
            let objects = try await harness.sink.flush(stream: "demo")
            #expect(objects.count == 5)
            let records = objects.map(\.records).reduce(0, +)
            #expect(records == 1600)
        }
    }
}
