import AWSSigV4
import Foundation

/// A request read from a text file: the AWS suite's `request.txt` (LF line ends, `Name:value`, folded
/// continuation lines, repeated headers) or a captured `.http` file (CRLF, exactly as sent).
struct RawHTTPRequest {
    var method: String
    var path: String
    var query: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(bytes: [UInt8]) throws {
        let (head, body) = Self.splitHeadAndBody(bytes)
        self.body = body
        // Split bytes, not Characters: Swift treats "\r\n" as one Character, so a String split on "\n"
        // would keep CRLF files in one piece.
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false)
            .map { String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self) }
        while lines.last == "" { lines.removeLast() }
        guard let requestLine = lines.first,
            let firstSpace = requestLine.firstIndex(of: " "),
            let lastSpace = requestLine.lastIndex(of: " "), firstSpace < lastSpace
        else { throw ParseError("bad request line in \(lines.first ?? "<empty>")") }
        // The target may itself contain spaces (the suite's `GET /example space/ HTTP/1.1`).
        method = String(requestLine[..<firstSpace])
        let target = requestLine[requestLine.index(after: firstSpace)..<lastSpace]
        if let question = target.firstIndex(of: "?") {
            path = String(target[..<question])
            query = String(target[target.index(after: question)...])
        } else {
            path = String(target)
            query = ""
        }

        headers = []
        for line in lines.dropFirst() {
            if line.first == " " || line.first == "\t" {
                // An obsolete folded line continues the previous value; the newline stays so the
                // canonicalizer's whitespace collapsing is what turns it into one space.
                guard !headers.isEmpty else { throw ParseError("continuation line before any header") }
                headers[headers.count - 1].value += "\n" + line
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { throw ParseError("header line without ':' \(line)") }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
    }

    init(contentsOf url: URL) throws {
        try self.init(bytes: Array(try Data(contentsOf: url)))
    }

    /// Splits at the first empty line (`\n\n` or `\r\n\r\n`); a file without one has no body.
    private static func splitHeadAndBody(_ bytes: [UInt8]) -> ([UInt8], [UInt8]) {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                    return (Array(bytes[..<index]), Array(bytes[(index + 2)...]))
                }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A {
                    return (Array(bytes[..<index]), Array(bytes[(index + 3)...]))
                }
            }
            index += 1
        }
        return (bytes, [])
    }

    var sigV4Request: SigV4Request {
        SigV4Request(method: method, path: path, query: query, headers: headers, bodySHA256: SHA256Hex.hash(body))
    }

    func values(of name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    func removingHeaders(named name: String) -> RawHTTPRequest {
        var copy = self
        copy.headers.removeAll { $0.name.lowercased() == name.lowercased() }
        return copy
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Where the files this target reads live, found from this source file so tests run from any directory.
enum TestPaths {
    /// The package root. Symlinks are resolved so a build that links `Tests/AWSSigV4Tests` from
    /// elsewhere still finds the real checkout.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // AWSSigV4Tests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The AWS signing test suite, vendored with its licence (see Tests/sigv4-test-suite/README.md).
    static let signingSuite = packageRoot.appendingPathComponent("Tests/sigv4-test-suite/v4")

    static let capturedRequests = packageRoot.appendingPathComponent("sample-data/captured")
}

/// Changes one byte of a header value so it stays a plausible value: the first letter or digit moves on
/// by one (`9` → `0`, `z` → `a`).
func mutatedValue(_ value: String) -> String {
    var bytes = Array(value.utf8)
    guard let index = bytes.firstIndex(where: { $0.isASCIIAlphanumeric }) else { return value + "x" }
    switch bytes[index] {
    case UInt8(ascii: "9"): bytes[index] = UInt8(ascii: "0")
    case UInt8(ascii: "z"): bytes[index] = UInt8(ascii: "a")
    case UInt8(ascii: "Z"): bytes[index] = UInt8(ascii: "A")
    default: bytes[index] += 1
    }
    return String(decoding: bytes, as: UTF8.self)
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}

/// Builds a `Date` from `yyyy-MM-dd'T'HH:mm:ss'Z'` fixture text with `Calendar`, independently of the
/// library's own hand-written date code (and without a date formatter).
func utcDate(_ text: String) -> Date {
    let numbers = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    precondition(numbers.count == 6 && text.hasSuffix("Z"), "bad fixture date \(text)")
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let components = DateComponents(
        year: numbers[0], month: numbers[1], day: numbers[2],
        hour: numbers[3], minute: numbers[4], second: numbers[5]
    )
    return calendar.date(from: components)!
}

/// Decodes the fixtures' snake_case JSON (`access_key_id`) into camelCase properties.
let snakeCaseDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
}()
