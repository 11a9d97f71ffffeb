import FirehoseSink
import FirehoseWire
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Serves a `FirehoseAPI` over HTTP/1.1 with Hummingbird and delivers every buffer on graceful
/// shutdown (SIGTERM / SIGINT) after the server has stopped accepting and finished in-flight requests.
public struct FirehoseHTTPServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port; the bound one is passed to `onListening`.
        public var port: Int

        public init(host: String = "127.0.0.1", port: Int = 4573) {
            self.host = host
            self.port = port
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
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// The application as a `Service`, for embedding in a caller's own `ServiceGroup`.
    public func makeApplication(
        onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let logger = self.logger
        let host = configuration.host
        return Application(
            responder: FirehoseResponder(api: api),
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port)),
            // Services shut down in reverse order after the HTTP server, so the sink flushes last.
            services: [SinkShutdownService(sink: api.sink)],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info(
                    "firehose-local listening",
                    metadata: [
                        "address": .string("\(host):\(port)"), "endpoint": .string("http://\(host):\(port)"),
                    ])
                await onListening(host, port)
            },
            logger: logger
        )
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
    typealias Context = BasicRequestContext
    let api: FirehoseAPI

    func respond(to request: Request, context: Context) async throws -> Response {
        let limit = api.configuration.maxBodyBytes
        // Refuse a declared oversize body before reading any of it.
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            return Self.convert(FirehoseAPI.errorResponse(.requestTooLarge(limit: limit), requestID: context.id))
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch {
            return Self.convert(FirehoseAPI.errorResponse(.requestTooLarge(limit: limit), requestID: context.id))
        }
        // HTTP/1.1 `Host` arrives as the `:authority` pseudo-header; SigV4 signs it as `host`.
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(request.headers.count + 1)
        if let authority = request.head.authority { headers.append(("host", authority)) }
        for field in request.headers { headers.append((field.name.rawName, field.value)) }
        let apiRequest = APIRequest(
            method: request.method.rawValue, target: request.head.path ?? "/", headers: headers,
            body: Array(body.readableBytesView))
        return Self.convert(await api.handle(apiRequest))
    }

    static func convert(_ response: APIResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
