import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The open connections, and which of them are idle keep-alive connections (answered, waiting for
/// their next request), longest idle first.
final class OpenConnections: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// When each idle keep-alive connection became idle, as an order stamp (only the order matters).
        var idleSince: [ObjectIdentifier: UInt64] = [:]
        var stamp: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The connection limit: at it, a connection that goes idle is closed instead of kept alive.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// A new connection is not idle keep-alive until it has been answered: one that was just accepted
    /// is about to send its first request (the idle timeout bounds one that never does).
    func opened(_ channel: any Channel) {
        state.withLock { $0.channels[ObjectIdentifier(channel)] = channel }
    }

    func busy(_ channel: any Channel) {
        state.withLock { _ = $0.idleSince.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// The connection was answered and may wait for its next request; false when the server is at its
    /// limit, where the caller closes it instead: a client may be waiting for its slot, and nothing
    /// else would make room for it until this connection's idle timeout.
    func idle(_ channel: any Channel) -> Bool {
        state.withLock { state in
            guard state.channels[ObjectIdentifier(channel)] != nil else { return true }
            guard state.channels.count < limit else { return false }
            state.stamp += 1
            state.idleSince[ObjectIdentifier(channel)] = state.stamp
            return true
        }
    }

    func closed(_ channel: any Channel) {
        state.withLock { state in
            state.channels[ObjectIdentifier(channel)] = nil
            state.idleSince[ObjectIdentifier(channel)] = nil
        }
    }

    var count: Int { state.withLock { $0.channels.count } }
    var idleCount: Int { state.withLock { $0.idleSince.count } }

    /// Closes the keep-alive connection that has been idle longest; false when none is idle.
    @discardableResult
    func closeOldestIdle() -> Bool {
        let channel = state.withLock { state -> (any Channel)? in
            guard let oldest = state.idleSince.min(by: { $0.value < $1.value })?.key else { return nil }
            state.idleSince[oldest] = nil
            return state.channels[oldest]
        }
        channel?.close(promise: nil)
        return channel != nil
    }
}

/// What happens to a connection when a response ends: it stays open for the next request, or it is
/// closed. (And the `100 Continue` a request with `Expect: 100-continue` waits for.) Keeps `OpenConnections` told whether the connection is between requests.
///
/// After a response that says `Connection: close` only the sending side is shut, as RFC 9112 §9.6
/// requires of the server that sends it (Hummingbird closes only when the request asked to): the
/// client gets the whole response and a FIN, and what it still sends is read and dropped until it
/// closes or the idle timeout ends the connection; closing both sides with unread input would send a
/// reset that can destroy the response before the client reads it. At the connection limit an
/// answered connection is closed whole instead. Either way only after the response is written; a
/// response that keeps its connection costs no extra promise.
final class ConnectionLifecycle: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let connections: OpenConnections
    /// The largest body the server reads for a request with this `X-Amz-Target`
    /// (`FirehoseAPI.Configuration.maxBodyBytes(target:)`).
    private let maxBodyBytes: @Sendable (_ target: String?) -> Int
    private var closeRequested = false
    /// Whether the client has closed its side (the server allows half-closure, so that is an event,
    /// not a close) or the connection is gone.
    private var clientGone = false
    private var clientGoneActions: [@Sendable () -> Void] = []

    init(_ connections: OpenConnections, maxBodyBytes: @escaping @Sendable (_ target: String?) -> Int = { _ in .max }) {
        self.connections = connections
        self.maxBodyBytes = maxBodyBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        connections.opened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connections.closed(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed(context.channel)
        noteClientGone()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { noteClientGone() }
        context.fireUserInboundEventTriggered(event)
    }

    /// Runs `action` once the client has closed its side of the connection (at once if it has).
    /// On the channel's event loop.
    func whenClientGone(_ action: @escaping @Sendable () -> Void) {
        if clientGone {
            action()
        } else {
            clientGoneActions.append(action)
        }
    }

    private func noteClientGone() {
        clientGone = true
        let actions = clientGoneActions
        clientGoneActions = []
        for action in actions { action() }
    }

    /// Calls `action` once the client of `channel` has closed its side of the connection (at once
    /// when the channel has no such handler).
    static func whenClientGone(of channel: any Channel, _ action: @escaping @Sendable () -> Void) {
        channel.eventLoop.execute {
            guard let handler = try? channel.pipeline.syncOperations.handler(type: ConnectionLifecycle.self) else {
                return action()
            }
            handler.whenClientGone(action)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            connections.busy(context.channel)
            // Every body is read, so a client that asks may send it at once (RFC 9110 §10.1.1);
            // botocore asks on every S3 upload and otherwise waits a second before sending.
            // One declared too large is refused unread instead, so the client never sends it.
            if head.headerFields[.expect]?.lowercased() == "100-continue",
                head.headerFields[.contentLength].flatMap({ Int($0) }) ?? 0
                    <= maxBodyBytes(head.headerFields[.amzTarget])
            {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let mode: CloseMode?
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closeRequested = head.headerFields[.connection]?.lowercased() == "close"
            mode = nil
        case .body:
            mode = nil
        case .end:
            // The request is answered: what waited for its client to leave has nothing left to wait
            // for, and a keep-alive connection must not collect one action per request.
            clientGoneActions.removeAll()
            let keptAlive = connections.idle(context.channel)
            mode = !keptAlive ? .all : closeRequested ? .output : nil
            closeRequested = false
        }
        guard let mode else {
            context.write(data, promise: promise)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.cascade(to: promise)
        context.write(data, promise: written)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenSuccess { loopBound.value.close(mode: mode, promise: nil) }
    }
}

/// At most `maxConnections` connections; on reaching the limit, the keep-alive connection idle longest
/// is closed to make room (as nginx reuses keep-alive connections), so idle clients cannot lock out
/// new ones; an HTTP client opens a new connection when it finds its idle one closed. A connection
/// that is new or in the middle of a request is never closed: when none is idle, new ones wait.
struct EvictingConnectionLimit: AvailableConnectionsDelegate {
    let maxConnections: Int
    let connections: OpenConnections
    private var open = 0

    init(maxConnections: Int, connections: OpenConnections) {
        self.maxConnections = maxConnections
        self.connections = connections
    }

    mutating func connectionOpened() { open += 1 }
    mutating func connectionClosed() { open -= 1 }

    func isAcceptingNewConnections() -> Bool {
        if open < maxConnections { return true }
        // Its close brings `connectionClosed`, and the waiting client is accepted then.
        connections.closeOldestIdle()
        return false
    }
}
