import Foundation
import HTTPTransports
import Synchronization
import Testing

@testable import FirehoseSink

@Suite("LambdaFunction: invoking a local function, by command or through the Invoke API")
struct LambdaFunctionTests {
    static let endpoint = LambdaFunction.invokeAPI(
        endpoint: URL(string: "http://127.0.0.1:9001")!, functionName: "transform")
    static let event = Array(#"{"records":[]}"#.utf8)

    @Test("The Invoke API is called as AWS's SDKs call it, and a 200 answer is the function's")
    func invokeRequest() async throws {
        let transport = ScriptedEndpoint(
            [], then: .response(HTTPResponse(status: 200, body: Array(#"{"records":[]}"#.utf8))))
        let result = await Self.endpoint.invoke(Self.event, timeout: .seconds(7), transport: transport)
        #expect(try result.get() == Array(#"{"records":[]}"#.utf8))
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "http://127.0.0.1:9001/2015-03-31/functions/transform/invocations")
        #expect(request.header("X-Amz-Invocation-Type") == "RequestResponse")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.body == Self.event)
        #expect(request.timeout == .seconds(7))
    }

    @Test(
        "Function errors, as AWS (X-Amz-Function-Error) and the Runtime Interface Emulator (the error object) report them",
        arguments: [
            HTTPResponse(
                status: 200, headers: [("X-Amz-Function-Error", "Unhandled")],
                body: Array(#"{"errorMessage":"boom","errorType":"Exception"}"#.utf8)),
            HTTPResponse(status: 200, body: Array(#"{"errorMessage":"boom","errorType":"Exception"}"#.utf8)),
            HTTPResponse(status: 502, body: Array("bad gateway".utf8)),
        ])
    func functionErrors(response: HTTPResponse) async {
        // The error object without the header is recognised where the answer is read.
        let result = await Self.endpoint.invoke(
            Self.event, timeout: .seconds(5), transport: ScriptedEndpoint([], then: .response(response))
        ).flatMap { answer in LambdaContract.outcomes(of: answer, for: LambdaContractTests.records) }
        guard case .failure(let failure) = result else {
            Issue.record("accepted")
            return
        }
        #expect(failure.code == "Lambda.FunctionError")
    }

    @Test("A timeout, from the transport or in the emulator's words, is Lambda.FunctionTimedOut")
    func timeouts() async {
        let emulator = ScriptedEndpoint(
            [], then: .response(HTTPResponse(status: 200, body: Array("Task timed out after 3.00 seconds".utf8))))
        #expect(
            await Self.endpoint.invoke(Self.event, timeout: .seconds(5), transport: emulator)
                == .failure(.functionTimedOut))
        #expect(
            await LambdaFunction.command(["sleep", "30"]).invoke(Self.event, timeout: .milliseconds(200))
                == .failure(.functionTimedOut))
    }

    @Test("An endpoint that cannot be reached is a function error naming it")
    func unreachable() async {
        struct Refused: Error, CustomStringConvertible { var description: String { "Connection refused" } }
        let result = await Self.endpoint.invoke(
            Self.event, timeout: .seconds(5), transport: ScriptedEndpoint([], then: .failure(Refused())))
        guard case .failure(let failure) = result else {
            Issue.record("accepted")
            return
        }
        #expect(failure.code == "Lambda.FunctionError")
        // Not "successfully invoked", as a function that ran and failed is.
        #expect(failure.message.hasPrefix("The Lambda function could not be invoked."))
        #expect(failure.message.contains("http://127.0.0.1:9001/2015-03-31/functions/transform/invocations"))
        #expect(failure.message.contains("Connection refused"))
    }

    @Test("A command's answer, exit status and standard error become the invocation's result")
    func command() async throws {
        let echo = LambdaFunction.command(["cat"])
        #expect(try await echo.invoke(Self.event, timeout: .seconds(30)).get() == Self.event)
        let failing = LambdaFunction.command(["sh", "-c", "echo 'KeyError: data' >&2; exit 1"])
        guard case .failure(let failure) = await failing.invoke(Self.event, timeout: .seconds(30)) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.code == "Lambda.FunctionError")
        #expect(
            failure.message.hasSuffix("The command exited with status 1; its standard error ends: KeyError: data\n"))
    }

    @Test(
        "A function ARN resolves by ARN, then by name (any region, account or qualifier), then to the default endpoint")
    func directory() {
        let exact = LambdaFunction.command(["exact"])
        let byName = LambdaFunction.command(["by-name"])
        var directory = LambdaFunctionDirectory(entries: [
            .init(arn: "arn:aws:lambda:us-east-1:000000000000:function:enrich:live", function: exact),
            .init(name: "enrich", function: byName, timeout: .seconds(2)),
        ])
        #expect(directory.entry(for: "arn:aws:lambda:us-east-1:000000000000:function:enrich:live")?.function == exact)
        #expect(
            directory.entry(for: "arn:aws:lambda:us-east-1:000000000000:function:enrich:live")?.timeout == .seconds(300)
        )
        #expect(directory.entry(for: "arn:aws:lambda:eu-west-1:123456789012:function:enrich")?.function == byName)
        #expect(directory.entry(for: "arn:aws:lambda:eu-west-1:123456789012:function:enrich")?.timeout == .seconds(2))
        // Firehose waits five minutes at most, whatever the function's own timeout.
        #expect(
            LambdaFunctionDirectory.Entry(name: "slow", function: exact, timeout: .seconds(900)).timeout
                == .seconds(300))
        #expect(directory.entry(for: "arn:aws:lambda:us-east-1:000000000000:function:other") == nil)
        directory.defaultEndpoint = URL(string: "http://127.0.0.1:3001")
        #expect(
            directory.entry(for: "arn:aws:lambda:us-east-1:000000000000:function:other:3")?.function
                == .invokeAPI(endpoint: URL(string: "http://127.0.0.1:3001")!, functionName: "other"))
        for arn in [
            "enrich", "arn:aws:lambda:us-east-1:0:layer:x", "arn:aws:lambda:us-east-1:0:function:",
            "arn:aws:lambda:us-east-1:0:function:a/b", "arn:aws:lambda:us-east-1:0:function:a:",
        ] {
            #expect(LambdaFunctionDirectory.functionName(inARN: arn) == nil, "\(arn)")
        }
        #expect(LambdaFunctionDirectory.endpointURL("http://127.0.0.1:9000") != nil)
        #expect(LambdaFunctionDirectory.endpointURL("https://lambda.example.com") != nil)
        for text in ["127.0.0.1:9000", "ftp://h", "http://", "http://h/?q=1"] {
            #expect(LambdaFunctionDirectory.endpointURL(text) == nil, "\(text)")
        }
    }
}
