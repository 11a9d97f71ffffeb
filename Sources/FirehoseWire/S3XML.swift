/// S3's XML documents: a handful of fixed shapes, written straight into bytes (the S3 API's answers,
/// the store client's CompleteMultipartUpload), and the text of an element read back out of one.
package struct S3XML {
    package static let namespace = "http://s3.amazonaws.com/doc/2006-03-01/"
    package static let contentType = "application/xml"

    package private(set) var bytes: [UInt8]
    private let root: String

    /// Opens the document with its root element, in S3's namespace unless `namespaced` is false
    /// (S3's `Error` documents have none).
    package init(root: String, namespaced: Bool = true) {
        self.init(root: root, namespace: namespaced ? Self.namespace : nil)
    }

    /// Opens a document of another AWS XML service (IAM's Query answers) in its namespace.
    package init(root: String, namespace: String?) {
        self.root = root
        bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<\(root)".utf8)
        if let namespace { bytes += Array(" xmlns=\"\(namespace)\"".utf8) }
        bytes.append(UInt8(ascii: ">"))
    }

    package mutating func open(_ name: String) {
        bytes.append(UInt8(ascii: "<"))
        bytes += name.utf8
        bytes.append(UInt8(ascii: ">"))
    }

    package mutating func close(_ name: String) {
        bytes += "</".utf8
        bytes += name.utf8
        bytes.append(UInt8(ascii: ">"))
    }

    package mutating func element(_ name: String, _ text: String) {
        open(name)
        Self.appendEscaped(text, to: &bytes)
        close(name)
    }

    /// Text inside the element open now.
    package mutating func text(_ text: String) {
        Self.appendEscaped(text, to: &bytes)
    }

    /// The document, its root closed.
    package consuming func finish() -> [UInt8] {
        close(root)
        return bytes
    }

    /// Text content escaped: the five markup characters as entities, and every control character
    /// but tab and newline as a character reference, as S3 writes them (a parser would turn a raw
    /// CR into a newline; the others are not allowed raw in XML 1.0).
    package static func appendEscaped(_ text: String, to out: inout [UInt8]) {
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

    /// The text of the first `<name>…</name>` in `xml`, with XML's entities and character references
    /// decoded; nil when there is none or it holds a bad reference.
    package static func element(_ name: String, in xml: Substring) -> String? {
        guard let open = xml.firstRange(of: "<\(name)>"),
            let close = xml[open.upperBound...].firstRange(of: "</\(name)>")
        else { return nil }
        return unescaped(xml[open.upperBound..<close.lowerBound])
    }

    /// The inside of every `<name>…</name>` in `xml`, in order (not nested ones); nil when one is
    /// not closed.
    package static func elements(_ name: String, in xml: Substring) -> [Substring]? {
        var found: [Substring] = []
        var rest = xml
        while let open = rest.firstRange(of: "<\(name)>") {
            guard let close = rest[open.upperBound...].firstRange(of: "</\(name)>") else { return nil }
            found.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return found
    }

    package static func unescaped(_ text: Substring) -> String? {
        var out = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { return nil }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                guard entity.hasPrefix("#") else { return nil }
                let number = entity.dropFirst()
                let value =
                    number.hasPrefix("x") ? UInt32(number.dropFirst(), radix: 16) : UInt32(number, radix: 10)
                guard let value, let scalar = Unicode.Scalar(value) else { return nil }
                out.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}
