import AWSSigV4
public import ArgumentParser
import HTTPTransports

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `firehose-local flush`: asks a running server to deliver its buffers now (`POST /_local/flush`).
public struct FlushCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "flush",
        abstract: "Deliver buffered records now, on a running server (POST /_local/flush).",
        discussion: """
            Returns once the objects are on disk. Prints one line per object written, tab-separated: \
            bucket, key, records, stored bytes (nothing when every buffer was empty); with --json, the \
            server's answer: {"objects": [{"stream", "bucket", "key", "records", "bytes", "storedBytes"}]}.

            Exits 1 with a message on stderr when the server cannot be reached or answers an error \
            (for example 404 ResourceNotFoundException for an unknown --stream).
            """
    )

    @Option(help: "Only this delivery stream (default: every stream).")
    var stream: String?

    @Option(
        help: "Server to talk to. [FIREHOSE_LOCAL_ENDPOINT] (default: \(ServerEndpoint.defaultURL))")
    var endpoint: String?

    @Flag(help: "Print the server's JSON answer instead of one line per object.")
    var json = false

    @Option(help: "Seconds to wait for the connection and the answer, in all.")
    var timeout: Double = 120

    public init() {}

    public func validate() throws {
        guard timeout > 0, timeout.isFinite else {
            throw ValidationError("--timeout must be a positive number of seconds.")
        }
        if let stream, stream.isEmpty { throw ValidationError("--stream must not be empty.") }
    }

    public func run() async throws {
        try await CLIOutput.run { () async throws(CLIError) in
            let endpoint = try ServerEndpoint(
                parsing: Environment.value(endpoint, "FIREHOSE_LOCAL_ENDPOINT") ?? ServerEndpoint.defaultURL)
            let output = try await Self.flush(endpoint: endpoint, stream: stream, json: json, timeout: timeout)
            try CLIOutput.write(output)
        }
    }

    /// Performs the flush and returns what the command prints.
    static func flush(endpoint: ServerEndpoint, stream: String?, json: Bool, timeout: Double)
        async throws(CLIError) -> [UInt8]
    {
        let target = "/_local/flush" + (stream.map { "?stream=\(Self.percentEncoded($0))" } ?? "")
        let response = try await endpoint.send(method: "POST", target: target, timeout: timeout)
        guard response.status == 200 else { throw Self.serverError(response, action: "flush") }
        if json {
            var body = response.body
            if body.last != UInt8(ascii: "\n") { body.append(UInt8(ascii: "\n")) }
            return body
        }
        let answer: FlushAnswer
        do {
            answer = try JSONDecoder().decode(FlushAnswer.self, from: Data(response.body))
        } catch {
            throw CLIError(
                message:
                    "the server's flush answer is not the expected JSON: \(String(decoding: response.body.prefix(300), as: UTF8.self))"
            )
        }
        return Array(answer.objects.map { "\($0.bucket)\t\($0.key)\t\($0.records)\t\($0.storedBytes)\n" }.joined().utf8)
    }

    struct FlushAnswer: Decodable {
        struct Object: Decodable {
            var stream: String
            var bucket: String
            var key: String
            var records: Int
            var bytes: Int
            var storedBytes: Int
        }

        var objects: [Object]
    }

    struct ErrorAnswer: Decodable {
        var type: String?
        var message: String?

        enum CodingKeys: String, CodingKey {
            case type = "__type"
            case message
        }
    }

    /// `flush failed: HTTP 404 ResourceNotFoundException: Firehose x under account ... not found.`
    static func serverError(_ response: HTTPResponse, action: String) -> CLIError {
        if let answer = try? JSONDecoder().decode(ErrorAnswer.self, from: Data(response.body)) {
            let code = answer.type ?? response.header("x-amzn-ErrorType") ?? "error"
            return CLIError(message: "\(action) failed: HTTP \(response.status) \(code): \(answer.message ?? "")")
        }
        let text = String(decoding: response.body.prefix(300), as: UTF8.self)
        return CLIError(message: "\(action) failed: HTTP \(response.status)\(text.isEmpty ? "" : ": \(text)")")
    }

    /// Query value encoding: unreserved characters as they are, everything else `%XX`.
    static func percentEncoded(_ text: String) -> String {
        URIEncoding.encode(text)
    }
}
