import AWSSigV4
import Crypto
import DurableStorage
import FirehoseWire
import HTTPTransports
import Logging

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

/// One staged object's way into a store: one PutObject, or, from the store's `multipartThreshold` on,
/// a multipart upload whose parts are read from the staged file one at a time, so an upload holds at
/// most one part (or one object under the threshold) in memory. Every request is signed with SigV4
/// over its body's SHA-256 and carries the body's `Content-MD5`, so the store checks what it got.
/// Anything short of the store's confirmation throws, and a multipart upload that did not complete
/// is aborted: the object stays staged and is sent again, whole, at the same key.
struct S3StoreUpload {
    var store: S3Store
    /// The store's, shared by its uploads (it caches the day's signing key).
    var signer: SigV4Signer
    var key: String
    var transport: any HTTPTransport
    var logger: Logger

    /// What went up: the object's bytes, in how many requests (1 for PutObject).
    struct Sent {
        var bytes: Int
        var parts: Int
    }

    /// S3's bounds on a multipart upload: at most 10,000 parts.
    static let maxParts = 10_000

    var target: String { "s3://\(store.bucket)/\(key)" }

    func send(fileAt path: String) async throws(FileSystemError) -> Sent {
        let file = try await BlockingIO.read { () -> Result<Int32, FileSystemError> in
            Result { () throws(FileSystemError) in try POSIX.open(path, flags: O_RDONLY) }
        }.get()
        defer { POSIX.close(file) }
        let size = try POSIX.size(file, path: path)
        if size < store.multipartThreshold {
            let content = try await Self.read(file, path: path, from: 0, count: size)
            try requireETag(
                try await exchange("PUT", body: content, headers: [("Content-Type", "application/octet-stream")]))
            return Sent(bytes: size, parts: 1)
        }
        return Sent(bytes: size, parts: try await sendInParts(file, path: path, size: size))
    }

    /// The part size used for `size` bytes: the store's, or larger where 10,000 of them would not hold it.
    static func partSize(for size: Int, preferred: Int) -> Int {
        max(preferred, (size + maxParts - 1) / maxParts)
    }

    private func sendInParts(_ file: Int32, path: String, size: Int) async throws(FileSystemError) -> Int {
        let initiated = try await exchange(
            "POST", query: "uploads=", headers: [("Content-Type", "application/octet-stream")])
        guard initiated.status == 200 else { throw refusal(Self.describe(initiated)) }
        guard let uploadID = Self.element("UploadId", of: initiated), !uploadID.isEmpty else {
            throw refusal(
                "HTTP 200 without an UploadId: \(store.endpoint.absoluteString) did not answer CreateMultipartUpload as S3 does"
            )
        }
        let upload = "uploadId=\(SigV4URI.encodeComponent(uploadID))"
        do throws(FileSystemError) {
            let partSize = Self.partSize(for: size, preferred: store.partSize)
            var etags: [String] = []
            var offset = 0
            while offset < size {
                let part = try await Self.read(file, path: path, from: offset, count: min(partSize, size - offset))
                let answer = try await exchange("PUT", query: "partNumber=\(etags.count + 1)&\(upload)", body: part)
                etags.append(try requireETag(answer))
                offset += part.count
            }
            var document = S3XML(root: "CompleteMultipartUpload")
            for (index, etag) in etags.enumerated() {
                document.open("Part")
                document.element("PartNumber", String(index + 1))
                document.element("ETag", etag)
                document.close("Part")
            }
            let completed = try await exchange(
                "POST", query: upload, body: document.finish(), headers: [("Content-Type", S3XML.contentType)])
            // S3 answers CompleteMultipartUpload 200 before it has finished, and an error found
            // after that comes in the 200's body.
            let body = String(decoding: completed.body, as: UTF8.self)
            guard completed.status == 200, !body.contains("<Error>") else {
                throw refusal(Self.describe(completed))
            }
            // The root element's name varies (moto's is CompleteMultipartUploadResponse); the
            // object's ETag is in every store's.
            guard Self.element("ETag", of: completed) != nil else {
                throw refusal(
                    "HTTP 200 without an ETag: \(store.endpoint.absoluteString) did not answer CompleteMultipartUpload as S3 does"
                )
            }
            return etags.count
        } catch {
            await abort(upload)
            throw error
        }
    }

