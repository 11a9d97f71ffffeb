import FaultInjection
import FirehoseWire
import ServerCore
import Testing

@testable import FirehoseServer

/// Web pages kept out of `/_local`: the rules alone, then through `FirehoseAPI.handle` as a browser
/// on the developer's machine would send its requests.
@Suite("/_local refuses what a web page sends through the browser")
struct LocalRequestGuardTests {
    let guardrail = LocalRequestGuard(names: ["devbox", "Firehose.Internal."], anyHost: false)

    func request(
        _ method: String, _ target: String, host: String? = "127.0.0.1:4573", _ headers: [(String, String)] = [],
        body: String = ""
    ) -> APIRequest {
        APIRequest(
            method: method, target: target,
            headers: (host.map { [("Host", $0)] } ?? []) + headers.map { (name: $0.0, value: $0.1) },
            body: Array(body.utf8))
    }

    @Test(
        "names of this server",
        arguments: [
            ("127.0.0.1:4573", true), ("127.0.0.1", true), ("10.1.2.3:80", true), ("[::1]:4573", true),
            ("localhost:4573", true), ("LOCALHOST", true), ("app.localhost:4573", true), ("localhost.:4573", true),
            ("devbox:4573", true), ("firehose.internal", true), ("evil.example:4573", false),
            ("127.0.0.1.evil.example", false), ("localhost.evil.example:4573", false), ("1.2.3.256", false),
            ("[::1", false),
        ])
    func hostNames(host: String, accepted: Bool) {
        #expect(guardrail.isServerName(host) == accepted)
    }

    @Test func aReboundNameIsRefusedEvenForReads() {
        let read = request("GET", "/_local/object?bucket=b&key=k", host: "attacker.example:4573")
        #expect(guardrail.refusal(of: read, jsonBody: false) == .foreignHost("attacker.example:4573"))
        let open = LocalRequestGuard(names: [], anyHost: true)
        #expect(open.refusal(of: read, jsonBody: false) == nil)
    }

    @Test func stateChangesFromAnotherOriginAreRefused() {
        let crossSite = request("POST", "/_local/flush", [("Origin", "https://attacker.example")])
        #expect(guardrail.refusal(of: crossSite, jsonBody: false) == .crossOrigin("https://attacker.example"))
        let opaque = request("DELETE", "/_local/faults", [("Origin", "null")])
        #expect(guardrail.refusal(of: opaque, jsonBody: false) == .crossOrigin("null"))
        let otherPort = request("POST", "/_local/flush", [("Origin", "http://127.0.0.1:8080")])
        #expect(guardrail.refusal(of: otherPort, jsonBody: false) != nil)
        let fetchMetadata = request("POST", "/_local/flush", [("Sec-Fetch-Site", "cross-site")])
        #expect(guardrail.refusal(of: fetchMetadata, jsonBody: false) == .crossOrigin("Sec-Fetch-Site: cross-site"))
        // The live view's own requests, and scripts', which send no Origin.
        let liveView = request("POST", "/_local/flush", [("Origin", "http://127.0.0.1:4573")])
        #expect(guardrail.refusal(of: liveView, jsonBody: false) == nil)
        let defaultPort = request("POST", "/_local/flush", host: "localhost:80", [("Origin", "http://localhost")])
        #expect(guardrail.refusal(of: defaultPort, jsonBody: false) == nil)
        #expect(guardrail.refusal(of: request("POST", "/_local/flush"), jsonBody: false) == nil)
        // The browser's own same-origin word wins over an Origin a proxy's Host no longer matches.
        let proxied = request(
            "POST", "/_local/flush", host: "127.0.0.1:4573",
            [("Origin", "https://4573-abc.preview.example"), ("Sec-Fetch-Site", "same-origin")])
        #expect(guardrail.refusal(of: proxied, jsonBody: false) == nil)
        let strictReferrer = request("POST", "/_local/flush", [("Origin", "null"), ("Sec-Fetch-Site", "same-origin")])
        #expect(guardrail.refusal(of: strictReferrer, jsonBody: false) == nil)
        let crossWithOrigin = request(
            "POST", "/_local/flush", [("Origin", "https://attacker.example"), ("Sec-Fetch-Site", "cross-site")])
        #expect(guardrail.refusal(of: crossWithOrigin, jsonBody: false) == .crossOrigin("https://attacker.example"))
        // Reads across origins are the browser's to withhold (no CORS header is ever sent).
        let read = request("GET", "/_local/streams", [("Origin", "https://attacker.example")])
        #expect(guardrail.refusal(of: read, jsonBody: false) == nil)
    }

