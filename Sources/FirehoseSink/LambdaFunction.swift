import AsyncHTTPClientTransport
import FirehoseWire
package import HTTPTransports

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a `Lambda` processor's function runs on this machine, and how it is invoked: one event in,
/// the function's answer (still to be read with `LambdaContract.outcomes`) or the failure of the
/// invocation out, in the error codes AWS writes for them.
package enum LambdaFunction: Sendable, Equatable {
    /// A command: the event on its standard input, the answer on its standard output; a non-zero
    /// exit is a function error.
    case command([String])
    /// A server speaking the Lambda Invoke API (`POST /2015-03-31/functions/NAME/invocations`), as
    /// the AWS Lambda Runtime Interface Emulator (whose NAME is always `function`) and
    /// `sam local start-lambda` serve it.
    case invokeAPI(endpoint: URL, functionName: String)
    /// No function of this name runs here: AWS creates such a stream, and every invocation fails as
    /// one of a function that does not exist (`Lambda.ResourceNotFound`).
    case notMapped

    /// Invokes the function with `event`, waiting at most `timeout`.
    /// - Parameter transport: how an Invoke API endpoint is reached (the sink's outbound HTTP).
    package func invoke(_ event: [UInt8], timeout: Duration, transport: any HTTPTransport = AsyncHTTPClientTransport())
        async -> Result<[UInt8], LambdaContract.Failure>
    {
        switch self {
        case .command(let arguments):
            return Self.interpret(
                await CommandInvocation.run(
                    arguments, input: event, timeout: timeout, maxAnswerBytes: LambdaContract.maxPayloadBytes))
        case .invokeAPI(let endpoint, let name):
            let url = endpoint.appendingPathComponent("2015-03-31/functions/\(name)/invocations")
            let request = HTTPRequest(
                url: url, method: "POST",
                headers: [("Content-Type", "application/json"), ("X-Amz-Invocation-Type", "RequestResponse")],
                body: event, timeout: timeout, maxResponseBytes: LambdaContract.maxPayloadBytes + 1)
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch let failure as TransportFailure where failure.timedOut {
                return .failure(.functionTimedOut)
            } catch let failure as TransportFailure where failure.answerTooLarge {
                return .failure(.functionError("The Invoke API answered more than the 6 MB a Lambda answer may hold."))
            } catch {
                return .failure(
                    .invocationFailed("The Invoke API at \(url.absoluteString) could not be reached: \(error)."))
            }
            return Self.interpret(response, url: url)
        case .notMapped:
            return .failure(.resourceNotFound)
        }
    }

    private static func interpret(_ outcome: CommandInvocation.Outcome) -> Result<[UInt8], LambdaContract.Failure> {
        switch outcome {
        case .answered(let answer):
            return .success(answer)
        case .failed(let status, let signal, let standardError):
            let how = signal.map { "was killed by signal \($0)" } ?? "exited with status \(status)"
            let detail = standardError.isEmpty ? "" : "; its standard error ends: \(standardError)"
            return .failure(.functionError("The command \(how)\(detail)"))
        case .timedOut:
            return .failure(.functionTimedOut)
        case .cancelled:
            return .failure(.invocationFailed("The command was stopped: firehose-local is shutting down."))
        case .answerTooLarge:
            return .failure(.functionError("The command wrote more than the 6 MB a Lambda answer may hold."))
        case .couldNotStart(let error):
            return .failure(
                .invocationFailed(
                    "The command could not be started: \(String(cString: strerror(error))) (errno \(error))."))
        }
    }

    /// AWS's Invoke API signals a function error with `X-Amz-Function-Error`; the Runtime Interface
    /// Emulator drops that header and answers 200 with the error object (which
    /// `LambdaContract.outcomes` recognises when it reads the answer), or with "Task timed out after
    /// N seconds".
    private static func interpret(_ response: HTTPResponse, url: URL) -> Result<[UInt8], LambdaContract.Failure> {
        let excerpt = String(decoding: response.body.prefix(1024), as: UTF8.self)
        guard response.status == 200 else {
            return .failure(
                .invocationFailed(
                    "The Invoke API at \(url.absoluteString) answered HTTP \(response.status): \(excerpt)"))
        }
        if let kind = response.header("X-Amz-Function-Error") {
            return .failure(.functionError("The function failed (\(kind)): \(excerpt)"))
        }
        if excerpt.hasPrefix("Task timed out after") {
            return .failure(.functionTimedOut)
        }
        return .success(response.body)
    }
}

/// The local functions `Lambda` processors may name (the configuration file's `LambdaFunctions`), by
/// function ARN or by function name, and the Invoke API endpoint any other function is sent to
/// (`--lambda-endpoint`), if any.
package struct LambdaFunctionDirectory: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        /// Matches this ARN exactly.
        package var arn: String?
        /// Matches any ARN of a function of this name (any region, account or qualifier).
        package var name: String?
        package var function: LambdaFunction
        /// How long one invocation may run (the function's `Timeout`), at most the five minutes
        /// Firehose waits for any function.
        package var timeout: Duration

        package init(
            arn: String? = nil, name: String? = nil, function: LambdaFunction,
            timeout: Duration = LambdaTransformationSettings.defaultInvocationTimeout
        ) {
            self.arn = arn
            self.name = name
            self.function = function
            self.timeout = min(timeout, LambdaTransformationSettings.defaultInvocationTimeout)
        }
    }

    package var entries: [Entry]
    package var defaultEndpoint: URL?

    package init(entries: [Entry] = [], defaultEndpoint: URL? = nil) {
        self.entries = entries
        self.defaultEndpoint = defaultEndpoint
    }

    /// Where the function `arn` runs here: the entry for the ARN itself, else for its name, else the
    /// default endpoint (invoked by the ARN's function name, with the default timeout); nil when none.
    package func entry(for arn: String) -> Entry? {
        if let entry = entries.first(where: { $0.arn == arn }) { return entry }
        guard let name = Self.functionName(inARN: arn) else { return nil }
        if let entry = entries.first(where: { $0.name == name }) { return entry }
        return defaultEndpoint.map { Entry(name: name, function: .invokeAPI(endpoint: $0, functionName: name)) }
    }

    /// `text` as the base URL of an Invoke API endpoint: `http` (the local emulators speak plain
    /// HTTP, and so does the transport), a host, no query or fragment (the path
    /// `/2015-03-31/functions/NAME/invocations` is added to it).
    package static func endpointURL(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased()),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else { return nil }
        return url
    }

    /// The function name of `arn:<partition>:lambda:<region>:<account>:function:<name>[:<qualifier>]`.
    package static func functionName(inARN arn: String) -> String? {
        let parts = arn.split(separator: ":", omittingEmptySubsequences: false)
        guard (7...8).contains(parts.count), parts[0] == "arn", !parts[1].isEmpty, parts[2] == "lambda",
            parts[5] == "function", isFunctionName(parts[6]), parts.count == 7 || !parts[7].isEmpty
        else { return nil }
        return String(parts[6])
    }

    /// A function name as Lambda allows it: 1–64 letters, digits, `-` and `_` (it goes into a URL path).
    package static func isFunctionName(_ name: some StringProtocol) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }
}
