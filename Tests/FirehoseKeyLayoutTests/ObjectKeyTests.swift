import FirehoseKeyLayout
import FirehoseWire
import Foundation
import Testing

@Suite("Object keys")
struct ObjectKeyTests {
    @Test("No prefix gives the default yyyy/MM/dd/HH/ path in UTC")
    func defaultPrefix() throws {
        let key = try layout().key()
        #expect(key == "2026/11/21/13/app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test("An empty Prefix is no prefix")
    func emptyPrefix() throws {
        #expect(try layout(prefix: "").key() == layout(prefix: nil).key())
        #expect(try layout(prefix: "").prefix == nil)
    }

    @Test(
        "A literal prefix gets the hour path appended with no '/' inserted",
        arguments: [
            ("logs/", "logs/2026/11/21/13/"),
            ("logs", "logs2026/11/21/13/"),
            ("a/b/c-", "a/b/c-2026/11/21/13/"),
            ("year=", "year=2026/11/21/13/"),
        ])
    func literalPrefix(prefix: String, expected: String) throws {
        let key = try layout(prefix: prefix).key()
        #expect(key == "\(expected)app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test("A literal prefix needs no ErrorOutputPrefix")
    func literalPrefixNeedsNoErrorPrefix() throws {
        let layout = try layout(prefix: "logs/")
        #expect(layout.prefix?.hasExpressions == false)
        #expect(layout.errorOutputPrefix == nil)
    }

    @Test("The object ID prints lowercase and the version and extension are used as given")
    func suffixParts() throws {
        let key = try layout(stream: "S.t_r-m", fileExtension: ".snappy").key(version: 17)
        #expect(key == "2026/11/21/13/S.t_r-m-17-2026-11-21-13-05-09-\(fixedObjectIDText).snappy")
        let plain = try layout(fileExtension: "").key()
        #expect(plain.hasSuffix("-\(fixedObjectIDText)"))
    }

    @Test("A Hive-style expression prefix gets nothing appended")
    func hiveStylePrefix() throws {
        let layout = try layout(
            prefix: "year=!{timestamp:yyyy}/month=!{timestamp:MM}/",
            errorOutputPrefix: "errors/!{firehose:error-output-type}/"
        )
        #expect(layout.key() == "year=2026/month=11/app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test("An expression prefix without a trailing '/' runs straight into the stream name")
    func expressionPrefixWithoutSlash() throws {
        let layout = try layout(prefix: "d=!{timestamp:yyyyMMdd}", errorOutputPrefix: "!{firehose:error-output-type}/")
        #expect(layout.key() == "d=20261121app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test("Every timestamp in a prefix, and the suffix, read the same instant")
    func sameInstant() throws {
        // One millisecond before midnight: reading the clock twice could straddle the day.
        let instant = isoDate(2026, 12, 31, 23, 59, 59).addingTimeInterval(0.999)
        let layout = try layout(
            prefix:
                "!{timestamp:yyyy}/!{timestamp:MM}/!{timestamp:dd}/!{timestamp:HH:mm:ss.SSS}/!{timestamp:yyyy-MM-dd}/",
            errorOutputPrefix: "e/!{firehose:error-output-type}/"
        )
        let key = layout.key(at: instant)
        #expect(key == "2026/12/31/23:59:59.999/2026-12-31/app-events-1-2026-12-31-23-59-59-\(fixedObjectIDText).gz")
    }

    @Test("Each random-string occurrence is a fresh 11-character alphanumeric string")
    func randomStrings() throws {
        let layout = try layout(
            prefix: "a=!{firehose:random-string}/b=!{firehose:random-string}/",
            errorOutputPrefix: "e/!{firehose:error-output-type}/"
        )
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let key = layout.key(seed: 42)
        let segments = key.split(separator: "/")
        #expect(segments.count == 3)
        let first = segments[0].dropFirst(2)
        let second = segments[1].dropFirst(2)
        #expect(segments[0].hasPrefix("a=") && segments[1].hasPrefix("b="))
        #expect(first.count == 11 && second.count == 11)
        #expect(first.allSatisfy(alphabet.contains) && second.allSatisfy(alphabet.contains))
        #expect(first != second)
        // Same seed, same key; the next object draws new strings.
        #expect(layout.key(seed: 42) == key)
        var random = SeededGenerator(seed: 42)
        let one = layout.objectKey(
            versionId: 1, firstArrival: novemberArrival, objectID: fixedObjectID, randomSource: &random)
        let two = layout.objectKey(
            versionId: 1, firstArrival: novemberArrival, objectID: fixedObjectID, randomSource: &random)
        #expect(one == key)
        #expect(one != two)
    }

    @Test("Random strings use the whole alphabet")
    func randomStringCoverage() throws {
        let prefix = try S3Prefix("!{firehose:random-string}", role: .prefix)
        var random = SeededGenerator(seed: 7)
        var seen = Set<Character>()
        let time = CivilDateTime(date: novemberArrival, utcOffsetSeconds: 0)
        for _ in 0..<200 {
            seen.formUnion(prefix.evaluate(at: time, randomSource: &random))
        }
        #expect(seen.count == 62)
    }

    @Test("CustomTimeZone America/New_York follows daylight saving time")
    func newYork() throws {
        let layout = try layout(customTimeZone: "America/New_York")
        // Winter, UTC-5: 03:30Z is 22:30 the previous day.
        #expect(
            layout.key(at: isoDate(2026, 1, 15, 3, 30))
                == "2026/01/14/22/app-events-1-2026-01-14-22-30-00-\(fixedObjectIDText).gz")
        // Summer, UTC-4.
        #expect(
            layout.key(at: isoDate(2026, 7, 15, 3, 30))
                == "2026/07/14/23/app-events-1-2026-07-14-23-30-00-\(fixedObjectIDText).gz")
        // The spring-forward second: 01:59:59 EST is followed by 03:00:00 EDT.
        #expect(
            layout.key(at: isoDate(2026, 3, 8, 6, 59, 59)).hasPrefix("2026/03/08/01/app-events-1-2026-03-08-01-59-59-"))
        #expect(layout.key(at: isoDate(2026, 3, 8, 7)).hasPrefix("2026/03/08/03/app-events-1-2026-03-08-03-00-00-"))
    }

    @Test("CustomTimeZone Asia/Kolkata applies its half-hour offset to prefix expressions and suffix")
    func kolkata() throws {
        let layout = try layout(
            prefix: "dt=!{timestamp:yyyy-MM-dd}/h=!{timestamp:HH}/z=!{timestamp:XXX}/",
            errorOutputPrefix: "!{firehose:error-output-type}/",
            customTimeZone: "Asia/Kolkata"
        )
        // 18:45Z is 00:15 the next day in India.
        #expect(
            layout.key(at: isoDate(2026, 11, 21, 18, 45))
                == "dt=2026-11-22/h=00/z=+05:30/app-events-1-2026-11-22-00-15-00-\(fixedObjectIDText).gz"
        )
    }

