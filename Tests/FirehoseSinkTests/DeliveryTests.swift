import FirehoseSink
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Testing

@Suite("Delivery: object contents and keys")
struct DeliveryTests {
    @Test("Records are concatenated byte for byte, in order, with no delimiter (binary and empty records)")
    func concatenation() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings())
            let all = (0...255).map { UInt8($0) }
            let records: [[UInt8]] = [Array("first".utf8), [], all, [0], [], Array("\n\r\n".utf8), [0xFF, 0xFE], []]
            try await h.put(Array(records[0..<3]))
            try await h.put(Array(records[3...]))
            let delivered = try await h.sink.flush(stream: "demo")
            let object = try #require(delivered.first)
            #expect(delivered.count == 1)
            #expect(try h.contents(of: object) == records.flatMap { $0 })
            #expect(object.records == 8)
            #expect(object.bytes == records.map(\.count).reduce(0, +))
            #expect(object.storedBytes == object.bytes)
            #expect(object.stream == "demo")
            #expect(object.bucket == "demo-bucket")
            #expect(object.reason == .flush)
            #expect(object.path == "\(h.directory)/demo-bucket/\(object.key)")
            #expect(object.key.matches(try keyPattern()))
            #expect(try await h.log.wait(count: 1) == delivered)
        }
    }

    @Test("AppendDelimiterToRecord adds exactly one \\n after every record, empty ones included")
    func delimiter() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(delimiter: true)))
            try await h.put(["a", "", "b\n", "{\"x\":1}"])
            let object = try #require(try await h.sink.flush().first)
            #expect(try h.contents(of: object) == Array("a\n\nb\n\n{\"x\":1}\n".utf8))
            #expect(object.bytes == 14)
            #expect(object.records == 4)
        }
    }

    @Test("GZIP objects decompress to exactly the records and end in .gz")
    func gzipObject() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(compression: "GZIP", delimiter: true)))
            var generator = SeededGenerator(seed: 1)
            let records = (0..<300).map { index -> [UInt8] in
                index % 2 == 0 ? Array(#"{"n":\#(index),"kind":"event"}"#.utf8) : generator.bytes(index)
            }
            // Several requests: each writes its compressed output to the staging file.
            for chunk in stride(from: 0, to: records.count, by: 37) {
                try await h.put(Array(records[chunk..<min(chunk + 37, records.count)]))
            }
            let object = try #require(try await h.sink.flush().first)
            let expected: [UInt8] = records.flatMap { record -> [UInt8] in record + [10] }
            #expect(object.key.matches(try keyPattern(ext: ".gz")))
            let stored = try h.contents(of: object)
            #expect(Gzip.hasMagic(stored))
            #expect(stored.count == object.storedBytes)
            #expect(object.bytes == expected.count)
            #expect(try Gzip.decompress(stored, limit: 10_000_000) == expected)
        }
    }

    @Test("FileExtension overrides the extension (compressed or not)")
    func fileExtension() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(
                settings(stream: "zipped", destination(compression: "GZIP", fileExtension: ".json.gz")))
            try h.sink.createStream(settings(stream: "plain", destination(fileExtension: ".ndjson")))
            try await h.put(["z"], to: "zipped")
            try await h.put(["p"], to: "plain")
            let objects = try await h.sink.flush()
            #expect(objects.map(\.stream) == ["plain", "zipped"])
            #expect(objects[0].key.matches(try keyPattern(stream: "plain", ext: ".ndjson")))
            #expect(objects[1].key.matches(try keyPattern(stream: "zipped", ext: ".json.gz")))
            #expect(try h.contents(of: objects[0]) == Array("p".utf8))
            #expect(try Gzip.decompress(h.contents(of: objects[1]), limit: 100) == Array("z".utf8))
        }
    }

    @Test("The key follows AWS's layout with a lowercase v4 UUID, and every object gets its own")
    func keyLayout() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(stream: "app-events", destination(compression: "GZIP")))
            var keys: [String] = []
            for _ in 0..<5 {
                try await h.put(["x"], to: "app-events")
                keys += try await h.sink.flush().map(\.key)
            }
            let pattern = try keyPattern(stream: "app-events", ext: ".gz")
            #expect(keys.count == 5)
            #expect(Set(keys).count == 5)
            for key in keys {
                #expect(key.matches(pattern), "\(key)")
                #expect(key.hasPrefix("2026/11/21/13/app-events-1-2026-11-21-13-05-09-"))
                #expect(key == key.lowercased())
            }
            #expect(h.files(under: h.bucketPath()) == keys.sorted())
        }
    }

    @Test("The key time is the first record's arrival, even when later records arrive later")
    func keyTimeIsFirstArrival() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings())  // IntervalInSeconds 900: the clock stays below it
            try await h.put(["a"])
            h.clock.advance(by: .seconds(61))
            try await h.put(["b"])
            h.clock.advance(by: .seconds(800))
            try await h.put(["c"])
            let object = try #require(try await h.sink.flush().first)
            #expect(object.key.matches(try keyPattern()))
            #expect(try h.contents(of: object) == Array("abc".utf8))

            // The next buffer starts at the clock's current time: 13:05:09 + 861 s = 13:19:30.
            try await h.put(["d"])
            let next = try #require(try await h.sink.flush().first)
            #expect(next.key.matches(try keyPattern(time: "2026-11-21-13-19-30")))
        }
    }

    @Test("An object whose records span an hour boundary is filed under the first record's hour")
    func hourBoundary() async throws {
        try await SinkHarness.with(now: fixedNow.addingTimeInterval(54 * 60 + 21)) { h in  // 13:59:30
            try h.sink.createStream(settings())
            try await h.put(["a"])
            h.clock.advance(by: .seconds(60))  // 14:00:30
            try await h.put(["b"])
            let object = try #require(try await h.sink.flush().first)
            #expect(object.key.matches(try keyPattern(time: "2026-11-21-13-59-30")))
            #expect(try h.contents(of: object) == Array("ab".utf8))
            #expect(h.clock.date == fixedNow.addingTimeInterval(55 * 60 + 21))
        }
    }

    @Test("A literal prefix gets the hour path appended with no '/' inserted")
    func literalPrefixes() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(stream: "slash", destination(prefix: "logs/")))
            try h.sink.createStream(settings(stream: "glued", destination(prefix: "logs")))
            try h.sink.createStream(settings(stream: "deep", destination(prefix: "a/b/c-")))
            for stream in ["slash", "glued", "deep"] { try await h.put([stream], to: stream) }
            let objects = try await h.sink.flush()
            let byStream = Dictionary(uniqueKeysWithValues: objects.map { ($0.stream, $0) })
            #expect(
                try #require(byStream["slash"]).key.matches(
                    try keyPattern(prefix: "logs/2026/11/21/13/", stream: "slash")))
            #expect(
                try #require(byStream["glued"]).key.matches(
                    try keyPattern(prefix: "logs2026/11/21/13/", stream: "glued")))
            #expect(
                try #require(byStream["deep"]).key.matches(
                    try keyPattern(prefix: "a/b/c-2026/11/21/13/", stream: "deep")))
            #expect(FileManager.default.fileExists(atPath: "\(h.bucketPath())/logs2026/11/21/13"))
        }
    }

    @Test("A prefix with expressions replaces the hour path and reads the first arrival")
    func expressionPrefix() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(
                settings(
                    destination(
                        prefix: "logs/!{timestamp:yyyy-MM-dd}/t=!{timestamp:HH-mm-ss}/",
                        errorOutputPrefix: "errors/!{firehose:error-output-type}/")))
            try await h.put(["a"])
            h.clock.advance(by: .seconds(600))
            try await h.put(["b"])
            let object = try #require(try await h.sink.flush().first)
            #expect(object.key.matches(try keyPattern(prefix: "logs/2026-11-21/t=13-05-09/")))
            #expect(try h.contents(of: object) == Array("ab".utf8))
        }
    }

    @Test("Many streams can share one bucket")
    func sharedBucket() async throws {
        try await SinkHarness.with { h in
            let names = (0..<6).map { "stream-\($0)" }
            for name in names { try h.sink.createStream(settings(stream: name)) }
            for (index, name) in names.enumerated() {
                try await h.put((0...index).map { "\(name)#\($0);" }, to: name)
            }
            let objects = try await h.sink.flush()
            #expect(objects.map(\.stream) == names)
            for (index, object) in objects.enumerated() {
                #expect(object.bucket == "demo-bucket")
                #expect(object.key.matches(try keyPattern(stream: names[index])))
                #expect(try h.contents(of: object) == Array((0...index).map { "\(names[index])#\($0);" }.joined().utf8))
            }
            #expect(h.files(under: h.bucketPath()) == objects.map(\.key).sorted())
            #expect(h.stagingIsEmpty)
        }
    }

    @Test(
        "A bucket's folder may be a link (to another disk); a link inside it is not followed: the delivery fails, stays staged, and says why"
    )
    func links() async throws {
        try await SinkHarness.with { h in
            let elsewhere = try SinkHarness.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: elsewhere) }
            try FileManager.default.createSymbolicLink(atPath: h.bucketPath(), withDestinationPath: elsewhere)
            try h.sink.createStream(try settings(destination(prefix: "inner/")))
            try await h.put(["linked;"])
            let object = try #require(try await h.sink.flush().first)
            #expect(FileManager.default.contents(atPath: "\(elsewhere)/\(object.key)") == Data("linked;".utf8))
            let outside = try SinkHarness.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: outside) }
            try FileManager.default.removeItem(atPath: "\(elsewhere)/inner")
            try FileManager.default.createSymbolicLink(atPath: "\(elsewhere)/inner", withDestinationPath: outside)
            try await h.put(["refused;"])
            let refused = await #expect(throws: SinkError.self) { try await h.sink.flush(stream: "demo") }
            #expect(
                refused?.description.contains("'inner' is a symbolic link, which is not followed inside a bucket")
                    == true)
            #expect(h.stagedFiles.count == 1)
            #expect(h.files(under: outside).isEmpty)
            try FileManager.default.removeItem(atPath: "\(elsewhere)/inner")
            let delivered = try #require(try await h.sink.flush(stream: "demo").first)
            #expect(FileManager.default.contents(atPath: "\(elsewhere)/\(delivered.key)") == Data("refused;".utf8))
        }
    }

    @Test("Before delivery the bucket has no files, only a staging .partial; after delivery staging is empty")
    func atomicity() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings())
            try await h.put(["hello ", "world"])
            try await h.put(["!"])
            #expect(h.files(under: h.bucketPath()).isEmpty)
            let staged = h.stagedFiles
            #expect(staged.count == 1)
            #expect(staged.first?.hasSuffix(".partial") == true)
            // The staging file already holds the acknowledged records.
            #expect(try h.contents("\(h.stagingDirectory)/\(staged[0])") == Array("hello world!".utf8))
            #expect(h.log.objects.isEmpty)

            let objects = try await h.sink.flush()
            #expect(objects.count == 1)
            #expect(h.stagingIsEmpty)
            #expect(h.files(under: h.bucketPath()) == [objects[0].key])
            #expect(h.files(under: h.directory) == ["demo-bucket/\(objects[0].key)"])
        }
    }

    @Test("GZIP: before delivery only a staging .partial exists; afterwards staging is empty")
    func gzipStaging() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings(destination(compression: "GZIP")))
            try await h.put(["staged"])
            #expect(h.files(under: h.bucketPath()).isEmpty)
            let staged = try #require(h.stagedFiles.first)
            #expect(staged.hasSuffix(".partial"))
            let object = try #require(try await h.sink.flush().first)
            #expect(try Gzip.decompress(h.contents(of: object), limit: 100) == Array("staged".utf8))
            #expect(h.stagingIsEmpty)
        }
    }
}

