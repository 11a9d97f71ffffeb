#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks the SigV4 `Authorization` header of a request, as the server side of a Firehose endpoint.
///
/// The checks run in the order AWS's JSON front end runs them, so the first error a client gets is the
/// one AWS would give: the header's syntax, the parameters and the date, the date's format and the clock
/// skew, `host`, the date header and the service's required headers being signed, the algorithm, the credential's shape, its scope, the access key, the
/// signature, and last the session token.
///
/// The payload hash in the canonical request is always `SigV4Request.bodySHA256`, the hash of the body
/// as received, never the client's `X-Amz-Content-Sha256` header: for a service that is not S3 the two
/// must agree anyway, and trusting the header would let a signed request carry any body. A client that
/// sends `UNSIGNED-PAYLOAD` therefore fails with a signature mismatch.
public struct SigV4Verifier: Sendable {
    public let region: String
    public let service: String
    public let clockSkewTolerance: Duration
    /// Headers that, when a request has them, must be signed (beyond `host` and the date), as spelled
    /// in messages.
    public let requiredSignedHeaders: [String]
    private let lookup: @Sendable (_ accessKeyId: String) -> AWSCredentials?
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
        lookup: @escaping @Sendable (_ accessKeyId: String) -> AWSCredentials?
    ) {
        self.region = region
        self.service = service
        self.clockSkewTolerance = clockSkewTolerance
        self.requiredSignedHeaders = requiredSignedHeaders
        self.lookup = lookup
        self.keyCache = SigningKeyCache()
    }

    /// Verifies `request` as of `now` and returns the credentials that signed it.
    ///
    /// - Throws: `SigV4Error` with the code and message AWS would answer (all HTTP 400).
    public func verify(_ request: SigV4Request, now: Date) throws(SigV4Error) -> AWSCredentials {
        let authorizationValues = request.values(of: "authorization")
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

        let scope = try checkScope(credential, isASCII: authorization.isASCII, timestamp: timestamp)

        guard let credentials = lookup(scope.accessKeyId) else {
            throw .unrecognizedClient
        }

        let canonicalRequest = CanonicalRequest.build(
            method: request.method,
            path: request.path,
            query: request.query,
            signedHeaderNames: signedHeaderNames,
            signedHeadersLine: String(signedHeaders),
            headers: request.headers,
            payloadHash: request.bodySHA256
        )
        let stringToSign = CanonicalRequest.stringToSign(
            timestamp: timestamp,
            scope: scope.scope,
            canonicalRequest: canonicalRequest
        )
        let signingKey = keyCache.signingKey(
            secret: credentials.secretAccessKey,
            date: scope.date,
            region: region,
            service: service
        )
        let expected = SigningKeyCache.signature(signingKey: signingKey, stringToSign: stringToSign)
        guard ConstantTime.equals(expected, signature.utf8) else {
            throw .invalid(
                SigV4Error.signatureMismatchMessage,
                diagnostics: "The canonical request was\n'\(String(decoding: canonicalRequest, as: UTF8.self))'\n"
                    + "The string to sign was\n'\(String(decoding: stringToSign, as: UTF8.self))'"
            )
        }

        // Accepted whether or not it was signed (clients differ); it must belong to the credentials.
        let tokens = request.values(of: "x-amz-security-token")
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
        return credentials
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
                "Signature expired: \(timestamp.iso8601Basic) is now earlier than \(earliest) (\(nowText) - \(toleranceText))"
            )
        }
        if requestSeconds > nowSeconds + tolerance {
            let latest = AMZTimestamp(Date(timeIntervalSince1970: nowSeconds + tolerance)).iso8601Basic
            throw .invalid(
                "Signature not yet current: \(timestamp.iso8601Basic) is still later than \(latest) (\(nowText) + \(toleranceText))"
            )
        }
    }

    private struct Scope {
        var accessKeyId: String
        var date: String
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
        if parts[2] != region {
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
            scope: "\(requestDate)/\(region)/\(service)/aws4_request"
        )
    }
}

extension String {
    fileprivate var trimmed: String { ASCII.trimmingWhitespace(self) }
}
