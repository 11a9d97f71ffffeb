/// What the verifier (and the canonical request builder) needs of an HTTP request.
///
/// Kept free of any HTTP library so the server, tests and tools can all build one.
public struct SigV4Request: Sendable {
    public var method: String
    /// The path exactly as on the wire (still percent-encoded), without the query.
    public var path: String
    /// The raw query string without `?`; empty when there is none.
    public var query: String
    /// Header names as received (any case); a repeated header appears as separate entries, in order.
    public var headers: [(name: String, value: String)]
    /// Lowercase hex SHA-256 of the body bytes exactly as received (before any `Content-Encoding` is undone).
    public var bodySHA256: String

    public init(
        method: String,
        path: String,
        query: String = "",
        headers: [(name: String, value: String)],
        bodySHA256: String
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.bodySHA256 = bodySHA256
    }

    /// Every value of the header `lowercasedName`, in order. Allocates only when the header is present.
    func values(of lowercasedName: String) -> [String] {
        var found: [String] = []
        for header in headers where ASCII.equalsIgnoringCase(header.name, lowercased: lowercasedName) {
            found.append(header.value)
        }
        return found
    }
}
