// Foundation (Dispatch, trimming), never FoundationNetworking: no libcurl in what links this.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// HTTP/1.1 over plain TCP (`http://` only, no TLS, no proxies) with keep-alive connections: the
/// transport for `firehose-local` on this machine.
///
/// Each request runs on its connection's own thread with non-blocking I/O bounded by the request's
/// timeout, and costs a few system calls. On Linux, FoundationNetworking's URLSession drives libcurl
/// through libdispatch sources and spends more CPU per request re-arming them than the rest of a
/// 500-record PutRecordBatch costs (see docs/recorder.md); `DefaultTransport` uses this one for
/// loopback `http://` endpoints there.
///
/// A POST is not idempotent, so a request is sent again only when it provably never left: a pooled
/// connection found closed when it is taken is replaced before anything is written, and a request
/// whose very first `send` on a reused connection fails (no byte of it accepted by the kernel) goes
/// once more on a new connection. Once any byte of a request was written, a failure is thrown (a
/// network failure to the client): the server may have read and stored it, and only the caller (the
/// recorder keeps such a batch as possibly stored) can decide what to do.
public final class HTTP1Transport: HTTPTransport, Sendable {
    private let idle = Mutex<[Endpoint: [Connection]]>([:])
    private let maxIdleConnectionsPerEndpoint: Int

    /// - Parameter maxIdleConnectionsPerEndpoint: connections kept open between requests to one
    ///   host and port; more may be open while requests run.
    public init(maxIdleConnectionsPerEndpoint: Int = 8) {
        self.maxIdleConnectionsPerEndpoint = max(0, maxIdleConnectionsPerEndpoint)
    }

