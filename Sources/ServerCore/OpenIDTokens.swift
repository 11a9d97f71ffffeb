import Crypto
package import DurableStorage
import FirehoseWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The OpenID tokens Cognito's GetOpenIdToken issues and STS's AssumeRoleWithWebIdentity takes: JWTs
/// with Cognito's claims, signed HS256 with a key kept in the data directory, so a token stays good
/// across a restart for the ten minutes it lasts, as it would in AWS.
package struct OpenIDTokens: Sendable {
    /// The `iss` of Cognito's tokens.
    package static let issuer = "https://cognito-identity.amazonaws.com"
    /// The web identity provider STS names for them (`Provider`, a trust policy's `Federated`).
    package static let provider = "cognito-identity.amazonaws.com"
    private static let header = #"{"alg":"HS256","kid":"firehose-local","typ":"JWT"}"#

    /// Kept as bytes: `SymmetricKey` is not `Sendable`.
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    package init(key: [UInt8]) {
        keyBytes = key
    }

    /// The key in `path` (32 random bytes, readable by its owner only), made and synced there first
    /// when there is none.
    package static func load(path: String) throws(FileSystemError) -> OpenIDTokens {
        if POSIX.exists(path) {
            let key = try POSIX.readFile(path)
            guard key.count == 32 else {
                throw FileSystemError(
                    operation: "read", path: path, errno: EINVAL, detail: "the token key is not 32 bytes")
            }
            return OpenIDTokens(key: key)
        }
        var random = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        try AtomicFile.replace(path, with: key, temporary: path + ".tmp", durable: true, mode: 0o600)
        return OpenIDTokens(key: key)
    }

    /// What a token says, as Cognito's carry it.
    package struct Claims: Codable, Sendable, Equatable {
        package var iss = OpenIDTokens.issuer
        /// The identity.
        package var sub: String
        /// The identity pool.
        package var aud: String
        /// `unauthenticated`, or `authenticated` and the providers of the logins used.
        package var amr: [String]
        package var iat: Int
        package var exp: Int

        package init(sub: String, aud: String, amr: [String], iat: Int, exp: Int) {
            self.sub = sub
            self.aud = aud
            self.amr = amr
            self.iat = iat
            self.exp = exp
        }
    }

    package func token(for claims: Claims) -> String {
        let signingInput =
            Base64.encodeURL(Array(Self.header.utf8)) + "." + Base64.encodeURL(OrderedJSONEncoder.encode(claims))
        let signature = HMAC<SHA256>.authenticationCode(for: Array(signingInput.utf8), using: key)
        return signingInput + "." + Base64.encodeURL(Array(signature))
    }

    /// Why a token is not taken.
    package enum Rejection: Error, Equatable {
        /// Not a JWT, or not one with Cognito's claims.
        case malformed
        /// Issued by another provider than Cognito's.
        case foreignIssuer(String)
        /// Cognito's claims, but not signed by this server.
        case badSignature
        case expired(now: Int, expiration: Int)
    }

    /// The claims of a token this server issued and that has not expired at `now`.
    package func verify(_ token: String, now: Date) throws(Rejection) -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64.decodeURL(parts[1]),
            let header = Base64.decodeURL(parts[0]),
            (try? JSONDecoder().decode([String: JSONValue].self, from: Data(header)))?["alg"] != nil,
            let signature = Base64.decodeURL(parts[2])
        else { throw .malformed }
        let issuer = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(payload)))?["iss"]?.stringValue
        guard let issuer else { throw .malformed }
        guard issuer == Self.issuer else { throw .foreignIssuer(issuer) }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(payload)) else { throw .malformed }
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        guard seconds < claims.exp else { throw .expired(now: seconds, expiration: claims.exp) }
        return claims
    }
}
