import ServerCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a request asks for, decided before it is authenticated so that every answer, a refused
/// signature too, is counted under its operation.
enum S3Route {
    case listBuckets
    case bucketLocation(String)
    case listObjects(String, version: Int)
    case headBucket(String)
    /// GetObject, or HeadObject.
    case object(String, key: String, head: Bool)
    case createBucket(String)
    case putObject(String, key: String)
    case deleteObject(String, key: String)
    case deleteObjects(String)
    case createMultipartUpload(String, key: String)
    case uploadPart(String, key: String, upload: String, part: String)
    case completeMultipartUpload(String, key: String, upload: String)
    case abortMultipartUpload(String, key: String, upload: String)
    case refused(operation: String, S3Error)

    /// - Parameter copySource: the `x-amz-copy-source` header, which makes a PUT a CopyObject.
    init(method: String, address: S3Address, query: S3Query, copySource: String? = nil) {
        switch (method, address.bucket, address.key) {
        case ("GET", nil, _):
            self = .listBuckets
        case ("GET", let bucket?, nil):
            if query["location"] != nil {
                self = .bucketLocation(bucket)
            } else if let subresource = query.unsupportedSubresource(of: .bucket) {
                self = .refused(
                    operation: "Unsupported", .notImplemented(S3API.unsupported("GET ?\(subresource) on a bucket")))
            } else {
                switch query["list-type"] {
                case "2": self = .listObjects(bucket, version: 2)
                case nil: self = .listObjects(bucket, version: 1)
                case let other?:
                    self = .refused(
                        operation: "ListObjectsV2",
                        .invalidArgument("Invalid List Type specified in Request", name: "list-type", value: other))
                }
            }
        case ("HEAD", let bucket?, nil):
            self = .headBucket(bucket)
        case ("GET", let bucket?, let key?), ("HEAD", let bucket?, let key?):
            if let subresource = query.unsupportedSubresource(of: .object) {
                self = .refused(
                    operation: "Unsupported",
                    .notImplemented(S3API.unsupported("\(method) ?\(subresource) on an object")))
            } else {
                self = .object(bucket, key: key, head: method == "HEAD")
            }
        case ("PUT", let bucket?, nil):
            if let subresource = query.unsupportedSubresource(of: .bucket) {
                self = .refused(
                    operation: "Unsupported", .notImplemented(S3API.unsupported("PUT ?\(subresource) on a bucket")))
            } else {
                self = .createBucket(bucket)
            }
        case ("PUT", let bucket?, let key?) where query["uploadId"] != nil && query["partNumber"] != nil:
            if copySource != nil {
                self = .refused(operation: "UploadPartCopy", .notImplemented(S3API.unsupported("UploadPartCopy")))
            } else {
                self = .uploadPart(bucket, key: key, upload: query["uploadId"]!, part: query["partNumber"]!)
            }
        case ("POST", let bucket?, let key?) where query["uploads"] != nil:
            self = .createMultipartUpload(bucket, key: key)
        case ("POST", let bucket?, let key?) where query["uploadId"] != nil:
            self = .completeMultipartUpload(bucket, key: key, upload: query["uploadId"]!)
        case ("DELETE", let bucket?, let key?) where query["uploadId"] != nil:
            self = .abortMultipartUpload(bucket, key: key, upload: query["uploadId"]!)
        case ("PUT", let bucket?, let key?):
            if let subresource = query.unsupportedSubresource(of: .object) {
                self = .refused(
                    operation: "Unsupported",
                    .notImplemented(S3API.unsupported("PUT ?\(subresource) on an object")))
            } else if copySource != nil {
                self = .refused(operation: "CopyObject", .notImplemented(S3API.unsupported("CopyObject")))
            } else {
                self = .putObject(bucket, key: key)
            }
        case ("DELETE", let bucket?, let key?):
            if let subresource = query.unsupportedSubresource(of: .object) {
                self = .refused(
                    operation: "Unsupported",
                    .notImplemented(S3API.unsupported("DELETE ?\(subresource) on an object")))
            } else {
                self = .deleteObject(bucket, key: key)
            }
        case ("POST", let bucket?, nil) where query["delete"] != nil:
            self = .deleteObjects(bucket)
        case ("HEAD", nil, _):
            self = .refused(operation: "Unsupported", .methodNotAllowed("HEAD", resource: "SERVICE"))
        default:
            self = .refused(operation: "Unsupported", .notImplemented(S3API.unsupported("\(method) requests")))
        }
    }

