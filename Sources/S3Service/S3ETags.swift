import AWSSigV4
import Crypto
import FirehoseSink
import FirehoseWire
import Synchronization

/// ETags (the MD5 of a single-part object, quoted; a multipart upload's kept with its file) by file identity: a delivered object is never
/// written again, so each is read once. Bounded: past `limit` entries the cache starts over.
final class ETagCache: Sendable {
    private let entries = Mutex<[BucketFolders.FileIdentity: String]>([:])
    static let limit = 65_536
    static let chunk = 1 << 20

    subscript(identity: BucketFolders.FileIdentity) -> String? {
        entries.withLock { $0[identity] }
    }

    /// The object's ETag, read from its content when not known; nil when it cannot be read.
    func etag(of object: OpenObject) async -> String? {
        if let known = self[object.identity] { return known }
        let computed = await BlockingIO.read { () -> String? in
            if let stored = object.storedETag() { return stored }
            var md5 = Insecure.MD5()
            var offset = 0
            while offset < object.size {
                guard let bytes = try? object.read(at: offset, count: min(Self.chunk, object.size - offset)),
                    !bytes.isEmpty
                else { return nil }
                md5.update(data: bytes)
                offset += bytes.count
            }
            return "\"\(Hex.string(md5.finalize()))\""
        }
        if let computed { remember(computed, for: object.identity) }
        return computed
    }

    /// A multipart upload's ETag, known when it is placed: where the file system keeps no extended
    /// attributes, this is where it lives.
    func remember(_ etag: String, for identity: BucketFolders.FileIdentity) {
        entries.withLock { entries in
            if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries[identity] = etag
        }
    }
}
