import FirehoseSink

/// One page of a ListObjects or ListObjectsV2 answer, from a bucket's objects: S3's order (UTF-8
/// bytes), its prefix and delimiter rules, and where the next page starts. Pure.
struct S3ListingPage: Equatable {
    typealias Object = BucketFolders.Object

    var objects: [Object] = []
    var commonPrefixes: [String] = []
    var isTruncated = false
    /// The last key or common prefix on the page: where the next page starts (a continuation
    /// token or a `NextMarker`).
    var last: String?

    /// - Parameters:
    ///   - after: the page starts after this key (`start-after`, `marker`, a continuation token);
    ///     when it is a common prefix itself, after every key it rolls up.
    ///   - maxKeys: keys and common prefixes together, as S3 counts them.
    init(_ all: [Object], prefix: String, delimiter: String?, after: String?, maxKeys: Int) {
        guard maxKeys > 0 else { return }
        let sorted = all.filter { $0.key.utf8.starts(with: prefix.utf8) }.sorted {
            $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
        var count = 0
        for object in sorted {
            if let after, !after.utf8.lexicographicallyPrecedes(object.key.utf8) { continue }
            let rollup = Self.commonPrefix(of: object.key, prefix: prefix, delimiter: delimiter)
            if let rollup {
                // Bytes compared: `==` on Strings takes an NFC and an NFD spelling for one key.
                let repeatsLast = commonPrefixes.last.map { $0.utf8.elementsEqual(rollup.utf8) } ?? false
                let isMarker = after.map { $0.utf8.elementsEqual(rollup.utf8) } ?? false
                if repeatsLast || isMarker { continue }
            }
            if count == maxKeys {
                isTruncated = true
                break
            }
            count += 1
            if let rollup {
                commonPrefixes.append(rollup)
                last = rollup
            } else {
                objects.append(object)
                last = object.key
            }
        }
    }

    /// The common prefix a key rolls up into: the prefix and what follows it up to and including
    /// the first delimiter; nil when the key is listed itself.
    static func commonPrefix(of key: String, prefix: String, delimiter: String?) -> String? {
        guard let delimiter, !delimiter.isEmpty else { return nil }
        let rest = key.utf8.dropFirst(prefix.utf8.count)
        let delimiterBytes = Array(delimiter.utf8)
        var index = rest.startIndex
        while index < rest.endIndex {
            if rest[index...].starts(with: delimiterBytes) {
                let end = key.utf8.index(index, offsetBy: delimiterBytes.count)
                return String(key[..<end])
            }
            index = rest.index(after: index)
        }
        return nil
    }
}