    @Test(
        "a JSON body needs a JSON content type",
        arguments: [
            ("application/json", true), ("application/json; charset=utf-8", true), ("Application/JSON", true),
            ("application/vnd.rule+json", true), ("text/plain", false), ("application/x-www-form-urlencoded", false),
            ("multipart/form-data; boundary=x", false),
        ])
    func jsonContentType(type: String, accepted: Bool) {
        let post = request("POST", "/_local/faults", [("Content-Type", type)], body: "{}")
        #expect((guardrail.refusal(of: post, jsonBody: true) == nil) == accepted)
        #expect(guardrail.refusal(of: request("POST", "/_local/faults"), jsonBody: true) == .notJSON(nil))
    }

    // MARK: Through the API

    static let rule = #"{"Name": "burst", "Error": {"Code": "ServiceUnavailableException"}, "Count": 3}"#

    @Test func aCrossSiteTextPlainFaultRuleIsNotAdded() async throws {
        let harness = try APIHarness()
        // What a page's <form enctype="text/plain"> or fetch(…, {mode: "no-cors"}) sends.
        let crossSite = await harness.api.handle(
            request(
                "POST", "/_local/faults",
                [("Origin", "https://attacker.example"), ("Content-Type", "text/plain;charset=UTF-8")],
                body: Self.rule))
        #expect(crossSite.status == 403)
        let textPlain = await harness.api.handle(
            request("POST", "/_local/faults", [("Content-Type", "text/plain")], body: Self.rule))
        #expect(textPlain.status == 415)
        #expect(String(decoding: textPlain.body, as: UTF8.self).contains("Content-Type: application/json"))
        #expect(harness.api.faults.entries.isEmpty)
        let script = await harness.api.handle(
            request("POST", "/_local/faults", [("Content-Type", "application/json")], body: Self.rule))
        #expect(script.status == 201)
        #expect(harness.api.faults.entries.count == 1)
    }

    @Test func crossOriginFlushAndRebindingReadsAreRefusedAndAWSCallsStillServed() async throws {
        let harness = try APIHarness(authentication: .off)
        let flush = await harness.api.handle(request("POST", "/_local/flush", [("Origin", "http://evil.example")]))
        #expect(flush.status == 403)
        #expect(String(decoding: flush.body, as: UTF8.self).contains("another origin"))
        let rebound = await harness.api.handle(request("GET", "/_local/streams", host: "evil.example:4573"))
        #expect(rebound.status == 403)
        #expect(String(decoding: rebound.body, as: UTF8.self).contains("evil.example"))
        #expect(await harness.api.handle(request("POST", "/_local/flush")).status == 200)
        // An SDK's call on the same port, addressed by a name of the network's.
        var put = harness.request(operation: "PutRecord", body: harness.putRecordBody(data: [1]), sign: false)
        put.headers[0].value = "firehose.example:4573"
        #expect(await harness.api.handle(put).status == 200)
    }

    @Test func anHTTPEndpointDeliveryIsAnsweredAtOnceNotMadeToWaitForItself() async throws {
        let harness = try APIHarness()
        for target in ["/_local/flush", "/_local/wait?objects=1&timeout=60"] {
            let delivery = await harness.api.handle(
                request(
                    target.hasPrefix("/_local/flush") ? "POST" : "GET", target,
                    [("X-Amz-Firehose-Request-Id", "5c0e1f2a"), ("Content-Type", "application/json")], body: "{}"))
            #expect(delivery.status == 508)
            #expect(String(decoding: delivery.body, as: UTF8.self).contains("request id 5c0e1f2a"))
        }
        // Pointed at the machine's network address, the delivery is not a loopback client: still a loop.
        var remote = request("POST", "/_local/flush", [("X-Amz-Firehose-Request-Id", "5c0e1f2b")])
        remote.fromLoopback = false
        #expect(await harness.api.handle(remote).status == 508)
    }

    @Test func localAnswersAreNotSniffedOrFramed() async throws {
        let harness = try APIHarness()
        for target in ["/_local/ui", "/_local/streams", "/_local/object?bucket=b&key=missing"] {
            let response = await harness.api.handle(request("GET", target))
            #expect(response.headers.filter { $0.name == "X-Content-Type-Options" }.map(\.value) == ["nosniff"])
            #expect(response.headers.contains { $0.name == "X-Frame-Options" && $0.value == "DENY" })
        }
        let page = await harness.api.handle(request("GET", "/_local/ui"))
        #expect(
            page.headers.contains {
                $0.name == "Content-Security-Policy" && $0.value.contains("frame-ancestors 'none'")
            })
    }
}
