import Histogram
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Where a run is: workers count only what completes while `measuring`.
final class RunPhase: Sendable {
    enum Value: Int {
        case warmingUp = 0, measuring, stopping
    }

    private let value = Atomic<Int>(Value.warmingUp.rawValue)

    var current: Value { Value(rawValue: value.load(ordering: .acquiring))! }

    func set(_ phase: Value) { value.store(phase.rawValue, ordering: .releasing) }
}

/// The requests every worker cycles through, shared read-only.
struct RequestSet: Sendable {
    var wire: [ByteBuffer]
    var records: [Int]
    var payloadBytes: [Int]
}

/// What one worker saw while measuring.
struct ConnectionStats: Sendable {
    var requests = 0
    var records = 0
    var payloadBytes = 0
    var errorsByStatus: [Int: Int] = [:]
    /// Connections lost with a request in flight (the request is sent again on a new connection).
    var connectionErrors = 0
    /// Connections opened after the first: a server that answers `Connection: close` costs one per request.
    var reconnects = 0
    /// Request latency in microseconds, every completed request (successful or not). When the server
    /// closes connections, the new connection's set-up counts in the next request, as for any client.
    var latencyMicros = Histogram<UInt64>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
}

/// Collects each worker's figures once it has stopped.
final class ResultCollector: Sendable {
    private let results = Mutex<[ConnectionStats]>([])

    func add(_ stats: ConnectionStats) { results.withLock { $0.append(stats) } }
    var count: Int { results.withLock { $0.count } }
    var all: [ConnectionStats] { results.withLock { $0 } }
}

/// One client in a closed loop: send a pre-built request over a keep-alive connection, wait for the
/// whole response, record it, send the next. One request in flight, as an SDK client has. If the
/// server closes the connection (moto's dev server does after every response) the worker opens a new
/// one, as an SDK would. Lives on one event loop; every method runs there.
final class LoadWorker {
    private let eventLoop: any EventLoop
    private let host: String
    private let port: Int
    private let requests: RequestSet
    private let phase: RunPhase
    private let collector: ResultCollector
    private var next: Int
    private let stride: Int
    private var stats = ConnectionStats()
    private var context: ChannelHandlerContext?
    private var current = 0
    private var sentAt: UInt64 = 0
    private var inFlight = false
    private var status = 0
    private var closeAfterResponse = false
    private var connections = 0
    private var failedConnects = 0
    private var finished = false
    private var started = false

    /// The head every request "has" for NIO's response decoder (it pairs responses with requests);
    /// `PreRenderedRequestWriter` drops it and writes the pre-rendered bytes instead.
    private static let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/")

    /// Worker `index` of `count` sends requests index, index+count, ... so streams get equal shares.
    init(
        eventLoop: any EventLoop, host: String, port: Int, requests: RequestSet, phase: RunPhase,
        collector: ResultCollector, index: Int, count: Int
    ) {
        self.eventLoop = eventLoop
        self.host = host
        self.port = port
        self.requests = requests
        self.phase = phase
        self.collector = collector
        self.next = index % requests.wire.count
        self.stride = count
    }

    /// Opens a connection; the worker sends on it once it is active (if it has a request waiting).
    func connect() -> EventLoopFuture<Void> {
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        return ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        PreRenderedRequestWriter(),
                        ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .fireError)),
                        LoadConnectionHandler(worker: bound.value),
                    ])
                }
            }
            .connect(host: host, port: port)
            .map { _ in
                let worker = bound.value
                worker.connections += 1
                if worker.connections > 1 && worker.phase.current == .measuring { worker.stats.reconnects += 1 }
            }
    }

    /// Called from the handler's `channelActive`.
    func attached(_ context: ChannelHandlerContext) {
        self.context = context
        if waitingToSend {
            waitingToSend = false
            send()
        }
    }

    private var waitingToSend = false

    func start() {
        started = true
        send()
    }

    private func send() {
        guard let context else { return reconnectAndSend() }
        if !inFlight {
            current = next
            next = (next + stride) % requests.wire.count
            sentAt = NIODeadline.now().uptimeNanoseconds
        }
        inFlight = true
        status = 0
        closeAfterResponse = false
        context.write(NIOAny(HTTPClientRequestPart.head(Self.head)), promise: nil)
        context.write(NIOAny(HTTPClientRequestPart.body(.byteBuffer(requests.wire[current]))), promise: nil)
        context.writeAndFlush(NIOAny(HTTPClientRequestPart.end(nil)), promise: nil)
    }

    /// Starts a new request's clock before connecting, so the set-up counts in its latency.
    private func reconnectAndSend() {
        guard !finished else { return }
        if phase.current == .stopping { return finish() }
        if !inFlight {
            current = next
            next = (next + stride) % requests.wire.count
            sentAt = NIODeadline.now().uptimeNanoseconds
            inFlight = true
        }
        waitingToSend = true
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        connect().whenFailure { _ in
            let worker = bound.value
            worker.waitingToSend = false
            worker.failedConnects += 1
            worker.stats.connectionErrors += 1
            // A server that is gone: give up on this worker rather than spin.
            if worker.failedConnects > 100 { worker.finish() } else { worker.reconnectAndSend() }
        }
    }

    func responseHead(_ head: HTTPResponseHead) {
        status = Int(head.status.code)
        closeAfterResponse = !head.isKeepAlive
    }

    func responseEnd() {
        let now = NIODeadline.now().uptimeNanoseconds
        inFlight = false
        if phase.current == .measuring {
            stats.requests += 1
            stats.latencyMicros.record((now - sentAt) / 1_000)
            if status == 200 {
                stats.records += requests.records[current]
                stats.payloadBytes += requests.payloadBytes[current]
            } else {
                stats.errorsByStatus[status, default: 0] += 1
            }
        }
        if phase.current == .stopping {
            context?.close(promise: nil)
            return finish()
        }
        if closeAfterResponse {
            let old = context
            context = nil
            old?.close(promise: nil)
            reconnectAndSend()
        } else {
            send()
        }
    }

    /// The connection closed: expected after `Connection: close`, an error with a request in flight.
    func closed(_ context: ChannelHandlerContext) {
        guard self.context === context else { return }
        self.context = nil
        guard !finished else { return }
        if phase.current == .stopping { return finish() }
        if inFlight {
            stats.connectionErrors += 1
            if started { reconnectAndSend() }
        }
    }

    /// Stops the worker once (after its last response, or when the run's deadline forces it).
    func finish() {
        guard !finished else { return }
        finished = true
        context?.close(promise: nil)
        context = nil
        collector.add(stats)
    }
}

/// Adapts one channel's events to its worker.
final class LoadConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let worker: LoadWorker

    init(worker: LoadWorker) { self.worker = worker }

    func channelActive(context: ChannelHandlerContext) {
        worker.attached(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): worker.responseHead(head)
        case .body: break
        case .end: worker.responseEnd()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        worker.closed(context)
        context.fireChannelInactive()
    }
}

/// Writes the pre-rendered request bytes carried in `.body` and swallows `.head` and `.end`, so the
/// timed phase encodes nothing. Sits between the socket and NIO's response decoder, which still sees
/// each `.head` and so pairs every response with its request.
final class PreRenderedRequestWriter: ChannelOutboundHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = IOData

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head, .end:
            promise?.succeed(())
        case .body(let body):
            context.write(wrapOutboundOut(body), promise: promise)
        }
    }
}