    /// Best effort: a store that does not take the abort keeps the parts until its own lifecycle
    /// rule clears them, which is logged.
    private func abort(_ upload: String) async {
        do throws(FileSystemError) {
            let answer = try await exchange("DELETE", query: upload)
            guard (200..<300).contains(answer.status) || answer.status == 404 else {
                throw refusal(Self.describe(answer))
            }
        } catch {
            logger.warning(
                "Could not abort a multipart upload; its parts stay in the store until it clears them",
                metadata: ["target": .string(target), "upload": .string(upload), "error": .string(error.description)])
        }
    }

    /// Signs and sends one request about the object; no answer at all is thrown.
    private func exchange(
        _ method: String, query: String = "", body: [UInt8] = [], headers extra: [(name: String, value: String)] = []
    ) async throws(FileSystemError) -> HTTPResponse {
        let (url, host, path) = store.location(of: key, query: query)
        var headers: [(name: String, value: String)] = [("Host", host)]
        if !body.isEmpty { headers.append(("Content-MD5", Base64.encode(Array(Insecure.MD5.hash(data: body))))) }
        headers += extra
        headers += signer.sign(
            method: method, path: path, query: query, headers: headers, bodySHA256: SHA256Hex.hash(body), date: Date())
        let request = HTTPRequest(
            url: url, method: method, headers: headers, body: body, timeout: store.timeout,
            maxResponseBytes: 64 * 1024)
        do {
            return try await transport.send(request)
        } catch {
            throw FileSystemError(
                operation: "upload", path: target, errno: EIO,
                detail: "no answer from \(store.endpoint.absoluteString): \(error)")
        }
    }

    /// The ETag of a PutObject or UploadPart answer. A 200 without one is not S3's (a proxy's page),
    /// and the object stays staged rather than be taken as stored.
    @discardableResult
    private func requireETag(_ response: HTTPResponse) throws(FileSystemError) -> String {
        guard response.status == 200 else { throw refusal(Self.describe(response)) }
        guard let etag = response.header("ETag"), !etag.isEmpty else {
            throw refusal("HTTP 200 without an ETag: \(store.endpoint.absoluteString) did not answer as S3 does")
        }
        return etag
    }

    private func refusal(_ detail: String) -> FileSystemError {
        FileSystemError(operation: "upload", path: target, errno: EIO, detail: detail)
    }

    /// `count` bytes of the staged file from `offset`, on the reading thread (a large read must not
    /// hold up the streams' fsyncs); a file that ends early is an error, not a short object.
    private static func read(_ file: Int32, path: String, from offset: Int, count: Int) async throws(FileSystemError)
        -> [UInt8]
    {
        try await BlockingIO.read { () -> Result<[UInt8], FileSystemError> in
            Result { () throws(FileSystemError) in
                let bytes = try POSIX.read(file, upTo: count, at: Int64(offset), path: path)
                guard bytes.count == count else {
                    throw FileSystemError(
                        operation: "read", path: path, errno: EIO,
                        detail: "the staged object ended at \(offset + bytes.count) bytes, not \(offset + count)")
                }
                return bytes
            }
        }.get()
    }

    private static func element(_ name: String, of response: HTTPResponse) -> String? {
        S3XML.element(name, in: Substring(String(decoding: response.body, as: UTF8.self)))
    }

    /// An S3 error answer as a person reads it: the status, and the code and message of its XML.
    static func describe(_ response: HTTPResponse) -> String {
        var detail = "HTTP \(response.status)"
        if let code = element("Code", of: response) { detail += " \(code)" }
        if let message = element("Message", of: response) { detail += ": \(message)" }
        return detail
    }
}
