public import Foundation
import HTTPTransports
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP server on 127.0.0.1, one connection at a time on a thread of its own, that answers each
/// request (read up to its Content-Length) with what `answer` says for its number.
public final class ScriptedHTTPServer: Sendable {
    public enum Answer: Sendable {
        /// These bytes, then keep the connection (or close it).
        case bytes(String, close: Bool)
        /// Read the request and say nothing until the client goes away.
        case silence
        /// Read the request, then close the connection without a word.
        case hangUp
        /// Read only the request's head, then close the connection (the unread body makes it a reset).
        case hangUpAfterHead
    }

    public struct Received: Sendable {
        public var head: String
        public var body: [UInt8]
    }

    private struct State {
        var accepted = 0
        var closed = 0
        var received: [Received] = []
        var stopped = false
    }

    /// In a class of its own so the server's thread can hold it.
    private final class Storage: Sendable {
        let state = Mutex(State())
    }

    public let port: Int
    private let listener: Int32
    private let storage = Storage()

    /// - Parameter resetOnAccept: reset every connection as soon as it is accepted, reading nothing.
    public init(resetOnAccept: Bool = false, answer: @escaping @Sendable (Int) -> Answer) throws {
        // Closed on exec, as are the connections: a command another suite spawns meanwhile (a Lambda
        // function's) would otherwise hold a connection open after `close`, and a client reading its
        // body until the close waits for that command to exit.
        #if canImport(Darwin)
            let listener = socket(AF_INET, SOCK_STREAM, 0)
            _ = fcntl(listener, F_SETFD, FD_CLOEXEC)
        #else
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        var on: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw TransportFailure("cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let storage = self.storage
        Thread {
            var number = 0
            while true {
                // The thread closes the listener itself: closed in `stop()`, its descriptor number could
                // be reused (by the next test's listener) while this thread still calls accept on it.
                let connection = accept(listener, nil, nil)
                if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
                if connection < 0 {
                    _ = close(listener)
                    return
                }
                if storage.state.withLock({ $0.stopped }) {
                    _ = close(connection)
                    _ = close(listener)
                    return
                }
                storage.state.withLock { $0.accepted += 1 }
                if resetOnAccept {
                    // After a pause, so the client's connect has completed before the reset arrives.
                    Thread.sleep(forTimeInterval: 0.2)
                    var linger = linger(l_onoff: 1, l_linger: 0)
                    _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                    _ = close(connection)
                    continue
                }
                var buffer: [UInt8] = []
                serving: while let head = Self.readHead(connection, &buffer) {
                    let answer = answer(number)
                    number += 1
                    if case .hangUpAfterHead = answer {
                        storage.state.withLock { $0.received.append(Received(head: head, body: [])) }
                        break serving
                    }
                    guard let body = Self.readBody(of: head, connection, &buffer) else { break serving }
                    storage.state.withLock { $0.received.append(Received(head: head, body: body)) }
                    switch answer {
                    case .bytes(let text, let closeAfter):
                        Self.writeAll(connection, Array(text.utf8))
                        if closeAfter { break serving }
                    case .silence:
                        var byte: UInt8 = 0
                        while recv(connection, &byte, 1, 0) > 0 {}
                        break serving
                    case .hangUp, .hangUpAfterHead:
                        break serving
                    }
                }
                _ = close(connection)
                storage.state.withLock { $0.closed += 1 }
            }
        }.start()
    }

    /// Wakes the server's thread out of accept; the thread closes the listener. A connection attempt
    /// is refused from the moment this returns: the socket no longer listens.
    public func stop() {
        storage.state.withLock { $0.stopped = true }
        _ = shutdown(listener, Int32(SHUT_RDWR))
    }

    public var accepted: Int { storage.state.withLock { $0.accepted } }
    /// Connections the server has closed after serving them.
    public var closed: Int { storage.state.withLock { $0.closed } }
    public var received: [Received] { storage.state.withLock { $0.received } }
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    private static func fill(_ connection: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(connection, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private static func readHead(_ connection: Int32, _ buffer: inout [UInt8]) -> String? {
        var end: Int?
        while end == nil {
            end = buffer.indices.dropLast(3).first {
                buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
            }
            if end == nil, !fill(connection, &buffer) { return nil }
        }
        let head = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        return head
    }

    /// The body the head announces with its Content-Length.
    private static func readBody(of head: String, _ connection: Int32, _ buffer: inout [UInt8]) -> [UInt8]? {
        let length =
            head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count < length { if !fill(connection, &buffer) { return nil } }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return body
    }

    private static func writeAll(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            offset += count
        }
    }
}
