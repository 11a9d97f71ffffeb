import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Ends the connection after a response that says `Connection: close`, as RFC 9112 §9.6 requires of
/// the server that sends it (Hummingbird closes only when the request asked to).
///
/// Only the sending side is shut: the client gets the whole response and a FIN, while what it still
/// sends is read and dropped until it closes or the idle timeout ends the connection. Closing both
/// sides with unread input would send a reset that can destroy the response before the client reads it.
final class CloseAfterResponse: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closeAfterEnd = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closeAfterEnd = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closeAfterEnd else {
                context.write(data, promise: promise)
                return
            }
            closeAfterEnd = false
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.write(data, promise: written)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenSuccess {
                loopBound.value.close(mode: .output, promise: nil)
            }
        }
    }
}
