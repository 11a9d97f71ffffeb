import AWSSigV4
import Crypto
import DurableStorage
import FirehoseSink
import FirehoseWire
import Synchronization

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

/// Multipart uploads in progress (what the AWS CLI and boto3 use from 8 MiB on): each part is a file
/// of its own under the data directory's private folder, and the upload's parts are known here, in
/// memory. Completing one joins the parts into a new object, placed as PutObject places one, with
/// S3's multipart ETag. Uploads do not outlive the server: their parts were never acknowledged as
/// an object, and a restart removes them (S3 would keep them until aborted).
final class S3MultipartUploads: Sendable {
    struct Part: Sendable, Equatable {
        var file: String
        var md5: [UInt8]
        var size: Int
    }

    struct Upload: Sendable {
        var bucket: String
        var key: String
        var parts: [Int: Part] = [:]
    }

    /// `<data>/.firehose-local/uploads`: a folder per upload, named by its id.
    let root: String
    private let uploads = Mutex<[String: Upload]>([:])
    /// Part files of the uploads in progress (approximate under races: it bounds, it does not count).
    private let partFiles = Atomic<Int>(0)

    /// S3's bounds (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html).
    static let maxParts = 10_000
    static let minPartSize = 5 << 20
    /// Uploads in progress at once, and their parts together; S3 has no such bounds, but memory and
    /// a file system's inodes here have.
    let maxInProgress: Int
    let maxPartFiles: Int

    /// Removes what uploads of an earlier run left.
    init(root: String, maxInProgress: Int = 10_000, maxPartFiles: Int = 100_000) {
        self.root = root
        self.maxInProgress = maxInProgress
        self.maxPartFiles = maxPartFiles
        try? FileManager.default.removeItem(atPath: root)
        try? POSIX.makeDirectories(root)
    }

    var inProgress: Int { uploads.withLock { $0.count } }

    func create(bucket: String, key: String) throws(S3Error) -> String {
        let id = Hex.string((0..<24).map { _ in UInt8.random(in: 0...255) })
        do {
            try POSIX.makeDirectories("\(root)/\(id)")
        } catch {
            throw .serviceUnavailable
        }
        let accepted = uploads.withLock { uploads in
            guard uploads.count < maxInProgress else { return false }
            uploads[id] = Upload(bucket: bucket, key: key)
            return true
        }
        guard accepted else {
            try? FileManager.default.removeItem(atPath: "\(root)/\(id)")
            throw S3Error(
                code: "SlowDown",
                message:
                    "Please reduce your request rate: firehose-local holds at most \(maxInProgress) multipart uploads in progress; complete or abort some.",
                status: 503)
        }
        return id
    }

    /// Writes `body` as part `number` of the upload, replacing an earlier upload of that part;
    /// returns its ETag.
    /// - Parameter md5: the body's.
    func storePart(_ body: [UInt8], md5: [UInt8], number: Int, upload id: String, bucket: String, key: String)
        async throws(S3Error) -> String
    {
        // A part uploaded again replaces its file: only a new one counts against the bound.
        let replacing = try upload(id, bucket: bucket, key: key).parts[number] != nil
        guard replacing || partFiles.load(ordering: .relaxed) < maxPartFiles else {
            throw S3Error(
                code: "SlowDown",
                message:
                    "Please reduce your request rate: firehose-local holds at most \(maxPartFiles) parts of multipart uploads in progress; complete or abort some.",
                status: 503)
        }
        // A file per attempt: two uploads of one part at once never write into the same file.
        let file = "\(root)/\(id)/part-\(number)-\(UUID().uuidString.lowercased())"
        let failure = await BlockingIO.read { () -> FileSystemError? in
            do throws(FileSystemError) {
                let descriptor = try POSIX.open(file, flags: O_WRONLY | O_CREAT | O_EXCL)
                defer { POSIX.close(descriptor) }
                try POSIX.writeAll(descriptor, body, at: 0, path: file)
                return nil
            } catch {
                POSIX.unlink(file)
                return error
            }
        }
        if let failure {
            // The upload's folder went with an abort or a completion while the part arrived.
            throw failure.errno == ENOENT && failure.operation == "open" ? .noSuchUpload(id) : .serviceUnavailable
        }
        let replaced = uploads.withLock { uploads -> Part?? in
            guard uploads[id] != nil else { return .none }
            let earlier = uploads[id]?.parts[number]
            uploads[id]?.parts[number] = Part(file: file, md5: md5, size: body.count)
            return .some(earlier)
        }
        switch replaced {
        case .none:
            // Aborted or completed while the part was written.
            POSIX.unlink(file)
            throw .noSuchUpload(id)
        case .some(let earlier?):
            POSIX.unlink(earlier.file)
        case .some(nil):
            partFiles.add(1, ordering: .relaxed)
        }
        return "\"\(Hex.string(md5))\""
    }

    /// The upload `id` of the object `key` of `bucket`.
    func upload(_ id: String, bucket: String, key: String) throws(S3Error) -> Upload {
        guard let upload = uploads.withLock({ $0[id] }), upload.bucket == bucket, upload.key == key else {
            throw .noSuchUpload(id)
        }
        return upload
    }

