import Foundation
import Testing

@testable import AWSSigV4

@Suite("Timestamps")
struct TimestampTests {
    @Test(
        "ISO 8601 basic parses and prints back, matching Foundation's calendar",
        arguments: [
            ("20150830T123600Z", "2015-08-30T12:36:00Z"),
            ("19700101T000000Z", "1970-01-01T00:00:00Z"),
            ("20000229T235959Z", "2000-02-29T23:59:59Z"),
            ("20240229T120000Z", "2024-02-29T12:00:00Z"),
            ("21000301T000000Z", "2100-03-01T00:00:00Z"),
            ("19691231T235959Z", "1969-12-31T23:59:59Z"),
            ("99991231T235959Z", "9999-12-31T23:59:59Z"),
        ]
    )
    func iso8601Basic(text: String, fixture: String) throws {
        let timestamp = try #require(AMZTimestamp(iso8601Basic: text))
        #expect(Double(timestamp.secondsSince1970) == utcDate(fixture).timeIntervalSince1970)
        #expect(timestamp.iso8601Basic == text)
        #expect(AMZTimestamp(utcDate(fixture)).iso8601Basic == text)
        #expect(timestamp.yyyymmdd == String(text.prefix(8)))
    }

    @Test(
        "malformed ISO 8601 basic is refused",
        arguments: [
            "", "20150830T123600", "20150830t123600Z", "2015-08-30T12:36:00Z", "20150830T123600.5Z", "20150830 123600Z",
            "20151330T123600Z", "20150001T123600Z", "20150832T123600Z", "20150229T123600Z", "21000229T000000Z",
            "20150830T243600Z", "20150830T126000Z", "20150830T123660Z", "2015083OT123600Z", "+0150830T123600Z",
        ]
    )
    func iso8601BasicRefused(text: String) {
        #expect(AMZTimestamp(iso8601Basic: text) == nil)
    }

    @Test(
        "the Date header's forms",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z"),
            ("06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z"),
            ("Sun, 6 Nov 1994 08:49:37 UTC", "1994-11-06T08:49:37Z"),
            ("Wed, 06 May 2020 15:42:30 -0000", "2020-05-06T15:42:30Z"),
            ("Thu, 29 Feb 2024 00:00:00 +0000", "2024-02-29T00:00:00Z"),
            ("19941106T084937Z", "1994-11-06T08:49:37Z"),
        ]
    )
    func httpDate(text: String, fixture: String) throws {
        let timestamp = try #require(AMZTimestamp(httpDate: text))
        #expect(Double(timestamp.secondsSince1970) == utcDate(fixture).timeIntervalSince1970)
    }

    @Test(
        "malformed Date headers are refused",
        arguments: [
            "", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 PST",
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Xyz, 06 Nov 1994 08:49:37 GMT",
        ]
    )
    func httpDateRefused(text: String) {
        #expect(AMZTimestamp(httpDate: text) == nil)
    }

    @Test("sub-second times truncate to the second, before 1970 too")
    func truncation() {
        #expect(AMZTimestamp(Date(timeIntervalSince1970: 1.999)).secondsSince1970 == 1)
        #expect(AMZTimestamp(Date(timeIntervalSince1970: -0.5)).secondsSince1970 == -1)
        #expect(AMZTimestamp(Date(timeIntervalSince1970: -0.5)).iso8601Basic == "19691231T235959Z")
    }
}

@Suite("SHA-256 hex")
struct SHA256HexTests {
    @Test("known digests through every entry point")
    func knownDigests() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(SHA256Hex.hash([UInt8]()) == SHA256Hex.empty)
        #expect(SHA256Hex.hash(Array("abc".utf8)) == abc)
        #expect(SHA256Hex.hash("abc") == abc)
        #expect(SHA256Hex.hash("abc".utf8) == abc)
        #expect(SHA256Hex.hash([0x61, 0x62, 0x63].lazy.map { $0 }) == abc)
        #expect(Array("abc".utf8).withUnsafeBytes { SHA256Hex.hash($0) } == abc)
    }

    @Test("hashing in pieces equals hashing at once")
    func incremental() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA256Hex.Hasher()
        for chunk in stride(from: 0, to: bytes.count, by: 777) {
            Array(bytes[chunk..<min(chunk + 777, bytes.count)]).withUnsafeBytes { hasher.update($0) }
        }
        #expect(hasher.finalize() == SHA256Hex.hash(bytes))
        var empty = SHA256Hex.Hasher()
        empty.update([])
        #expect(empty.finalize() == SHA256Hex.empty)
    }
}