@Suite("Sink API")
struct SinkAPITests {
    @Test("flush(stream:) delivers only that stream; flush() the rest; empty buffers produce nothing")
    func flushOneAndAll() async throws {
        try await SinkHarness.with { h in
            for name in ["a", "b", "c"] { try h.sink.createStream(settings(stream: name)) }
            #expect(try await h.sink.flush().isEmpty)
            #expect(try await h.sink.flush(stream: "a").isEmpty)

            try await h.put(["1"], to: "a")
            try await h.put(["2"], to: "b")
            let first = try await h.sink.flush(stream: "a")
            #expect(first.map(\.stream) == ["a"])
            #expect(first.first?.reason == .flush)
            #expect(h.stagedFiles.count == 1)  // b is still buffered

            let rest = try await h.sink.flush()
            #expect(rest.map(\.stream) == ["b"])
            #expect(try await h.sink.flush().isEmpty)
            #expect(try await h.log.wait(count: 2).map(\.stream) == ["a", "b"])
            #expect(h.files(under: h.bucketPath()).count == 2)
        }
    }

    @Test("Unknown streams: put and flush(stream:) fail with isUnknownStream, naming the stream")
    func unknownStream() async throws {
        try await SinkHarness.with { h in
            let putError = await #expect(throws: SinkError.self) { try await h.put(["x"], to: "nope") }
            #expect(putError?.isUnknownStream == true)
            #expect(putError?.storageError == nil)
            #expect(putError?.streamName == "nope")
            let flushError = await #expect(throws: SinkError.self) { try await h.sink.flush(stream: "nope") }
            #expect(flushError == .unknownStream("nope"))
        }
    }

