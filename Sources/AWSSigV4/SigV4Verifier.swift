#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Checks the SigV4 `Authorization` header of a request, as the server side of a Firehose endpoint.
///
/// The checks run in the order AWS's JSON front end runs them, so the first error a client gets is the
/// one AWS would give: the header's syntax, the parameters and the date, the date's format and the clock
/// skew, `host`, the date header and the service's required headers being signed, the algorithm, the credential's shape, its scope, the access key, the
/// signature, and last the session token.
///
/// In the standard dialect the payload hash in the canonical request is `SigV4Request.bodySHA256`, the hash of the body
/// as received, never the client's `X-Amz-Content-Sha256` header: for a service that is not S3 the two
/// must agree anyway, and trusting the header would let a signed request carry any body. A client that
/// sends `UNSIGNED-PAYLOAD` therefore fails with a signature mismatch.
public struct SigV4Verifier: Sendable {
    /// How a service canonicalizes what it signs.
    public enum Dialect: Sendable {
        /// Every service but S3: the path normalized and encoded once more, the payload hash of the
        /// body as received.
        case standard
        /// S3's: the path as sent, the payload hash the client declares in `x-amz-content-sha256`
        /// (the caller checks a hex hash against the body), presigned URLs (query-string
        /// authentication), and a credential scoped to any region (a bucket answers in every one).
        case s3
    }

    public let region: String
    public let service: String
    public let dialect: Dialect
    /// Whether a credential scoped to any region is taken (S3's dialect always takes one): a global
    /// service (IAM, STS) that SDKs given an endpoint sign for their own region.
    public let acceptsAnyRegion: Bool
    public let clockSkewTolerance: Duration
    /// Headers that, when a request has them, must be signed (beyond `host` and the date), as spelled
    /// in messages.
    public let requiredSignedHeaders: [String]
    let lookup: @Sendable (_ accessKeyId: String) -> AWSCredentials?
    let keyCache: SigningKeyCache

    /// - Parameters:
    ///   - clockSkewTolerance: how far the request time may be from `now`, either way (Firehose: 5 minutes).
    ///   - requiredSignedHeaders: headers that must be in SignedHeaders when present, because they choose
    ///     what the request does (for AWS JSON services, `X-Amz-Target`: unsigned, a captured request could be
    ///     replayed as another operation with the same body and signature).
    ///   - lookup: the credentials for an access key id, or `nil` when the key is unknown.
    public init(
        region: String,
        service: String,
        clockSkewTolerance: Duration = .seconds(300),
        requiredSignedHeaders: [String] = [],
        dialect: Dialect = .standard,
        acceptsAnyRegion: Bool = false,
        lookup: @escaping @Sendable (_ accessKeyId: String) -> AWSCredentials?
    ) {
        self.region = region
        self.service = service
        self.dialect = dialect
        self.acceptsAnyRegion = acceptsAnyRegion
        self.clockSkewTolerance = clockSkewTolerance
        self.requiredSignedHeaders = requiredSignedHeaders
        self.lookup = lookup
        self.keyCache = SigningKeyCache()
    }

    /// Verifies `request` as of `now` and returns the credentials that signed it.
    ///
    /// - Throws: `SigV4Error` with the code and message AWS would answer (all HTTP 400).
    public func verify(_ request: SigV4Request, now: Date) throws(SigV4Error) -> AWSCredentials {
        try verified(request, now: now).credentials
    }

    /// Verifies `request` as `verify` does, and returns with its credentials what checks the
    /// signatures of an aws-chunked body (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`), which chain from
    /// this request's signature.
    public func verifyStreaming(_ request: SigV4Request, now: Date) throws(SigV4Error)
        -> (credentials: AWSCredentials, chunks: ChunkSignatures)
    {
        let verified = try verified(request, now: now)
        return (verified.credentials, verified.chunks)
    }

    private struct Verified {
        var credentials: AWSCredentials
        var chunks: ChunkSignatures
    }

