#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Signs requests with SigV4 the way the AWS SDKs do for JSON services (client side: tests, tools and
/// the recorder library), or for S3 (the sink's uploads to an S3-compatible store).
public struct SigV4Signer: Sendable {
    public let credentials: AWSCredentials
    public let region: String
    public let service: String
    /// `.s3`: the path signed as sent, and the payload hash sent and signed as `x-amz-content-sha256`.
    public let dialect: SigV4Verifier.Dialect
    // One signer keeps one secret, region and service, so only the date varies: a tiny cache suffices.
    let keyCache = SigningKeyCache(capacity: 4)

    public init(
        credentials: AWSCredentials, region: String, service: String, dialect: SigV4Verifier.Dialect = .standard
    ) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.dialect = dialect
    }

    /// The headers to add to the request: `X-Amz-Date`, `X-Amz-Security-Token` when the credentials have
    /// one, `x-amz-content-sha256` in the S3 dialect, and `Authorization`, in that order.
    ///
    /// Every header in `headers` is signed, so pass the ones that will be sent unchanged, `Host` (with
    /// `:port` when not the default) among them; leave out hop-by-hop headers and `User-Agent`, which
    /// proxies rewrite. `Authorization`, `X-Amz-Date` and `X-Amz-Security-Token` in `headers` are
    /// ignored: the signer supplies its own. The result depends only on the inputs, so a fixed `date`
    /// gives a fixed signature.
    ///
    /// - Parameters:
    ///   - path: the path as it will be sent (already percent-encoded), without the query.
    ///   - query: the query as it will be sent, without `?`.
    ///   - bodySHA256: lowercase hex SHA-256 of the body as sent (see `SHA256Hex`).
    public func sign(
        method: String,
        path: String,
        query: String,
        headers: [(name: String, value: String)],
        bodySHA256: String,
        date: Date
    ) -> [(name: String, value: String)] {
        let parts = signingParts(
            method: method,
            path: path,
            query: query,
            headers: headers,
            bodySHA256: bodySHA256,
            date: date
        )
        return parts.addedHeaders + [("Authorization", parts.authorization)]
    }

    /// Everything `sign` computes, kept apart so tests can compare each stage with reference vectors.
    struct SigningParts {
        var addedHeaders: [(name: String, value: String)]
        var canonicalRequest: [UInt8]
        var stringToSign: [UInt8]
        var signedHeaders: String
        var signature: String
        var authorization: String
    }

    func signingParts(
        method: String,
        path: String,
        query: String,
        headers: [(name: String, value: String)],
        bodySHA256: String,
        date: Date
    ) -> SigningParts {
        let timestamp = AMZTimestamp(date)
        var replaced: Set<String> = ["authorization", "x-amz-date", "x-amz-security-token"]
        if dialect == .s3 { replaced.insert("x-amz-content-sha256") }

        var toSign = headers.filter { !replaced.contains(Self.lowercase($0.name)) }
        var added: [(name: String, value: String)] = [("X-Amz-Date", timestamp.iso8601Basic)]
        if let token = credentials.sessionToken {
            added.append(("X-Amz-Security-Token", token))
        }
        if dialect == .s3 {
            added.append(("x-amz-content-sha256", bodySHA256))
        }
        toSign.append(contentsOf: added)

        let names = Set(toSign.map { Self.lowercase($0.name) }).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = CanonicalRequest.build(
            method: method,
            path: path,
            query: query,
            signedHeaderNames: signedHeaders.split(separator: ";"),
            signedHeadersLine: signedHeaders,
            headers: toSign,
            payloadHash: bodySHA256,
            pathAsSent: dialect == .s3
        )
        let scope = "\(timestamp.yyyymmdd)/\(region)/\(service)/aws4_request"
        let stringToSign = CanonicalRequest.stringToSign(
            timestamp: timestamp,
            scope: scope,
            canonicalRequest: canonicalRequest
        )
        let signingKey = keyCache.signingKey(
            secret: credentials.secretAccessKey,
            date: timestamp.yyyymmdd,
            region: region,
            service: service
        )
        let signature = String(
            decoding: SigningKeyCache.signature(signingKey: signingKey, stringToSign: stringToSign),
            as: UTF8.self
        )
        return SigningParts(
            addedHeaders: added,
            canonicalRequest: canonicalRequest,
            stringToSign: stringToSign,
            signedHeaders: signedHeaders,
            signature: signature,
            authorization: "\(CanonicalRequest.algorithm) Credential=\(credentials.accessKeyId)/\(scope), "
                + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        )
    }

    private static func lowercase(_ name: String) -> String {
        String(decoding: name.utf8.map(ASCII.lowercased), as: UTF8.self)
    }
}

/// URI encoding as SigV4 (and S3) want it, for clients building request paths.
public enum SigV4URI {
    /// `text` with every byte but `A-Z a-z 0-9 - _ . ~` and `/` escaped as `%XX`: an S3 key as a path.
    public static func encodePath(_ text: String) -> String {
        var out: [UInt8] = []
        for segment in text.utf8.split(separator: ASCII.slash, omittingEmptySubsequences: false).enumerated() {
            if segment.offset > 0 { out.append(ASCII.slash) }
            CanonicalRequest.appendURIEncoded(segment.element, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with every byte but `A-Z a-z 0-9 - _ . ~` escaped as `%XX`: a query parameter's value.
    public static func encodeComponent(_ text: String) -> String {
        var out: [UInt8] = []
        CanonicalRequest.appendURIEncoded(text.utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
