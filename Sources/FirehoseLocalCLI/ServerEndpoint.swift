import HTTPTransports

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A running server the script-facing subcommands talk to (`flush`), as given by `--endpoint` or
/// FIREHOSE_LOCAL_ENDPOINT: plain `http://` only (the server has no TLS).
struct ServerEndpoint: Equatable {
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

extension ServerEndpoint {
    /// One request over the client library's HTTP/1.1 transport (no libcurl, no event loop for one
    /// request to loopback), bounded by `timeout` seconds in all so a script can never hang on it,
    /// with its failures in the words a person at a terminal needs.
    func send(method: String, target: String, timeout: Double) async throws(CLIError) -> HTTPResponse {
        guard let address = URL(string: url + target) else {
            throw CLIError(message: "invalid request target '\(target)' for \(url).")
        }
        let request = HTTPRequest(
            url: address, method: method,
            headers: [("User-Agent", "firehose-local-cli"), ("Accept", "application/json")],
            body: [], timeout: .seconds(min(timeout, 1e9)))
        let seconds = timeout == timeout.rounded() ? String(Int(min(timeout, 1e9))) : String(timeout)
        do {
            // No connection kept for later: it closes once the answer is read.
            return try await HTTP1Transport(maxIdleConnectionsPerEndpoint: 0).send(request)
        } catch let failure as TransportFailure {
            switch failure.phase {
            case .resolving:
                throw CLIError(
                    message:
                        "cannot reach firehose-local at \(url): \(failure.reason). Set --endpoint or FIREHOSE_LOCAL_ENDPOINT."
                )
            case .connecting:
                let why = failure.timedOut ? "no connection within \(seconds) s" : failure.reason
                throw CLIError(
                    message: "cannot reach firehose-local at \(url): \(why). Is `firehose-local serve` running there? "
                        + "Set --endpoint or FIREHOSE_LOCAL_ENDPOINT to point elsewhere.")
            case .exchanging:
                let why = failure.timedOut ? "no answer within \(seconds) s" : failure.reason
                throw CLIError(message: "request to firehose-local at \(url) failed: \(why).")
            }
        } catch {
            throw CLIError(message: "request to firehose-local at \(url) failed: \(error).")
        }
    }
}
