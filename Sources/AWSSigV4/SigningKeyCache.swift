import Crypto
import Synchronization

/// Derived SigV4 signing keys (`kSigning`), cached per (secret, date, region, service).
///
/// Deriving a key costs four HMACs; a key is valid for a whole UTC day, so caching it leaves one HMAC
/// (over the string to sign) per request. The cache only ever holds keys of credentials that the lookup
/// knew and dates inside the skew window, so it stays small; the bound is a guard, and when it is
/// reached the cache simply starts over, which costs one derivation per credential.
final class SigningKeyCache: Sendable {
    struct Key: Hashable, Sendable {
        var secret: String
        var date: String
        var region: String
        var service: String
    }

    private struct State {
        // Raw bytes, not `SymmetricKey`, because swift-crypto's key type is not `Sendable`.
        var keys: [Key: [UInt8]] = [:]
        var derivations = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 64) {
        precondition(capacity > 0, "a signing key cache needs room for at least one key")
        self.capacity = capacity
    }

    func signingKey(secret: String, date: String, region: String, service: String) -> [UInt8] {
        let key = Key(secret: secret, date: date, region: region, service: service)
        if let cached = state.withLock({ $0.keys[key] }) {
            return cached
        }
        // Derive outside the lock: two threads racing on a cold key both compute the same bytes.
        let derived = Self.derive(secret: secret, date: date, region: region, service: service)
        state.withLock { state in
            if state.keys.count >= capacity {
                state.keys.removeAll(keepingCapacity: true)
            }
            state.keys[key] = derived
            state.derivations += 1
        }
        return derived
    }

    /// How many keys were derived rather than found; for tests.
    var derivationCount: Int { state.withLock { $0.derivations } }

    var count: Int { state.withLock { $0.keys.count } }

    /// `kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request")`.
    static func derive(secret: String, date: String, region: String, service: String) -> [UInt8] {
        var key = Array(("AWS4" + secret).utf8)
        for part in [date, region, service, "aws4_request"] {
            key = hmac(key: key, message: Array(part.utf8))
        }
        return key
    }

    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return mac.withUnsafeBytes { Array($0) }
    }

    /// The lowercase hex signature of `stringToSign`, as it appears in the `Authorization` header.
    static func signature(signingKey: [UInt8], stringToSign: [UInt8]) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(for: stringToSign, using: SymmetricKey(data: signingKey))
        var hex: [UInt8] = []
        mac.withUnsafeBytes { Hex.append($0, to: &hex) }
        return hex
    }
}
