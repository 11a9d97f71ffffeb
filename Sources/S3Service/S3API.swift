package import AWSSigV4
import CivilTime
import Crypto
import DurableStorage
package import FirehoseSink
package import FirehoseWire
package import Logging
package import ServerCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The S3 API over the bucket folders of the data directory, on the Firehose port: test code reads
/// delivered objects with an S3 client at the same endpoint URL it sends records to. Buckets are
/// the folders (and the buckets streams name, before their first object); objects are the files a
/// delivery renamed into place, so what is listed is whole.
package final class S3API: Sendable {
    private let region: String
    private let sink: FirehoseSink
    private let logger: Logger
    private let verifier: SigV4Verifier?
    /// The policies that bind a caller, if any do.
    private let boundCaller: @Sendable (_ accessKeyID: String) -> BoundCaller?
    private let folders: BucketFolders
    private let etags = ETagCache()
    private let multipart: S3MultipartUploads
    private let warnedOfETagAttributes = Atomic<Bool>(false)

    /// - Parameter lookup: the credentials of an access key; nil: authentication is off.
    package init(
        region: String, sink: FirehoseSink, logger: Logger, lookup: (@Sendable (String) -> AWSCredentials?)?,
        boundCaller: @escaping @Sendable (_ accessKeyID: String) -> BoundCaller? = { _ in nil }
    ) {
        self.boundCaller = boundCaller
        self.region = region
        self.sink = sink
        self.logger = logger
        folders = BucketFolders(root: sink.configuration.dataDirectory)
        multipart = S3MultipartUploads(root: Self.uploadsDirectory(of: sink.configuration))
        verifier = lookup.map {
            SigV4Verifier(region: region, service: "s3", dialect: .s3, lookup: $0)
        }
    }

    /// Whether a request is for S3 rather than Firehose: Firehose's all carry `X-Amz-Target` and
    /// are `POST /`; a `POST /` without one is a Firehose request that forgot it.
    /// - Parameter path: the request target's path (a query after it is ignored).
    package static func isS3Request(method: String, path: String, hasTarget: Bool) -> Bool {
        // Every Firehose call has a target: it is answered here without looking at the path.
        guard !hasTarget else { return false }
        let path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return !(method == "POST" && path == "/") && !path.hasPrefix("/_local")
    }

    /// The answer, with the operation and the error code (`OK` for a success) it is counted under.
    package func handle(_ request: APIRequest, requestID: String) async -> (
        response: APIResponse, operation: String, code: String
    ) {
        var operation = "Unknown"
        do {
            let response = try await respond(to: request, operation: &operation, requestID: requestID)
            return (response, operation, "OK")
        } catch {
            var metadata: Logger.Metadata = [
                "request_id": .string(requestID), "operation": .string("S3.\(operation)"),
                "error_code": .string(error.code), "error_message": .string(error.message),
            ]
            if error.status == 500 {
                metadata["path"] = .string(request.path)
                logger.error("Request failed", metadata: metadata)
            } else {
                logger.debug("Request failed", metadata: metadata)
            }
            return (
                Self.errorResponse(error, requestID: requestID, withBody: request.method != "HEAD"), operation,
                error.code
            )
        }
    }

    private func respond(to request: APIRequest, operation: inout String, requestID: String)
        async throws(S3Error) -> APIResponse
    {
        let address = try S3Address(request)
        let query = S3Query(request.query)
        let route = S3Route(
            method: request.method, address: address, query: query, copySource: request.header("x-amz-copy-source"))
        operation = route.operation
        let (chunkSignatures, accessKeyID) = try authenticate(request)
        if let accessKeyID, let caller = boundCaller(accessKeyID) {
            for (action, resource) in route.iamActions(copySource: request.header("x-amz-copy-source")) {
                do throws(FirehoseError) {
                    try caller.authorize(action: action, resource: resource)
                } catch {
                    throw S3Error(code: "AccessDenied", message: error.message, status: 403)
                }
            }
        }
        if let bucket = route.bucket, let store = sink.configuration.stores[bucket] {
            // Its objects are in the store, not here: an empty answer would mislead.
            var error = S3Error.noSuchBucket(bucket)
            error.message =
                "Bucket \(bucket) is delivered to the S3-compatible store at \(store.endpoint.absoluteString) (bucket \(store.bucket)): read it there."
            throw error
        }
        switch route {
        case .listBuckets:
            return listBuckets(requestID: requestID)
        case .bucketLocation(let bucket):
            return try bucketLocation(bucket, requestID: requestID)
        case .listObjects(let bucket, let version):
            return try await listObjects(bucket, query: query, version: version, requestID: requestID)
        case .headBucket(let bucket):
            guard bucketExists(bucket) else { throw .noSuchBucket(bucket) }
            return Self.success(headers: [("x-amz-bucket-region", region)], requestID: requestID)
        case .object(let bucket, let key, _):
            return try await object(bucket, key, request: request, query: query, requestID: requestID)
        case .createBucket(let bucket):
            return try await createBucket(bucket, requestID: requestID)
        case .putObject(let bucket, let key):
            return try await putObject(bucket, key, request: request, chunks: chunkSignatures, requestID: requestID)
        case .deleteObject(let bucket, let key):
            try await write(bucket: bucket) { folders, durable throws(BucketFolders.WriteError) in
                try folders.delete(bucket: bucket, key: key, durable: durable)
            }
            return APIResponse(status: 204, headers: Self.idHeaders(requestID))
        case .deleteObjects(let bucket):
            return try await deleteObjects(bucket, request: request, requestID: requestID)
        case .createMultipartUpload(let bucket, let key):
            return try await createMultipartUpload(bucket, key, request: request, requestID: requestID)
        case .uploadPart(let bucket, let key, let upload, let part):
            guard let number = Int(part), (1...S3MultipartUploads.maxParts).contains(number) else {
                throw .invalidPartNumber(part)
            }
            let (body, md5, echoed) = try receivedBody(of: request, chunks: chunkSignatures)
            let etag = try await multipart.storePart(
                body, md5: md5, number: number, upload: upload, bucket: bucket, key: key)
            return Self.success(headers: [("ETag", etag)] + echoed, requestID: requestID)
        case .completeMultipartUpload(let bucket, let key, let upload):
            return try await completeMultipartUpload(
                bucket, key, upload: upload, request: request, requestID: requestID)
        case .abortMultipartUpload(let bucket, let key, let upload):
            try await multipart.abort(upload, bucket: bucket, key: key)
            return APIResponse(status: 204, headers: Self.idHeaders(requestID))
        case .refused(_, let error):
            throw error
        }
    }

    static func unsupported(_ what: String) -> String {
        "firehose-local's S3 API serves ListBuckets, CreateBucket, HeadBucket, GetBucketLocation, ListObjects, ListObjectsV2, GetObject, HeadObject, PutObject, DeleteObject, DeleteObjects, CreateMultipartUpload, UploadPart, CompleteMultipartUpload and AbortMultipartUpload; \(what) is not implemented."
    }

    // MARK: Authentication

    /// Checks the request's signature, if authentication is on: the chunk signatures that follow
    /// from it, and the access key that signed.
    private func authenticate(_ request: APIRequest) throws(S3Error) -> (ChunkSignatures?, String?) {
        // S3 signs the hash the client declares: the body is hashed only to check a declared hex hash.
        if let declared = request.header("x-amz-content-sha256") {
            let value = declared.trimmingASCIISpaces
            if Self.isHexSHA256(value) {
                let bodySHA256 = SHA256Hex.hash(request.body)
                guard value.lowercased() == bodySHA256 else {
                    throw .contentSHA256Mismatch(declared: value, computed: bodySHA256)
                }
            } else if !Self.unsignedPayloads.contains(value) {
                throw .invalidContentSHA256(value)
            }
        }
        guard let verifier else { return (nil, nil) }
        let signed = SigV4Request(
            method: request.method, path: request.path, query: request.query, headers: request.headers,
            bodySHA256: "")
        do {
            if request.header("authorization") == nil, SigV4Verifier.isQueryStringV2(request.query) {
                let credentials = try verifier.verifyQueryStringV2(
                    signed, virtualHostedBucket: S3Address.virtualHostedBucket(request.header("host")), now: sink.now())
                return (nil, credentials.accessKeyId)
            } else if Self.hasSignedChunks(request) {
                let verified = try verifier.verifyStreaming(signed, now: sink.now())
                return (verified.chunks, verified.credentials.accessKeyId)
            } else {
                return (nil, try verifier.verify(signed, now: sink.now()).accessKeyId)
            }
        } catch {
            throw S3Error(error)
        }
    }

    /// Whether the body is aws-chunked with a signature on every chunk.
    static func hasSignedChunks(_ request: APIRequest) -> Bool {
        request.header("x-amz-content-sha256")?.trimmingASCIISpaces.hasPrefix("STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
            == true
    }

    /// The `x-amz-content-sha256` values that sign no hash of the body itself.
    static let unsignedPayloads: Set<String> = [
        SigV4Verifier.unsignedPayload, "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
    ]

    static func isHexSHA256(_ value: String) -> Bool {
        value.utf8.count == 64
            && value.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
    }

    // MARK: Buckets

    /// The buckets streams deliver to, with the time their stream was made: they exist as far as
    /// a client can tell from the start, as they do in AWS, before their folder does.
    private func streamBuckets() -> [String: Date] {
        var buckets: [String: Date] = [:]
        for name in sink.streamNames {
            guard let settings = sink.settings(of: name) else { continue }
            let created = sink.record(of: name)?.createTime ?? sink.now()
            for bucket in [settings.bucket, settings.backupStage?.bucket].compactMap({ $0 })
            where BucketFolders.isBucketName(bucket) && sink.configuration.stores[bucket] == nil {
                buckets[bucket] = min(buckets[bucket] ?? created, created)
            }
        }
        return buckets
    }

    private func bucketExists(_ bucket: String) -> Bool {
        folders.bucket(bucket) != nil || streamBuckets()[bucket] != nil
    }

    private func listBuckets(requestID: String) -> APIResponse {
        var buckets = streamBuckets()
        for folder in folders.buckets() {
            buckets[folder.name] = min(buckets[folder.name] ?? folder.modified, folder.modified)
        }
        var xml = S3XML(root: "ListAllMyBucketsResult")
        xml.open("Owner")
        xml.element("ID", Self.ownerID)
        xml.element("DisplayName", Self.ownerName)
        xml.close("Owner")
        xml.open("Buckets")
        for (name, created) in buckets.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            xml.open("Bucket")
            xml.element("Name", name)
            xml.element("CreationDate", ISO8601Timestamp.format(created))
            xml.close("Bucket")
        }
        xml.close("Buckets")
        return Self.success(xml: xml.finish(), requestID: requestID)
    }

    private func bucketLocation(_ bucket: String, requestID: String) throws(S3Error) -> APIResponse {
        guard bucketExists(bucket) else { throw .noSuchBucket(bucket) }
        // us-east-1 answers an empty LocationConstraint, as S3 does.
        var xml = S3XML(root: "LocationConstraint")
        xml.text(region == "us-east-1" ? "" : region)
        return Self.success(xml: xml.finish(), requestID: requestID)
    }

    /// The canonical user of every bucket here (AWS's documentation example id).
    static let ownerID = "75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a"
    static let ownerName = "firehose-local"

    // MARK: Listing

    /// With `encoding-type=url` (what botocore asks for on every listing and undoes with
    /// `unquote_plus`) every name is URI-encoded as SigV4 encodes a path: all but unreserved bytes
    /// and `/` as `%XX`, a `+` too, so keys XML 1.0 cannot carry survive.
    private func listObjects(_ bucket: String, query: S3Query, version: Int, requestID: String)
        async throws(S3Error) -> APIResponse
    {
        let urlEncoded: Bool
        switch query["encoding-type"] {
        case nil: urlEncoded = false
        case "url": urlEncoded = true
        case let other?:
            throw .invalidArgument("Invalid Encoding Method specified in Request", name: "encoding-type", value: other)
        }
        var maxKeys = 1000
        if let text = query["max-keys"] {
            guard let value = Int32(text) else {
                throw .invalidArgument(
                    "Provided max-keys not an integer or within integer range", name: "max-keys", value: text)
            }
            guard value >= 0 else {
                throw .invalidArgument(
                    "Argument maxKeys must be an integer between 0 and 2147483647", name: "maxKeys", value: text)
            }
            maxKeys = min(Int(value), 1000)
        }
        let prefix = query["prefix"] ?? ""
        let delimiter = query["delimiter"].flatMap { $0.isEmpty ? nil : $0 }
        var after: String?
        if version == 2 {
            if let token = query["continuation-token"] {
                guard let decoded = Self.decodeToken(token) else {
                    throw .invalidArgument(
                        "The continuation token provided is incorrect", name: "continuation-token", value: token)
                }
                after = decoded
            } else {
                after = query["start-after"]
            }
        } else {
            after = query["marker"]
        }
        guard bucketExists(bucket) else { throw .noSuchBucket(bucket) }
        let folders = folders
        let objects = await BlockingIO.read { folders.objects(in: bucket, prefix: prefix) } ?? []
        let page = S3ListingPage(
            objects, prefix: prefix, delimiter: delimiter, after: after.flatMap { $0.isEmpty ? nil : $0 },
            maxKeys: maxKeys)
        let fetchOwner = version == 1 || query["fetch-owner"] == "true"

        func text(_ value: String) -> String { urlEncoded ? SigV4URI.encodePath(value) : value }
        var xml = S3XML(root: "ListBucketResult")
        xml.element("Name", bucket)
        xml.element("Prefix", text(prefix))
        if version == 1 {
            xml.element("Marker", text(after ?? ""))
            if page.isTruncated, delimiter != nil, let last = page.last { xml.element("NextMarker", text(last)) }
        }
        xml.element("MaxKeys", String(maxKeys))
        if let delimiter { xml.element("Delimiter", text(delimiter)) }
        if urlEncoded { xml.element("EncodingType", "url") }
        // An object that went away since it was listed is left out, and not counted.
        var listed: [(object: BucketFolders.Object, etag: String)] = []
        for object in page.objects {
            if let etag = await etag(bucket: bucket, object: object) { listed.append((object, etag)) }
        }
        if version == 2 {
            xml.element("KeyCount", String(listed.count + page.commonPrefixes.count))
        }
        xml.element("IsTruncated", page.isTruncated ? "true" : "false")
        if version == 2 {
            if let token = query["continuation-token"] { xml.element("ContinuationToken", token) }
            if page.isTruncated, let last = page.last { xml.element("NextContinuationToken", Self.encodeToken(last)) }
            if let startAfter = query["start-after"] { xml.element("StartAfter", text(startAfter)) }
        }
        for (object, etag) in listed {
            xml.open("Contents")
            xml.element("Key", text(object.key))
            xml.element("LastModified", ISO8601Timestamp.format(object.modified))
            xml.element("ETag", etag)
            xml.element("Size", String(object.size))
            if fetchOwner {
                xml.open("Owner")
                xml.element("ID", Self.ownerID)
                xml.element("DisplayName", Self.ownerName)
                xml.close("Owner")
            }
            xml.element("StorageClass", "STANDARD")
            xml.close("Contents")
        }
        for commonPrefix in page.commonPrefixes {
            xml.open("CommonPrefixes")
            xml.element("Prefix", text(commonPrefix))
            xml.close("CommonPrefixes")
        }
        return Self.success(xml: xml.finish(), requestID: requestID)
    }

    /// A listed object's ETag; nil when it went away since it was listed.
    private func etag(bucket: String, object: BucketFolders.Object) async -> String? {
        if let known = etags[object.identity] { return known }
        let folders = folders
        guard let open = await BlockingIO.read({ folders.open(bucket: bucket, key: object.key) }) else { return nil }
        return await etags.etag(of: open)
    }

    /// Continuation tokens are opaque to clients, as S3's: the last key or common prefix listed.
    static func encodeToken(_ last: String) -> String { Base64.encode(Array(last.utf8)) }

    static func decodeToken(_ token: String) -> String? {
        var bytes: [UInt8] = []
        guard !token.isEmpty, Base64.decode(Array(token.utf8), appendingTo: &bytes) != nil else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    // MARK: Objects

    /// The query parameters of a GET that set a header of the answer.
    static let responseOverrides: [(parameter: String, header: String)] = [
        ("response-content-type", "Content-Type"), ("response-content-language", "Content-Language"),
        ("response-expires", "Expires"), ("response-cache-control", "Cache-Control"),
        ("response-content-disposition", "Content-Disposition"), ("response-content-encoding", "Content-Encoding"),
    ]

    /// What Firehose's objects carry: it sets no content type of its own.
    static let objectContentType = "application/octet-stream"

    private func object(_ bucket: String, _ key: String, request: APIRequest, query: S3Query, requestID: String)
        async throws(S3Error) -> APIResponse
    {
        guard bucketExists(bucket) else { throw .noSuchBucket(bucket) }
        let folders = folders
        guard let object = await BlockingIO.read({ folders.open(bucket: bucket, key: key) }) else {
            throw .noSuchKey(key)
        }
        guard let etag = await etags.etag(of: object) else { throw .internalError }
        let modified = Int64(object.modified.timeIntervalSince1970.rounded(.down))
        let lastModified = HTTPDate.format(object.modified)
        var headers: [(name: String, value: String)] = [
            ("ETag", etag), ("Last-Modified", lastModified), ("Accept-Ranges", "bytes"),
        ]
        switch S3Preconditions(
            ifMatch: request.header("if-match"), ifNoneMatch: request.header("if-none-match"),
            ifModifiedSince: request.header("if-modified-since"),
            ifUnmodifiedSince: request.header("if-unmodified-since"), etag: etag, modified: modified,
            parseDate: HTTPDate.parse)
        {
        case .proceed: break
        case .notModified:
            return APIResponse(status: 304, headers: headers + Self.idHeaders(requestID))
        case .failed(let condition):
            throw .preconditionFailed(condition)
        }
        var contentType = Self.objectContentType
        for (parameter, header) in Self.responseOverrides {
            guard let value = query[parameter] else { continue }
            if header == "Content-Type" { contentType = value } else { headers.append((header, value)) }
        }
        headers.append(("Content-Type", contentType))
        // Offset and length, not a closed range: an empty object has no last byte.
        let status: Int
        let offset: Int
        let length: Int
        let rangeHeader = request.header("range")
        switch S3ByteRange(header: rangeHeader, size: object.size) {
        case .whole:
            (status, offset, length) = (200, 0, object.size)
        case .part(let part):
            (status, offset, length) = (206, part.lowerBound, part.count)
            headers.append(("Content-Range", "bytes \(part.lowerBound)-\(part.upperBound)/\(object.size)"))
        case .unsatisfiable:
            throw .invalidRange(rangeHeader ?? "", size: object.size)
        }
        headers.append(("Content-Length", String(length)))
        var response = APIResponse(status: status, headers: headers + Self.idHeaders(requestID))
        if request.method == "GET", length > 0 {
            response.streamedBody = StreamedBody(object: object, offset: offset, count: length)
        }
        return response
    }

    // MARK: Writing

    /// Runs a write to `bucket` on the reading thread (the same kind of short file-system work), with
    /// the sink's durability, and turns its failure into S3's error.
    private func write<Value: Sendable>(
        bucket: String, _ body: @escaping @Sendable (BucketFolders, Bool) throws(BucketFolders.WriteError) -> Value
    ) async throws(S3Error) -> Value {
        let folders = folders
        let durable = sink.configuration.durability == .fsync
        let outcome = await BlockingIO.read { () -> Result<Value, BucketFolders.WriteError> in
            Result { () throws(BucketFolders.WriteError) in try body(folders, durable) }
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error):
            if case .storage(let cause) = error {
                logger.error("S3 write failed", metadata: ["cause": .string(cause.description)])
            }
            throw S3Error(error, bucket: bucket)
        }
    }

    private func createBucket(_ bucket: String, requestID: String) async throws(S3Error) -> APIResponse {
        if let problem = BucketFolders.newBucketNameProblem(bucket) {
            var error = S3Error.invalidBucketName(bucket)
            error.message += " \(problem)"
            throw error
        }
        let created = try await write(bucket: bucket) { folders, durable throws(BucketFolders.WriteError) in
            try folders.createBucket(bucket, durable: durable)
        }
        // us-east-1 answers 200 to its owner's second CreateBucket; every other region 409.
        if !created, region != "us-east-1" {
            throw S3Error(
                code: "BucketAlreadyOwnedByYou",
                message: "Your previous request to create the named bucket succeeded and you already own it.",
                status: 409, details: [("BucketName", bucket)])
        }
        if created { logger.info("Bucket created", metadata: ["bucket": .string(bucket)]) }
        return Self.success(headers: [("Location", "/\(bucket)")], requestID: requestID)
    }

    private func putObject(
        _ bucket: String, _ key: String, request: APIRequest, chunks: ChunkSignatures?, requestID: String
    ) async throws(S3Error) -> APIResponse {
        try Self.checkKeyLength(key)
        let (body, md5, echoed) = try receivedBody(of: request, chunks: chunks)
        let staging = sink.configuration.stagingDirectory
        let identity = try await write(bucket: bucket) { folders, durable throws(BucketFolders.WriteError) in
            try folders.put(body, bucket: bucket, key: key, staging: staging, durable: durable)
        }
        logger.debug(
            "Object uploaded",
            metadata: ["bucket": .string(bucket), "key": .string(key), "bytes": .stringConvertible(body.count)])
        // Known now, so a GET that follows need not read the object back to hash it.
        let etag = "\"\(Hex.string(md5))\""
        etags.remember(etag, for: identity)
        return Self.success(headers: [("ETag", etag)] + echoed, requestID: requestID)
    }

    static func checkKeyLength(_ key: String) throws(S3Error) {
        guard key.utf8.count <= Self.maxKeyBytes else {
            throw S3Error(
                code: "KeyTooLongError", message: "Your key is too long", status: 400,
                details: [("Size", String(key.utf8.count)), ("MaxSizeAllowed", String(Self.maxKeyBytes))])
        }
    }

    /// The body of a PutObject or UploadPart as sent (an aws-chunked one decoded, its chunk
    /// signatures checked), with its checksums checked; its MD5 (the ETag); and the checksum headers
    /// the answer echoes.
    private func receivedBody(of request: APIRequest, chunks: ChunkSignatures?) throws(S3Error)
        -> (body: [UInt8], md5: [UInt8], echoed: [(name: String, value: String)])
    {
        var body = request.body
        var trailers: [(name: String, value: String)] = []
        if request.header("x-amz-content-sha256")?.hasPrefix("STREAMING-") == true {
            var decodedLength: Int?
            if let text = request.header("x-amz-decoded-content-length") {
                guard let value = Int(text.trimmingASCIISpaces), value >= 0 else {
                    throw .invalidArgument(
                        "x-amz-decoded-content-length must be a number", name: "x-amz-decoded-content-length",
                        value: text)
                }
                decodedLength = value
            }
            let decoded = try S3ChunkedBody(
                decoding: body, signed: Self.hasSignedChunks(request), signatures: chunks,
                decodedLength: decodedLength)
            body = decoded.data
            trailers = decoded.trailers
        }
        let md5 = Array(Insecure.MD5.hash(data: body))
        return (body, md5, try S3Checksums.verify(request, body: body, md5: md5, trailers: trailers))
    }

    // MARK: Multipart uploads

    static func uploadsDirectory(of configuration: FirehoseSink.Configuration) -> String {
        "\(configuration.dataDirectory)/\(FirehoseSink.Configuration.privateFolderName)/uploads"
    }

    private func createMultipartUpload(_ bucket: String, _ key: String, request: APIRequest, requestID: String)
        async throws(S3Error) -> APIResponse
    {
        try Self.checkKeyLength(key)
        guard BucketFolders.isObjectKey(key) else { throw S3Error(BucketFolders.WriteError.invalidKey, bucket: bucket) }
        let folders = folders
        guard await BlockingIO.read({ folders.bucket(bucket) != nil }) else { throw .noSuchBucket(bucket) }
        let upload = try multipart.create(bucket: bucket, key: key)
        var xml = S3XML(root: "InitiateMultipartUploadResult")
        xml.element("Bucket", bucket)
        xml.element("Key", key)
        xml.element("UploadId", upload)
        var response = Self.success(xml: xml.finish(), requestID: requestID)
        if let algorithm = request.header("x-amz-checksum-algorithm") {
            response.headers.append(("x-amz-checksum-algorithm", algorithm))
        }
        return response
    }

    private func completeMultipartUpload(
        _ bucket: String, _ key: String, upload id: String, request: APIRequest, requestID: String
    ) async throws(S3Error) -> APIResponse {
        let listed = try S3CompleteRequest(parsing: request.body)
        let (parts, etag, upload) = try multipart.take(id, bucket: bucket, key: key, listed: listed.parts)
        let staging = sink.configuration.stagingDirectory
        let placed: (identity: BucketFolders.FileIdentity, keptETag: Bool)
        do {
            placed = try await write(bucket: bucket) { folders, durable throws(BucketFolders.WriteError) in
                try folders.place(bucket: bucket, key: key, staging: staging, durable: durable, etag: etag) {
                    file, path throws(FileSystemError) in
                    try S3MultipartUploads.join(parts, into: file, path: path)
                }
            }
        } catch {
            multipart.restore(id, upload)
            throw error
        }
        etags.remember(etag, for: placed.identity)
        if !placed.keptETag, !warnedOfETagAttributes.exchange(true, ordering: .relaxed) {
            logger.warning(
                "The data directory's file system keeps no extended attributes: ETags of objects uploaded in parts last until the server stops, then read as their MD5",
                metadata: ["attribute": "user.firehose-local.etag"])
        }
        await multipart.discard(id)
        logger.debug(
            "Object uploaded in parts",
            metadata: [
                "bucket": .string(bucket), "key": .string(key), "parts": .stringConvertible(parts.count),
                "bytes": .stringConvertible(parts.reduce(0) { $0 + $1.size }),
            ])
        var xml = S3XML(root: "CompleteMultipartUploadResult")
        let host = request.header("host") ?? "localhost"
        xml.element("Location", "http://\(host)/\(bucket)/\(SigV4URI.encodePath(key))")
        xml.element("Bucket", bucket)
        xml.element("Key", key)
        xml.element("ETag", etag)
        return Self.success(xml: xml.finish(), requestID: requestID)
    }

    /// S3's longest key, in UTF-8 bytes.
    static let maxKeyBytes = 1024

    private func deleteObjects(_ bucket: String, request: APIRequest, requestID: String)
        async throws(S3Error) -> APIResponse
    {
        let hasIntegrityHeader =
            request.header("content-md5") != nil
            || S3Checksums.algorithms.contains { request.header($0.header) != nil }
        guard hasIntegrityHeader else {
            throw S3Error(
                code: "InvalidRequest", message: "Missing required header for this request: Content-MD5", status: 400)
        }
        _ = try S3Checksums.verify(request, body: request.body)
        let delete = try S3DeleteRequest(parsing: request.body)
        let outcomes = try await write(bucket: bucket) {
            folders, durable throws(BucketFolders.WriteError) -> [(key: String, failure: BucketFolders.WriteError?)] in
            guard folders.bucket(bucket) != nil else { throw .noSuchBucket }
            return delete.keys.map { key in
                do throws(BucketFolders.WriteError) {
                    try folders.delete(bucket: bucket, key: key, durable: durable)
                    return (key, nil)
                } catch {
                    return (key, error)
                }
            }
        }
        var xml = S3XML(root: "DeleteResult")
        for outcome in outcomes {
            if let failure = outcome.failure {
                let error = S3Error(failure, bucket: bucket)
                xml.open("Error")
                xml.element("Key", outcome.key)
                xml.element("Code", error.code)
                xml.element("Message", error.message)
                xml.close("Error")
            } else if !delete.quiet {
                xml.open("Deleted")
                xml.element("Key", outcome.key)
                xml.close("Deleted")
            }
        }
        return Self.success(xml: xml.finish(), requestID: requestID)
    }

    // MARK: Answers

    static func hostID(_ requestID: String) -> String { Base64.encode(Array(requestID.utf8)) }

    static func idHeaders(_ requestID: String) -> [(name: String, value: String)] {
        [("x-amz-request-id", requestID), ("x-amz-id-2", hostID(requestID))]
    }

    static func success(headers: [(name: String, value: String)] = [], requestID: String) -> APIResponse {
        APIResponse(status: 200, headers: headers + idHeaders(requestID))
    }

    static func success(xml: [UInt8], requestID: String) -> APIResponse {
        APIResponse(status: 200, headers: [("Content-Type", S3XML.contentType)] + idHeaders(requestID), body: xml)
    }

    /// What the HTTP layer could not read (a bad length, a body too slow or too large), refused in
    /// S3's XML.
    package static func transportRefusal(_ error: FirehoseError, requestID: String) -> APIResponse {
        errorResponse(S3Error(transport: error), requestID: requestID, withBody: true)
    }

    static func errorResponse(_ error: S3Error, requestID: String, withBody: Bool) -> APIResponse {
        guard withBody else { return APIResponse(status: error.status, headers: idHeaders(requestID)) }
        return APIResponse(
            status: error.status, headers: [("Content-Type", S3XML.contentType)] + idHeaders(requestID),
            body: error.document(requestID: requestID))
    }
}

/// The HTTP layer sends a GetObject's body from the object S3 opened, as it was when opened.
extension OpenObject: ReadableAtOffsets {}
