/// What the dynamic-partitioning expressions of a `Prefix` evaluate to for one partition: the values
/// of `!{partitionKeyFromQuery:NAME}` (from the `MetadataExtraction` query) and of
/// `!{partitionKeyFromLambda:NAME}` (from a Lambda processor's `metadata.partitionKeys`).
public struct PartitionValues: Hashable, Sendable, Codable {
    /// The namespace a key is read from.
    public enum Source: String, Sendable, Hashable, Codable {
        case query = "partitionKeyFromQuery"
        case lambda = "partitionKeyFromLambda"
    }

    public var fromQuery: [String: String]
    public var fromLambda: [String: String]

    public init(fromQuery: [String: String] = [:], fromLambda: [String: String] = [:]) {
        self.fromQuery = fromQuery
        self.fromLambda = fromLambda
    }

    /// No values: a stream without dynamic partitioning.
    public static let none = PartitionValues()

    public var isEmpty: Bool { fromQuery.isEmpty && fromLambda.isEmpty }

    /// Values compare by their UTF-8 bytes, as S3 keys do: `café` written precomposed and with a
    /// combining accent are two partitions, not one (`String` equality would merge them).
    public static func == (lhs: PartitionValues, rhs: PartitionValues) -> Bool {
        func same(_ a: [String: String], _ b: [String: String]) -> Bool {
            a.count == b.count
                && a.allSatisfy { name, value in b[name].map { value.utf8.elementsEqual($0.utf8) } ?? false }
        }
        return same(lhs.fromQuery, rhs.fromQuery) && same(lhs.fromLambda, rhs.fromLambda)
    }

    public func hash(into hasher: inout Hasher) {
        for values in [fromQuery, fromLambda] {
            hasher.combine(values.count)
            // Order-independent: the sum of each pair's hash.
            var sum = 0
            for (name, value) in values {
                var pair = Hasher()
                pair.combine(name)
                for byte in value.utf8 { pair.combine(byte) }
                sum &+= pair.finalize()
            }
            hasher.combine(sum)
        }
    }

    public subscript(source: Source, name: String) -> String? {
        switch source {
        case .query: fromQuery[name]
        case .lambda: fromLambda[name]
        }
    }
}
