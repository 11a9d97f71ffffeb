import Foundation

@testable import AWSSigV4

/// A Firehose-like request signed by our signer, and helpers to bend it into each error case.
enum Fixture {
    static let credentials = AWSCredentials(
        accessKeyId: "AKIDFIREHOSE", secretAccessKey: "wJalr/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let temporary = AWSCredentials(
        accessKeyId: "ASIATEMPORARY",
        secretAccessKey: "temporary/secret",
        sessionToken: "IQoJb3JpZ2luX2VjEXAMPLETOKEN/+="
    )
    static let date = utcDate("2015-08-30T12:36:00Z")
    static let body = Array(#"{"DeliveryStreamName": "s1", "Record": {"Data": "aGVsbG8K"}}"#.utf8)
    static let baseHeaders: [(name: String, value: String)] = [
        ("Host", "localhost:4573"),
        ("Content-Type", "application/x-amz-json-1.1"),
        ("X-Amz-Target", "Firehose_20150804.PutRecord"),
    ]

    static func verifier(
        region: String = "us-east-1",
        tolerance: Duration = .seconds(300),
        knows known: [AWSCredentials] = [credentials, temporary]
    ) -> SigV4Verifier {
        SigV4Verifier(
            region: region, service: "firehose", clockSkewTolerance: tolerance, requiredSignedHeaders: ["X-Amz-Target"]
        ) { id in
            known.first { $0.accessKeyId == id }
        }
    }

    static func signed(
        credentials: AWSCredentials = credentials,
        method: String = "POST",
        path: String = "/",
        query: String = "",
        headers: [(name: String, value: String)] = baseHeaders,
        body: [UInt8] = body,
        date: Date = date,
        region: String = "us-east-1"
    ) -> SigV4Request {
        let bodyHash = SHA256Hex.hash(body)
        let signer = SigV4Signer(credentials: credentials, region: region, service: "firehose")
        let added = signer.sign(
            method: method, path: path, query: query, headers: headers, bodySHA256: bodyHash, date: date)
        return SigV4Request(method: method, path: path, query: query, headers: headers + added, bodySHA256: bodyHash)
    }

    /// Signs by hand with the given SignedHeaders and string-to-sign time, for shapes our signer never
    /// produces (a `Date` header instead of `X-Amz-Date`, unusual SignedHeaders).
    static func manuallySigned(
        headers: [(name: String, value: String)],
        signedHeaders: String,
        timestamp: String,
        credentials: AWSCredentials = credentials,
        body: [UInt8] = body
    ) -> SigV4Request {
        let bodyHash = SHA256Hex.hash(body)
        let canonical = CanonicalRequest.build(
            method: "POST",
            path: "/",
            query: "",
            signedHeaderNames: signedHeaders.split(separator: ";"),
            signedHeadersLine: signedHeaders,
            headers: headers,
            payloadHash: bodyHash
        )
        let date = String(timestamp.prefix(8))
        let scope = "\(date)/us-east-1/firehose/aws4_request"
        let stringToSign = Array("AWS4-HMAC-SHA256\n\(timestamp)\n\(scope)\n\(SHA256Hex.hash(canonical))".utf8)
        let key = SigningKeyCache.derive(
            secret: credentials.secretAccessKey, date: date, region: "us-east-1", service: "firehose")
        let signature = String(
            decoding: SigningKeyCache.signature(signingKey: key, stringToSign: stringToSign), as: UTF8.self)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return SigV4Request(
            method: "POST",
            path: "/",
            headers: headers + [("Authorization", authorization)],
            bodySHA256: bodyHash
        )
    }
}

extension SigV4Request {
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func removing(_ name: String) -> SigV4Request {
        var copy = self
        copy.headers.removeAll { $0.name.lowercased() == name.lowercased() }
        return copy
    }

    func setting(_ name: String, to value: String) -> SigV4Request {
        var copy = removing(name)
        copy.headers.append((name, value))
        return copy
    }

    func adding(_ name: String, _ value: String) -> SigV4Request {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    func editingAuthorization(_ edit: (String) -> String) -> SigV4Request {
        setting("Authorization", to: edit(header("Authorization") ?? ""))
    }
}

extension SigV4Error {
    static func invalidSignature(_ message: String) -> SigV4Error {
        SigV4Error(code: "InvalidSignatureException", message: message)
    }

    static func incompleteSignature(_ message: String) -> SigV4Error {
        SigV4Error(code: "IncompleteSignatureException", message: message)
    }

    static let mismatch = invalidSignature(
        "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
    )

    static let invalidToken = SigV4Error(
        code: "UnrecognizedClientException",
        message: "The security token included in the request is invalid."
    )
}
