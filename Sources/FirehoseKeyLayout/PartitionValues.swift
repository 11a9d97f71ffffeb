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

    public subscript(source: Source, name: String) -> String? {
        switch source {
        case .query: fromQuery[name]
        case .lambda: fromLambda[name]
        }
    }
}
