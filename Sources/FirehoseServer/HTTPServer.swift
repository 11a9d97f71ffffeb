import DurableStorage
import FirehoseService
import FirehoseSink
import FirehoseWire
import HTTPTypes
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import S3Service
import ServerCore
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Serves a `FirehoseAPI` over HTTP/1.1 with Hummingbird and delivers every buffer on graceful
/// shutdown (SIGTERM / SIGINT) after the server has stopped accepting and finished in-flight requests.
public struct FirehoseHTTPServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port; the bound one is passed to `onListening`.
        public var port: Int
        /// Connections beyond this wait in the listen backlog until one closes.
        public var maxConnections: Int
        /// A connection that sends nothing for this long while a request is due or being read is closed.
        public var idleTimeout: Duration
        /// A request body must arrive within this time, however slowly its bytes trickle in.
        public var bodyTimeout: Duration
        /// After SIGTERM/SIGINT: time allowed for in-flight requests and the final delivery of every
        /// buffer before the process gives up waiting (what is still staged is recovered at next start).
        public var shutdownTimeout: Duration
        /// Request body bytes held in memory at once across all connections (see `RequestMemoryBudget`).
        public var requestMemoryBudget: Int

        public init(
            host: String = "127.0.0.1", port: Int = 4573, maxConnections: Int = 1024,
            idleTimeout: Duration = .seconds(30),
            bodyTimeout: Duration = .seconds(30), shutdownTimeout: Duration = .seconds(60),
            requestMemoryBudget: Int = 256 * 1024 * 1024
        ) {
            self.requestMemoryBudget = requestMemoryBudget
            self.host = host
            self.port = port
            self.maxConnections = maxConnections
            self.idleTimeout = idleTimeout
            self.bodyTimeout = bodyTimeout
            self.shutdownTimeout = shutdownTimeout
        }
    }

    public let api: FirehoseAPI
    public let configuration: Configuration
    private let logger: Logger

    public init(api: FirehoseAPI, configuration: Configuration, logger: Logger) {
        self.api = api
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs until SIGTERM / SIGINT (or task cancellation), then delivers all buffers and returns.
    public func run(onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in })
        async throws
    {
        let app = makeApplication(onListening: onListening)
        var group = ServiceGroupConfiguration(
            services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        // After --shutdown-timeout the sink's shutdown is cancelled: it abandons what waits on a
        // function or an endpoint and starts no further delivery, but a buffer being written out
        // finishes. The group ends the process (fatalError) past this bound.
        group.maximumCancellationDuration = .seconds(30)
        try await ServiceGroup(configuration: group).run()
    }

    /// The application as a `Service`, for embedding in a caller's own `ServiceGroup`.
    public func makeApplication(
        onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let logger = self.logger
        let host = configuration.host
        let idle = configuration.idleTimeout.components
        // Hummingbird derives each request's logger from this one.
        var requestLogger = logger
        requestLogger.handler = DeferredMetadataLogHandler(wrapping: logger.handler)
        let connections = OpenConnections(limit: configuration.maxConnections)
        return Application(
            responder: FirehoseResponder(
                api: api, bodyTimeout: configuration.bodyTimeout,
                budget: RequestMemoryBudget(capacity: configuration.requestMemoryBudget)),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        ConnectionLifecycle(
                            connections, maxBodyBytes: { [api] in api.configuration.maxBodyBytes(target: $0) })
                    ],
                    idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port),
                availableConnectionsDelegate: EvictingConnectionLimit(
                    maxConnections: configuration.maxConnections, connections: connections)),
            // Services shut down in reverse order after the HTTP server, so the sink flushes last,
            // after the data streams' reading stopped.
            services: [SinkShutdownService(sink: api.sink)]
                + [
                    api.kinesis.flatMap { kinesis in
                        api.firehose.kinesisSource.map { reader -> any Service in
                            KinesisStreamsService(
                                reader: reader, kinesis: kinesis, clock: api.sink.clock,
                                now: { [sink = api.sink] in sink.now() })
                        }
                    }
                ].compactMap { $0 },
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info(
                    "firehose-local listening",
                    metadata: [
                        "address": .string("\(host):\(port)"), "endpoint": .string("http://\(host):\(port)"),
                    ])
                await onListening(host, port)
            },
            logger: requestLogger
        )
    }
}

