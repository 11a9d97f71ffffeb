/// The `/`-separated segments a prefix can evaluate to, reduced to what matters for storing keys as
/// files: the literal text of each segment, whether anything evaluated lands in it, and its size.
///
/// Every evaluated piece (a date field, a random string, an error-output type) is non-empty and
/// contains neither `/` nor `.`, so a segment can only be `.`, `..` or empty when it is made of
/// literal text alone — literal text of the prefix or of a quoted/punctuation part of a timestamp
/// pattern (`!{timestamp:'..'}` is as dangerous as `..`).
struct PathShape {
    struct Segment {
        var literal = ""
        var hasEvaluatedPiece = false
        var maxBytes = 0
    }

    /// Segments that a `/` ends.
    private(set) var closed: [Segment] = []
    /// What follows the last `/`; the key's next part (default hour path or suffix) is appended to it.
    private(set) var trailing = Segment()

    /// The file-name limit of the file systems firehose-local runs on (NAME_MAX on Linux and macOS).
    static let maxSegmentBytes = 255
    /// Bound on an error-output type (`format-conversion-failed` is the longest AWS documents).
    static let maxErrorOutputTypeBytes = 32

    init(_ parts: [S3Prefix.Part]) {
        for part in parts {
            switch part {
            case .literal(let text):
                addLiteral(text)
            case .timestamp(let pattern):
                for element in pattern.elements {
                    if case .literal(let text) = element {
                        addLiteral(text)
                    } else {
                        addEvaluated(maxBytes: element.maxLength)
                    }
                }
            case .randomString:
                addEvaluated(maxBytes: S3Prefix.randomStringLength)
            case .errorOutputType:
                addEvaluated(maxBytes: Self.maxErrorOutputTypeBytes)
            case .partitionKey:
                // Values are only known per partition: `ObjectKeyLayout.checkPartition` substitutes
                // them as literal text and checks that shape.
                addEvaluated(maxBytes: 0)
            }
        }
    }

    /// The longest the whole evaluated prefix can be, in UTF-8 bytes.
    var maxBytes: Int { closed.reduce(0) { $0 + $1.maxBytes + 1 } + trailing.maxBytes }

    /// Splits by scalar, as the file system splits bytes: a combining mark after `/` joins it into one
    /// `Character`, which must not hide the separator (`a/../\u{301}x/` has a `..` segment).
    private mutating func addLiteral(_ text: String) {
        for scalar in text.unicodeScalars {
            if scalar == "/" {
                closed.append(trailing)
                trailing = Segment()
            } else {
                trailing.literal.unicodeScalars.append(scalar)
                trailing.maxBytes += UTF8.width(scalar)
            }
        }
    }

    private mutating func addEvaluated(maxBytes: Int) {
        trailing.hasEvaluatedPiece = true
        trailing.maxBytes += maxBytes
    }

    /// Refuses prefixes whose keys could not be written as relative paths under the bucket folder.
    ///
    /// The trailing segment is held to the same `.`/`..` rule even though the key continues after it
    /// (`..` becomes `..2026/…`): a prefix that only works by accident of what follows is refused
    /// rather than explained.
    func checkStorable(raw: String, field: String) throws(KeyLayoutError) {
        if let reason = unstorableReason {
            throw Self.unstorable(raw: raw, field: field, reason: reason)
        }
    }

    /// Why keys of this shape could not be written as relative paths, or nil when they can.
    var unstorableReason: String? {
        if closed.contains(where: { $0.literal.utf8.contains(0) }) || trailing.literal.utf8.contains(0) {
            return "NUL characters are not allowed"
        }
        for segment in closed where !segment.hasEvaluatedPiece {
            if segment.literal.isEmpty {
                return "empty path segments (a leading '/' or '//') are not allowed"
            }
            if let reason = Self.dotsReason(segment) { return reason }
        }
        if !trailing.hasEvaluatedPiece, let reason = Self.dotsReason(trailing) {
            return reason
        }
        if closed.contains(where: { $0.maxBytes > Self.maxSegmentBytes }) {
            return Self.segmentTooLongReason
        }
        return nil
    }

    private static func dotsReason(_ segment: Segment) -> String? {
        // Bytes, not `String` equality, which compares canonically equivalent texts as equal.
        if segment.literal.utf8.elementsEqual(".".utf8) || segment.literal.utf8.elementsEqual("..".utf8) {
            return "path segment '\(segment.literal)' is not allowed"
        }
        return nil
    }

    static func unstorable(raw: String, field: String, reason: String) -> KeyLayoutError {
        KeyLayoutError.invalidArgument(
            "\(field) '\(raw)' cannot be stored locally: \(reason) (firehose-local maps keys to directories)."
        )
    }

    static func segmentTooLong(raw: String, field: String) -> KeyLayoutError {
        unstorable(raw: raw, field: field, reason: segmentTooLongReason)
    }

    static let segmentTooLongReason =
        "a path segment of its keys can exceed \(maxSegmentBytes) bytes, the file-name limit of the local file system"
}
