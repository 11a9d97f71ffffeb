import ServerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What keeps web pages out of `/_local`. A browser on the developer's machine is a loopback client,
/// so the loopback check alone lets any page it shows drive the emulator: a cross-site
/// `POST /_local/faults` with `Content-Type: text/plain` is sent without a preflight, and a page whose
/// name is rebound to 127.0.0.1 (DNS rebinding) reads `/_local/object` as its own origin. A request is
/// refused when
/// - its `Host` is a name that is not this server's: only IP literals, `localhost` (and names under
///   `.localhost`), the machine's host name and the names the server was told of are its names, so a
///   rebound name is foreign (unless `/_local` is open to other hosts, where the names clients use
///   cannot be known);
/// - it changes state (any method but GET, HEAD and OPTIONS) and comes from another origin: an
///   `Origin` that is not `Host`'s own (unless `Sec-Fetch-Site` says same-origin), or, without
///   `Origin`, `Sec-Fetch-Site` other than same-origin or none; SDKs, curl and scripts send neither,
///   and the live view's own requests are same-origin;
/// - its body is JSON and its `Content-Type` does not say so: a browser cannot send
///   `application/json` across origins without a preflight, which is never granted.
struct LocalRequestGuard: Sendable {
    enum Refusal: Equatable, Sendable {
        case foreignHost(String)
        case crossOrigin(String)
        case notJSON(String?)
    }

    /// Lowercased host names of this server besides IP literals and `localhost`.
    let names: Set<String>
    /// Whether any `Host` is accepted (`--local-endpoints open`).
    let anyHost: Bool

    init(names: some Sequence<String>, anyHost: Bool) {
        self.names = Set(names.map { Self.normalized($0) }.filter { !$0.isEmpty })
        self.anyHost = anyHost
    }

    /// The guard of a server with these names, and the machine's host name.
    static func forServer(names: [String], anyHost: Bool) -> LocalRequestGuard {
        LocalRequestGuard(names: names + [machineHostName()].compactMap { $0 }, anyHost: anyHost)
    }

    /// Why `request` must not be served, or nil.
    /// - Parameter jsonBody: whether the endpoint reads its body as JSON.
    func refusal(of request: APIRequest, jsonBody: Bool) -> Refusal? {
        let host = request.header("host")
        if !anyHost, let host, !isServerName(host) { return .foreignHost(host) }
        if !["GET", "HEAD", "OPTIONS"].contains(request.method) {
            // A browser's own word that the page is this origin's wins over an Origin a proxy's
            // rewritten Host no longer matches (or `null` under a strict referrer policy).
            let site = request.header("sec-fetch-site")?.lowercased()
            if let origin = request.header("origin"), site != "same-origin" {
                guard Self.isSameOrigin(origin, host: host) else { return .crossOrigin(origin) }
            } else if let site, site != "same-origin", site != "none" {
                return .crossOrigin("Sec-Fetch-Site: \(site)")
            }
        }
        if jsonBody {
            let type = request.header("content-type")
            guard let type, Self.isJSON(type) else { return .notJSON(type) }
        }
        return nil
    }

    /// Whether a `Host` value (`name[:port]`, `[v6]:port`) names this server.
    func isServerName(_ host: String) -> Bool {
        let name = Self.normalized(host)
        if name.hasPrefix("[") { return name.hasSuffix("]") }  // an IPv6 literal
        if Self.isIPv4Literal(name) || name == "localhost" || name.hasSuffix(".localhost") { return true }
        return names.contains(name)
    }

    /// The name part of `name[:port]`, lowercased, without a final dot; `[v6]` keeps its brackets.
    static func normalized(_ host: String) -> String {
        var text = Substring(host.lowercased())
        if text.hasPrefix("[") {
            if let close = text.firstIndex(of: "]") { text = text[...close] }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            text = text[..<colon]
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        return String(text)
    }

    static func isIPv4Literal(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && Int(part)! <= 255
            }
    }

    /// Whether `origin` (`scheme://authority`, or `null`) is the origin of a page served from `host`.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host else { return false }
        let lowered = origin.lowercased()
        for scheme in ["http://", "https://"] where lowered.hasPrefix(scheme) {
            let authority = lowered.dropFirst(scheme.count)
            return authority == host.lowercased()
                // A browser leaves out the default port, which a Host header may carry.
                || authority + (scheme == "http://" ? ":80" : ":443") == host.lowercased()
        }
        return false
    }

    /// `application/json` or a `+json` type, with or without parameters.
    static func isJSON(_ contentType: String) -> Bool {
        let media = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingASCIISpaces.lowercased() }
        guard let media else { return false }
        return media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    }

    static func machineHostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
