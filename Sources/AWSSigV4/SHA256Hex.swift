import Crypto

/// Lowercase hex SHA-256, the form SigV4 uses for payload hashes.
public enum SHA256Hex {
    /// The hash of an empty body.
    public static let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public static func hash(_ bytes: UnsafeRawBufferPointer) -> String {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return hasher.finalize().withUnsafeBytes { Hex.string($0) }
    }

    public static func hash(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { hash($0) }
    }

    public static func hash(_ string: String) -> String {
        var string = string
        return string.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    public static func hash(_ bytes: some Sequence<UInt8>) -> String {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return hash(Array(bytes))
    }

    /// Hashes a body that arrives in pieces (e.g. the buffers of a streamed request) without joining them.
    /// Not `Sendable` because swift-crypto's `SHA256` state is not; keep one per request.
    public struct Hasher {
        private var hasher = SHA256()

        public init() {}

        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            hasher.update(bufferPointer: bytes)
        }

        public mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }

        /// The lowercase hex digest of everything passed to `update` so far.
        public func finalize() -> String {
            hasher.finalize().withUnsafeBytes { Hex.string($0) }
        }
    }
}
