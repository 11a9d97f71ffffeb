import ArgumentParser
import FirehoseWire
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A transformation function that costs next to nothing, for the benchmark's Lambda scenarios: it
/// gives every record back unchanged (`Ok`), copying each `recordId` and `data` from the event's text
/// without decoding the base64, so what is measured is firehose-local's side of the contract.
///
///     lambda-identity                       # command mode: the event on stdin, the answer on stdout
///     lambda-identity --port-file FILE      # Invoke API mode: POST /2015-03-31/functions/NAME/invocations
@main
struct LambdaIdentity: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "An identity transformation function, by command or through the Lambda Invoke API.")

    @Option(
        help: "Serve the Lambda Invoke API on 127.0.0.1 (a free port, written to this file) instead of answering stdin."
    )
    var portFile: String?

    func run() throws {
        guard let portFile else {
            var input: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = read(0, &chunk, chunk.count)
                if count <= 0 { break }
                input.append(contentsOf: chunk[..<count])
            }
            let answer = Self.answer(to: input)
            answer.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(1, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            return
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 64)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(InvokeHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        let port = channel.localAddress?.port ?? 0
        let temporary = portFile + ".tmp"
        Self.writeFile(temporary, "\(port)\n")
        rename(temporary, portFile)
        try channel.closeFuture.wait()
    }

    private static func writeFile(_ path: String, _ text: String) {
        guard let file = fopen(path, "w") else { return }
        fputs(text, file)
        fclose(file)
    }

    /// `{"records":[{"recordId":ID,"result":"Ok","data":DATA},…]}` for the event's records, their
    /// `recordId` and `data` copied as the event wrote them.
    static func answer(to event: [UInt8]) -> [UInt8] {
        var output: [UInt8] = Array(#"{"records":["#.utf8)
        output.reserveCapacity(event.count + 64)
        event.withUnsafeBufferPointer { bytes in
            var cursor = StrictJSONCursor(bytes)
            var first = true
            // The event as firehose-local writes it: compact, records last; find each record's members.
            func member(_ name: String, from start: Int) -> Range<Int>? {
                let key = Array("\"\(name)\":".utf8)
                var index = start
                while index + key.count <= bytes.count {
                    if bytes[index] == key[0], Array(bytes[index..<index + key.count]) == key {
                        cursor.position = index + key.count
                        return cursor.string()?.text
                    }
                    index += 1
                }
                return nil
            }
            var position = 0
            while let id = member("recordId", from: position), let data = member("data", from: id.upperBound) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                output += Array(#"{"recordId":"#.utf8)
                output += bytes[id]
                output += Array(#","result":"Ok","data":"#.utf8)
                output += bytes[data]
                output.append(UInt8(ascii: "}"))
                position = data.upperBound
            }
        }
        output += Array("]}".utf8)
        return output
    }
}

/// One Invoke API call per request: the body is the event, the answer the function's.
final class InvokeHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private var body: [UInt8] = []
    private var keepAlive = true

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            body.removeAll(keepingCapacity: true)
            keepAlive = head.isKeepAlive
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            let answer = LambdaIdentity.answer(to: body)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(answer.count))
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil
            )
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer)))), promise: nil)
            let (keepAlive, channel) = (keepAlive, context.channel)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }
}
