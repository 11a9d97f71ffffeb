import FirehoseKeyLayout
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
