import DurableStorage
import FirehoseKeyLayout

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The read side of `DirectoryBucket`: the bucket folders of the data directory as buckets and
/// objects, for the S3 API. Only what a delivery renamed into place is there, so every object it
/// finds is whole; a private folder (staging, quarantine) is no bucket, nor listed inside one. Reads never leave the
/// data directory: a key with an empty, `.` or `..` segment names no object, and a symbolic link
/// is neither followed nor listed. Blocking: call it on `BlockingIO.read`.
package struct DirectoryBucketReader: Sendable {
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
        Self.entries(of: root).compactMap { entry in
            guard entry.kind == .directory, Self.isBucketName(entry.name) else { return nil }
            return Bucket(name: entry.name, modified: entry.modified)
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The bucket's folder, when the bucket has one.
    package func bucket(_ name: String) -> Bucket? {
        guard Self.isBucketName(name) else { return nil }
        var info = stat()
        guard lstat("\(root)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return Bucket(name: name, modified: Self.modified(info))
    }

    /// Every object of `bucket` whose key starts with `prefix`, in no particular order; nil when the
    /// bucket has no folder. Only the folder the prefix ends in is walked.
    package func objects(in bucket: String, prefix: String) -> [Object]? {
        guard self.bucket(bucket) != nil else { return nil }
        // `a/b/c` can only match under the folder `a/b/`, if that is a real folder.
        var start = ""
        if let slash = prefix.utf8.lastIndex(of: UInt8(ascii: "/")) {
            start = String(prefix[...slash])
            guard ObjectKeyLayout.isSafeRelativePath(String(start.dropLast())) else { return [] }
        }
        var objects: [Object] = []
        walk("\(root)/\(bucket)/\(start)", keyPrefix: start) { object in
            if object.key.utf8.starts(with: prefix.utf8) { objects.append(object) }
        }
        return objects
    }

    private func walk(_ directory: String, keyPrefix: String, _ visit: (Object) -> Void) {
        for entry in Self.entries(of: directory) {
            let key = keyPrefix + entry.name
            switch entry.kind {
            case .directory where entry.name == Self.privateFolder:
                break
            case .directory:
                walk("\(directory)/\(entry.name)", keyPrefix: key + "/", visit)
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
        guard Self.isBucketName(bucket), ObjectKeyLayout.isSafeRelativePath(key) else { return nil }
        // Folder by folder, never following a link, so no key can lead outside its bucket.
        var directory = openFile(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        let segments = [bucket] + key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !segments.contains(Self.privateFolder) else { return nil }
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (isLast ? O_NONBLOCK : O_DIRECTORY)
            let next = openat(directory, segment, flags)
            closeFile(directory)
            guard next >= 0 else { return nil }
            directory = next
        }
        var info = stat()
        guard fstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            closeFile(directory)
            return nil
        }
        return OpenObject(descriptor: directory, info: info)
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
            isAlphanumeric(first), isAlphanumeric(last), !name.contains("..")
        else { return false }
        return bytes.allSatisfy {
            isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: Directory entries

    package struct Entry {
        enum Kind { case directory, file, other }
        var name: String
        var kind: Kind
        var size: Int
        var modified: Date
        var identity: FileIdentity
    }

    /// A folder's entries with their `lstat`; names that are not UTF-8 are no S3 key and are skipped.
    package static func entries(of directory: String) -> [Entry] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var result: [Entry] = []
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            guard let name = String(validating: bytes, as: UTF8.self), name != ".", name != ".." else { continue }
            var info = stat()
            guard lstat("\(directory)/\(name)", &info) == 0 else { continue }
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
    package let identity: DirectoryBucketReader.FileIdentity
    private let descriptor: Int32

    init(descriptor: Int32, info: stat) {
        self.descriptor = descriptor
        size = Int(info.st_size)
        modified = DirectoryBucketReader.modified(info)
        identity = DirectoryBucketReader.identity(info)
    }

    deinit {
        POSIX.close(descriptor)
    }

    /// Up to `count` bytes from `offset`; fewer only at the end of the file. Blocking.
    package func read(at offset: Int, count: Int) throws(FileSystemError) -> [UInt8] {
        try POSIX.read(descriptor, upTo: count, at: Int64(offset), path: "object")
    }
}

// The C calls under names of their own: inside the types above the plain names are their members.
private func openFile(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func closeFile(_ fd: Int32) { _ = close(fd) }
