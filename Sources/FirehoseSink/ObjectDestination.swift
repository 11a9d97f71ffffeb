package import DurableStorage
import FirehoseKeyLayout

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where a finished object of a bucket goes, for the stages whose destination writes objects
/// (`BucketDestination`): the bucket folders of the data directory (`DirectoryBucket`), or an
/// S3-compatible store for the buckets mapped to one (`S3StoreDestination`). One for the whole
/// sink, since the configuration maps buckets, not streams, to stores.
package protocol ObjectDestination: Sendable {
    /// Makes the finished object in `staged` the object `key` of `bucket`, for good: when this returns
    /// the object survives a crash and its staging files may go. One object of a stream at a time,
    /// in order; blocking work belongs on `BlockingIO`. Takes the staged file: once this returns, the
    /// file is gone from the staging folder (renamed into place), or may go (copied; the caller
    /// removes it). A destination that copies delivers at least once: after a crash between the copy
    /// and the removal, recovery delivers the buffer again, at the same key. On failure the file
    /// stays, for the retry. Returns where the object now is (`DeliveredObject.path`).
    func deliver(_ staged: StagedObject, bucket: String, key: String) async throws(FileSystemError) -> String

    /// Whether delivering into `bucket` leaves this machine (a store), so that a request does not
    /// wait for it and a failure is retried only on the backoff timer.
    func isRemote(bucket: String) -> Bool
}

extension ObjectDestination {
    package func isRemote(bucket: String) -> Bool { false }
}

/// A finished object in the staging folder, handed to the destination.
package struct StagedObject: Sendable {
    package var path: String
    /// Open on the file for syncing (not for reading: read it by `path`); the caller closes it.
    package var descriptor: Int32
}

/// The data directory as S3: bucket `b`'s object `k` is the file `<root>/b/k`, put there by renaming
/// the staged file, so readers see it whole or not at all.
package struct DirectoryBucket: ObjectDestination {
    package var root: String

    package init(root: String) {
        self.root = root
    }

    package func deliver(_ staged: StagedObject, bucket: String, key: String) async throws(FileSystemError) -> String {
        let root = root
        return try await BlockingIO.run { () -> Result<String, FileSystemError> in
            Result { () throws(FileSystemError) in try Self.place(staged, root: root, bucket: bucket, key: key) }
        }.get()
    }

    /// Renames the staged file into place (`BucketFolders.move`), synced: the file, then its new
    /// folder. Returns the object's path.
    static func place(_ staged: StagedObject, root: String, bucket: String, key: String) throws(FileSystemError)
        -> String
    {
        try POSIX.fsync(staged.descriptor, path: staged.path)
        do {
            try BucketFolders(root: root).move(staged.path, bucket: bucket, key: key, createBucket: true, durable: true)
        } catch {
            throw error.fileSystemError(bucket: bucket, key: key)
        }
        return "\(root)/\(bucket)/\(key)"
    }
}
