import Crypto

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// S3's older query-string authentication (Signature Version 2): what boto3's and the AWS CLI's
/// `generate_presigned_url` and `aws s3 presign` still make by default. `AWSAccessKeyId`, `Expires`
/// (seconds since 1970) and `Signature`, the base64 HMAC-SHA1 of
/// `VERB\nContent-MD5\nContent-Type\nExpires\n[x-amz-… headers\n]/bucket/key[?subresources]`.
extension SigV4Verifier {
    /// Whether the query carries Signature Version 2's parameters.
    public static func isQueryStringV2(_ query: String) -> Bool {
        query.contains("AWSAccessKeyId=") && query.contains("Signature=")
    }

    /// Verifies a Signature Version 2 presigned request and returns the credentials that signed it.
    ///
    /// - Parameter virtualHostedBucket: the bucket the Host names, when the request addresses it so:
    ///   the signed resource always starts with the bucket.
    public func verifyQueryStringV2(_ request: SigV4Request, virtualHostedBucket: String?, now: Date)
        throws(SigV4Error) -> AWSCredentials
    {
        var parameters: [(name: String, value: String)] = []
        for piece in request.query.split(separator: "&") {
            let equals = piece.firstIndex(of: "=")
            let name = Self.decoded(piece[..<(equals ?? piece.endIndex)])
            let value = equals.map { Self.decoded(piece[piece.index(after: $0)...]) } ?? ""
            parameters.append((name, value))
        }
        func parameter(_ name: String) -> String? { parameters.first { $0.name == name }?.value }
        guard let accessKeyId = parameter("AWSAccessKeyId"), let signature = parameter("Signature"),
            let expiresText = parameter("Expires")
        else {
            throw .presignedParameters(
                "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters")
        }
        guard let expires = Int64(expiresText) else {
            throw .presignedParameters("Invalid date (should be seconds since epoch): \(expiresText)")
        }
        if Int64(now.timeIntervalSince1970.rounded(.down)) > expires {
            throw .accessDenied("Request has expired")
        }
        guard let credentials = lookup(accessKeyId) else {
            throw .unrecognizedClient
        }

        // Headers a client moved into the query when it presigned count as the headers they were.
        var amzHeaders: [String: [String]] = [:]
        var contentMD5 = request.values(of: "content-md5").first ?? ""
        var contentType = request.values(of: "content-type").first ?? ""
        for header in request.headers where header.name.lowercased().hasPrefix("x-amz-") {
            amzHeaders[header.name.lowercased(), default: []].append(ASCII.trimmingWhitespace(header.value))
        }
        for (name, value) in parameters {
            let lowercased = name.lowercased()
            if lowercased.hasPrefix("x-amz-") {
                amzHeaders[lowercased, default: []].append(ASCII.trimmingWhitespace(value))
            } else if lowercased == "content-md5" {
                contentMD5 = value
            } else if lowercased == "content-type" {
                contentType = value
            }
        }
        var stringToSign = "\(request.method.uppercased())\n\(contentMD5)\n\(contentType)\n\(expiresText)\n"
        for name in amzHeaders.keys.sorted() {
            stringToSign += "\(name):\(amzHeaders[name]!.joined(separator: ","))\n"
        }
        stringToSign += virtualHostedBucket.map { "/\($0)" } ?? ""
        stringToSign += request.path.isEmpty ? "/" : request.path
        let subresources = parameters.filter { Self.signedSubresources.contains($0.name) }
            .sorted { $0.name < $1.name }
        if !subresources.isEmpty {
            stringToSign +=
                "?"
                + subresources.map { $0.value.isEmpty ? $0.name : "\($0.name)=\($0.value)" }
                .joined(separator: "&")
        }
        let key = SymmetricKey(data: Array(credentials.secretAccessKey.utf8))
        let expected = Data(HMAC<Insecure.SHA1>.authenticationCode(for: Array(stringToSign.utf8), using: key))
            .base64EncodedString()
        guard ConstantTime.equals(expected, signature) else {
            throw .signatureMismatch(diagnostics: "The string to sign was\n'\(stringToSign)'")
        }
        // The token must be the credentials' own, and present exactly when they have one.
        let token = parameter("x-amz-security-token") ?? request.values(of: "x-amz-security-token").first
        guard token == credentials.sessionToken else {
            throw .unrecognizedClient
        }
        if let expiration = credentials.expiration, now >= expiration {
            throw .expiredToken
        }
        return credentials
    }

    /// The query parameters Signature Version 2 signs as part of the resource (botocore's list).
    static let signedSubresources: Set<String> = [
        "accelerate", "acl", "cors", "defaultObjectAcl", "location", "logging", "partNumber", "policy",
        "requestPayment", "torrent", "versioning", "versionId", "versions", "website", "uploads", "uploadId",
        "response-content-type", "response-content-language", "response-expires", "response-cache-control",
        "response-content-disposition", "response-content-encoding", "delete", "lifecycle", "tagging", "restore",
        "storageClass", "notification", "replication", "analytics", "metrics", "inventory", "select", "select-type",
        "object-lock",
    ]

    private static func decoded(_ text: Substring) -> String {
        String(decoding: CanonicalRequest.percentDecoded(text.utf8), as: UTF8.self)
    }
}