@Suite("Constant-time comparison")
struct ConstantTimeTests {
    @Test("equal only when every byte and the length match")
    func equality() {
        let signature = "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
        #expect(ConstantTime.equals(signature, signature))
        #expect(ConstantTime.equals("", ""))
        #expect(!ConstantTime.equals(signature, "6" + signature.dropFirst()))
        #expect(!ConstantTime.equals(signature, signature.dropLast() + "c"))
        #expect(!ConstantTime.equals(signature, String(signature.dropLast())))
        #expect(!ConstantTime.equals(String(signature.dropLast()), signature))
        #expect(!ConstantTime.equals(signature, signature + "0"))
        #expect(!ConstantTime.equals(signature, ""))
        #expect(!ConstantTime.equals(signature, signature.uppercased()))
    }

    @Test("reads every byte of both inputs whatever the first difference")
    func noEarlyExit() {
        // Counting the bytes read proves there is no early exit: a difference in the first byte costs
        // as many reads as a difference in the last, or none.
        let base = Array(repeating: UInt8(ascii: "a"), count: 64)
        var firstDiffers = base
        firstDiffers[0] = UInt8(ascii: "b")
        var lastDiffers = base
        lastDiffers[63] = UInt8(ascii: "b")
        for other in [base, firstDiffers, lastDiffers] {
            let lhs = CountingBytes(base)
            let rhs = CountingBytes(other)
            _ = ConstantTime.equals(lhs, rhs)
            #expect(lhs.reads.value == 64)
            #expect(rhs.reads.value == 64)
        }
    }
}

/// A byte collection that counts how many elements are read through iteration.
private struct CountingBytes: Collection {
    final class Counter { var value = 0 }
    let bytes: [UInt8]
    let reads = Counter()
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var startIndex: Int { bytes.startIndex }
    var endIndex: Int { bytes.endIndex }
    func index(after i: Int) -> Int { i + 1 }
    subscript(position: Int) -> UInt8 {
        reads.value += 1
        return bytes[position]
    }
}

@Suite("Signing key cache")
struct SigningKeyCacheTests {
    @Test("derives the key of AWS's documented example")
    func documentedKey() {
        // docs.aws.amazon.com, "Examples of how to derive a signing key for Signature Version 4".
        let key = SigningKeyCache.derive(
            secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            date: "20120215",
            region: "us-east-1",
            service: "iam"
        )
        #expect(
            key.withUnsafeBytes { Hex.string($0) } == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
        )
    }

    @Test("a cached key is the key derived afresh, and is derived once")
    func cachedEqualsUncached() {
        let cache = SigningKeyCache()
        let first = cache.signingKey(secret: "s", date: "20150830", region: "us-east-1", service: "firehose")
        let second = cache.signingKey(secret: "s", date: "20150830", region: "us-east-1", service: "firehose")
        #expect(
            first == SigningKeyCache.derive(secret: "s", date: "20150830", region: "us-east-1", service: "firehose"))
        #expect(second == first)
        #expect(cache.derivationCount == 1)
        for (secret, date, region, service) in [
            ("t", "20150830", "us-east-1", "firehose"), ("s", "20150831", "us-east-1", "firehose"),
            ("s", "20150830", "eu-west-1", "firehose"), ("s", "20150830", "us-east-1", "kinesis"),
        ] {
            let other = cache.signingKey(secret: secret, date: date, region: region, service: service)
            #expect(other != first)
            #expect(other == SigningKeyCache.derive(secret: secret, date: date, region: region, service: service))
        }
        #expect(cache.derivationCount == 5)
    }

    @Test("stays within its bound and stays correct past it")
    func bounded() {
        let cache = SigningKeyCache(capacity: 2)
        for day in 10...20 {
            let date = "201508\(day)"
            #expect(
                cache.signingKey(secret: "s", date: date, region: "r", service: "v")
                    == SigningKeyCache.derive(secret: "s", date: date, region: "r", service: "v"))
            #expect(cache.count <= 2)
        }
    }

    @Test("verification derives once per credential and day, then only hits the cache")
    func verifierUsesCache() throws {
        let verifier = Fixture.verifier()
        let request = Fixture.signed()
        for _ in 0..<5 {
            #expect(try verifier.verify(request, now: Fixture.date) == Fixture.credentials)
        }
        #expect(verifier.keyCache.derivationCount == 1)
        _ = try verifier.verify(Fixture.signed(credentials: Fixture.temporary), now: Fixture.date)
        #expect(verifier.keyCache.derivationCount == 2)
        // A fresh verifier (cold cache) agrees with the warm one.
        #expect(try Fixture.verifier().verify(request, now: Fixture.date) == Fixture.credentials)
        // Failures before the signature check never derive a key.
        _ = try? verifier.verify(
            Fixture.signed(credentials: AWSCredentials(accessKeyId: "AKIDUNKNOWN", secretAccessKey: "x")),
            now: Fixture.date)
        #expect(verifier.keyCache.derivationCount == 2)
    }

    @Test("is safe to share across concurrent verifications")
    func concurrent() async throws {
        let verifier = Fixture.verifier()
        let request = Fixture.signed()
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask { (try? verifier.verify(request, now: Fixture.date)) == Fixture.credentials }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 200)
        #expect(verifier.keyCache.count == 1)
    }
}
