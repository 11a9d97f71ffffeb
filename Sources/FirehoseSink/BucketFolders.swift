import CXattr
package import DurableStorage
import FirehoseKeyLayout
import FirehoseWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The bucket folders of the data directory as buckets and objects, for the S3 API: read (listings,
/// objects) and written (PutObject, DeleteObject, CreateBucket). Objects only appear by `rename`,
/// from a delivery (`DirectoryBucket`) or an upload, so every object found is whole; a private
/// folder (staging, quarantine) is no bucket, nor listed inside one. Nothing leaves the data
/// directory through a key: a key with an empty, `.` or `..` segment names no object, and a symbolic
/// link inside a bucket is neither followed nor listed. A bucket's own folder may be a link (put
/// there by whoever runs the server, to keep a bucket on another disk: no request can name one).
/// Blocking: call it on `BlockingIO.read` (or `BlockingIO.run`).
package struct BucketFolders: Sendable {
    package var root: String

    package init(root: String) {
        self.root = root
    }

    package struct Bucket: Sendable, Equatable {
        package var name: String
        package var modified: Date
    }

    /// An object as a listing shows it.
    package struct Object: Sendable, Equatable {
        package var key: String
        package var size: Int
        package var modified: Date
        package var identity: FileIdentity

        package init(key: String, size: Int, modified: Date, identity: FileIdentity) {
            self.key = key
            self.size = size
            self.modified = modified
            self.identity = identity
        }
    }

    /// What tells one file's content from another's without reading it: a delivered object is
    /// renamed into place and never written again, so a new object is a new inode.
    package struct FileIdentity: Hashable, Sendable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        package var modifiedNanoseconds: Int64

        package init(device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64) {
            self.device = device
            self.inode = inode
            self.size = size
            self.modifiedNanoseconds = modifiedNanoseconds
        }
    }

    /// The folders of the data directory that can be buckets, by name.
    package func buckets() -> [Bucket] {
        Self.entries(of: root, followingLinks: true).compactMap { entry in
            guard entry.kind == .directory, Self.isBucketName(entry.name) else { return nil }
            return Bucket(name: entry.name, modified: entry.modified)
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The bucket's folder, when the bucket has one.
    package func bucket(_ name: String) -> Bucket? {
        guard Self.isBucketName(name) else { return nil }
        var info = stat()
        guard stat("\(root)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return Bucket(name: name, modified: Self.modified(info))
    }

    /// Every object of `bucket` whose key starts with `prefix`, in no particular order; nil when the
    /// bucket has no folder. Only the folder the prefix ends in is walked.
    package func objects(in bucket: String, prefix: String) -> [Object]? {
        guard self.bucket(bucket) != nil else { return nil }
        // `a/b/c` can only match under the folder `a/b/`, if that is a real folder (bytes, not
        // Characters: a combining mark after the `/` must not move the cut).
        var folders = [bucket]
        var start = ""
        if let slash = prefix.utf8.lastIndex(of: UInt8(ascii: "/")) {
            start = String(decoding: prefix.utf8[...slash], as: UTF8.self)
            let inside = String(start.dropLast())
            let segments = inside.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard ObjectKeyLayout.isSafeRelativePath(inside), !segments.contains(Self.privateFolder) else { return [] }
            folders += segments
        }
        guard case .success(let folder) = openFolder(folders, create: false) else { return [] }
        var objects: [Object] = []
        walk(folder, keyPrefix: start) { object in
            if object.key.utf8.starts(with: prefix.utf8) { objects.append(object) }
        }
        return objects
    }

    /// Every file under the open folder (which it closes), through folders opened without
    /// following a link.
    private func walk(_ folder: Int32, keyPrefix: String, _ visit: (Object) -> Void) {
        defer { closeFile(folder) }
        for entry in Self.entries(in: folder) {
            let key = keyPrefix + entry.name
            switch entry.kind {
            case .directory where entry.name == Self.privateFolder:
                break
            case .directory:
                let child = openat(folder, entry.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 { walk(child, keyPrefix: key + "/", visit) }
            case .file:
                visit(Object(key: key, size: entry.size, modified: entry.modified, identity: entry.identity))
            case .other:
                break
            }
        }
    }

    /// Opens the object `key` of `bucket` for reading; nil when there is none (or the key could
    /// not name a file: an empty, `.` or `..` segment, a segment through a symbolic link).
    package func open(bucket: String, key: String) -> OpenObject? {
        guard let path = ObjectPath(bucket: bucket, key: key),
            case .success(let folder) = openFolder(path.folders, create: false)
        else { return nil }
        let file = openat(folder, path.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        closeFile(folder)
        guard file >= 0 else { return nil }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            closeFile(file)
            return nil
        }
        return OpenObject(descriptor: file, info: info)
    }

    // MARK: Writing

    /// Why a write did not happen.
    package enum WriteError: Error, Equatable {
        case noSuchBucket
        /// The key cannot be a file here: an empty, `.` or `..` segment, or a private folder's name.
        case invalidKey
        /// A folder the key needs is an object (or the key is a folder): S3 keeps `a` and `a/b` apart,
        /// a directory cannot.
        case conflict(String)
        case storage(FileSystemError)

        /// The refusal as a delivery reports it.
        func fileSystemError(bucket: String, key: String) -> FileSystemError {
            switch self {
            case .noSuchBucket:
                FileSystemError(
                    operation: "deliver", path: bucket, errno: ENOENT, detail: "the bucket's folder is gone")
            case .invalidKey:
                FileSystemError(operation: "deliver", path: key, errno: EINVAL)
            case .conflict(let what):
                FileSystemError(operation: "deliver", path: "\(bucket)/\(key)", errno: ENOTDIR, detail: what)
            case .storage(let error):
                error
            }
        }
    }

    /// Makes `content` the object `key` of `bucket`, whole or not at all (see `place`); returns the
    /// object's identity.
    @discardableResult
    package func put(
        _ content: [UInt8], bucket: String, key: String, staging: String, durable: Bool
    ) throws(WriteError) -> FileIdentity {
        try place(bucket: bucket, key: key, staging: staging, durable: durable) {
            file, path throws(FileSystemError) in
            try POSIX.writeAll(file, content, at: 0, path: path)
        }.identity
    }

    /// Makes what `write` writes into a new file (given its descriptor and path) the object `key` of
    /// `bucket`, whole or not at all: written in `staging`, synced when `durable`, then renamed into
    /// place over any object that was there, its folder synced. Folders are created as needed, never
    /// through a symbolic link. An `etag` other than the content's MD5 (a multipart upload's) is kept
    /// with the file as an extended attribute where the file system has them. Returns the new
    /// object's identity, and whether the file system kept the `etag`.
    package func place(
        bucket: String, key: String, staging: String, durable: Bool, etag: String? = nil,
        write: (Int32, String) throws(FileSystemError) -> Void
    ) throws(WriteError) -> (identity: FileIdentity, keptETag: Bool) {
        guard ObjectPath(bucket: bucket, key: key) != nil else { throw .invalidKey }
        guard self.bucket(bucket) != nil else { throw .noSuchBucket }
        let temporary = "\(staging)/\(UUID().uuidString.lowercased()).upload"
        var keptETag = false
        do throws(FileSystemError) {
            let file = try POSIX.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL)
            defer { POSIX.close(file) }
            try write(file, temporary)
            // Best effort: without extended attributes the ETag lives in the S3 API's cache.
            if let etag { keptETag = Self.keep(etag, on: file) }
            if durable { try POSIX.fsync(file, path: temporary) }
        } catch {
            POSIX.unlink(temporary)
            throw .storage(error)
        }
        do {
            return (try move(temporary, bucket: bucket, key: key, createBucket: false, durable: durable), keptETag)
        } catch {
            POSIX.unlink(temporary)
            throw error
        }
    }

    /// Renames the whole file at `file` (in the data directory's staging) to be the object `key` of
    /// `bucket` (copied first where the bucket's folder is a link to another file system), over any
    /// object that was there, its folder synced when `durable`: the one way an
    /// object appears, for deliveries and uploads alike. Folders are created as needed (the bucket's
    /// own only when `createBucket`), never through a symbolic link. On failure `file` stays.
    /// Returns the object's identity.
    @discardableResult
    package func move(_ file: String, bucket: String, key: String, createBucket: Bool, durable: Bool)
        throws(WriteError) -> FileIdentity
    {
        guard let path = ObjectPath(bucket: bucket, key: key) else { throw .invalidKey }
        let folder = try openFolder(path.folders, create: true, createBucket: createBucket).get()
        defer { closeFile(folder) }
        var code: Int32 = renameat(AT_FDCWD, file, folder, path.name) == 0 ? 0 : errno
        if code == EXDEV {
            // The bucket's folder is a link to another file system, which a rename cannot cross:
            // the file is copied into the bucket's own private folder, then renamed from there.
            code = copyAcross(file, bucket: path.folders[0], into: folder, name: path.name, durable: durable)
            if code == 0 { POSIX.unlink(file) }
        }
        if code != 0 {
            if code == EISDIR || code == ENOTEMPTY || code == EEXIST {
                throw .conflict("'\(key)' is a folder of other objects")
            }
            throw .storage(FileSystemError(operation: "rename", path: key, errno: code))
        }
        if durable, fsync(folder) != 0 {
            throw .storage(FileSystemError(operation: "fsync", path: "\(bucket)/\(key)", errno: errno))
        }
        var info = stat()
        guard fstatat(folder, path.name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .storage(FileSystemError(operation: "stat", path: "\(bucket)/\(key)", errno: errno))
        }
        return Self.identity(info)
    }

    /// Copies `file` (with its ETag attribute) to `<bucket>/.firehose-local/`, synced when `durable`,
    /// and renames the copy to `name` in `folder`; 0, or the errno of the step that failed (the
    /// copy is removed then).
    private func copyAcross(_ file: String, bucket: String, into folder: Int32, name: String, durable: Bool)
        -> Int32
    {
        let bucketFolder = openFile("\(root)/\(bucket)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard bucketFolder >= 0 else { return errno }
        defer { closeFile(bucketFolder) }
        if mkdirat(bucketFolder, Self.privateFolder, 0o755) != 0, errno != EEXIST { return errno }
        let privateFolder = openat(bucketFolder, Self.privateFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard privateFolder >= 0 else { return errno }
        defer { closeFile(privateFolder) }
        let copyName = "\(UUID().uuidString.lowercased()).copy"
        let copy = openat(privateFolder, copyName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard copy >= 0 else { return errno }
        let code: Int32
        do throws(FileSystemError) {
            defer { closeFile(copy) }
            let source = try POSIX.open(file, flags: O_RDONLY)
            defer { POSIX.close(source) }
            _ = try POSIX.copy(source, path: file, into: copy, at: 0, path: copyName)
            if let etag = Self.storedETag(of: source) { _ = Self.keep(etag, on: copy) }
            if durable { try POSIX.fsync(copy, path: copyName) }
            code = renameat(privateFolder, copyName, folder, name) == 0 ? 0 : errno
        } catch {
            code = error.errno
        }
        if code != 0 { _ = unlinkat(privateFolder, copyName, 0) }
        return code
    }

    /// The extended attribute holding an ETag that is not the content's MD5.
    static let etagAttribute = "user.firehose-local.etag"

    /// Keeps `etag` with the open file; false where the file system has no extended attributes.
    static func keep(_ etag: String, on file: Int32) -> Bool {
        Array(etag.utf8).withUnsafeBytes { fsetxattr(file, etagAttribute, $0.baseAddress, $0.count, 0) } == 0
    }

    /// The ETag kept with the open file, if any.
    static func storedETag(of file: Int32) -> String? {
        var value = [UInt8](repeating: 0, count: 128)
        let count = value.withUnsafeMutableBytes { fgetxattr(file, etagAttribute, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(validating: value[..<count], as: UTF8.self)
    }

    /// Whether `key` can name an object here (see `WriteError.invalidKey`).
    package static func isObjectKey(_ key: String) -> Bool {
        ObjectPath(bucket: "b", key: key) != nil
    }

    /// Removes the object `key` of `bucket` if there is one (a folder or a link is no object).
    package func delete(bucket: String, key: String, durable: Bool) throws(WriteError) {
        guard let path = ObjectPath(bucket: bucket, key: key) else {
            guard self.bucket(bucket) != nil else { throw .noSuchBucket }
            return
        }
        let folder: Int32
        switch openFolder(path.folders, create: false) {
        case .success(let opened): folder = opened
        case .failure(.noSuchBucket): throw .noSuchBucket
        case .failure: return  // no folder on the way: no such object
        }
        defer { closeFile(folder) }
        var info = stat()
        guard fstatat(folder, path.name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return
        }
        if unlinkat(folder, path.name, 0) != 0, errno != ENOENT {
            throw .storage(FileSystemError(operation: "unlink", path: "\(bucket)/\(key)", errno: errno))
        }
        if durable, fsync(folder) != 0 {
            throw .storage(FileSystemError(operation: "fsync", path: "\(bucket)/\(key)", errno: errno))
        }
    }

    /// Creates the bucket's folder; false when it was there already.
    package func createBucket(_ name: String, durable: Bool) throws(WriteError) -> Bool {
        guard Self.isBucketName(name) else { throw .invalidKey }
        if mkdir("\(root)/\(name)", 0o755) != 0 {
            if errno == EEXIST, self.bucket(name) != nil { return false }
            throw errno == EEXIST
                ? .conflict("'\(name)' is a file in the data directory")
                : .storage(FileSystemError(operation: "mkdir", path: name, errno: errno))
        }
        if durable {
            do { try POSIX.fsyncDirectory(root) } catch { throw .storage(error) }
        }
        return true
    }

    /// A key as the folders it is in (the bucket first) and its file name.
    struct ObjectPath {
        var folders: [String]
        var name: String

        init?(bucket: String, key: String) {
            guard BucketFolders.isBucketName(bucket), ObjectKeyLayout.isSafeRelativePath(key) else { return nil }
            let segments = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard !segments.contains(BucketFolders.privateFolder) else { return nil }
            folders = [bucket] + segments.dropLast()
            name = segments.last!
        }
    }

    /// The folder at `segments` under the root (the bucket first), opened one segment at a time
    /// without following a link below the bucket's own folder, so nothing reached through a key is
    /// outside the bucket; created as it goes when `create` (the bucket's own folder only when
    /// `createBucket`).
    private func openFolder(_ segments: [String], create: Bool, createBucket: Bool = false)
        -> Result<Int32, WriteError>
    {
        var folder = openFile(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else {
            return .failure(.storage(FileSystemError(operation: "open", path: root, errno: errno)))
        }
        for (index, segment) in segments.enumerated() {
            let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (index == 0 ? 0 : O_NOFOLLOW)
            var next = openat(folder, segment, flags)
            if next < 0, errno == ENOENT, create, index > 0 || createBucket {
                if mkdirat(folder, segment, 0o755) != 0, errno != EEXIST {
                    let code = errno
                    closeFile(folder)
                    return .failure(.storage(FileSystemError(operation: "mkdir", path: segment, errno: code)))
                }
                next = openat(folder, segment, flags)
            }
            let code = errno
            // What is in the way, seen before the folder it is in is closed.
            var info = stat()
            let isLink =
                next < 0 && fstatat(folder, segment, &info, AT_SYMLINK_NOFOLLOW) == 0
                && info.st_mode & S_IFMT == S_IFLNK
            closeFile(folder)
            guard next >= 0 else {
                guard index > 0 else {
                    if code == ENOTDIR { return .failure(.conflict("'\(segment)' is a file, not a bucket's folder")) }
                    return .failure(
                        code == ENOENT
                            ? .noSuchBucket : .storage(FileSystemError(operation: "open", path: segment, errno: code)))
                }
                let inside = segments[1...index].joined(separator: "/")
                if isLink {
                    return .failure(.conflict("'\(inside)' is a symbolic link, which is not followed inside a bucket"))
                }
                if code == ENOTDIR || code == ELOOP {
                    return .failure(.conflict("'\(inside)' is an object, not a folder"))
                }
                return .failure(.storage(FileSystemError(operation: "open", path: segment, errno: code)))
            }
            folder = next
        }
        return .success(folder)
    }

    // MARK: Names

    /// Never a bucket, and skipped inside one: a data directory's staging is never an object.
    static let privateFolder = FirehoseSink.Configuration.privateFolderName

    /// Whether a folder name can be a bucket: S3's rules (3 to 63 lowercase letters, digits, dots
    /// and hyphens, beginning and ending with a letter or digit), loosened as CreateDeliveryStream
    /// is (capitals and underscores, which legacy bucket names had), and never `.` or `..`.
    package static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...255).contains(bytes.count), let first = bytes.first, let last = bytes.last,
            first.isASCIIAlphanumeric, last.isASCIIAlphanumeric, !name.contains("..")
        else { return false }
        return bytes.allSatisfy {
            $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }

    /// What S3's naming rules say against a new bucket's name, or nil
    /// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html).
    package static func newBucketNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return "Bucket names must be 3 to 63 characters long." }
        let isAlphanumeric = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            return "Bucket names can consist only of lowercase letters, numbers, periods (.), and hyphens (-)."
        }
        guard isAlphanumeric(bytes[0]), isAlphanumeric(bytes[bytes.count - 1]) else {
            return "Bucket names must begin and end with a letter or number."
        }
        if name.contains("..") { return "Bucket names must not contain two adjacent periods." }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) {
            return "Bucket names must not be formatted as an IP address."
        }
        return nil
    }

    // MARK: Directory entries

    struct Entry {
        enum Kind { case directory, file, other }
        var name: String
        var kind: Kind
        var size: Int
        var modified: Date
        var identity: FileIdentity
    }

    /// A folder's entries with their `lstat`; names that are not UTF-8 are no S3 key and are skipped.
    static func entries(of directory: String, followingLinks: Bool = false) -> [Entry] {
        let folder = openFile(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return [] }
        defer { closeFile(folder) }
        return entries(in: folder, followingLinks: followingLinks)
    }

    /// The entries of an open folder (which stays open), each with its `fstatat` (a link as a link
    /// unless `followingLinks`).
    static func entries(in folder: Int32, followingLinks: Bool = false) -> [Entry] {
        let listing = POSIX.duplicate(folder)
        guard listing >= 0, let handle = fdopendir(listing) else {
            if listing >= 0 { closeFile(listing) }
            return []
        }
        defer { closedir(handle) }
        // The copy shares the folder's read position, which an earlier listing may have moved.
        rewinddir(handle)
        var result: [Entry] = []
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            guard let name = String(validating: bytes, as: UTF8.self), name != ".", name != ".." else { continue }
            var info = stat()
            guard fstatat(folder, name, &info, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let kind: Entry.Kind =
                switch info.st_mode & S_IFMT {
                case S_IFDIR: .directory
                case S_IFREG: .file
                default: .other
                }
            result.append(
                Entry(
                    name: name, kind: kind, size: Int(info.st_size), modified: modified(info),
                    identity: identity(info)))
        }
        return result
    }

    static func modified(_ info: stat) -> Date {
        Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1_000_000_000)
    }

    static func identity(_ info: stat) -> FileIdentity {
        FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}

/// An object opened for reading: what is read is the content it had when it was opened, even if a
/// later delivery or a delete replaces or removes it meanwhile. Closed when the last reference goes.
package final class OpenObject: Sendable {
    package let size: Int
    package let modified: Date
    package let identity: BucketFolders.FileIdentity
    private let descriptor: Int32

    init(descriptor: Int32, info: stat) {
        self.descriptor = descriptor
        size = Int(info.st_size)
        modified = BucketFolders.modified(info)
        identity = BucketFolders.identity(info)
    }

    deinit {
        POSIX.close(descriptor)
    }

    /// The ETag kept with the file when it is not its content's MD5 (a multipart upload's).
    package func storedETag() -> String? { BucketFolders.storedETag(of: descriptor) }

    /// Up to `count` bytes from `offset`; fewer only at the end of the file. Blocking.
    package func read(at offset: Int, count: Int) throws(FileSystemError) -> [UInt8] {
        try POSIX.read(descriptor, upTo: count, at: Int64(offset), path: "object")
    }
}

// The C calls under names of their own: inside the types above the plain names are their members.
private func openFile(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func closeFile(_ fd: Int32) { _ = close(fd) }
