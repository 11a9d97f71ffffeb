import CivilTime
import FirehoseWire
import Synchronization

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The server's fault rules, shared by every request: `FaultRuleSet` behind a lock, with a lock-free
/// answer for the usual case of no rules at all.
package final class FaultInjector: Sendable {
    private struct State {
        var rules = FaultRuleSet()
        /// Rules added at run time without a name are called `fault-N`.
        var unnamed = 0
    }

    private let state: Mutex<State>
    private let hasRules: Atomic<Bool>

    /// - Parameter rules: with distinct names and no more than `FaultRuleSet.maxRules`, as the
    ///   configuration file's validation ensures.
    package init(rules: [FaultRule], now: Date) {
        var set = FaultRuleSet()
        for rule in rules {
            do throws(FaultRuleSet.ChangeError) {
                try set.add(rule, now: now)
            } catch {
                preconditionFailure("fault rules reach the API validated: \(error)")
            }
        }
        hasRules = Atomic(!set.isEmpty)
        state = Mutex(State(rules: set))
    }

    package var isEmpty: Bool { !hasRules.load(ordering: .relaxed) }

    package func decide(_ request: FaultRequest, now: Date) -> FaultDecision {
        guard !isEmpty else { return FaultDecision() }
        return state.withLock { $0.rules.decide(request, now: now) }
    }

    package enum AddError: Error, Sendable, Equatable {
        case invalid(FaultRuleError)
        case refused(FaultRuleSet.ChangeError)
    }

    /// Adds a rule defined at run time; returns it as it now stands.
    package func add(_ definition: FaultRuleDefinition, now: Date) throws(AddError) -> FaultRuleSet.Entry {
        let result: Result<FaultRuleSet.Entry, AddError> = state.withLock { state in
            // The next free fault-N, taken only by a rule that is added.
            var unnamed = state.unnamed
            var defaultName = ""
            if definition.Name == nil {
                repeat {
                    unnamed += 1
                    defaultName = "fault-\(unnamed)"
                } while state.rules.entries.contains { $0.rule.name == defaultName }
            }
            do throws(AddError) {
                let rule: FaultRule
                do throws(FaultRuleError) {
                    rule = try definition.validated(defaultName: defaultName)
                } catch {
                    throw .invalid(error)
                }
                do throws(FaultRuleSet.ChangeError) {
                    try state.rules.add(rule, now: now)
                } catch {
                    throw .refused(error)
                }
                state.unnamed = unnamed
                hasRules.store(true, ordering: .relaxed)
                return .success(state.rules.entries.last!)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Whether a rule of that name was there.
    package func remove(named name: String) -> Bool {
        state.withLock { state in
            let removed = state.rules.remove(named: name)
            hasRules.store(!state.rules.isEmpty, ordering: .relaxed)
            return removed
        }
    }

    /// Removes every rule; returns how many there were.
    package func removeAll() -> Int {
        state.withLock { state in
            let count = state.rules.entries.count
            state.rules.removeAll()
            hasRules.store(false, ordering: .relaxed)
            return count
        }
    }

    package var entries: [FaultRuleSet.Entry] { state.withLock { $0.rules.entries } }

    package func matchesStreams(of operation: FaultOperation) -> Bool {
        guard !isEmpty else { return false }
        return state.withLock { $0.rules.matchesStreams(of: operation) }
    }

    package func fired(stream: String) -> [String: Int] {
        guard !isEmpty else { return [:] }
        return state.withLock { $0.rules.fired(stream: stream) }
    }
}

extension FaultRuleSet.Entry {
    /// The rule in the shape it is defined in (so a listed rule can be posted again), followed by its
    /// state: `Fired`, `FiredByStream`, `Remaining` and `Spent` for a rule with a `Count`, `Created`.
    package var listing: some Encodable & Sendable {
        ListedFaultRule(
            definition: FaultRuleDefinition(describing: rule), Fired: fired, FiredByStream: firedByStream,
            Remaining: remaining, Spent: remaining == nil ? nil : isSpent, Created: ISO8601Timestamp.format(created))
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
private struct ListedFaultRule: Encodable, Sendable {
    enum CodingKeys: CodingKey { case Fired, FiredByStream, Remaining, Spent, Created }

    var definition: FaultRuleDefinition
    var Fired: Int
    var FiredByStream: [String: Int]
    var Remaining: Int?
    var Spent: Bool?
    var Created: String

    func encode(to encoder: any Encoder) throws {
        try definition.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Fired, forKey: .Fired)
        try container.encode(FiredByStream, forKey: .FiredByStream)
        try container.encodeIfPresent(Remaining, forKey: .Remaining)
        try container.encodeIfPresent(Spent, forKey: .Spent)
        try container.encode(Created, forKey: .Created)
    }
}

extension FaultRuleDefinition {
    /// The definition that makes `rule` again: every default written out, operations and streams sorted.
    init(describing rule: FaultRule) {
        Name = rule.name
        Operations = rule.operations.map(\.name).sorted()
        Streams = rule.streams?.sorted()
        AccessKeyId = rule.accessKeyID
        switch rule.latency {
        case nil: Latency = nil
        case .fixed(let milliseconds): Latency = LatencyShape(Milliseconds: milliseconds)
        case .range(let range):
            Latency = LatencyShape(MinMilliseconds: range.lowerBound, MaxMilliseconds: range.upperBound)
        }
        switch rule.outcome {
        case nil:
            break
        case .failRecords(let pattern, let code, let message):
            var shape = FailRecordsShape(ErrorCode: code, ErrorMessage: message)
            switch pattern {
            case .fraction(let fraction): shape.Fraction = fraction
            case .every(let step): shape.Every = step
            case .positions(let ranges):
                shape.Records = ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
                    .joined(separator: ",")
            }
            FailRecords = shape
        case .error(let error):
            Error = ErrorShape(Code: error.code, Status: error.httpStatus, Message: error.message)
        case .resetConnection(let moment):
            ResetConnection = moment.rawValue
        case .hang(let seconds):
            Hang = HangShape(Seconds: seconds)
        }
        Count = rule.trigger.count
        Probability = rule.trigger.probability
        AfterSeconds = rule.trigger.afterSeconds > 0 ? rule.trigger.afterSeconds : nil
        ForSeconds = rule.trigger.forSeconds
        Seed = rule.seed
    }
}