    @Test("createStream twice with the same name is refused as streamExists; the first stream stays")
    func duplicateStream() async throws {
        try await SinkHarness.with { h in
            try h.sink.createStream(settings())
            let error = #expect(throws: SinkError.self) {
                try h.sink.createStream(settings(destination(bucket: "other")))
            }
            #expect(error == .streamExists("demo"))
            #expect(error?.isUnknownStream == false)
            #expect(error?.isStreamExists == true)
            #expect(error?.streamName == "demo")
            // The first definition is kept.
            #expect(h.sink.settings(of: "demo")?.bucket == "demo-bucket")
            #expect(h.sink.streamNames == ["demo"])
        }
    }

    @Test("shutdown() delivers every buffer with reason .shutdown")
    func shutdown() async throws {
        try await SinkHarness.with { h in
            for name in ["s1", "s2", "s3"] { try h.sink.createStream(settings(stream: name)) }
            try h.sink.createStream(settings(stream: "idle"))
            for name in ["s1", "s2", "s3"] { try await h.put([name, "-tail"], to: name) }
            await h.sink.shutdown()
            let objects = try await h.log.wait(count: 3)
            #expect(objects.map(\.stream) == ["s1", "s2", "s3"])
            #expect(objects.allSatisfy { $0.reason == .shutdown })
            for object in objects {
                #expect(try h.contents(of: object) == Array("\(object.stream)-tail".utf8))
            }
            #expect(h.stagingIsEmpty)
        }
    }

    @Test("A new sink creates the staging folder; streamNames are sorted")
    func layout() async throws {
        try await SinkHarness.with { h in
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: h.stagingDirectory, isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
            #expect(h.sink.configuration.stagingDirectory == "\(h.directory)/.firehose-local/staging")
            for name in ["zeta", "alpha", "Mid"] { try h.sink.createStream(settings(stream: name)) }
            #expect(h.sink.streamNames == ["Mid", "alpha", "zeta"])
            #expect(h.sink.settings(of: "missing") == nil)
        }
    }
}