extension FirehoseHTTPServer {
    /// Whether a `--host` value only accepts connections from this machine.
    public static func isLoopback(host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// Whether a client address is on this machine: IPv4 127/8, IPv6 ::1 (also IPv4-mapped), or a
    /// Unix socket.
    static func isLoopback(peer: SocketAddress?) -> Bool {
        guard let peer else { return false }
        if case .unixDomainSocket = peer { return true }
        guard let ip = peer.ipAddress?.lowercased() else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
    }
}

/// A request context that keeps the client's address, which `BasicRequestContext` drops.
struct FirehoseRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: SocketAddress?
    /// The connection, for what a fault rule does to it: reset it, or notice that the client left.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
        channel = source.channel
    }
}

/// Waits for graceful shutdown, then delivers every open buffer.
struct SinkShutdownService: Service {
    let sink: FirehoseSink

    func run() async throws {
        try? await gracefulShutdown()
        await sink.shutdown()
    }
}

/// Adapts Hummingbird requests to the HTTP-agnostic API core.
struct FirehoseResponder: HTTPResponder {
    typealias Context = FirehoseRequestContext
    let api: FirehoseAPI
    let budget: RequestMemoryBudget
    let deadlines: BodyDeadlines<BodyOutcome?, ContinuousClock>

    init(api: FirehoseAPI, bodyTimeout: Duration, budget: RequestMemoryBudget) {
        self.api = api
        self.budget = budget
        deadlines = BodyDeadlines(timeout: bodyTimeout)
    }

    var bodyTimeout: Duration { deadlines.timeout }

    func respond(to request: Request, context: Context) async throws -> Response {
        let limit = api.configuration.maxBodyBytes(target: request.headers[.amzTarget])
        // One pass over the fields makes the API's header list and finds Content-Length.
        // HTTP/1.1 `Host` arrives as the `:authority` pseudo-header; SigV4 signs it as `host`.
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(request.headers.count + 1)
        if let authority = request.head.authority { headers.append(("host", authority)) }
        var contentLength: String?
        var contentLengthFields = 0
        var transferCodings: [Substring] = []
        for field in request.headers {
            headers.append((field.name.rawName, field.value))
            if field.name == .contentLength {
                contentLength = field.value
                contentLengthFields += 1
            } else if field.name == .transferEncoding {
                transferCodings += field.value.split(separator: ",")
            }
        }
        // What cannot be read is refused in the shape the client speaks: S3's XML or Firehose's JSON
        // (decided only then: a request that is read pays nothing for it).
        func refusal(_ error: FirehoseError) -> APIResponse {
            let isS3 = S3API.isS3Request(
                method: request.method.rawValue, path: request.head.path ?? "/",
                hasTarget: request.headers[.amzTarget] != nil)
            return isS3
                ? S3API.transportRefusal(error, requestID: context.id)
                : AWSJSONProtocol.errorResponse(error, requestID: context.id)
        }
        // Answered once the HTTP layer has read what it can of the body, so the answer is the only one.
        let codingRefusal = transferCodings.isEmpty ? nil : Self.transferCodingRefusal(transferCodings)
        // Refuse a declared oversize body before reading any of it. (Repeated fields would read as a
        // list, which is no number.)
        // Closing spares reading what may be a huge body only to find the next request.
        if contentLengthFields == 1, let declared = contentLength.flatMap({ Int($0) }), declared > limit {
            return Self.closing(refusal(.requestTooLarge(limit: limit)))
        }
        // Everything the request holds in memory, returned when it is answered.
        let account = RequestMemoryBudget.Account(budget)
        defer { account.releaseAll() }
        let body: [UInt8]
        switch await collectBody(of: request, limit: limit, account: account) {
        case .body where codingRefusal != nil:
            return Self.closing(refusal(codingRefusal!))
        case .body(let bytes):
            body = bytes
        case .tooLarge:
            return Self.closing(refusal(.requestTooLarge(limit: limit)))
        case .malformed:
            // The connection cannot be read on from a body whose end is unknown.
            return Self.closing(refusal(codingRefusal ?? Self.malformedBody))
        case .busy:
            return Self.closing(refusal(.requestMemorySpent))
        case .shuttingDown:
            return Self.closing(
                refusal(
                    .serviceUnavailable(
                        "firehose-local is shutting down and the request body did not arrive within \(Self.shutdownGrace); retry."
                    )))
        case .timedOut:
            return Self.closing(
                refusal(
                    FirehoseError(
                        code: "RequestTimeoutException",
                        message: "The request body did not arrive within \(bodyTimeout).", httpStatus: 408)))
        }
        var apiRequest = APIRequest(
            method: request.method.rawValue, target: request.head.path ?? "/", headers: headers, body: body)
        apiRequest.reserveMemory = { account.tryReserve($0) }
        apiRequest.fromLoopback = FirehoseHTTPServer.isLoopback(peer: context.peer)
        let channel = context.channel
        apiRequest.onClientGone = { action in ConnectionLifecycle.whenClientGone(of: channel, action) }
        let response = await api.handle(apiRequest)
        if response.resetsConnection {
            await Self.reset(channel)
            return Self.closing(response)
        }
        return Self.convert(response)
    }

