import FirehoseKeyLayout
import FirehoseWire
import Foundation
import Testing

@Suite("Local path safety")
struct PathSafetyTests {
    @Test("The brief's message for a parent-directory prefix")
    func parentDirectoryMessage() {
        let error = layoutError { try _ = layout(prefix: "../x/") }
        #expect(
            error
                == KeyLayoutError(
                    errorType: "InvalidArgumentException",
                    message:
                        "Prefix '../x/' cannot be stored locally: path segment '..' is not allowed (firehose-local maps keys to directories)."
                )
        )
    }

    @Test(
        "Prefixes whose literal text makes '.', '..' or empty segments are refused",
        arguments: [
            ("../x/", "path segment '..' is not allowed"),
            ("a/./b", "path segment '.' is not allowed"),
            ("a/../", "path segment '..' is not allowed"),
            ("..", "path segment '..' is not allowed"),
            (".", "path segment '.' is not allowed"),
            ("x/..", "path segment '..' is not allowed"),
            ("/abs/", "empty path segments (a leading '/' or '//') are not allowed"),
            ("a//b/", "empty path segments (a leading '/' or '//') are not allowed"),
            ("x\u{0}y/", "NUL characters are not allowed"),
        ])
    func literalSegments(prefix: String, reason: String) {
        let error = layoutError { try _ = layout(prefix: prefix) }
        #expect(
            error?.message
                == "Prefix '\(prefix)' cannot be stored locally: \(reason) (firehose-local maps keys to directories).")
    }

    @Test(
        "Segments are split as the file system splits bytes: a combining mark cannot hide a '/'",
        arguments: [
            ("a/../\u{301}x/", "path segment '..' is not allowed"),
            ("../\u{301}", "path segment '..' is not allowed"),
            ("a/\u{301}/../b/", "path segment '..' is not allowed"),
            ("a//\u{301}b/", "empty path segments (a leading '/' or '//') are not allowed"),
            ("/\u{301}abs/", "empty path segments (a leading '/' or '//') are not allowed"),
        ])
    func combiningMarks(prefix: String, reason: String) {
        // Each prefix holds a "/" followed by a combining mark: one Character, two scalars.
        #expect(prefix.contains("/\u{301}"))
        let error = layoutError { try _ = layout(prefix: prefix) }
        #expect(
            error?.message
                == "Prefix '\(prefix)' cannot be stored locally: \(reason) (firehose-local maps keys to directories).")
    }

    @Test("A dot with a combining mark is a different name on disk, and allowed")
    func dotWithCombiningMark() throws {
        let layout = try layout(prefix: "a/.\u{301}/b/")
        #expect(ObjectKeyLayout.isSafeRelativePath(layout.key()))
    }

    @Test("Lengths count UTF-16 code units, as AWS's Java validator does: an emoji counts 2")
    func utf16Lengths() throws {
        let emoji = "\u{1F600}"
        // 512 emoji are 1024 units but one 2048-byte segment; spread over segments they fit.
        let fits = (0..<8).map { _ in String(repeating: emoji, count: 60) }.joined(separator: "/") + "/"
        #expect(fits.utf16.count == 8 * 120 + 8)
        _ = try layout(prefix: fits)
        let tooLong = String(repeating: emoji, count: 513)
        #expect(tooLong.count == 513)
        for error in [
            layoutError { try _ = layout(prefix: tooLong) }, layoutError { try _ = S3Prefix(tooLong, role: .prefix) },
        ] {
            #expect(error?.errorType == "ValidationException")
            #expect(error?.message.contains("Member must have length less than or equal to 1024") == true)
        }
        // 1,024 emoji: the attack of the report (4,096 bytes in a segment).
        #expect(
            layoutError { try _ = layout(prefix: String(repeating: emoji, count: 1024) + "/") }?.errorType
                == "ValidationException")
        #expect(
            layoutError { try _ = layout(stream: String(repeating: "s", count: 64) + emoji) }?.message
                .contains("Member must have length less than or equal to 64") == true)
    }

    @Test("The longest key counts every expression at its longest, data or error object")
    func longestKey() throws {
        // app-events-<10 digits>-yyyy-MM-dd-HH-mm-ss-<uuid>.gz
        let name = 10 + 1 + 10 + 1 + 19 + 1 + 36 + 3
        #expect(try layout().longestKey == (32 + 1 + 14 + name, "Prefix"))  // processing-failed etc.: 32 bytes
        #expect(try layout(prefix: "€/").longestKey == (4 + 32 + 1 + 14 + name, "Prefix"))
        let expressions = try layout(
            prefix: "p/!{timestamp:EEEE}/!{firehose:random-string}/",
            errorOutputPrefix: "e/!{firehose:error-output-type}/")
        #expect(expressions.longestKey == (2 + 32 + 1 + name, "ErrorOutputPrefix"))  // the error key is longer
        let longData = try layout(
            prefix: "pp/!{timestamp:EEEE}/!{timestamp:MMMM}/!{firehose:random-string}/",
            errorOutputPrefix: "e/!{firehose:error-output-type}/")
        #expect(longData.longestKey == (3 + 9 + 1 + 9 + 1 + 11 + 1 + name, "Prefix"))
        let longError = try layout(prefix: "p/", errorOutputPrefix: String(repeating: "e", count: 200) + "/")
        #expect(longError.longestKey == (201 + 32 + 1 + 14 + name, "ErrorOutputPrefix"))
        // Every key the layout makes is within its bound.
        for layout in [expressions, longData, longError] {
            #expect(layout.key().utf8.count <= layout.longestKey.bytes)
            #expect(
                layout.errorKey(ObjectKeyLayout.ErrorOutputType.formatConversionFailed).utf8.count
                    <= layout.longestKey.bytes)
        }
    }

    @Test(
        "Literal parts of timestamp patterns count as literal text",
        arguments: [
            "!{timestamp:'..'}/", "!{timestamp:..}/x/", "a/!{timestamp:'.'}", "a/!{timestamp:'/'}/",
            "!{timestamp:'/.'}/",
            "!{timestamp:[..]}/",
        ])
    func patternLiterals(prefix: String) {
        let error = layoutError {
            try _ = layout(prefix: prefix, errorOutputPrefix: "e/!{firehose:error-output-type}/")
        }
        #expect(error?.message.hasPrefix("Prefix '\(prefix)' cannot be stored locally: ") == true)
    }

    @Test(
        "Dots next to evaluated text are fine",
        arguments: [
            "!{timestamp:yyyy}../", "..!{timestamp:yyyy}/", ".!{firehose:random-string}/", "a.b/..c/.d/",
            "!{timestamp:yyyy'.'MM}/", "v1.0/!{timestamp:yyyy}/",
        ])
    func dotsWithEvaluatedText(prefix: String) throws {
        let layout = try layout(prefix: prefix, errorOutputPrefix: "e/!{firehose:error-output-type}/")
        #expect(ObjectKeyLayout.isSafeRelativePath(layout.key()))
    }

    @Test("ErrorOutputPrefix is held to the same rule")
    func errorPrefixSegments() {
        let error = layoutError { try _ = layout(errorOutputPrefix: "../!{firehose:error-output-type}/") }
        #expect(
            error?.message
                == "ErrorOutputPrefix '../!{firehose:error-output-type}/' cannot be stored locally: path segment '..' is not allowed (firehose-local maps keys to directories)."
        )
    }

    @Test("Segments that could exceed the 255-byte file-name limit are refused")
    func segmentLength() throws {
        // A closed segment of 255 bytes is fine, 256 is not.
        _ = try layout(prefix: String(repeating: "a", count: 255) + "/")
        let closed = String(repeating: "a", count: 256) + "/"
        #expect(layoutError { try _ = layout(prefix: closed) }?.message.contains("can exceed 255 bytes") == true)
        // A literal tail runs into the four-digit year...
        _ = try layout(prefix: String(repeating: "a", count: 251), errorOutputPrefix: "e/")
        #expect(
            layoutError { try _ = layout(prefix: String(repeating: "a", count: 252), errorOutputPrefix: "e/") } != nil)
        // ...and, without an ErrorOutputPrefix, into an error type of up to 32 bytes.
        _ = try layout(prefix: String(repeating: "a", count: 223))
        #expect(layoutError { try _ = layout(prefix: String(repeating: "a", count: 224)) } != nil)
        // Evaluated text counts at its widest: EEEE can be "Wednesday" (28 fit, 29 do not).
        _ = try layout(
            prefix: String(repeating: "!{timestamp:EEEE}", count: 28) + "/",
            errorOutputPrefix: "e/!{firehose:error-output-type}")
        let weekdays = String(repeating: "!{timestamp:EEEE}", count: 29) + "/"
        #expect(
            layoutError { try _ = layout(prefix: weekdays, errorOutputPrefix: "!{firehose:error-output-type}/") }?
                .message.contains("can exceed 255 bytes") == true
        )
        // A long stream name with a long extension would overflow the object name itself.
        let ext = "." + String(repeating: "x", count: 127)
        let error = layoutError { try _ = layout(stream: String(repeating: "s", count: 64), fileExtension: ext) }
        #expect(error?.message.hasPrefix("FileExtension '\(ext)' cannot be stored locally with stream name") == true)
    }

    @Test(
        "isSafeRelativePath",
        arguments: [
            ("2026/11/21/13/s-1-2026-11-21-13-05-09-x.gz", true),
            ("a", true),
            ("..a/b..", true),
            ("", false),
            ("/abs", false),
            ("a/", false),
            ("a//b", false),
            ("./a", false),
            ("a/./b", false),
            ("a/../b", false),
            ("..", false),
            ("a/b\u{0}c", false),
            (String(repeating: "n", count: 255), true),
            (String(repeating: "n", count: 256), false),
            (String(repeating: "é", count: 128), false),  // 256 bytes
        ])
    func safeRelativePath(key: String, safe: Bool) {
        #expect(ObjectKeyLayout.isSafeRelativePath(key) == safe)
    }

    @Test("Whatever prefix is accepted, its keys are safe relative paths")
    func acceptedPrefixesGiveSafeKeys() {
        // Random prefixes over the characters and expressions that matter for paths.
        let pieces = [
            "a", ".", "..", "/", "x.y", "!{timestamp:yyyy}", "!{timestamp:'.'}", "!{timestamp:'/'}", "!{timestamp:..}",
            "!{firehose:random-string}", "!{timestamp:yyyy/MM}", "-",
        ]
        var random = SeededGenerator(seed: 2026)
        var accepted = 0
        for _ in 0..<3000 {
            let count = Int.random(in: 1...6, using: &random)
            let prefix = (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
            guard let layout = try? layout(prefix: prefix, errorOutputPrefix: "e/!{firehose:error-output-type}/") else {
                continue
            }
            accepted += 1
            let key = layout.key(seed: random.next())
            #expect(ObjectKeyLayout.isSafeRelativePath(key), "prefix \(prefix) gave \(key)")
            #expect(ObjectKeyLayout.isSafeRelativePath(layout.errorKey()), "prefix \(prefix)")
        }
        // The generator must exercise both outcomes for the property to mean anything.
        #expect(accepted > 300 && accepted < 2900)
    }
}