    /// Takes the upload out of those in progress, its parts checked against the list a
    /// CompleteMultipartUpload gives, as S3 checks them; returns the parts to join, in order, and
    /// the object's ETag. A refused list leaves the upload as it was.
    func take(_ id: String, bucket: String, key: String, listed: [S3CompleteRequest.Part]) throws(S3Error)
        -> (parts: [Part], etag: String, upload: Upload)
    {
        let outcome = uploads.withLock { uploads -> Result<(parts: [Part], etag: String, upload: Upload), S3Error> in
            guard let upload = uploads[id], upload.bucket == bucket, upload.key == key else {
                return .failure(.noSuchUpload(id))
            }
            var parts: [Part] = []
            for (index, entry) in listed.enumerated() {
                if index > 0, entry.number <= listed[index - 1].number {
                    return .failure(
                        S3Error(
                            code: "InvalidPartOrder",
                            message:
                                "The list of parts was not in ascending order. The parts list must be specified in order of the part number.",
                            status: 400, details: [("UploadId", id)]))
                }
                guard let part = upload.parts[entry.number], Self.unquoted(entry.etag) == Hex.string(part.md5) else {
                    return .failure(
                        S3Error(
                            code: "InvalidPart",
                            message:
                                "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not have matched the part's entity tag.",
                            status: 400,
                            details: [("UploadId", id), ("PartNumber", String(entry.number)), ("ETag", entry.etag)]))
                }
                parts.append(part)
            }
            for (index, part) in parts.enumerated().dropLast() where part.size < Self.minPartSize {
                return .failure(
                    S3Error(
                        code: "EntityTooSmall",
                        message: "Your proposed upload is smaller than the minimum allowed size",
                        status: 400,
                        details: [
                            ("ProposedSize", String(part.size)), ("MinSizeAllowed", String(Self.minPartSize)),
                            ("PartNumber", String(listed[index].number)), ("ETag", listed[index].etag),
                        ]))
            }
            uploads[id] = nil
            partFiles.subtract(upload.parts.count, ordering: .relaxed)
            var digests = Insecure.MD5()
            for part in parts { digests.update(data: part.md5) }
            return .success((parts, "\"\(Hex.string(digests.finalize()))-\(parts.count)\"", upload))
        }
        return try outcome.get()
    }

    /// Puts back an upload whose completion could not be placed, so the client can complete it again.
    func restore(_ id: String, _ upload: Upload) {
        uploads.withLock { $0[id] = upload }
        partFiles.add(upload.parts.count, ordering: .relaxed)
    }

    /// Forgets the upload and removes its parts.
    func abort(_ id: String, bucket: String, key: String) async throws(S3Error) {
        _ = try upload(id, bucket: bucket, key: key)
        guard let removed = uploads.withLock({ $0.removeValue(forKey: id) }) else { throw .noSuchUpload(id) }
        partFiles.subtract(removed.parts.count, ordering: .relaxed)
        await discard(id)
    }

    /// Removes the folder of an upload that is no longer in progress.
    func discard(_ id: String) async {
        let folder = "\(root)/\(id)"
        await BlockingIO.read { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Writes the parts one after another into `file` (the new object, open for writing).
    static func join(_ parts: [Part], into file: Int32, path: String) throws(FileSystemError) {
        var offset = 0
        for part in parts {
            let source = try POSIX.open(part.file, flags: O_RDONLY)
            defer { POSIX.close(source) }
            let copied = try POSIX.copy(source, path: part.file, into: file, at: Int64(offset), path: path)
            guard copied == part.size else {
                throw FileSystemError(
                    operation: "read", path: part.file, errno: EIO,
                    detail: "the part has \(copied) bytes, not the \(part.size) it was uploaded with")
            }
            offset += part.size
        }
    }

    /// An ETag as clients send it back: quoted (`"…"`), or not.
    static func unquoted(_ etag: String) -> String {
        var text = Substring(etag)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        return text.lowercased()
    }
}

/// The parts a CompleteMultipartUpload names, in the order it names them.
struct S3CompleteRequest {
    struct Part: Equatable {
        var number: Int
        var etag: String
    }

    var parts: [Part]

    init(parsing body: [UInt8]) throws(S3Error) {
        guard let text = String(validating: body, as: UTF8.self), text.contains("<CompleteMultipartUpload") else {
            throw .malformedXML
        }
        guard let listed = S3XML.elements("Part", in: Substring(text)) else { throw .malformedXML }
        var parts: [Part] = []
        for part in listed {
            guard let number = S3XML.element("PartNumber", in: part).flatMap({ Int($0) }),
                let etag = S3XML.element("ETag", in: part)
            else { throw .malformedXML }
            guard (1...S3MultipartUploads.maxParts).contains(number) else { throw .invalidPartNumber(String(number)) }
            parts.append(Part(number: number, etag: etag))
        }
        guard !parts.isEmpty, parts.count <= S3MultipartUploads.maxParts else { throw .malformedXML }
        self.parts = parts
    }
}

extension S3Error {
    static func noSuchUpload(_ id: String) -> S3Error {
        S3Error(
            code: "NoSuchUpload",
            message:
                "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
            status: 404, details: [("UploadId", id)])
    }

    static func invalidPartNumber(_ value: String) -> S3Error {
        .invalidArgument(
            "Part number must be an integer between 1 and 10000, inclusive", name: "partNumber", value: value)
    }

    static var malformedXML: S3Error {
        S3Error(
            code: "MalformedXML",
            message: "The XML you provided was not well-formed or did not validate against our published schema",
            status: 400)
    }

    static var serviceUnavailable: S3Error {
        S3Error(code: "ServiceUnavailable", message: "Please reduce your request rate.", status: 503)
    }
}