    /// Closes the connection with a TCP reset (SO_LINGER 0) rather than an orderly close, as a
    /// crashed or overloaded front end does: the client sees ECONNRESET, not an empty answer.
    static func reset(_ channel: any Channel) async {
        if let options = channel as? any SocketOptionProvider {
            try? await options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }

    enum BodyOutcome: Sendable {
        /// The body, charged to the request's account.
        case body([UInt8])
        case tooLarge
        /// The framing broke off: the connection ended before `Content-Length` bytes, or a chunk was
        /// malformed.
        case malformed
        /// The memory budget is spent: shed load (503) rather than queue behind slow uploads.
        case busy
        case timedOut
        /// The server is stopping and the body did not arrive within the shutdown grace.
        case shuttingDown
    }

    /// At SIGTERM/SIGINT, how much longer a request body still arriving may take.
    static let shutdownGrace = Duration.seconds(2)

    /// Reads the whole body, bounded in size, in time (a slow client cannot hold a request open) and
    /// by the shared memory budget, charged as bytes actually arrive — a stalled upload holds only what
    /// it sent. Every byte is charged twice: the body and its decoded records live together.
    ///
    /// The body is read in a task of its own because only cancelling the reading task stops a read
    /// that waits on the connection; the shared `deadlines` timer does that, with no timer per request.
    /// The reader has finished when this returns, so the account holds all it charged.
    func collectBody(of request: Request, limit: Int, account: RequestMemoryBudget.Account) async -> BodyOutcome {
        // Detached: reading needs none of the request task's locals, so none are copied.
        let reader = Task.detached { await Self.readBody(request.body, limit: limit, account: account) }
        let clock = deadlines.start(reader)
        let outcome = await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await reader.value
            } onCancel: {
                reader.cancel()
            }
        } onGracefulShutdown: { [deadlines] in
            // A stalled upload must not hold the shutdown for its whole body timeout.
            deadlines.shutDown(grace: Self.shutdownGrace)
        }
        guard deadlines.finish(clock), let outcome else {
            // (Also when the body completed just as the deadline passed: the deadline wins, as it
            // would have a moment later.)
            return deadlines.isShuttingDown ? .shuttingDown : .timedOut
        }
        return outcome
    }

    /// The body, or why not; nil when cancelled. What it charged stays on `account`.
    static func readBody(_ body: RequestBody, limit: Int, account: RequestMemoryBudget.Account) async -> BodyOutcome? {
        // Collected straight into the array the API reads: one copy of every byte, not two.
        var bytes: [UInt8] = []
        do {
            for try await chunk in body {
                if bytes.count + chunk.readableBytes > limit { return .tooLarge }
                guard account.tryReserve(2 * chunk.readableBytes) else { return .busy }
                chunk.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
            }
            return Task.isCancelled ? nil : .body(bytes)
        } catch {
            return Task.isCancelled ? nil : .malformed
        }
    }

    static let malformedBody = FirehoseError(
        code: "SerializationException",
        message:
            "The request body is malformed: the connection ended before Content-Length bytes, or its chunked encoding is invalid."
    )

    /// RFC 9112 §6.1 and §6.3: a body's length is known only when `chunked` is the last coding, and
    /// only once (else 400, then close); a coding before it that the server does not apply is 501.
    /// Nothing here decodes transfer codings but chunked, which the HTTP layer removes.
    static func transferCodingRefusal(_ codings: [Substring]) -> FirehoseError? {
        let names = codings.map { $0.trimmingASCIISpaces.lowercased() }
        guard names.last == "chunked", names.filter({ $0 == "chunked" }).count == 1 else {
            return FirehoseError(
                code: "SerializationException",
                message:
                    "Transfer-Encoding '\(names.joined(separator: ", "))' leaves the body's length unknown: chunked must be its last coding, once.",
                httpStatus: 400)
        }
        guard names.count == 1 else {
            return FirehoseError(
                code: "NotImplemented",
                message:
                    "Transfer-Encoding '\(names.dropLast().joined(separator: ", "))' is not supported: send the body chunked or with Content-Length (Content-Encoding: gzip is accepted).",
                httpStatus: 501)
        }
        return nil
    }

    /// An error answer after which the connection is closed.
    static func closing(_ response: APIResponse) -> Response {
        var converted = convert(response)
        converted.headers[.connection] = "close"
        return converted
    }

    private static let requestIDField = HTTPField.Name("x-amzn-RequestId")!
    private static let errorTypeField = HTTPField.Name("x-amzn-ErrorType")!

    /// The header names the API answers with on every request, made once instead of validated and
    /// lowercased per response.
    private static func fieldName(_ name: String) -> HTTPField.Name? {
        switch name {
        case "Content-Type": .contentType
        case "x-amzn-RequestId": requestIDField
        case "x-amzn-ErrorType": errorTypeField
        default: HTTPField.Name(name)
        }
    }

    /// An object's bytes in chunks, each read on the reading thread as the previous one is sent, so a
    /// large object holds one chunk of memory. A read that fails ends the connection mid-body: the
    /// client sees fewer bytes than Content-Length said, never other bytes.
    static func write(_ streamed: StreamedBody, to writer: inout any ResponseBodyWriter) async throws {
        let chunk = 256 * 1024
        var offset = streamed.offset
        let end = streamed.offset + streamed.count
        while offset < end {
            let object = streamed.object
            let count = min(chunk, end - offset)
            let at = offset
            let bytes = try await BlockingIO.read { () -> Result<[UInt8], FileSystemError> in
                Result { () throws(FileSystemError) in try object.read(at: at, count: count) }
            }.get()
            guard !bytes.isEmpty else { throw FileSystemError(operation: "read", path: "object", errno: 5) }
            try await writer.write(ByteBuffer(bytes: bytes))
            offset += bytes.count
        }
        try await writer.finish(nil)
    }

    static func convert(_ response: APIResponse) -> Response {
        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count + 3)
        for (name, value) in response.headers {
            if let fieldName = fieldName(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        if let writes = response.writesBody {
            return Response(
                status: HTTPResponse.Status(code: response.status), headers: fields,
                body: ResponseBody { writer in
                    var body: any StreamingBodyWriter = HummingbirdBodyWriter(writer: writer)
                    try await writes(&body)
                })
        }
        if let streamed = response.streamedBody {
            return Response(
                status: HTTPResponse.Status(code: response.status), headers: fields,
                body: ResponseBody(contentLength: streamed.count) { writer in
                    try await write(streamed, to: &writer)
                })
        }
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}

/// A service's streamed body written through Hummingbird's writer.
private struct HummingbirdBodyWriter: StreamingBodyWriter {
    var writer: any ResponseBodyWriter

    mutating func write(_ bytes: [UInt8]) async throws {
        try await writer.write(ByteBuffer(bytes: bytes))
    }

    mutating func finish() async throws {
        try await writer.finish(nil)
    }
}

extension HTTPField.Name {
    /// The operation of an AWS JSON request; it also chooses the request's body limit.
    static let amzTarget = HTTPField.Name("X-Amz-Target")!
}