    @Test("An empty CustomTimeZone is UTC")
    func emptyTimeZone() throws {
        #expect(try layout(customTimeZone: "").key() == layout().key())
        #expect(try layout(customTimeZone: "").timeZone.secondsFromGMT(for: novemberArrival) == 0)
    }

    @Test("The AWS developer guide's Hive-style example, Prefix and ErrorOutputPrefix")
    func developerGuideHiveExample() throws {
        let layout = try layout(
            prefix: "myPrefix/year=!{timestamp:yyyy}/month=!{timestamp:MM}/day=!{timestamp:dd}/hour=!{timestamp:HH}/",
            errorOutputPrefix:
                "myErrorPrefix/!{timestamp:'year='yyyy'/month='MM'/day='dd'/hour='HH}/!{firehose:error-output-type}"
        )
        let at = isoDate(2018, 7, 6, 23, 30)
        #expect(layout.key(at: at).hasPrefix("myPrefix/year=2018/month=07/day=06/hour=23/app-events-1-"))
        #expect(
            layout.errorKey(at: at).hasPrefix(
                "myErrorPrefix/year=2018/month=07/day=06/hour=23/processing-failedapp-events-1-"))
    }

    @Test("The AWS developer guide's random-string example")
    func developerGuideRandomExample() throws {
        let layout = try layout(
            prefix: "myFirehose/DeliveredYear=!{timestamp:yyyy}/anyMonth/rand=!{firehose:random-string}",
            errorOutputPrefix:
                "myFirehoseFailures/!{firehose:error-output-type}/!{timestamp:yyyy}/anyMonth/!{timestamp:dd}"
        )
        let at = isoDate(2018, 8, 10, 10, 30)
        let key = layout.key(at: at)
        #expect(key.hasPrefix("myFirehose/DeliveredYear=2018/anyMonth/rand="))
        let afterRand = key.dropFirst("myFirehose/DeliveredYear=2018/anyMonth/rand=".count)
        #expect(afterRand.prefix(11).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(afterRand.dropFirst(11).hasPrefix("app-events-1-2018-08-10-10-30-00-"))
        #expect(layout.errorKey(at: at).hasPrefix("myFirehoseFailures/processing-failed/2018/anyMonth/10app-events-1-"))
    }

    @Test(
        "Error keys without ErrorOutputPrefix: <Prefix><error-output-type>/yyyy/MM/dd/HH/",
        arguments: [
            (String?.none, "processing-failed/2026/11/21/13/"),
            ("logs/", "logs/processing-failed/2026/11/21/13/"),
            ("logs", "logsprocessing-failed/2026/11/21/13/"),
        ])
    func defaultErrorKeys(prefix: String?, expected: String) throws {
        let key = try layout(prefix: prefix).errorKey()
        #expect(key == "\(expected)app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test("A literal ErrorOutputPrefix stands in for Prefix in the default error layout")
    func literalErrorPrefix() throws {
        let key = try layout(prefix: "logs/", errorOutputPrefix: "errors/").errorKey("format-conversion-failed")
        #expect(
            key
                == "errors/format-conversion-failed/2026/11/21/13/app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz"
        )
    }

    @Test("An ErrorOutputPrefix with expressions is used alone; error-output-type repeats the same value")
    func expressionErrorPrefix() throws {
        let layout = try layout(
            prefix: "data/!{timestamp:yyyy}/",
            errorOutputPrefix:
                "errors/!{firehose:error-output-type}/!{timestamp:yyyy/MM}/!{firehose:error-output-type}-"
        )
        #expect(
            layout.errorKey()
                == "errors/processing-failed/2026/11/processing-failed-app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz"
        )
        #expect(layout.key().hasPrefix("data/2026/app-events-1-"))
    }

    @Test("Keys from valid layouts are safe relative paths")
    func keysAreSafe() throws {
        let layouts = try [
            layout(),
            layout(prefix: "logs"),
            layout(prefix: "a/b/", errorOutputPrefix: "e/"),
            layout(
                prefix: "!{timestamp:yyyy}/!{firehose:random-string}/",
                errorOutputPrefix: "!{firehose:error-output-type}/"),
        ]
        for layout in layouts {
            #expect(ObjectKeyLayout.isSafeRelativePath(layout.key()))
            #expect(ObjectKeyLayout.isSafeRelativePath(layout.errorKey()))
        }
    }
}

