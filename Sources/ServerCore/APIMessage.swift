/// An HTTP request as the API core sees it: independent of the HTTP server, so the whole request path
/// (auth, dispatch, errors) is tested without sockets.
public struct APIRequest: Sendable {
    public var method: String
    /// Raw path as on the wire, without the query.
    public var path: String
    /// Raw query string without `?`.
    public var query: String
    /// Header fields in arrival order, names as received. Includes `host`.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Charges memory the request is about to hold beyond its body (a gzip body's decoded bytes) to
    /// the server's request-memory budget; false means the budget is spent and the request is shed.
    /// The HTTP layer returns the charge when the request is answered.
    public var reserveMemory: @Sendable (_ bytes: Int) -> Bool = { _ in true }
    /// Whether the client is on this machine (a loopback address): `/_local` answers only such
    /// clients unless it is configured open.
    public var fromLoopback = true
    /// Calls its argument once the client has closed the connection (at once if it already has); a
    /// hanging fault waits for that. Without a connection (in tests), never.
    package var onClientGone: @Sendable (_ action: @escaping @Sendable () -> Void) -> Void = { _ in }

    public init(
        method: String, path: String, query: String = "", headers: [(name: String, value: String)], body: [UInt8]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Splits a request target (`/path?query`) into its parts.
    public init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8]) {
        if let mark = target.firstIndex(of: "?") {
            self.init(
                method: method, path: String(target[..<mark]), query: String(target[target.index(after: mark)...]),
                headers: headers, body: body)
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Value of a query parameter (percent-decoded), if present.
    public func queryParameter(_ name: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first.map(String.init)?.percentDecoded == name {
                return parts.count > 1 ? String(parts[1]).percentDecoded : ""
            }
        }
        return nil
    }
}

public struct APIResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// A body read from an open object as it is sent, instead of `body` (an S3 GetObject).
    package var streamedBody: StreamedBody?
    /// No answer at all: the HTTP layer resets the connection instead (a fault rule's doing).
    package var resetsConnection = false
    /// A body written as it is made, of no length known beforehand (Server-Sent Events), instead
    /// of `body`.
    package var writesBody: (@Sendable (inout any StreamingBodyWriter) async throws -> Void)?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it (HTTP's optional whitespace).
    package var trimmingASCIISpaces: String {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

extension String {
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Header names are native strings: compare their bytes in place (several lookups per request).
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                zip(a, b).allSatisfy(Self.sameIgnoringASCIICase)
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        return zip(utf8, other.utf8).allSatisfy(Self.sameIgnoringASCIICase)
    }

    private static func sameIgnoringASCIICase(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20))
    }

    /// `%XX` and `+` decoding for query values; invalid escapes are kept as written.
    package var percentDecoded: String {
        String(decoding: percentDecodedBytes(plusIsSpace: true), as: UTF8.self)
    }

    /// `%XX` decoded, and `+` as a space where `plusIsSpace` (in a query, not in a path); invalid
    /// escapes are kept as written.
    package func percentDecodedBytes(plusIsSpace: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if plusIsSpace, byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }
}
