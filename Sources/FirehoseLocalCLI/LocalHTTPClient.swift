#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny blocking HTTP/1.1 client over POSIX sockets for the subcommands that talk to a running
/// server (`flush`). Why not URLSession: on Linux it lives in FoundationNetworking, which pulls in
/// libcurl at run time for one local request; why not NIO/AsyncHTTPClient: an event loop group for a
/// single `POST` to loopback is all cost and no benefit. One request per connection
/// (`Connection: close`), plain `http://` only (the server has no TLS), bounded by a timeout at every
/// step so a script can never hang on it.
struct LocalHTTPClient {
    struct Endpoint: Equatable {
        var host: String
        var port: Int

        /// The form shown in messages, `http://host:port`.
        var url: String { host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)" }

        static let defaultURL = "http://127.0.0.1:4573"

        /// Parses `http://host[:port][/]`; the port defaults to 80 as in any URL.
        init(parsing text: String) throws(CLIError) {
            func invalid(_ why: String) -> CLIError {
                CLIError(message: "invalid endpoint '\(text)': \(why) (expected e.g. \(Self.defaultURL)).", exitCode: 2)
            }
            var rest = Substring(text)
            if rest.lowercased().hasPrefix("https://") {
                throw invalid("firehose-local serves plain http, not https")
            }
            guard rest.lowercased().hasPrefix("http://") else { throw invalid("it must start with http://") }
            rest = rest.dropFirst("http://".count)
            if let slash = rest.firstIndex(of: "/") {
                guard rest[slash...].allSatisfy({ $0 == "/" }) else {
                    throw invalid("give the server's root URL, without a path")
                }
                rest = rest[..<slash]
            }
            var host: Substring
            var portText: Substring?
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { throw invalid("unclosed [ in the IPv6 address") }
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { throw invalid("unexpected text after the address") }
                    portText = after.dropFirst()
                }
            } else if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
            }
            guard !host.isEmpty else { throw invalid("the host is missing") }
            self.host = String(host)
            if let portText {
                guard let port = Int(portText), (1...65535).contains(port) else {
                    throw invalid("the port must be a number from 1 to 65535")
                }
                self.port = port
            } else {
                self.port = 80
            }
        }
    }

    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    var endpoint: Endpoint
    /// Seconds allowed for connecting, and then for each read or write to make progress.
    var timeout: Double

    func send(method: String, target: String, body: [UInt8] = []) throws(CLIError) -> Response {
        let fd = try connect()
        defer { _ = close(fd) }
        let hostHeader =
            endpoint.host.contains(":") ? "[\(endpoint.host)]:\(endpoint.port)" : "\(endpoint.host):\(endpoint.port)"
        let head =
            "\(method) \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: firehose-local-cli\r\n"
            + "Accept: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try sendAll(fd, Array(head.utf8) + body)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw failure("no answer within \(Self.seconds(timeout)) s")
                }
                // A reset after a complete answer (the server closing first) is not a failure.
                if let response = try? Self.parse(received) { return response }
                throw failure(String(cString: strerror(errno)))
            }
            received += chunk[..<count]
        }
        do {
            return try Self.parse(received)
        } catch {
            throw failure("the answer is not valid HTTP (\(error.message))")
        }
    }

    private func failure(_ why: String) -> CLIError {
        CLIError(message: "request to firehose-local at \(endpoint.url) failed: \(why).")
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    // MARK: Sockets

    private func connect() throws(CLIError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            throw CLIError(
                message:
                    "cannot reach firehose-local at \(endpoint.url): cannot resolve \(endpoint.host) (\(String(cString: gai_strerror(status)))). Set --endpoint or FIREHOSE_LOCAL_ENDPOINT."
            )
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var current: UnsafeMutablePointer<addrinfo>? = first
        while let info = current {
            current = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 {
                lastError = String(cString: strerror(errno))
                continue
            }
            if let problem = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) {
                lastError = problem
                _ = close(fd)
                continue
            }
            return fd
        }
        throw CLIError(
            message:
                "cannot reach firehose-local at \(endpoint.url): \(lastError). Is `firehose-local serve` running there? Set --endpoint or FIREHOSE_LOCAL_ENDPOINT to point elsewhere."
        )
    }

    /// Connects with a deadline (non-blocking connect and poll), then switches to blocking I/O with
    /// send and receive timeouts. Returns a reason on failure.
    private func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> String? {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        #if canImport(Glibc)
            let result = Glibc.connect(fd, address, length)
        #else
            let result = Darwin.connect(fd, address, length)
        #endif
        if result != 0 {
            guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(timeout * 1000, Double(Int32.max))))
            if ready == 0 { return "no connection within \(Self.seconds(timeout)) s" }
            if ready < 0 { return String(cString: strerror(errno)) }
            var socketError: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &size)
            if socketError != 0 { return String(cString: strerror(socketError)) }
        }
        _ = fcntl(fd, F_SETFL, flags)
        let whole = Int(timeout)
        var interval = timeval()
        interval.tv_sec = .init(whole)
        interval.tv_usec = .init(Int((timeout - Double(whole)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return nil
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(CLIError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(fd, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw failure(String(cString: strerror(errno)))
            }
            offset += sent
        }
    }

    // MARK: Parsing

    /// Parses a complete HTTP/1.1 response read to the end of the connection: status line, headers,
    /// and a body framed by Content-Length, chunked encoding, or the end of the connection.
    static func parse(_ bytes: [UInt8]) throws(CLIError) -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = bytes.firstRange(of: separator) else {
            throw CLIError(message: bytes.isEmpty ? "empty answer" : "incomplete header")
        }
        let lines = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self).split(
            separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw CLIError(message: "bad status line '\(lines[0])'")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw CLIError(message: "bad header line '\(line)'") }
            headers.append(
                (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        let rest = Array(bytes[headEnd.upperBound...])
        if response.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            response.body = try decodeChunked(rest)
        } else if let lengthText = response.header("content-length") {
            guard let length = Int(lengthText), length >= 0, length <= rest.count else {
                throw CLIError(message: "body shorter than its Content-Length")
            }
            response.body = Array(rest[..<length])
        } else {
            response.body = rest
        }
        return response
    }

    static func decodeChunked(_ bytes: [UInt8]) throws(CLIError) -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else {
                throw CLIError(message: "truncated chunk size")
            }
            let sizeText =
                String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self)
                .split(separator: ";").first.map(String.init)?.trimmingSpaces ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else {
                throw CLIError(message: "bad chunk size '\(sizeText)'")
            }
            index = lineEnd.upperBound
            if size == 0 { return body }
            guard bytes.count - index >= size + 2 else { throw CLIError(message: "truncated chunk") }
            body += bytes[index..<(index + size)]
            index += size + 2
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var view = Substring(self)
        while view.first == " " || view.first == "\t" { view = view.dropFirst() }
        while view.last == " " || view.last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
