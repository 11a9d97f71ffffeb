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

/// An S3-compatible store a bucket is mapped to (MinIO, Ceph RGW, AWS S3, moto): where its objects
/// go instead of the bucket's folder.
package struct S3Store: Sendable, Equatable {
    /// `http(s)://host[:port]`, without a path.
    package var endpoint: URL
    package var region: String
    /// The bucket's name in the store (by default the one streams name).
    package var bucket: String
    package var credentials: AWSCredentials
    /// Path style (`/bucket/key`, what MinIO and moto expect by default) or virtual-hosted
    /// (`bucket.host/key`).
    package var pathStyle: Bool

    package init(endpoint: URL, region: String, bucket: String, credentials: AWSCredentials, pathStyle: Bool = true) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.credentials = credentials
        self.pathStyle = pathStyle
    }

    /// How long one upload may take, its whole exchange.
    package var timeout: Duration = .seconds(120)

    /// `host[:port]` of `url`, an IPv6 address in brackets (`URL.host` drops them).
    package static func authority(_ url: URL) -> String {
        let host = url.host ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return bracketed + (url.port.map { ":\($0)" } ?? "")
    }

    /// Where the object `key` is, and the Host its request names.
    func location(of key: String) -> (url: URL, host: String, path: String) {
        let encodedKey = SigV4URI.encodePath(key)
        let authority = pathStyle ? Self.authority(endpoint) : "\(bucket).\(Self.authority(endpoint))"
        let path = pathStyle ? "/\(SigV4URI.encodePath(bucket))/\(encodedKey)" : "/\(encodedKey)"
        // Every part is encoded or checked at configuration, so the URL parses.
        let url = URL(string: "\(endpoint.scheme ?? "http")://\(authority)\(path)")!
        return (url, authority, path)
    }
}

/// Delivers the objects of buckets mapped to a store with S3's PutObject, signed with SigV4, and
/// every other bucket's into its folder (`DirectoryBucket`). The staged file is read and sent as it
/// is, so a store gets the same bytes at the same key a folder would; it stays staged until the
/// store answered 200, so a store that is down or refuses only delays the object: the stream's
/// retries (backoff with jitter) send it again, and a crash before the answer sends it again from
/// the journal at the next start (at least once, at the same key).
package struct S3StoreDestination: ObjectDestination {
    package var stores: [String: S3Store]
    package var folders: DirectoryBucket
    package var transport: any HTTPTransport
    package var logger: Logger

    package init(stores: [String: S3Store], dataDirectory: String, transport: any HTTPTransport, logger: Logger) {
        self.stores = stores
        folders = DirectoryBucket(root: dataDirectory)
        self.transport = transport
        self.logger = logger
    }

    package func isRemote(bucket: String) -> Bool { stores[bucket] != nil }

    package func deliver(_ staged: StagedObject, bucket: String, key: String) async throws(FileSystemError)
        -> String
    {
        guard let store = stores[bucket] else { return try await folders.deliver(staged, bucket: bucket, key: key) }
        // On the reading thread: a large object must not hold up the streams' fsyncs.
        let content = try await BlockingIO.read { () -> Result<[UInt8], FileSystemError> in
            // By path: the descriptor is for syncing (a staging file's may be write-only).
            Result { () throws(FileSystemError) in try POSIX.readFile(staged.path) }
        }.get()
        let (url, host, path) = store.location(of: key)
        let target = "s3://\(store.bucket)/\(key)"
        let payloadHash = SHA256Hex.hash(content)
        var headers: [(name: String, value: String)] = [
            ("Host", host), ("Content-MD5", Base64.encode(Array(Insecure.MD5.hash(data: content)))),
            ("Content-Type", "application/octet-stream"),
        ]
        let signer = SigV4Signer(credentials: store.credentials, region: store.region, service: "s3", dialect: .s3)
        headers += signer.sign(
            method: "PUT", path: path, query: "", headers: headers, bodySHA256: payloadHash, date: Date())
        let request = HTTPRequest(
            url: url, method: "PUT", headers: headers, body: content, timeout: store.timeout,
            maxResponseBytes: 64 * 1024)
        let started = ContinuousClock.now
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            logger.warning(
                "Upload to the store failed; the object stays staged and is sent again",
                metadata: ["bucket": .string(bucket), "target": .string(target), "error": .string("\(error)")])
            throw FileSystemError(
                operation: "upload", path: target, errno: EIO,
                detail: "no answer from \(store.endpoint.absoluteString): \(error)")
        }
        // A PutObject answer has the object's ETag; a 200 without one is not S3's (a proxy's page),
        // and the object stays staged rather than be taken as stored.
        guard response.status == 200, response.header("ETag") != nil else {
            let detail =
                response.status == 200
                ? "HTTP 200 without an ETag: \(store.endpoint.absoluteString) did not answer as S3 does"
                : Self.describe(response)
            logger.warning(
                "The store refused an upload; the object stays staged and is sent again",
                metadata: [
                    "bucket": .string(bucket), "target": .string(target), "status": .stringConvertible(response.status),
                    "error": .string(detail),
                ])
            throw FileSystemError(operation: "upload", path: target, errno: EIO, detail: detail)
        }
        logger.debug(
            "Uploaded to the store",
            metadata: [
                "bucket": .string(bucket), "target": .string(target), "bytes": .stringConvertible(content.count),
                "milliseconds": .stringConvertible(Self.milliseconds(ContinuousClock.now - started)),
            ])
        return "\(store.endpoint.absoluteString)/\(store.bucket)/\(key)"
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// An S3 error answer as a person reads it: the status, and the code and message of its XML.
    static func describe(_ response: HTTPResponse) -> String {
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let open = text.firstRange(of: "<\(name)>"),
                let close = text[open.upperBound...].firstRange(of: "</\(name)>")
            else { return nil }
            return String(text[open.upperBound..<close.lowerBound])
        }
        var detail = "HTTP \(response.status)"
        if let code = element("Code") { detail += " \(code)" }
        if let message = element("Message") { detail += ": \(message)" }
        return detail
    }
}
