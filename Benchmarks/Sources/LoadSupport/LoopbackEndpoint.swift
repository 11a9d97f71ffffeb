/// Refusal of an endpoint that is not on this machine (or not `http://host:port`).
public struct EndpointError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// `http://HOST:PORT` where HOST is a loopback address: this tool must never load another machine.
public struct LoopbackEndpoint: Sendable {
    public var host: String
    public var port: Int
    /// `host:port` as the `Host` header carries it.
    public var hostHeader: String

    public init(_ text: String) throws(EndpointError) {
        guard text.hasPrefix("http://") else { throw EndpointError("--endpoint must start with http://") }
        var rest = text.dropFirst("http://".count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let hostPart: Substring
        let portPart: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw EndpointError("bad IPv6 endpoint") }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            portPart = after.hasPrefix(":") ? after.dropFirst() : nil
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
        } else {
            hostPart = rest
            portPart = nil
        }
        let loopback =
            hostPart == "localhost" || hostPart == "::1"
            || (hostPart.hasPrefix("127.") && hostPart.split(separator: ".").count == 4
                && hostPart.split(separator: ".").allSatisfy { UInt8($0) != nil })
        guard loopback else { throw EndpointError("--endpoint must be a loopback address, got \(hostPart)") }
        guard let port = Int(portPart ?? "80"), (1...65_535).contains(port) else {
            throw EndpointError("bad port in --endpoint")
        }
        self.host = String(hostPart)
        self.port = port
        self.hostHeader = (hostPart.contains(":") ? "[\(hostPart)]" : String(hostPart)) + (port == 80 ? "" : ":\(port)")
    }
}
