import ServerCore

/// The part of an object a `Range` header asks for (RFC 9110 §14): one range of bytes, as S3 serves
/// it. Pure.
enum S3ByteRange: Equatable {
    /// The whole object: no header, or one S3 ignores (not `bytes=`, malformed, several ranges).
    case whole
    case part(ClosedRange<Int>)
    /// A well-formed range that starts past the end (416 InvalidRange).
    case unsatisfiable

    init(header: String?, size: Int) {
        guard let header else {
            self = .whole
            return
        }
        let text = header.trimmingASCIISpaces
        guard text.hasPrefix("bytes="), !text.contains(",") else {
            self = .whole
            return
        }
        let spec = text.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // bytes=-N: the last N bytes.
            guard let count = Self.number(last) else {
                self = .whole
                return
            }
            guard count > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Self.number(first) else {
            self = .whole
            return
        }
        var end = size - 1
        if !last.isEmpty {
            guard let value = Self.number(last), value >= start else {
                self = .whole
                return
            }
            end = min(value, size - 1)
        }
        self = start < size ? .part(start...end) : .unsatisfiable
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(text)
    }
}

/// What the conditional headers of a GET or HEAD decide (RFC 9110 §13.2.2, with S3's documented
/// pairing: If-Match that holds overrides a failing If-Unmodified-Since, and If-None-Match that
/// holds overrides a failing If-Modified-Since). Pure.
enum S3Preconditions: Equatable {
    case proceed
    case notModified
    case failed(condition: String)

    /// - Parameters:
    ///   - etag: the object's ETag, quoted.
    ///   - modified: its Last-Modified, in whole seconds since 1970.
    ///   - parseDate: an HTTP date's seconds since 1970; a date that does not parse is ignored.
    init(
        ifMatch: String?, ifNoneMatch: String?, ifModifiedSince: String?, ifUnmodifiedSince: String?,
        etag: String, modified: Int64, parseDate: (String) -> Int64?
    ) {
        if let ifMatch {
            guard Self.matches(ifMatch, etag: etag, weakly: false) else {
                self = .failed(condition: "If-Match")
                return
            }
        } else if let since = ifUnmodifiedSince.flatMap(parseDate), modified > since {
            self = .failed(condition: "If-Unmodified-Since")
            return
        }
        if let ifNoneMatch {
            self = Self.matches(ifNoneMatch, etag: etag, weakly: true) ? .notModified : .proceed
        } else if let since = ifModifiedSince.flatMap(parseDate), modified <= since {
            self = .notModified
        } else {
            self = .proceed
        }
    }

    /// Whether a list of entity tags (or `*`) names `etag`, quotes or not. If-Match compares
    /// strongly (a weak tag never matches), If-None-Match weakly (RFC 9110 §8.8.3.2).
    static func matches(_ list: String, etag: String, weakly: Bool) -> Bool {
        let bare = etag.trimmingQuotes
        return list.split(separator: ",").contains { candidate in
            var tag = Substring(candidate.trimmingASCIISpaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") {
                guard weakly else { return false }
                tag = tag.dropFirst(2)
            }
            return String(tag).trimmingQuotes == bare
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingQuotes: String {
        var text = Substring(self)
        if text.hasPrefix("\"") { text = text.dropFirst() }
        if text.hasSuffix("\"") { text = text.dropLast() }
        return String(text)
    }
}