    private func verified(_ request: SigV4Request, now: Date) throws(SigV4Error) -> Verified {
        let authorizationValues = request.values(of: "authorization")
        if dialect == .s3, authorizationValues.isEmpty, let presigned = PresignedParameters(query: request.query) {
            return try verifyPresigned(request, presigned, now: now)
        }
        guard let rawAuthorization = authorizationValues.first, ASCII.containsNonWhitespace(rawAuthorization) else {
            throw .missingAuthenticationToken
        }
        guard authorizationValues.count == 1 else {
            throw .incomplete("Request has more than one Authorization header.")
        }
        let authorization = try AuthorizationHeader(parsing: rawAuthorization)

        // X-Amz-Date wins over Date; a repeated header is joined as the canonical request would join it,
        // which then fails to parse rather than letting the two sides pick different values.
        let amzDates = request.values(of: "x-amz-date")
        let dateText: String?
        let isAMZDate: Bool
        if !amzDates.isEmpty {
            dateText = amzDates.joined(separator: ",")
            isAMZDate = true
        } else {
            let dates = request.values(of: "date")
            dateText = dates.isEmpty ? nil : dates.joined(separator: ",")
            isAMZDate = false
        }

        var missing: [String] = []
        if authorization.credential == nil {
            missing.append("Authorization header requires 'Credential' parameter.")
        }
        if authorization.signature == nil {
            missing.append("Authorization header requires 'Signature' parameter.")
        }
        if authorization.signedHeaders == nil {
            missing.append("Authorization header requires 'SignedHeaders' parameter.")
        }
        if dateText == nil {
            missing.append("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
        }
        guard missing.isEmpty, let credential = authorization.credential,
            let signature = authorization.signature, let signedHeaders = authorization.signedHeaders,
            let dateText
        else {
            throw .incomplete(missing.joined(separator: " ") + " Authorization=\(rawAuthorization)")
        }

        let parsedTimestamp =
            isAMZDate ? AMZTimestamp(iso8601Basic: dateText.trimmed) : AMZTimestamp(httpDate: dateText.trimmed)
        guard let timestamp = parsedTimestamp else {
            throw .incomplete(
                "Date must be in ISO-8601 'basic format'. Got '\(dateText)'. See http://en.wikipedia.org/wiki/ISO_8601"
            )
        }
        try checkSkew(timestamp, now: now)

        let signedHeaderNames =
            authorization.isASCII
            ? ASCII.split(signedHeaders, separator: ASCII.semicolon) : signedHeaders.split(separator: ";")
        func isSigned(_ name: String) -> Bool {
            let lowercased = name.lowercased()
            return signedHeaderNames.contains { ASCII.equalsIgnoringCase($0.utf8, lowercased: lowercased.utf8) }
        }
        guard isSigned("host") else {
            throw .invalid("'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
        }
        // AWS: "If you include a date or x-amz-date header, you must also include that header in the set
        // of signed headers." Whichever one supplied the time is the one that must be signed.
        // A required header that is absent is left to the service (a JSON API answers
        // UnknownOperationException for a missing X-Amz-Target).
        let mustBeSigned =
            [isAMZDate ? "X-Amz-Date" : "Date"]
            + requiredSignedHeaders.filter { !request.values(of: $0.lowercased()).isEmpty }
        for name in mustBeSigned where !isSigned(name) {
            throw .invalid("'\(name)' must be a 'SignedHeader' in the AWS Authorization.")
        }

        guard authorization.algorithm == CanonicalRequest.algorithm else {
            throw .incomplete(
                "Unsupported AWS 'algorithm': '\(authorization.algorithm)' (only AWS4-HMAC-SHA256 for now). "
            )
        }

        let payloadHash: String
        switch dialect {
        case .standard:
            payloadHash = request.bodySHA256
        case .s3:
            guard let declared = request.values(of: "x-amz-content-sha256").first else {
                throw .missingContentSHA256
            }
            payloadHash = declared.trimmed
        }
        return try checkSignature(
            request, credential: credential, isASCII: authorization.isASCII, timestamp: timestamp,
            signedHeaderNames: signedHeaderNames, signedHeadersLine: String(signedHeaders), signature: signature,
            payloadHash: payloadHash, sessionTokens: request.values(of: "x-amz-security-token"), now: now)
    }

    /// The part every signed request shares: the credential's scope, the access key, the signature,
    /// the session token.
    private func checkSignature(
        _ request: SigV4Request, credential: Substring, isASCII: Bool, timestamp: AMZTimestamp,
        signedHeaderNames: [Substring], signedHeadersLine: String, signature: Substring, payloadHash: String,
        sessionTokens tokens: [String], now: Date
    ) throws(SigV4Error) -> Verified {
        let scope = try checkScope(credential, isASCII: isASCII, timestamp: timestamp)

        guard let credentials = lookup(scope.accessKeyId) else {
            throw .unrecognizedClient
        }

        let canonicalRequest = CanonicalRequest.build(
            method: request.method,
            path: request.path,
            query: request.query,
            signedHeaderNames: signedHeaderNames,
            signedHeadersLine: signedHeadersLine,
            headers: request.headers,
            payloadHash: payloadHash,
            pathAsSent: dialect == .s3,
            omittingQueryKey: dialect == .s3 ? PresignedParameters.signatureKey : nil
        )
        let stringToSign = CanonicalRequest.stringToSign(
            timestamp: timestamp,
            scope: scope.scope,
            canonicalRequest: canonicalRequest
        )
        let signingKey = keyCache.signingKey(
            secret: credentials.secretAccessKey,
            date: scope.date,
            region: scope.region,
            service: service
        )
        let expected = SigningKeyCache.signature(signingKey: signingKey, stringToSign: stringToSign)
        guard ConstantTime.equals(expected, signature.utf8) else {
            throw .signatureMismatch(
                diagnostics: "The canonical request was\n'\(String(decoding: canonicalRequest, as: UTF8.self))'\n"
                    + "The string to sign was\n'\(String(decoding: stringToSign, as: UTF8.self))'"
            )
        }

        // Accepted whether or not it was signed (clients differ); it must belong to the credentials.
        switch (credentials.sessionToken, tokens.count) {
        case (nil, 0):
            break
        case (let expectedToken?, 1) where ConstantTime.equals(expectedToken, tokens[0].trimmed):
            break
        default:
            throw .unrecognizedClient
        }
        if let expiration = credentials.expiration, now >= expiration {
            throw .expiredToken
        }
        return Verified(
            credentials: credentials,
            chunks: ChunkSignatures(
                signingKey: signingKey, timestamp: timestamp, scope: scope.scope, seed: String(signature)))
    }

    private func checkSkew(_ timestamp: AMZTimestamp, now: Date) throws(SigV4Error) {
        let (seconds, attoseconds) = clockSkewTolerance.components
        let tolerance = Double(seconds) + Double(attoseconds) / 1e18
        let nowSeconds = now.timeIntervalSince1970
        let requestSeconds = Double(timestamp.secondsSince1970)
        // Only a rejection needs the texts; a request within the window should not pay for them.
        var toleranceText: String {
            seconds % 60 == 0 && attoseconds == 0 ? "\(seconds / 60) min." : "\(seconds) sec."
        }
        var nowText: String { AMZTimestamp(now).iso8601Basic }

        if requestSeconds < nowSeconds - tolerance {
            let earliest = AMZTimestamp(Date(timeIntervalSince1970: nowSeconds - tolerance)).iso8601Basic
            throw .invalid(
                "Signature expired: \(timestamp.iso8601Basic) is now earlier than \(earliest) (\(nowText) - \(toleranceText))",
                kind: .clockSkew)
        }
        if requestSeconds > nowSeconds + tolerance {
            let latest = AMZTimestamp(Date(timeIntervalSince1970: nowSeconds + tolerance)).iso8601Basic
            throw .invalid(
                "Signature not yet current: \(timestamp.iso8601Basic) is still later than \(latest) (\(nowText) + \(toleranceText))",
                kind: .clockSkew)
        }
    }

    /// Query-string authentication (a presigned URL), in the order S3 checks it: every parameter
    /// present, the algorithm, the date, the expiry, `host` signed, then what any signed request
    /// checks.
    private func verifyPresigned(_ request: SigV4Request, _ parameters: PresignedParameters, now: Date)
        throws(SigV4Error) -> Verified
    {
        guard let algorithm = parameters.algorithm, let credential = parameters.credential,
            let signature = parameters.signature, let date = parameters.date,
            let signedHeaders = parameters.signedHeaders, let expires = parameters.expires
        else {
            throw .presignedParameters(
                "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters."
            )
        }
        guard algorithm == CanonicalRequest.algorithm else {
            throw .presignedParameters(
                "X-Amz-Algorithm only supports \"\(CanonicalRequest.algorithm)\" (got \"\(algorithm)\").")
        }
        guard let timestamp = AMZTimestamp(iso8601Basic: date) else {
            throw .presignedParameters("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
        }
        guard let seconds = Int64(expires), seconds >= 0 else {
            throw .presignedParameters("X-Amz-Expires should be a number")
        }
        guard seconds <= PresignedParameters.maxExpires else {
            throw .presignedParameters(
                "X-Amz-Expires must be less than a week (in seconds) that is \(PresignedParameters.maxExpires)")
        }
        let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
        if nowSeconds > timestamp.secondsSince1970 + seconds {
            throw .accessDenied("Request has expired")
        }
        if timestamp.secondsSince1970 > nowSeconds + clockSkewTolerance.components.seconds {
            throw .accessDenied("Request is not yet valid")
        }
        let signedHeaderNames = signedHeaders.split(separator: ";")
        guard signedHeaderNames.contains(where: { $0.lowercased() == "host" }) else {
            throw .presignedParameters("X-Amz-SignedHeaders must include 'host'.")
        }
        // A presigned URL signs no body: its signer cannot know what will be sent.
        let payloadHash = Self.unsignedPayload
        return try checkSignature(
            request, credential: Substring(credential), isASCII: false, timestamp: timestamp,
            signedHeaderNames: signedHeaderNames, signedHeadersLine: signedHeaders, signature: Substring(signature),
            payloadHash: payloadHash, sessionTokens: parameters.securityToken.map { [$0] } ?? [], now: now)
    }

    /// The payload hash of a request whose body is not signed.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    private struct Scope {
        var accessKeyId: String
        var date: String
        var region: String
        /// `date/region/service/aws4_request`, as it goes into the string to sign.
        var scope: String
    }

    private func checkScope(_ credential: Substring, isASCII: Bool, timestamp: AMZTimestamp) throws(SigV4Error)
        -> Scope
    {
        // AWS ignores trailing slashes here.
        var trimmed = credential
        let parts: [Substring]
        if isASCII {
            while trimmed.utf8.last == ASCII.slash {
                trimmed = Substring(trimmed.utf8.dropLast())
            }
            parts = ASCII.split(trimmed, separator: ASCII.slash, omittingEmptySubsequences: false)
        } else {
            while trimmed.last == "/" {
                trimmed = trimmed.dropLast()
            }
            parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        }
        guard parts.count == 5 else {
            throw .incomplete(
                "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '\(credential)'"
            )
        }
        let requestDate = timestamp.yyyymmdd
        // AWS reports every wrong element at once, each sentence followed by a space, the date last.
        var problems = ""
        if parts[2] != region, !(dialect == .s3 || acceptsAnyRegion) || parts[2].isEmpty {
            problems += "Credential should be scoped to a valid region, not '\(parts[2])'. "
        }
        if parts[3] != service {
            problems += "Credential should be scoped to correct service: '\(service)'. "
        }
        if parts[4] != "aws4_request" {
            problems += "Credential should be scoped with a valid terminator: 'aws4_request', not '\(parts[4])'. "
        }
        if parts[1] != requestDate {
            problems +=
                "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: "
                + "'\(parts[1])' != '\(requestDate)', from '\(timestamp.iso8601Basic)'."
        }
        guard problems.isEmpty else {
            throw .invalid(problems)
        }
        return Scope(
            accessKeyId: String(parts[0]),
            date: requestDate,
            region: String(parts[2]),
            scope: "\(requestDate)/\(parts[2])/\(service)/aws4_request"
        )
    }
}

extension String {
    fileprivate var trimmed: String { ASCII.trimmingWhitespace(self) }
}

/// The `X-Amz-*` parameters of a presigned URL, percent-decoded; nil when the query has no
/// `X-Amz-Algorithm`, `X-Amz-Credential` or `X-Amz-Signature` (it is not a presigned request).
struct PresignedParameters {
    static let signatureKey = "X-Amz-Signature"
    /// Seven days, S3's longest.
    static let maxExpires: Int64 = 604_800

    var algorithm: String?
    var credential: String?
    var signature: String?
    var date: String?
    var signedHeaders: String?
    var expires: String?
    var securityToken: String?

    init?(query: String) {
        guard !query.isEmpty else { return nil }
        for piece in query.utf8.split(separator: ASCII.ampersand) {
            let equals = piece.firstIndex(of: ASCII.equals)
            let key = String(
                decoding: CanonicalRequest.percentDecoded(piece[..<(equals ?? piece.endIndex)]), as: UTF8.self)
            guard key.hasPrefix("X-Amz-") else { continue }
            let value =
                equals.map {
                    String(decoding: CanonicalRequest.percentDecoded(piece[piece.index(after: $0)...]), as: UTF8.self)
                } ?? ""
            switch key {
            case "X-Amz-Algorithm": algorithm = value
            case "X-Amz-Credential": credential = value
            case Self.signatureKey: signature = value
            case "X-Amz-Date": date = value
            case "X-Amz-SignedHeaders": signedHeaders = value
            case "X-Amz-Expires": expires = value
            case "X-Amz-Security-Token": securityToken = value
            default: break
            }
        }
        guard algorithm != nil || credential != nil || signature != nil else { return nil }
    }
}

/// The signatures of an aws-chunked body (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]`): each chunk's
/// signs its data and the signature before it, starting from the request's own (the seed), so no
/// chunk can be changed, dropped or moved (sigv4-streaming.html).
public struct ChunkSignatures: Sendable {
    let signingKey: [UInt8]
    let timestamp: AMZTimestamp
    let scope: String
    /// The signature the next one chains from.
    public private(set) var previous: String

    init(signingKey: [UInt8], timestamp: AMZTimestamp, scope: String, seed: String) {
        self.signingKey = signingKey
        self.timestamp = timestamp
        self.scope = scope
        previous = seed
    }

    /// The signature the next chunk, whose data hashes to `dataSHA256` (lowercase hex), must carry;
    /// it becomes the one the chunk after chains from.
    public mutating func next(dataSHA256: String) -> String {
        sign(
            "AWS4-HMAC-SHA256-PAYLOAD\n\(timestamp.iso8601Basic)\n\(scope)\n\(previous)\n\(SHA256Hex.empty)\n\(dataSHA256)"
        )
    }

    /// The signature of the trailing headers after the last chunk, given as `name:value\n` each.
    public mutating func trailer(canonicalHeaders: [UInt8]) -> String {
        sign(
            "AWS4-HMAC-SHA256-TRAILER\n\(timestamp.iso8601Basic)\n\(scope)\n\(previous)\n\(SHA256Hex.hash(canonicalHeaders))"
        )
    }

    private mutating func sign(_ stringToSign: String) -> String {
        let signature = String(
            decoding: SigningKeyCache.signature(signingKey: signingKey, stringToSign: Array(stringToSign.utf8)),
            as: UTF8.self)
        previous = signature
        return signature
    }
}
