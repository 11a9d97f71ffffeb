package import FirehoseWire

/// One fault-injection rule: which requests it matches, when it fires, and what it does to a request
/// it fires on. A value: the state of its firing (how often it fired, its random draws) lives in
/// `FaultRuleSet`.
package struct FaultRule: Sendable, Equatable {
    package var name: String
    package var operations: Set<FaultOperation>
    /// nil: every stream (and requests that name none, such as ListDeliveryStreams).
    package var streams: Set<String>?
    /// nil: whoever signed the request (or nobody).
    package var accessKeyID: String?
    /// Delay before the request is carried out (or refused); alone, or with an outcome.
    package var latency: Latency?
    /// What the request comes to instead of its normal answer; nil for a rule that only delays.
    package var outcome: Outcome?
    package var trigger: Trigger
    /// Seeds every random choice of the rule (probability, fraction, latency range), so a run with the
    /// same requests in the same order fails the same records. Derived from the name when not given.
    package var seed: UInt64

    package enum Latency: Sendable, Equatable {
        case fixed(milliseconds: Int)
        case range(ClosedRange<Int>)
    }

    /// Which records of a PutRecordBatch fail (0-based positions in the request).
    package enum RecordPattern: Sendable, Equatable {
        /// Each record independently, with this probability.
        case fraction(Double)
        /// Every Nth record: positions N-1, 2N-1, …
        case every(Int)
        /// Sorted, disjoint and not adjacent.
        case positions([ClosedRange<Int>])
    }

    package enum ConnectionReset: String, Sendable, Equatable, CaseIterable {
        /// The request is not carried out; the connection is reset instead of answered.
        case beforeRead = "BeforeRead"
        /// The request is carried out (its records stored) and the connection reset instead of
        /// answered: the lost answer a client must retry, at the risk of duplicates, as with AWS.
        case afterRead = "AfterRead"
    }

    package enum Outcome: Sendable, Equatable {
        /// Per-record failures in a PutRecordBatch answer; the failed records are not stored.
        case failRecords(RecordPattern, code: String, message: String)
        /// The whole request is refused with this error.
        case error(FirehoseError)
        case resetConnection(ConnectionReset)
        /// No answer until the client gives up, for at most this many seconds (then a reset).
        case hang(seconds: Int)
    }

    /// When a matching request is hit. All conditions hold together.
    package struct Trigger: Sendable, Equatable {
        /// Fires on this many matching requests, then is spent; nil: no limit.
        package var count: Int?
        /// Fires on a matching request with this probability; nil: always.
        package var probability: Double?
        /// The window, from the rule's creation: it fires from `afterSeconds` on, for `forSeconds`.
        package var afterSeconds: Double = 0
        package var forSeconds: Double?

        package init(count: Int? = nil, probability: Double? = nil, afterSeconds: Double = 0, forSeconds: Double? = nil)
        {
            self.count = count
            self.probability = probability
            self.afterSeconds = afterSeconds
            self.forSeconds = forSeconds
        }
    }

    package init(
        name: String, operations: Set<FaultOperation> = FaultRule.dataPlane, streams: Set<String>? = nil,
        accessKeyID: String? = nil, latency: Latency? = nil, outcome: Outcome?, trigger: Trigger = Trigger(),
        seed: UInt64? = nil
    ) {
        self.name = name
        self.operations = operations
        self.streams = streams
        self.accessKeyID = accessKeyID
        self.latency = latency
        self.outcome = outcome
        self.trigger = trigger
        self.seed = seed ?? Self.seed(fromName: name)
    }

    /// Operations a rule matches when it names none: the data plane, what producers send.
    package static let dataPlane: Set<FaultOperation> = [.firehose(.putRecord), .firehose(.putRecordBatch)]

    /// FNV-1a of the name: a rule's default seed, the same in every run.
    package static func seed(fromName name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

}

/// An operation a rule matches: Firehose's, as rules always named them (`PutRecordBatch`), or Kinesis
/// Data Streams', prefixed as IAM prefixes its actions (`kinesis:PutRecords`).
package enum FaultOperation: Hashable, Sendable {
    case firehose(FirehoseOperation)
    case kinesis(KinesisOperation)

    package static let kinesisPrefix = "kinesis:"

    /// As a rule names it.
    package var name: String {
        switch self {
        case .firehose(let operation): operation.rawValue
        case .kinesis(let operation): Self.kinesisPrefix + operation.rawValue
        }
    }

    /// The operations `name` stands for: one, or every one of a service for `*` and `kinesis:*`.
    package static func named(_ name: String) -> [FaultOperation]? {
        if name == "*" { return FirehoseOperation.allCases.map { .firehose($0) } }
        if name.hasPrefix(kinesisPrefix) {
            let rest = String(name.dropFirst(kinesisPrefix.count))
            if rest == "*" { return KinesisOperation.allCases.map { .kinesis($0) } }
            return KinesisOperation(rawValue: rest).map { [.kinesis($0)] }
        }
        return FirehoseOperation(rawValue: name).map { [.firehose($0)] }
    }
}
