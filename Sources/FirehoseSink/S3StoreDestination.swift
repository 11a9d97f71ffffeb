package import AWSSigV4
package import DurableStorage
package import HTTPTransports
package import Logging

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
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

    /// How long each request of an upload may take, its whole exchange.
    package var timeout: Duration = .seconds(120)
    /// Objects of this many bytes or more go up as a multipart upload: twice the AWS CLI's part size,
    /// so the parts of an object just over it are not one part and a sliver.
    package var multipartThreshold = 16 << 20
    /// The size of each part but the last (the AWS CLI's 8 MiB; S3 wants at least 5 MiB).
    package var partSize = 8 << 20

    /// `host[:port]` of `url`, an IPv6 address in brackets (`URL.host` drops them).
    package static func authority(_ url: URL) -> String {
        let host = url.host ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return bracketed + (url.port.map { ":\($0)" } ?? "")
    }

    /// Where the object `key` is (with `query`, as sent), and the Host its requests name.
    func location(of key: String, query: String = "") -> (url: URL, host: String, path: String) {
        let encodedKey = SigV4URI.encodePath(key)
        let authority = pathStyle ? Self.authority(endpoint) : "\(bucket).\(Self.authority(endpoint))"
        let path = pathStyle ? "/\(SigV4URI.encodePath(bucket))/\(encodedKey)" : "/\(encodedKey)"
        // Every part is encoded or checked at configuration, so the URL parses.
        let url = URL(string: "\(endpoint.scheme ?? "http")://\(authority)\(path)\(query.isEmpty ? "" : "?" + query)")!
        return (url, authority, path)
    }
}

/// Delivers the objects of buckets mapped to a store with S3's PutObject (or a multipart upload,
/// from the store's `multipartThreshold` on), signed with SigV4, and
/// every other bucket's into its folder (`DirectoryBucket`). The staged file is read and sent as it
/// is, so a store gets the same bytes at the same key a folder would; it stays staged until the
/// store answered 200, so a store that is down or refuses only delays the object: the stream's
/// retries (backoff with jitter) send it again, and a crash before the answer sends it again from
/// the journal at the next start (at least once, at the same key). At most `concurrentUploads`
/// uploads run at once for each mapped bucket (a store that does not answer holds up only its own): each
/// holds up to one object under the threshold, or one part, in memory, so many buffers delivered at
/// once (or retried together after an outage) hold a bounded amount.
package struct S3StoreDestination: ObjectDestination {
    package let stores: [String: S3Store]
    package var folders: DirectoryBucket
    package var transport: any HTTPTransport
    package var logger: Logger
    /// By mapped bucket.
    private let uploads: [String: AsyncGate]
    private let signers: [String: SigV4Signer]

    package static let concurrentUploads = 4

    package init(stores: [String: S3Store], dataDirectory: String, transport: any HTTPTransport, logger: Logger) {
        self.stores = stores
        uploads = stores.mapValues { _ in AsyncGate(width: Self.concurrentUploads) }
        signers = stores.mapValues {
            SigV4Signer(credentials: $0.credentials, region: $0.region, service: "s3", dialect: .s3)
        }
        folders = DirectoryBucket(root: dataDirectory)
        self.transport = transport
        self.logger = logger
    }

    package func isRemote(bucket: String) -> Bool { stores[bucket] != nil }

    /// Uploads to `bucket` queued behind the ones running.
    func uploadsWaiting(for bucket: String) -> Int { uploads[bucket]?.waiting ?? 0 }

    package func deliver(_ staged: StagedObject, bucket: String, key: String) async throws(FileSystemError)
        -> String
    {
        guard let store = stores[bucket] else { return try await folders.deliver(staged, bucket: bucket, key: key) }
        // Every mapped bucket has its gate and its signer (set once, at init).
        let upload = S3StoreUpload(
            store: store, signer: signers[bucket]!, key: key, transport: transport, logger: logger)
        let started = ContinuousClock.now
        let sent: S3StoreUpload.Sent
        do {
            // By path: the staged descriptor is for syncing (a staging file's may be write-only).
            sent = try await uploads[bucket]!.run { () async throws(FileSystemError) in
                try await upload.send(fileAt: staged.path)
            }
        } catch {
            logger.warning(
                "Upload to the store failed; the object stays staged and is sent again",
                metadata: [
                    "bucket": .string(bucket), "target": .string(upload.target), "error": .string(error.description),
                ])
            throw error
        }
        logger.debug(
            "Uploaded to the store",
            metadata: [
                "bucket": .string(bucket), "target": .string(upload.target), "bytes": .stringConvertible(sent.bytes),
                "parts": .stringConvertible(sent.parts),
                "milliseconds": .stringConvertible(Self.milliseconds(ContinuousClock.now - started)),
            ])
        return "\(store.endpoint.absoluteString)/\(store.bucket)/\(key)"
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