    /// The bucket the request is for, if any.
    var bucket: String? {
        switch self {
        case .listBuckets, .refused: nil
        case .bucketLocation(let bucket), .listObjects(let bucket, _), .headBucket(let bucket),
            .object(let bucket, _, _),
            .createBucket(let bucket), .putObject(let bucket, _), .deleteObject(let bucket, _),
            .deleteObjects(let bucket), .createMultipartUpload(let bucket, _), .uploadPart(let bucket, _, _, _),
            .completeMultipartUpload(let bucket, _, _), .abortMultipartUpload(let bucket, _, _):
            bucket
        }
    }

    /// The IAM actions a request needs, on what (S3's authorization reference): one, or for a
    /// CopyObject the read of its source too. DeleteObjects needs `s3:DeleteObject` on the bucket's
    /// objects (`bucket/*`), not per key.
    func iamActions(copySource: String?) -> [(action: String, resource: String)] {
        func bucketARN(_ bucket: String) -> String { "arn:aws:s3:::\(bucket)" }
        func objectARN(_ bucket: String, _ key: String) -> String { "arn:aws:s3:::\(bucket)/\(key)" }
        switch self {
        case .listBuckets: return [("s3:ListAllMyBuckets", "*")]
        case .bucketLocation(let bucket): return [("s3:GetBucketLocation", bucketARN(bucket))]
        case .listObjects(let bucket, _), .headBucket(let bucket): return [("s3:ListBucket", bucketARN(bucket))]
        case .object(let bucket, let key, _): return [("s3:GetObject", objectARN(bucket, key))]
        case .createBucket(let bucket): return [("s3:CreateBucket", bucketARN(bucket))]
        case .putObject(let bucket, let key):
            var actions = [("s3:PutObject", objectARN(bucket, key))]
            if let copySource {
                let source = String(decoding: copySource.percentDecodedBytes(plusIsSpace: false), as: UTF8.self)
                let path = source.split(separator: "?").first.map(String.init) ?? source
                actions.append(("s3:GetObject", "arn:aws:s3:::" + path.drop { $0 == "/" }))
            }
            return actions
        case .deleteObject(let bucket, let key): return [("s3:DeleteObject", objectARN(bucket, key))]
        case .deleteObjects(let bucket): return [("s3:DeleteObject", objectARN(bucket, "*"))]
        case .createMultipartUpload(let bucket, let key), .uploadPart(let bucket, let key, _, _),
            .completeMultipartUpload(let bucket, let key, _):
            return [("s3:PutObject", objectARN(bucket, key))]
        case .abortMultipartUpload(let bucket, let key, _):
            return [("s3:AbortMultipartUpload", objectARN(bucket, key))]
        case .refused: return []
        }
    }

    var operation: String {
        switch self {
        case .listBuckets: "ListBuckets"
        case .bucketLocation: "GetBucketLocation"
        case .listObjects(_, let version): version == 2 ? "ListObjectsV2" : "ListObjects"
        case .headBucket: "HeadBucket"
        case .object(_, _, let head): head ? "HeadObject" : "GetObject"
        case .createBucket: "CreateBucket"
        case .putObject: "PutObject"
        case .deleteObject: "DeleteObject"
        case .deleteObjects: "DeleteObjects"
        case .createMultipartUpload: "CreateMultipartUpload"
        case .uploadPart: "UploadPart"
        case .completeMultipartUpload: "CompleteMultipartUpload"
        case .abortMultipartUpload: "AbortMultipartUpload"
        case .refused(let operation, _): operation
        }
    }
}

