import FirehoseKeyLayout
import Foundation
import Testing

private let lead = "Ths supplied prefix(es) do not satisfy the following constraint: "

@Suite("Configuration validation")
struct ValidationTests {
    @Test(
        "Prefix with expressions needs an ErrorOutputPrefix (AWS's wording, typo included)",
        arguments: [
            String?.none, "",
        ])
    func errorPrefixRequired(errorOutputPrefix: String?) {
        let error = layoutError { try _ = layout(prefix: "!{timestamp:yyyy}/", errorOutputPrefix: errorOutputPrefix) }
        #expect(
            error
                == KeyLayoutError(
                    errorType: "InvalidArgumentException",
                    message:
                        "Ths supplied prefix(es) do not satisfy the following constraint: ErrorOutputPrefix cannot be null or empty when Prefix contains expressions"
                )
        )
    }

    @Test("A random-string alone also counts as an expression")
    func randomStringNeedsErrorPrefix() {
        let error = layoutError { try _ = layout(prefix: "r=!{firehose:random-string}/") }
        #expect(error?.message == lead + "ErrorOutputPrefix cannot be null or empty when Prefix contains expressions")
    }

    @Test("Prefix cannot contain error-output-type")
    func errorTypeInPrefix() {
        let error = layoutError {
            try _ = layout(
                prefix: "x/!{firehose:error-output-type}/", errorOutputPrefix: "e/!{firehose:error-output-type}")
        }
        #expect(
            error
                == KeyLayoutError(
                    errorType: "InvalidArgumentException",
                    message: lead + "Prefix cannot contain !{firehose:error-output-type}"))
    }

    @Test("An ErrorOutputPrefix with expressions must contain error-output-type")
    func errorPrefixNeedsErrorType() {
        let error = layoutError { try _ = layout(errorOutputPrefix: "errors/!{timestamp:yyyy}/") }
        #expect(
            error?.message
                == lead
                + "ErrorOutputPrefix must contain at least one !{firehose:error-output-type} when it contains expressions"
        )
        #expect(error?.errorType == "InvalidArgumentException")
    }

    @Test("A literal ErrorOutputPrefix needs no error-output-type")
    func literalErrorPrefixAllowed() throws {
        #expect(try layout(errorOutputPrefix: "errors/").errorOutputPrefix?.hasExpressions == false)
    }

    @Test(
        "Malformed !{ sequences",
        arguments: [
            (
                "logs/!{timestamp:yyyy",
                "The sequence !{ can only appear in !{namespace:value} expressions, but Prefix has an unterminated '!{timestamp:yyyy'"
            ),
            (
                "logs/!{timestamp}/",
                "The sequence !{ can only appear in !{namespace:value} expressions, but Prefix has '!{timestamp}' without a ':'"
            ),
            (
                "!{",
                "The sequence !{ can only appear in !{namespace:value} expressions, but Prefix has an unterminated '!{'"
            ),
        ])
    func malformed(prefix: String, constraint: String) {
        let error = layoutError { try _ = S3Prefix(prefix, role: .prefix) }
        #expect(error == KeyLayoutError(errorType: "InvalidArgumentException", message: lead + constraint))
    }

    @Test("Unknown namespaces and firehose values")
    func unknownNamespace() {
        let namespace = layoutError { try _ = S3Prefix("!{foo:bar}/", role: .prefix) }
        #expect(
            namespace?.message
                == lead
                + "Expression namespace must be one of timestamp, firehose, partitionKeyFromQuery, partitionKeyFromLambda, but Prefix has '!{foo:bar}'"
        )
        let caseMatters = layoutError { try _ = S3Prefix("!{Timestamp:yyyy}/", role: .prefix) }
        #expect(caseMatters?.message.hasSuffix("but Prefix has '!{Timestamp:yyyy}'") == true)
        let value = layoutError { try _ = S3Prefix("!{firehose:random}/", role: .errorOutputPrefix) }
        #expect(
            value?.message
                == lead
                + "The firehose namespace only supports the values random-string and error-output-type, but ErrorOutputPrefix has '!{firehose:random}'"
        )
    }

    @Test("Invalid timestamp patterns quote Java's reason")
    func invalidTimestampPattern() {
        let error = layoutError { try _ = S3Prefix("!{timestamp:yyyy-bb}/", role: .prefix) }
        #expect(
            error?.message
                == lead
                + "The value of Prefix expression '!{timestamp:yyyy-bb}' must be a valid Java DateTimeFormatter pattern: Unknown pattern letter: b"
        )
        let quote = layoutError { try _ = S3Prefix("!{timestamp:yyyy'}/", role: .prefix) }
        #expect(quote?.message.hasSuffix("Pattern ends with an incomplete string literal: yyyy'") == true)
        let brace = layoutError { try _ = S3Prefix("!{timestamp:yy{yy}/", role: .prefix) }
        #expect(brace?.message.hasSuffix("Pattern includes reserved character: '{'") == true)
    }

    @Test("Locale-dependent timestamp letters are refused as not supported, not as invalid")
    func unsupportedTimestampLetter() {
        let error = layoutError { try _ = S3Prefix("week=!{timestamp:ww}/", role: .prefix) }
        #expect(
            error
                == KeyLayoutError(
                    errorType: "InvalidArgumentException",
                    message:
                        "Prefix expression '!{timestamp:ww}' cannot be evaluated by firehose-local: pattern letter 'w' is not supported (week-of-week-based-year depends on the JVM locale's week rules)."
                )
        )
    }

    @Test(
        "Dynamic partitioning keys are not allowed in ErrorOutputPrefix",
        arguments: ["!{partitionKeyFromQuery:customer_id}/", "!{partitionKeyFromLambda:device}/"])
    func partitionKeysInErrorPrefix(key: String) {
        let error = layoutError {
            try _ = layout(prefix: "p/!{timestamp:yyyy}/", errorOutputPrefix: "e/!{firehose:error-output-type}/\(key)")
        }
        #expect(
            error
                == KeyLayoutError(
                    errorType: "InvalidArgumentException",
                    message:
                        "Ths supplied prefix(es) do not satisfy the following constraint: ErrorOutputPrefix cannot contain dynamic partitioning namespaces (partitionKeyFromQuery, partitionKeyFromLambda), but has '\(key.dropLast())'"
                ))
    }

    @Test("A dynamic partitioning expression must name its key")
    func unnamedPartitionKey() {
        let error = layoutError {
            try _ = layout(
                prefix: "c=!{partitionKeyFromQuery:}/", errorOutputPrefix: "e/!{firehose:error-output-type}/")
        }
        #expect(
            error?.message
                == "Ths supplied prefix(es) do not satisfy the following constraint: A dynamic partitioning expression must name its key, but Prefix has '!{partitionKeyFromQuery:}'"
        )
    }

    @Test("Prefix and ErrorOutputPrefix are limited to 1024 characters")
    func lengthLimit() throws {
        let longest = String(repeating: "a/", count: 512)
        #expect(try S3Prefix(longest, role: .prefix).raw.count == 1024)
        let tooLong = longest + "a"
        let error = layoutError { try _ = layout(prefix: tooLong) }
        #expect(
            error
                == KeyLayoutError(
                    errorType: "ValidationException",
                    message:
                        "1 validation error detected: Value '\(tooLong)' at 'prefix' failed to satisfy constraint: Member must have length less than or equal to 1024"
                )
        )
        let errorPrefix = layoutError { try _ = layout(errorOutputPrefix: tooLong) }
        #expect(errorPrefix?.message.contains("at 'errorOutputPrefix' failed") == true)
        let withPath = layoutError {
            try _ = S3Prefix(tooLong, role: .prefix, memberPath: "extendedS3DestinationConfiguration.prefix")
        }
        #expect(withPath?.message.contains("at 'extendedS3DestinationConfiguration.prefix' failed") == true)
    }

    @Test("CustomTimeZone follows the model pattern, then must name a real zone")
    func customTimeZone() throws {
        #expect(try ObjectKeyLayout.validateCustomTimeZone(nil).secondsFromGMT(for: novemberArrival) == 0)
        #expect(
            try ObjectKeyLayout.validateCustomTimeZone("Asia/Tokyo").secondsFromGMT(for: novemberArrival) == 9 * 3600)
        let pattern = layoutError { _ = try ObjectKeyLayout.validateCustomTimeZone("Etc/GMT+5") }
        #expect(
            pattern
                == KeyLayoutError(
                    errorType: "ValidationException",
                    message:
                        "1 validation error detected: Value 'Etc/GMT+5' at 'customTimeZone' failed to satisfy constraint: Member must satisfy regular expression pattern: ^$|[a-zA-Z/_]+"
                )
        )
        let long = String(repeating: "A", count: 51)
        let length = layoutError { _ = try ObjectKeyLayout.validateCustomTimeZone(long) }
        #expect(length?.message.hasSuffix("Member must have length less than or equal to 50") == true)
        let unknown = layoutError { try _ = layout(customTimeZone: "Mars/Olympus") }
        #expect(
            unknown
                == KeyLayoutError(
                    errorType: "InvalidArgumentException",
                    message:
                        "CustomTimeZone 'Mars/Olympus' is not a supported time zone; use an IANA time zone ID such as Asia/Tokyo."
                )
        )
    }

    @Test(
        "FileExtension follows the model: optional, a dot then [0-9a-z!-_.*'()], at most 128",
        arguments: [
            ("", true), (".gz", true), (".tar.gz", true), (".json'()*!-_", true), (".parquet", true),
            ("gz", false), (".GZ", false), (".", false), (".a/b", false), (".a b", false), (".é", false),
        ])
    func fileExtension(value: String, valid: Bool) {
        let error = layoutError { try ObjectKeyLayout.validateFileExtension(value) }
        if valid {
            #expect(error == nil)
        } else {
            #expect(
                error
                    == KeyLayoutError(
                        errorType: "ValidationException",
                        message:
                            "1 validation error detected: Value '\(value)' at 'fileExtension' failed to satisfy constraint: Member must satisfy regular expression pattern: ^$|\\.[0-9a-z!\\-_.*'()]+"
                    )
            )
        }
    }

    @Test("FileExtension length and member path")
    func fileExtensionLength() {
        #expect(
            layoutError { try ObjectKeyLayout.validateFileExtension("." + String(repeating: "a", count: 127)) } == nil)
        let tooLong = "." + String(repeating: "a", count: 128)
        let error = layoutError { try ObjectKeyLayout.validateFileExtension(tooLong, memberPath: "x.fileExtension") }
        #expect(
            error?.message
                == "1 validation error detected: Value '\(tooLong)' at 'x.fileExtension' failed to satisfy constraint: Member must have length less than or equal to 128"
        )
        #expect(layoutError { try _ = layout(fileExtension: "gz") }?.errorType == "ValidationException")
    }

    @Test("Stream names follow the model", arguments: ["a/b", "", String(repeating: "s", count: 65), "strëam"])
    func streamName(name: String) {
        let error = layoutError { try _ = layout(stream: name) }
        #expect(error?.errorType == "ValidationException")
        #expect(error?.message.contains("at 'deliveryStreamName' failed to satisfy constraint") == true)
    }

    @Test("Model checks come before the meaning of the prefixes")
    func validationOrder() {
        let error = layoutError { try _ = layout(prefix: "!{foo:bar}", customTimeZone: "Etc/GMT+5") }
        #expect(error?.errorType == "ValidationException")
    }

    @Test("The error describes itself as type and message")
    func description() {
        let error = KeyLayoutError(errorType: "InvalidArgumentException", message: "nope")
        #expect(error.description == "InvalidArgumentException: nope")
    }
}
