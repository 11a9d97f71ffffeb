/// S3's XML answers: a handful of fixed shapes, written straight into bytes.
struct S3XML {
    static let namespace = "http://s3.amazonaws.com/doc/2006-03-01/"
    static let contentType = "application/xml"

    private(set) var bytes: [UInt8]
    private let root: String

    /// Opens the document with its root element, in S3's namespace unless `namespaced` is false
    /// (S3's `Error` documents have none).
    init(root: String, namespaced: Bool = true) {
        self.root = root
        bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<\(root)".utf8)
        if namespaced { bytes += Array(" xmlns=\"\(Self.namespace)\"".utf8) }
        bytes.append(UInt8(ascii: ">"))
    }

    mutating func open(_ name: String) {
        bytes.append(UInt8(ascii: "<"))
        bytes += name.utf8
        bytes.append(UInt8(ascii: ">"))
    }

    mutating func close(_ name: String) {
        bytes += "</".utf8
        bytes += name.utf8
        bytes.append(UInt8(ascii: ">"))
    }

    mutating func element(_ name: String, _ text: String) {
        open(name)
        Self.appendEscaped(text, to: &bytes)
        close(name)
    }

    /// Text inside the element open now.
    mutating func text(_ text: String) {
        Self.appendEscaped(text, to: &bytes)
    }

    /// The document, its root closed.
    consuming func finish() -> [UInt8] {
        close(root)
        return bytes
    }

    /// Text content escaped: the five markup characters as entities, and every control character
    /// but tab and newline as a character reference, as S3 writes them (a parser would turn a raw
    /// CR into a newline; the others are not allowed raw in XML 1.0).
    static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += "&amp;".utf8
            case UInt8(ascii: "<"): out += "&lt;".utf8
            case UInt8(ascii: ">"): out += "&gt;".utf8
            case UInt8(ascii: "\""): out += "&quot;".utf8
            case UInt8(ascii: "'"): out += "&apos;".utf8
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"): out.append(byte)
            case 0..<0x20, 0x7F: out += "&#\(byte);".utf8
            default: out.append(byte)
            }
        }
    }
}