/// Where a request points: a bucket (by the path, or by a `<bucket>.localhost` Host, as SDKs address
/// it virtual-hosted style) and a key in it.
struct S3Address: Equatable {
    var bucket: String?
    var key: String?

    init(bucket: String?, key: String?) {
        self.bucket = bucket
        self.key = key
    }

    init(_ request: APIRequest) throws(S3Error) {
        guard let path = Self.decodedPath(request.path) else {
            throw S3Error(code: "InvalidURI", message: "Couldn't parse the specified URI.", status: 400)
        }
        var rest = Substring(path)
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        if let bucket = Self.virtualHostedBucket(request.header("host")) {
            self.init(bucket: bucket, key: rest.isEmpty ? nil : String(rest))
            return
        }
        guard !rest.isEmpty else {
            self.init(bucket: nil, key: nil)
            return
        }
        guard let slash = rest.firstIndex(of: "/") else {
            self.init(bucket: String(rest), key: nil)
            return
        }
        let key = rest[rest.index(after: slash)...]
        self.init(bucket: String(rest[..<slash]), key: key.isEmpty ? nil : String(key))
    }

    /// `<bucket>.localhost[:port]`: the bucket; nil for any other host (path style).
    static func virtualHostedBucket(_ host: String?) -> String? {
        guard var host = host?.lowercased() else { return nil }
        if !host.hasPrefix("["), let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        let suffix = ".localhost"
        guard host.hasSuffix(suffix), host.utf8.count > suffix.utf8.count else { return nil }
        return String(host.dropLast(suffix.count))
    }

    /// The path with `%XX` decoded (a `+` stays a `+` in a path); nil when the bytes are not UTF-8.
    static func decodedPath(_ path: String) -> String? {
        String(validating: path.percentDecodedBytes(plusIsSpace: false), as: UTF8.self)
    }
}

/// A request's query parameters, decoded; the first of a repeated one counts.
struct S3Query {
    private var values: [String: String] = [:]
    /// Parameters given without `=`: how SDKs name a subresource (`?acl`, `?renameObject`).
    private var valueless: Set<String> = []

    init(_ query: String) {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).percentDecoded
            if values[name] == nil { values[name] = parts.count > 1 ? String(parts[1]).percentDecoded : "" }
            if parts.count == 1 { valueless.insert(name) }
        }
    }

    subscript(name: String) -> String? { values[name] }

    enum Resource { case bucket, object }

    /// A subresource this API does not serve, which must not be answered as a listing, an object's
    /// content, a bucket's creation or an object's overwrite: one of S3's (the API model's
    /// operations), or any other parameter given without a value, as a subresource S3 adds later
    /// would be. The routes look for the subresources they serve (`?location`, `?uploads`, `?delete`)
    /// before they ask.
    func unsupportedSubresource(of resource: Resource) -> String? {
        let names = resource == .bucket ? Self.bucketSubresources : Self.objectSubresources
        return values.keys.sorted().first { names.contains($0) || valueless.contains($0) }
    }

    /// The `?name` of every bucket operation's request URI in the S3 API model (botocore 1.43), but
    /// `list-type` and `location`, which are served.
    static let bucketSubresources: Set<String> = [
        "abac", "accelerate", "acl", "analytics", "cors", "delete", "encryption", "intelligent-tiering",
        "inventory", "lifecycle", "logging", "metadataConfiguration", "metadataInventoryTable",
        "metadataJournalTable", "metadataTable", "metrics", "notification", "object-lock", "ownershipControls",
        "policy", "policyStatus", "publicAccessBlock", "replication", "requestPayment", "session", "tagging",
        "uploads", "versioning", "versions", "website",
    ]
    /// The same of object operations, and the parameters of the object requests not served:
    /// `partNumber` (a GetObject or HeadObject of one part: multipart uploads are served, their parts
    /// are not read back one by one), `uploadId` (ListParts) and `versionId`.
    static let objectSubresources: Set<String> = [
        "acl", "attributes", "encryption", "legal-hold", "renameObject", "restore", "retention", "select",
        "select-type", "tagging", "torrent", "uploads", "partNumber", "uploadId", "versionId",
    ]
}
