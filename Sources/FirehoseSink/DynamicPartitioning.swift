import FirehoseKeyLayout
import FirehoseWire
import JQ
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Dynamic partitioning: each record's partition is what the stream's `MetadataExtraction` jq query
/// gives for the `!{partitionKeyFromQuery:NAME}` keys its `Prefix` uses, and what the `Lambda`
/// processor gave back in the record's `metadata.partitionKeys` for its `!{partitionKeyFromLambda:NAME}`
/// keys. A record the query fails on (not JSON, a jq error, not exactly one object, a key missing,
/// null or not a scalar), that lacks a Lambda key, or whose values make a key that cannot be stored
/// locally, becomes an error record in the `metadata-extraction-failed` error output.
struct DynamicPartitioner: RecordPartitioner {
    /// The query compiled once per core: a compiled jq program runs one record at a time, and
    /// concurrent requests each take the next one.
    final class Queries: Sendable {
        let all: [JQQuery]
        /// The record members the query reads, when it provably reads only these (`JQQuery.rootMembers`).
        let rootMembers: [[UInt8]]?
        private let next = Atomic<Int>(0)

        init(_ program: String, count: Int) throws(JQQuery.CompileError) {
            var all: [JQQuery] = []
            for _ in 0..<max(1, count) { all.append(try JQQuery(program, maxOutputs: 1)) }
            self.all = all
            rootMembers = all[0].rootMembers.map { $0.sorted().map { Array($0.utf8) } }
        }

        func take() -> JQQuery {
            all[next.add(1, ordering: .relaxed).oldValue % all.count]
        }
    }

    /// The `MetadataExtraction` query, when the prefix has query keys.
    let queries: Queries?
    /// The query keys `Prefix` uses, in order.
    let keyNames: [String]
    /// The Lambda keys `Prefix` uses, in order.
    let lambdaKeyNames: [String]
    let layout: ObjectKeyLayout
    /// The longest object key that fits the local path limit under the stream's bucket.
    let maxKeyBytes: Int

    func partition(
        _ records: RecordBatch, lambdaKeys: [[String: String]]?, context: RecordContext,
        outcome: inout ProcessingOutcome
    ) -> [RecordPartition] {
        let query = queries?.take()
        var partitions: [RecordPartition] = []
        var position: [PartitionKey: Int] = [:]
        // Whether each partition seen in this request can be stored, checked once per partition.
        var unstorable: [PartitionKey: String] = [:]
        let failure = ErrorOutput.Failure.metadataExtraction
        for index in 0..<records.count {
            let record = records[index]
            let key: PartitionKey
            switch values(of: record, with: query, lambdaKeys: lambdaKeys?[index] ?? [:]) {
            case .success(let values):
                key = PartitionKey(values)
            case .failure(let problem):
                outcome.fail(
                    record, type: failure.type, code: failure.code, message: problem.message, context: context)
                continue
            }
            if let slot = position[key] {
                partitions[slot].records.append(record)
                continue
            }
            if unstorable[key] == nil {
                do throws(KeyLayoutError) {
                    try layout.checkPartition(key.values, maxKeyBytes: maxKeyBytes)
                } catch {
                    unstorable[key] = error.message
                }
            }
            if let message = unstorable[key] {
                outcome.fail(record, type: failure.type, code: failure.code, message: message, context: context)
                continue
            }
            position[key] = partitions.count
            partitions.append(RecordPartition(key: key, records: RecordBatch([Array(record)])))
        }
        return partitions
    }

    /// Nesting beyond which a record is left whole to jq: jq 1.6 refuses documents nested deeper
    /// than 256, which a projection must not hide.
    static let projectionMaxDepth = 200

    /// The values of the prefix's keys for one record, or why there are none.
    private func values(of record: ArraySlice<UInt8>, with query: JQQuery?, lambdaKeys: [String: String])
        -> Result<PartitionValues, Failure>
    {
        var fromLambda: [String: String] = [:]
        for name in lambdaKeyNames {
            guard let value = lambdaKeys[name], !value.isEmpty else {
                let problem = lambdaKeys[name] == nil ? "is missing" : "is empty"
                return .failure(
                    Failure(
                        message:
                            "\(ErrorOutput.Failure.missingKeyValue) (the Lambda function's metadata.partitionKeys.\(name) \(problem))"
                    ))
            }
            fromLambda[name] = value
        }
        guard let query else { return .success(PartitionValues(fromLambda: fromLambda)) }
        return extract(record, with: query).map { PartitionValues(fromQuery: $0, fromLambda: fromLambda) }
    }

    /// The values of the prefix's query keys for one record, or why there are none.
    private func extract(_ record: ArraySlice<UInt8>, with query: JQQuery) -> Result<[String: String], Failure> {
        let members: [String: JQQuery.Member]
        do {
            // jq parses only the members the query reads, when it reads only named ones: parsing
            // whole records was most of jq's cost (docs/benchmarks.md).
            if let names = queries?.rootMembers,
                let projected = record.withUnsafeBufferPointer({
                    RootMemberProjection.project($0, keeping: names, maxDepth: Self.projectionMaxDepth)
                })
            {
                members = try query.members(keyNames, of: projected)
            } else {
                members = try query.members(keyNames, of: record)
            }
        } catch .invalidInput {
            return .failure(Failure(message: ErrorOutput.Failure.nonJSONRecord))
        } catch {
            return .failure(Failure(message: "Metadata extraction failed: \(error.description)."))
        }
        var values: [String: String] = [:]
        for name in keyNames {
            switch members[name] {
            case .text(let value)? where !value.isEmpty, .scalar(let value)?: values[name] = value
            case .text?, .null?, nil:
                let problem = members[name] == nil ? "is missing" : members[name] == .null ? "is null" : "is empty"
                return .failure(
                    Failure(
                        message: "\(ErrorOutput.Failure.missingKeyValue) (the query's value for '\(name)' \(problem))"))
            case .composite(let json)?:
                return .failure(
                    Failure(
                        message:
                            "Metadata extraction failed: the query's value for '\(name)' is \(json), not a string, number or boolean."
                    ))
            }
        }
        return .success(values)
    }

    struct Failure: Error {
        var message: String
    }
}