    deinit {
        for connection in idle.withLock({ $0.values.flatMap { $0 } }) { connection.close() }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let endpoint = try Endpoint(request.url)
        let head = try Self.head(of: request, endpoint: endpoint)
        let exchange = Exchange(
            deadline: ContinuousClock.now + request.timeout, maxBody: request.maxResponseBytes ?? Connection.maxBody)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let reused = checkOut(endpoint)
                let connection = reused ?? Connection(endpoint: endpoint)
                connection.queue.async {
                    continuation.resume(
                        with: Result {
                            try self.run(
                                head: head, body: request.body, on: connection, reused: reused != nil,
                                exchange: exchange)
                        })
                }
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    // MARK: Exchange (on the connection's thread)

    private func run(head: [UInt8], body: [UInt8], on first: Connection, reused: Bool, exchange: Exchange)
        throws -> HTTPResponse
    {
        var connection = first
        var reused = reused
        while true {
            do {
                let response = try attempt(head: head, body: body, on: connection, exchange: exchange)
                // After release no cancellation can shut the descriptor down: it may be reused or closed.
                if exchange.release(), response.keepAlive {
                    checkIn(connection)
                } else {
                    connection.close()
                }
                return response.response
            } catch {
                let intact = exchange.release()
                connection.close()
                guard intact else { throw CancellationError() }
                if reused, let failure = error as? TransportFailure, failure.requestUnsent {
                    connection = Connection(endpoint: connection.endpoint)
                    reused = false
                    continue
                }
                throw error
            }
        }
    }

    private func attempt(head: [UInt8], body: [UInt8], on connection: Connection, exchange: Exchange) throws
        -> ParsedResponse
    {
        if !connection.isOpen { try connection.connect(deadline: exchange.deadline) }
        guard exchange.use(connection.descriptor) else { throw CancellationError() }
        try connection.write(head, deadline: exchange.deadline, startsRequest: true)
        try connection.write(body, deadline: exchange.deadline, startsRequest: false)
        return try connection.readResponse(deadline: exchange.deadline, maxBody: exchange.maxBody)
    }

    // MARK: Pool

    private func checkOut(_ endpoint: Endpoint) -> Connection? {
        while let connection = idle.withLock({ $0[endpoint]?.popLast() }) {
            if connection.isReusable { return connection }
            connection.close()
        }
        return nil
    }

    private func checkIn(_ connection: Connection) {
        let kept = idle.withLock { idle -> Bool in
            guard idle[connection.endpoint, default: []].count < maxIdleConnectionsPerEndpoint else { return false }
            idle[connection.endpoint, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    // MARK: Request head

    static func head(of request: HTTPRequest, endpoint: Endpoint) throws -> [UInt8] {
        var target = request.url.path.isEmpty ? "/" : request.url.path
        if let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        }
        if let query = request.url.query, !query.isEmpty { target += "?" + query }
        var text = "\(request.method) \(target) HTTP/1.1\r\n"
        var hasHost = false
        for header in request.headers {
            let name = header.name.lowercased()
            if name == "content-length" || name == "transfer-encoding" || name == "connection" { continue }
            if name == "host" { hasHost = true }
            // A line break in a header would let it write headers of its own.
            guard !header.name.contains(where: \.isNewline), !header.value.contains(where: \.isNewline) else {
                throw TransportFailure("header \(header.name) contains a line break")
            }
            text += "\(header.name): \(header.value)\r\n"
        }
        if !hasHost { text += "Host: \(endpoint.hostHeader)\r\n" }
        text += "Content-Length: \(request.body.count)\r\n\r\n"
        return Array(text.utf8)
    }
}

// MARK: - Pieces

/// Why an exchange failed, with what a caller needs to say so in its own words.
package struct TransportFailure: Error, CustomStringConvertible {
    package var description: String
    /// No byte of the request left this machine: the connection could not be made, or the first
    /// `send` of the request failed, which means the kernel accepted none of it.
    package var requestUnsent = false
    /// Where the exchange was when it failed.
    package enum Phase: Sendable {
        /// Looking up the host's addresses: no connection was tried.
        case resolving
        /// Connecting to one of its addresses: no server was reached.
        case connecting
        /// Sending the request or reading the answer.
        case exchanging
    }

    package var phase = Phase.exchanging
    /// The request's deadline passed.
    package var timedOut = false
    /// The answer was larger than a transport reads (`maxBody`).
    package var answerTooLarge = false
    /// The cause without the operation: "Connection refused", "timed out", ...
    package var reason: String

    package init(_ description: String, requestUnsent: Bool = false, reason: String? = nil) {
        self.description = description
        self.requestUnsent = requestUnsent
        self.reason = reason ?? description
    }

    package static func tooLarge(_ description: String) -> TransportFailure {
        var failure = TransportFailure(description)
        failure.answerTooLarge = true
        return failure
    }

    static func system(_ operation: String, requestUnsent: Bool = false) -> TransportFailure {
        let code = errno
        let cause = String(cString: strerror(code))
        return TransportFailure("\(operation): \(cause) (errno \(code))", requestUnsent: requestUnsent, reason: cause)
    }
}

struct Endpoint: Hashable, Sendable {
    var host: String
    var port: Int

    init(_ url: URL) throws {
        guard url.scheme?.lowercased() == "http" else {
            throw TransportFailure("HTTP1Transport speaks plain http only, not \(url.scheme ?? "no scheme")")
        }
        guard let host = url.host, !host.isEmpty else { throw TransportFailure("no host in \(url.absoluteString)") }
        self.host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        port = url.port ?? 80
    }

    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }
}

/// One request's claim on a connection, and the cancellation that may reach it from another thread.
final class Exchange: Sendable {
    let deadline: ContinuousClock.Instant
    /// The largest answer body read.
    let maxBody: Int
    private struct State {
        var cancelled = false
        var descriptor: Int32?
    }
    private let state = Mutex(State())

    init(deadline: ContinuousClock.Instant, maxBody: Int) {
        self.deadline = deadline
        self.maxBody = maxBody
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The exchange is about to use `descriptor`; false if it was cancelled already.
    func use(_ descriptor: Int32) -> Bool {
        state.withLock { state in
            state.descriptor = descriptor
            return !state.cancelled
        }
    }

    /// Done with the descriptor; true unless a cancellation may have shut it down.
    func release() -> Bool {
        state.withLock { state in
            state.descriptor = nil
            return !state.cancelled
        }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            // Wakes the connection's thread out of poll; the connection is then closed, not reused.
            if let descriptor = state.descriptor { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }
}

struct ParsedResponse {
    var response: HTTPResponse
    var keepAlive: Bool
}

/// A TCP connection and the serial queue its requests run on (one at a time: HTTP/1.1 without
/// pipelining). Used by one exchange at a time, handed over through the pool's lock.
final class Connection: @unchecked Sendable {
    let endpoint: Endpoint
    let queue: DispatchQueue
    private(set) var descriptor: Int32 = -1
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(endpoint: Endpoint) {
        self.endpoint = endpoint
        queue = DispatchQueue(label: "HTTP1Transport.\(endpoint.host):\(endpoint.port)")
    }

    deinit { close() }

    var isOpen: Bool { descriptor >= 0 }

    /// Open and quiet: a connection with something to read between requests is being closed by the
    /// server (or is out of step) and must not carry another request.
    var isReusable: Bool {
        guard descriptor >= 0, buffer.isEmpty else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    func close() {
        if descriptor >= 0 {
            _ = systemClose(descriptor)
            descriptor = -1
        }
        buffer.removeAll()
    }

    // MARK: Connect

    func connect(deadline: ContinuousClock.Instant) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let list else {
            let cause = "cannot resolve \(endpoint.host) (\(String(cString: gai_strerror(status))))"
            var failure = TransportFailure(cause)
            failure.phase = .resolving
            throw failure
        }
        defer { freeaddrinfo(list) }
        var failure = TransportFailure("no address for \(endpoint.host)")
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let info = next {
            next = info.pointee.ai_next
            do {
                try connect(info.pointee, deadline: deadline)
                return
            } catch let error as TransportFailure {
                failure = error
            }
        }
        failure.phase = .connecting
        throw failure
    }

    private func connect(_ info: addrinfo, deadline: ContinuousClock.Instant) throws {
        // Closed on exec from the start: set afterwards, a command another thread spawns in between
        // would keep the connection open (no FIN when it is closed here).
        #if canImport(Darwin)
            let socket = systemSocket(info.ai_family, info.ai_socktype, info.ai_protocol)
            if socket >= 0 { _ = fcntl(socket, F_SETFD, FD_CLOEXEC) }
        #else
            let socket = systemSocket(
                info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
        #endif
        guard socket >= 0 else { throw TransportFailure.system("socket") }
        var done = false
        defer { if !done { _ = systemClose(socket) } }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var on: Int32 = 1
        // Requests are written as head then body: without this the body waits for the head's ACK.
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        if systemConnect(socket, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                throw TransportFailure.system("connect to \(endpoint.host):\(endpoint.port)", requestUnsent: true)
            }
            try wait(socket, for: Int16(POLLOUT), deadline: deadline)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 {
                errno = error
                throw TransportFailure.system("connect to \(endpoint.host):\(endpoint.port)", requestUnsent: true)
            }
        }
        descriptor = socket
        done = true
    }

    // MARK: I/O

    /// Writes all of `bytes`. `startsRequest` says these are a request's first bytes: a failure before
    /// any of them was accepted is then marked `requestUnsent`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant, startsRequest: Bool) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = systemSend(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count > 0 {
                    offset += count
                } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    try wait(descriptor, for: Int16(POLLOUT), deadline: deadline)
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    throw TransportFailure.system("send", requestUnsent: startsRequest && offset == 0)
                }
            }
        }
    }

    /// Reads more bytes into `buffer`; false at end of stream.
    private func fill(deadline: ContinuousClock.Instant) throws -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRecv(descriptor, $0.baseAddress!, $0.count) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            switch errno {
            case EAGAIN, EWOULDBLOCK: try wait(descriptor, for: Int16(POLLIN), deadline: deadline)
            case EINTR: continue
            default: throw TransportFailure.system("recv")
            }
        }
    }

    private func wait(_ socket: Int32, for events: Int16, deadline: ContinuousClock.Instant) throws {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                var failure = TransportFailure("timed out")
                failure.timedOut = true
                throw failure
            }
            let milliseconds = left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000
            var entry = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(clamping: max(1, milliseconds)))
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw TransportFailure.system("poll") }
        }
    }

    func readResponse(deadline: ContinuousClock.Instant, maxBody: Int) throws -> ParsedResponse {
        while true {
            let headEnd = try readHead(deadline: deadline)
            let head = try Self.parseHead(buffer[0..<headEnd])
            buffer.removeFirst(headEnd + 4)
            // 1xx answers precede the real one.
            if (100..<200).contains(head.status) && head.status != 101 { continue }
            var keepAlive = head.keepAlive
            let body: [UInt8]
            if head.chunked {
                body = try readChunked(deadline: deadline, maxBody: maxBody)
            } else if let length = head.contentLength {
                guard length <= maxBody else {
                    throw TransportFailure.tooLarge("answer of \(length) bytes is too large")
                }
                while buffer.count < length {
                    guard try fill(deadline: deadline) else {
                        throw TransportFailure("connection closed inside the answer")
                    }
                }
                body = Array(buffer[0..<length])
                buffer.removeFirst(length)
            } else if head.status == 204 || head.status == 304 {
                body = []
            } else {
                // Delimited by the end of the connection.
                while try fill(deadline: deadline) {
                    guard buffer.count <= maxBody else { throw TransportFailure.tooLarge("answer is too large") }
                }
                body = buffer
                buffer.removeAll()
                keepAlive = false
            }
            // Bytes past the answer: the connection is out of step.
            if !buffer.isEmpty { keepAlive = false }
            return ParsedResponse(
                response: HTTPResponse(status: head.status, headers: head.headers, body: body), keepAlive: keepAlive)
        }
    }

    static let maxBody = 64 << 20
    static let maxHead = 64 * 1024

    /// Index of the `\r\n\r\n` that ends the head in `buffer`, reading as needed.
    private func readHead(deadline: ContinuousClock.Instant) throws -> Int {
        var searched = 0
        while true {
            if buffer.count >= 4 {
                var index = max(0, searched - 3)
                while index + 3 < buffer.count {
                    if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                        return index
                    }
                    index += 1
                }
                searched = buffer.count
            }
            guard buffer.count <= Self.maxHead else { throw TransportFailure("answer head over 64 KiB") }
            guard try fill(deadline: deadline) else {
                throw TransportFailure("connection closed before an answer")
            }
        }
    }

    struct Head {
        var status: Int
        var headers: [(name: String, value: String)]
        var contentLength: Int?
        var chunked: Bool
        var keepAlive: Bool
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> Head {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status)
        else {
            throw TransportFailure("not an HTTP/1.x answer: \(statusLine.prefix(80))")
        }
        var head = Head(
            status: status, headers: [], contentLength: nil, chunked: false, keepAlive: parts[0] != "HTTP/1.0")
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw TransportFailure("bad header line in answer") }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            head.headers.append((name, value))
            switch name.lowercased() {
            case "content-length":
                guard let length = Int(value), length >= 0 else { throw TransportFailure("bad Content-Length") }
                head.contentLength = length
            case "transfer-encoding":
                head.chunked = value.lowercased().contains("chunked")
            case "connection":
                let tokens = value.lowercased()
                if tokens.contains("close") { head.keepAlive = false }
                if tokens.contains("keep-alive") { head.keepAlive = true }
            default:
                break
            }
        }
        return head
    }

    private func readChunked(deadline: ContinuousClock.Instant, maxBody: Int) throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try readLine(deadline: deadline)
            let sizeText =
                String(decoding: buffer[0..<lineEnd], as: UTF8.self)
                .split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw TransportFailure("bad chunk size in answer")
            }
            buffer.removeFirst(lineEnd + 2)
            if size == 0 {
                // Trailers, up to the empty line.
                while true {
                    let end = try readLine(deadline: deadline)
                    buffer.removeFirst(end + 2)
                    if end == 0 { return body }
                }
            }
            guard body.count + size <= maxBody else { throw TransportFailure.tooLarge("answer is too large") }
            while buffer.count < size + 2 {
                guard try fill(deadline: deadline) else {
                    throw TransportFailure("connection closed inside the answer")
                }
            }
            body += buffer[0..<size]
            buffer.removeFirst(size + 2)
        }
    }

    private func readLine(deadline: ContinuousClock.Instant) throws -> Int {
        while true {
            if let index = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                return index
            }
            guard buffer.count <= Self.maxHead else { throw TransportFailure("chunk line over 64 KiB") }
            guard try fill(deadline: deadline) else {
                throw TransportFailure("connection closed inside the answer")
            }
        }
    }
}

// The C calls under names of their own: `close`, `connect`, `send` and `socket` are also members here.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemSocket(_ family: Int32, _ type: Int32, _ proto: Int32) -> Int32 { socket(family, type, proto) }
private func systemConnect(_ socket: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    connect(socket, address, length)
}
private func systemSend(_ socket: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        return send(socket, bytes, count, 0)
    #else
        return send(socket, bytes, count, Int32(MSG_NOSIGNAL))
    #endif
}
private func systemRecv(_ socket: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    recv(socket, bytes, count, 0)
}