@Suite("Dynamic partitioning keys")
struct PartitionKeyLayoutTests {
    static let prefix =
        "customer=!{partitionKeyFromQuery:customer}/!{timestamp:yyyy}/d=!{partitionKeyFromLambda:device}/"

    static func partitioned() throws -> ObjectKeyLayout {
        try layout(prefix: prefix, errorOutputPrefix: "errors/!{firehose:error-output-type}/")
    }

    @Test("The prefix lists its keys once each, in order, with their namespace")
    func keysListed() throws {
        let prefix = try S3Prefix(
            "!{partitionKeyFromQuery:a}/!{partitionKeyFromLambda:a}/!{partitionKeyFromQuery:b}/!{partitionKeyFromQuery:a}",
            role: .prefix)
        #expect(
            prefix.partitionKeys.map { "\($0.source.rawValue):\($0.name)" } == [
                "partitionKeyFromQuery:a", "partitionKeyFromLambda:a", "partitionKeyFromQuery:b",
            ])
        #expect(prefix.hasExpressions)
    }

    @Test("Each key is replaced by its partition's value; nothing is appended but the object name")
    func evaluated() throws {
        var random = SeededGenerator(seed: 1)
        let key = try Self.partitioned().objectKey(
            versionId: 1, firstArrival: novemberArrival,
            partition: PartitionValues(fromQuery: ["customer": "42"], fromLambda: ["device": "ios/17"]),
            objectID: fixedObjectID, randomSource: &random)
        #expect(key == "customer=42/2026/d=ios/17/app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test("Error objects of a partitioned stream are keyed by ErrorOutputPrefix alone")
    func errorKey() throws {
        #expect(
            try Self.partitioned().errorKey("metadata-extraction-failed")
                == "errors/metadata-extraction-failed/app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test(
        "Values that make a key the file system cannot hold are refused, naming why",
        arguments: [
            (["customer": "x/."], "path segment '.' is not allowed"),
            (["customer": "a/../.."], "path segment '..' is not allowed"),
            (["customer": "x//y"], "empty path segments (a leading '/' or '//') are not allowed"),
            (["customer": "a\u{0}b"], "NUL characters are not allowed"),
            (
                ["customer": String(repeating: "x", count: 250)],
                "a path segment of its keys can exceed 255 bytes, the file-name limit of the local file system"
            ),
        ])
    func unstorable(values: [String: String], reason: String) throws {
        let layout = try Self.partitioned()
        let error = layoutError {
            try layout.checkPartition(
                PartitionValues(fromQuery: values, fromLambda: ["device": "d"]), maxKeyBytes: 4096)
        }
        #expect(
            error?.message
                == "The partition key values make an object key that cannot be stored locally: \(reason) (firehose-local maps keys to directories)."
        )
    }

    @Test("A value may hold '/' and dots within a segment; a value missing for a used key is refused")
    func storableAndMissing() throws {
        let layout = try Self.partitioned()
        let fine = PartitionValues(fromQuery: ["customer": "a/b.c"], fromLambda: ["device": ".."])
        #expect(layoutError { try layout.checkPartition(fine, maxKeyBytes: 4096) } == nil)
        let missing = layoutError {
            try layout.checkPartition(PartitionValues(fromQuery: ["customer": "1"]), maxKeyBytes: 4096)
        }
        #expect(missing?.message == "The record has no value for !{partitionKeyFromLambda:device}, which Prefix uses.")
    }

    @Test("A key longer than the local path limit leaves is refused; one byte less fits")
    func keyBudget() throws {
        let layout = try layout(
            prefix: "customer=!{partitionKeyFromQuery:customer}/", errorOutputPrefix: "e/!{firehose:error-output-type}/"
        )
        let values = PartitionValues(fromQuery: ["customer": "42"])
        var random = SeededGenerator(seed: 1)
        let longest = layout.objectKey(
            versionId: 1_000_000_000, firstArrival: novemberArrival, partition: values, objectID: fixedObjectID,
            randomSource: &random
        ).utf8.count
        #expect(layoutError { try layout.checkPartition(values, maxKeyBytes: longest) } == nil)
        let error = layoutError { try layout.checkPartition(values, maxKeyBytes: longest - 1) }
        #expect(error?.message.contains("its keys can reach \(longest) bytes, beyond the \(longest - 1)") == true)
    }
}
