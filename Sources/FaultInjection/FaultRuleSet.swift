package import FirehoseWire

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// A request as fault rules see it.
package struct FaultRequest: Sendable, Equatable {
    package var operation: FaultOperation
    package var stream: String?
    /// Whether `stream` exists: firings are counted by stream only for streams that do, so requests
    /// naming made-up streams cannot grow the counts.
    package var streamExists: Bool
    package var accessKeyID: String?
    /// Records in a PutRecordBatch or PutRecords (1 for PutRecord, 0 otherwise).
    package var records: Int

    package init(
        operation: FaultOperation, stream: String?, streamExists: Bool = true, accessKeyID: String?, records: Int
    ) {
        self.operation = operation
        self.stream = stream
        self.streamExists = streamExists
        self.accessKeyID = accessKeyID
        self.records = records
    }

    /// The stream firings are counted under: "" for none, or one that does not exist.
    package var countedStream: String { streamExists ? stream ?? "" : "" }
}

/// What the rules decided for one request.
package struct FaultDecision: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// These positions fail (ascending), with this error; the others are stored.
        case failRecords([Int], code: String, message: String)
        case error(FirehoseError)
        case resetConnection(FaultRule.ConnectionReset)
        case hang(Duration)
    }

    package var latency: Duration = .zero
    package var outcome: Outcome?
    /// The rules that fired, in order: the latency rules, then the one whose outcome applies.
    package var fired: [String] = []

    package var isEmpty: Bool { fired.isEmpty }
}

/// The fault rules in force and the state of their firing, as a pure state machine: the time and the
/// requests come in as arguments, so every behaviour is tested without a server or a clock.
///
/// Rules are tried in order (the configuration file's, then those added at run time). Every rule that
/// matches a request and fires adds its latency (together at most `maxLatency`); the first one that
/// fires with an outcome decides it, and the rules after it are not tried (their counts and random
/// draws are left untouched). A `FailRecords` rule whose pattern picks none of a batch's records
/// does not fire.
package struct FaultRuleSet: Sendable {
    package struct Entry: Sendable {
        package var rule: FaultRule
        package var created: Date
        package var fired = 0
        /// Fired, by stream ("" for requests that name none).
        package var firedByStream: [String: Int] = [:]
        var random: SplitMix64

        /// Fired as many times as its `Count` allows.
        package var isSpent: Bool { rule.trigger.count.map { fired >= $0 } ?? false }
        package var remaining: Int? { rule.trigger.count.map { max(0, $0 - fired) } }
    }

    /// More rules than a test needs would only slow every request down.
    package static let maxRules = 100
    /// The longest delay the rules add to one request together.
    package static let maxLatency = Duration.milliseconds(FaultRuleDefinition.maxLatencyMilliseconds)

    package private(set) var entries: [Entry] = []

    package init() {}

    package var isEmpty: Bool { entries.isEmpty }

    package enum ChangeError: Error, Sendable, Equatable {
        case nameTaken(String)
        case tooManyRules
    }

    package mutating func add(_ rule: FaultRule, now: Date) throws(ChangeError) {
        guard !entries.contains(where: { $0.rule.name == rule.name }) else { throw .nameTaken(rule.name) }
        guard entries.count < Self.maxRules else { throw .tooManyRules }
        entries.append(Entry(rule: rule, created: now, random: SplitMix64(seed: rule.seed)))
    }

    /// Whether a rule of that name was there.
    package mutating func remove(named name: String) -> Bool {
        guard let index = entries.firstIndex(where: { $0.rule.name == name }) else { return false }
        entries.remove(at: index)
        return true
    }

    package mutating func removeAll() { entries.removeAll() }

    package mutating func decide(_ request: FaultRequest, now: Date) -> FaultDecision {
        var decision = FaultDecision()
        for index in entries.indices {
            guard let outcome = entries[index].fire(on: request, now: now, adding: &decision) else { continue }
            decision.outcome = outcome
            break
        }
        decision.latency = min(decision.latency, Self.maxLatency)
        return decision
    }

    /// Times each rule fired on requests for `stream`, by rule name.
    /// Whether a rule that names streams matches `operation`: only then is a control-plane request's
    /// stream worth reading.
    package func matchesStreams(of operation: FaultOperation) -> Bool {
        entries.contains { $0.rule.streams != nil && $0.rule.operations.contains(operation) }
    }

    package func fired(stream: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for entry in entries {
            if let count = entry.firedByStream[stream] { counts[entry.rule.name] = count }
        }
        return counts
    }
}

extension FaultRuleSet.Entry {
    func matches(_ request: FaultRequest, now: Date) -> Bool {
        guard rule.operations.contains(request.operation), !isSpent else { return false }
        if let streams = rule.streams {
            guard let stream = request.stream, streams.contains(stream) else { return false }
        }
        if let key = rule.accessKeyID, key != request.accessKeyID { return false }
        let elapsed = now.timeIntervalSince(created)
        guard elapsed >= rule.trigger.afterSeconds else { return false }
        if let window = rule.trigger.forSeconds, elapsed >= rule.trigger.afterSeconds + window { return false }
        return true
    }

    /// Tries the rule on a request: when it fires, counts that, adds its latency and name to
    /// `decision`, and returns its outcome (nil for a rule that only delays, or that did not fire).
    mutating func fire(on request: FaultRequest, now: Date, adding decision: inout FaultDecision)
        -> FaultDecision.Outcome?
    {
        guard matches(request, now: now) else { return nil }
        if let probability = rule.trigger.probability, random.unit() >= probability { return nil }
        let outcome: FaultDecision.Outcome?
        switch rule.outcome {
        case nil:
            outcome = nil
        case .failRecords(let pattern, let code, let message):
            let positions = failingPositions(pattern, records: request.records)
            guard !positions.isEmpty else { return nil }
            outcome = .failRecords(positions, code: code, message: message)
        case .error(let error):
            outcome = .error(error)
        case .resetConnection(let moment):
            outcome = .resetConnection(moment)
        case .hang(let seconds):
            outcome = .hang(.seconds(seconds))
        }
        fired += 1
        firedByStream[request.countedStream, default: 0] += 1
        decision.fired.append(rule.name)
        switch rule.latency {
        case .fixed(let milliseconds): decision.latency += .milliseconds(milliseconds)
        case .range(let range): decision.latency += .milliseconds(random.number(in: range))
        case nil: break
        }
        return outcome
    }

    private mutating func failingPositions(_ pattern: FaultRule.RecordPattern, records: Int) -> [Int] {
        switch pattern {
        case .fraction(let fraction):
            return (0..<records).filter { _ in random.unit() < fraction }
        case .every(let step):
            return Array(stride(from: step - 1, to: records, by: step))
        case .positions(let ranges):
            // Sorted and disjoint (`FaultRuleDefinition` merges them): each position once, in order.
            return ranges.filter { $0.lowerBound < records }.flatMap { $0.lowerBound...min($0.upperBound, records - 1) }
        }
    }
}
