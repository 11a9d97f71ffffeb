import FirehoseKeyLayout
import FirehoseWire
import Foundation
import Testing

@Suite("Prefix parsing")
struct S3PrefixTests {
    private let time = CivilDateTime(date: novemberArrival, utcOffsetSeconds: 0)

    private func evaluate(_ raw: String, role: S3Prefix.Role = .prefix, errorOutputType: String? = nil) throws -> String
    {
        var random = SeededGenerator(seed: 3)
        return try S3Prefix(raw, role: role).evaluate(at: time, errorOutputType: errorOutputType, randomSource: &random)
    }

    @Test(
        "Literal text and expressions",
        arguments: [
            ("logs/", false, "logs/"),
            ("!{timestamp:yyyy}", true, "2026"),
            ("a!b{c}/", false, "a!b{c}/"),
            ("!!{timestamp:yy}", true, "!26"),
            ("!{timestamp:MM}}", true, "11}"),
            ("{!{timestamp:dd}", true, "{21"),
            ("!{timestamp:}x/", true, "x/"),
            ("é/!{timestamp:HH}/", true, "é/13/"),
        ])
    func parsing(raw: String, hasExpressions: Bool, evaluated: String) throws {
        #expect(try S3Prefix(raw, role: .prefix).hasExpressions == hasExpressions)
        #expect(try evaluate(raw) == evaluated)
    }

    @Test("A prefix made of one expression still gets nothing appended")
    func singleExpression() throws {
        let layout = try layout(prefix: "!{timestamp:yyyy}", errorOutputPrefix: "!{firehose:error-output-type}")
        #expect(layout.key() == "2026app-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
        #expect(layout.errorKey() == "processing-failedapp-events-1-2026-11-21-13-05-09-\(fixedObjectIDText).gz")
    }

    @Test("error-output-type evaluates to the given type, every time it appears")
    func errorOutputType() throws {
        let raw = "!{firehose:error-output-type}/x-!{firehose:error-output-type}/"
        #expect(
            try evaluate(raw, role: .errorOutputPrefix, errorOutputType: "splunk-failed")
                == "splunk-failed/x-splunk-failed/")
        #expect(try S3Prefix(raw, role: .errorOutputPrefix).containsErrorOutputType)
        #expect(try !S3Prefix("!{firehose:random-string}/", role: .prefix).containsErrorOutputType)
    }

    @Test("Roles name their field and prefixes compare by content")
    func rolesAndEquality() throws {
        #expect(S3Prefix.Role.prefix.fieldName == "Prefix")
        #expect(S3Prefix.Role.errorOutputPrefix.fieldName == "ErrorOutputPrefix")
        #expect(try S3Prefix("a/", role: .prefix) == S3Prefix("a/", role: .prefix))
        #expect(try S3Prefix("a/", role: .prefix) != S3Prefix("b/", role: .prefix))
        #expect(try S3Prefix("a/", role: .prefix).raw == "a/")
    }

    @Test("A combining mark after '{' is not a delimiter")
    func scalarDelimiters() throws {
        // "!{\u{301}" is one grapheme after "!", but AWS, like this parser, sees the characters "!{".
        let error = layoutError { try _ = S3Prefix("!{\u{301}timestamp:yyyy}", role: .prefix) }
        #expect(error?.message.contains("Expression namespace must be one of") == true)
    }
}
