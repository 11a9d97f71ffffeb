import Foundation
import Testing

@testable import AWSSigV4

@Suite("Canonicalization")
struct CanonicalizationTests {
    private func uri(_ path: String) -> String {
        var out: [UInt8] = []
        CanonicalRequest.appendCanonicalURI(path, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func query(_ query: String) -> String {
        var out: [UInt8] = []
        CanonicalRequest.appendCanonicalQuery(query, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func headerLine(_ name: Substring, _ headers: [(name: String, value: String)]) -> String {
        var out: [UInt8] = []
        CanonicalRequest.appendCanonicalHeader(name, from: headers, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test(
        "paths are normalized, then encoded once more",
        arguments: [
            ("", "/"),
            ("/", "/"),
            ("//", "/"),
            ("/a/./b/../c//d/", "/a/c/d/"),
            ("/a/.", "/a"),
            ("/../..", "/"),
            ("/a%20b", "/a%2520b"),
            ("/a b", "/a%20b"),
            ("/\u{1234}", "/%E1%88%B4"),
            ("/-._~AZaz09", "/-._~AZaz09"),
            ("/a:b@c+d=e", "/a%3Ab%40c%2Bd%3De"),
        ]
    )
    func canonicalURI(path: String, expected: String) {
        #expect(uri(path) == expected)
    }

    @Test(
        "query pairs are re-encoded and sorted by key, then value",
        arguments: [
            ("", ""),
            ("b=2&a=1&a=0", "a=0&a=1&b=2"),
            ("flag", "flag="),
            ("a=&b", "a=&b="),
            ("%7e=%7E", "~=~"),
            ("a+b=c d", "a%2Bb=c%20d"),
            ("x=%zz&y=%4", "x=%25zz&y=%254"),
            ("k=a=b", "k=a%3Db"),
            ("a=1&&b=2", "a=1&b=2"),
            ("B=1&a=1&_=1", "B=1&_=1&a=1"),
            ("%E1%88%B4=v&\u{1234}=u", "%E1%88%B4=u&%E1%88%B4=v"),
        ]
    )
    func canonicalQuery(raw: String, expected: String) {
        #expect(query(raw) == expected)
    }

    @Test("header values are trimmed and inner whitespace runs collapse to one space")
    func whitespace() {
        #expect(headerLine("x", [("X", "  a \t b  \r\n  c ")]) == "x:a b c\n")
        #expect(headerLine("x", [("X", "")]) == "x:\n")
        #expect(headerLine("x", [("X", " \t ")]) == "x:\n")
        #expect(headerLine("x", [("X", "\"quoted   value\"")]) == "x:\"quoted value\"\n")
    }

    @Test("repeated headers join with commas in the order received, names match in any case")
    func repeatedHeaders() {
        let headers: [(name: String, value: String)] = [
            ("My-Header", "b"), ("other", "z"), ("MY-HEADER", " a "), ("my-header", "c"),
        ]
        #expect(headerLine("my-header", headers) == "my-header:b,a,c\n")
        #expect(headerLine("My-Header", headers) == "my-header:b,a,c\n")
    }

    @Test("a signed header the request lacks canonicalizes as empty")
    func absentHeader() {
        #expect(headerLine("x-missing", [("Host", "h")]) == "x-missing:\n")
    }

    @Test("HTTP/2's :authority stands in for a missing host")
    func authority() {
        #expect(headerLine("host", [(":authority", "localhost:4573")]) == "host:localhost:4573\n")
        #expect(headerLine("host", [("Host", "a"), (":authority", "b")]) == "host:a\n")
    }

    @Test("header order and name case do not change the signature")
    func headerOrderAndCase() throws {
        let request = Fixture.signed()
        var shuffled = request
        shuffled.headers = request.headers.reversed().map { (name: $0.name.uppercased(), value: "  \($0.value)  ") }
        #expect(try Fixture.verifier().verify(shuffled, now: Fixture.date) == Fixture.credentials)
    }

    @Test("the order of repeated header values is signed")
    func repeatedOrderIsSigned() throws {
        let headers = Fixture.baseHeaders + [("X-Custom", "1"), ("X-Custom", "2")]
        let request = Fixture.signed(headers: headers)
        #expect(request.header("Authorization")!.contains("x-custom"))
        #expect(try Fixture.verifier().verify(request, now: Fixture.date) == Fixture.credentials)
        var swapped = request
        let first = swapped.headers.firstIndex { $0.value == "1" }!
        let second = swapped.headers.firstIndex { $0.value == "2" }!
        swapped.headers.swapAt(first, second)
        #expect(throws: SigV4Error.mismatch) { try Fixture.verifier().verify(swapped, now: Fixture.date) }
    }

    @Test("unsigned headers may change freely")
    func unsignedHeaders() throws {
        let request = Fixture.signed().adding("User-Agent", "proxy/1.0").adding("Content-Length", "61")
        #expect(try Fixture.verifier().verify(request, now: Fixture.date) == Fixture.credentials)
    }

    @Test("Date is used when X-Amz-Date is absent, in RFC 1123 or ISO 8601 basic form")
    func dateFallback() throws {
        for dateValue in [
            "Sun, 30 Aug 2015 12:36:00 GMT", "30 Aug 2015 12:36:00 GMT", "Sun, 30 Aug 2015 12:36:00 -0000",
            "20150830T123600Z",
        ] {
            let request = Fixture.manuallySigned(
                headers: Fixture.baseHeaders + [("Date", dateValue)],
                signedHeaders: "content-type;date;host;x-amz-target",
                timestamp: "20150830T123600Z"
            )
            #expect(
                try Fixture.verifier().verify(request, now: Fixture.date) == Fixture.credentials, "Date: \(dateValue)")
        }
    }

    @Test("an unreadable Date is reported as AWS does")
    func badDate() {
        let request = Fixture.manuallySigned(
            headers: Fixture.baseHeaders + [("Date", "yesterday")],
            signedHeaders: "content-type;date;host;x-amz-target",
            timestamp: "20150830T123600Z"
        )
        #expect(
            throws: SigV4Error.incompleteSignature(
                "Date must be in ISO-8601 'basic format'. Got 'yesterday'. See http://en.wikipedia.org/wiki/ISO_8601"
            )
        ) {
            try Fixture.verifier().verify(request, now: Fixture.date)
        }
    }

    @Test("X-Amz-Date wins over Date")
    func amzDateWins() throws {
        // Date says another day; the signature and scope follow X-Amz-Date.
        let request = Fixture.signed().adding("Date", "Mon, 01 Jan 2001 00:00:00 GMT")
        #expect(try Fixture.verifier().verify(request, now: Fixture.date) == Fixture.credentials)
    }

    @Test("a security token is accepted whether or not it is signed")
    func tokenSignedOrNot() throws {
        let signedToken = Fixture.signed(credentials: Fixture.temporary)
        #expect(
            signedToken.header("Authorization")!.contains(
                "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target,"))
        #expect(try Fixture.verifier().verify(signedToken, now: Fixture.date) == Fixture.temporary)

        let unsignedToken = Fixture.manuallySigned(
            headers: Fixture.baseHeaders + [
                ("X-Amz-Date", "20150830T123600Z"), ("X-Amz-Security-Token", Fixture.temporary.sessionToken!),
            ],
            signedHeaders: "content-type;host;x-amz-date;x-amz-target",
            timestamp: "20150830T123600Z",
            credentials: Fixture.temporary
        )
        #expect(try Fixture.verifier().verify(unsignedToken, now: Fixture.date) == Fixture.temporary)
    }
}

@Suite("Signer")
struct SignerTests {
    let signer = SigV4Signer(credentials: Fixture.credentials, region: "us-east-1", service: "firehose")

    @Test("adds X-Amz-Date, the token when there is one, and Authorization, in that order")
    func addedHeaders() {
        let plain = signer.sign(
            method: "POST", path: "/", query: "", headers: Fixture.baseHeaders, bodySHA256: SHA256Hex.empty,
            date: Fixture.date)
        #expect(plain.map(\.name) == ["X-Amz-Date", "Authorization"])
        #expect(plain[0].value == "20150830T123600Z")
        #expect(
            plain[1].value.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AKIDFIREHOSE/20150830/us-east-1/firehose/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature="
            ))

        let temporary = SigV4Signer(credentials: Fixture.temporary, region: "us-east-1", service: "firehose")
            .sign(
                method: "POST", path: "/", query: "", headers: Fixture.baseHeaders, bodySHA256: SHA256Hex.empty,
                date: Fixture.date)
        #expect(temporary.map(\.name) == ["X-Amz-Date", "X-Amz-Security-Token", "Authorization"])
        #expect(temporary[1].value == Fixture.temporary.sessionToken)
    }

    @Test("is deterministic for a given date, and a new second gives a new signature")
    func deterministic() {
        let sign = { (date: Date) in
            signer.sign(
                method: "POST", path: "/", query: "", headers: Fixture.baseHeaders, bodySHA256: SHA256Hex.empty,
                date: date)
        }
        #expect(sign(Fixture.date).map(\.value) == sign(Fixture.date).map(\.value))
        #expect(sign(Fixture.date).map(\.value) == sign(Fixture.date + 0.999).map(\.value))
        #expect(sign(Fixture.date).last!.value != sign(Fixture.date + 1).last!.value)
    }

    @Test("replaces the date, token and authorization the caller passed")
    func replacesOwnHeaders() {
        let stale: [(name: String, value: String)] = [
            ("x-amz-date", "19990101T000000Z"), ("Authorization", "old"), ("X-Amz-Security-Token", "old"),
        ]
        let added = signer.sign(
            method: "POST", path: "/", query: "", headers: Fixture.baseHeaders + stale, bodySHA256: SHA256Hex.empty,
            date: Fixture.date)
        let fresh = signer.sign(
            method: "POST", path: "/", query: "", headers: Fixture.baseHeaders, bodySHA256: SHA256Hex.empty,
            date: Fixture.date)
        #expect(added.map(\.value) == fresh.map(\.value))
    }

    @Test(
        "round-trips through the verifier",
        arguments: [
            ("POST", "/", ""),
            ("GET", "/some path/with%20escapes/", "b=2&a=1&empty"),
            ("PUT", "/a/../b/./c//", "key=v%2Fx&%E1%88%B4=1"),
        ]
    )
    func roundTrip(method: String, path: String, query: String) throws {
        let headers = Fixture.baseHeaders + [("X-Amz-Meta", "  spaced   out  "), ("X-Amz-Meta", "second")]
        let request = Fixture.signed(
            method: method, path: path, query: query, headers: headers, body: Array("payload".utf8))
        #expect(try Fixture.verifier().verify(request, now: Fixture.date) == Fixture.credentials)
    }
}
