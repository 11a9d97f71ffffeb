import DurableStorage
import FirehoseKeyLayout

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The destination stage: where a finished object goes. Today the bucket folders of the data
/// directory; another store (an S3-compatible server, an HTTP endpoint) is one more type conforming
/// to this, and the buffers, journals and publishing order stay as they are.
package protocol ObjectDestination: Sendable {
    /// Makes the finished object in `staged` the object `key` of `bucket`, for good: when this returns
    /// the object survives a crash and its staging files may go. Blocking: publishing calls it on the
    /// blocking-I/O thread, recovery at start on the stream's actor; one object of a stream at a time,
    /// in order. Takes the staged file: once this returns, the file is gone from the staging folder
    /// (renamed into place, or removed after a copy). A destination that copies delivers at least
    /// once: after a crash between the copy and the removal, recovery delivers the buffer again
    /// (under a new key). On failure the file stays, for the retry. Returns where the object now is
    /// (`DeliveredObject.path`).
    func deliver(_ staged: StagedObject, bucket: String, key: String) throws(FileSystemError) -> String
}

/// A finished object in the staging folder, handed to the destination.
package struct StagedObject: Sendable {
    package var path: String
    /// Open on the file for syncing (not for reading: read it by `path`); the caller closes it.
    package var descriptor: Int32
}

/// The data directory as S3: bucket `b`'s object `k` is the file `<root>/b/k`, put there by renaming
/// the staged file, so readers see it whole or not at all.
struct DirectoryBucket: ObjectDestination {
    var root: String

    func deliver(_ staged: StagedObject, bucket: String, key: String) throws(FileSystemError) -> String {
        guard ObjectKeyLayout.isSafeRelativePath(key) else {
            throw FileSystemError(operation: "deliver", path: key, errno: EINVAL)
        }
        let path = "\(root)/\(bucket)/\(key)"
        let parent = String(path[..<path.lastIndex(of: "/")!])
        try POSIX.fsync(staged.descriptor, path: staged.path)
        try POSIX.makeDirectories(parent)
        try POSIX.rename(staged.path, path)
        try POSIX.fsyncDirectory(parent)
        return path
    }
}
