import CivilTime
import FirehoseWire
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
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
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("Name")
        writer.string(rule.name)
        writer.key("Operations")
        writer.beginArray()
        for operation in rule.operations.map(\.name).sorted() { writer.string(operation) }
        writer.endArray()
        if let streams = rule.streams {
            writer.key("Streams")
            writer.beginArray()
            for stream in streams.sorted() { writer.string(stream) }
            writer.endArray()
        }
        if let key = rule.accessKeyID {
            writer.key("AccessKeyId")
            writer.string(key)
        }
        if let latency = rule.latency {
            writer.key("Latency")
            writer.beginObject()
            switch latency {
            case .fixed(let milliseconds):
                writer.key("Milliseconds")
                writer.integer(milliseconds)
            case .range(let range):
                writer.key("MinMilliseconds")
                writer.integer(range.lowerBound)
                writer.key("MaxMilliseconds")
                writer.integer(range.upperBound)
            }
            writer.endObject()
        }
        switch rule.outcome {
        case nil:
            break
        case .failRecords(let pattern, let code, let message):
            writer.key("FailRecords")
            writer.beginObject()
            switch pattern {
            case .fraction(let fraction):
                writer.key("Fraction")
                writer.number(fraction)
            case .every(let step):
                writer.key("Every")
                writer.integer(step)
            case .positions(let ranges):
                writer.key("Records")
                writer.string(
                    ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
                        .joined(separator: ","))
            }
            writer.key("ErrorCode")
            writer.string(code)
            writer.key("ErrorMessage")
            writer.string(message)
            writer.endObject()
        case .error(let error):
            writer.key("Error")
            writer.beginObject()
            writer.key("Code")
            writer.string(error.code)
            writer.key("Status")
            writer.integer(error.httpStatus)
            writer.key("Message")
            writer.string(error.message)
            writer.endObject()
        case .resetConnection(let moment):
            writer.key("ResetConnection")
            writer.string(moment.rawValue)
        case .hang(let seconds):
            writer.key("Hang")
            writer.beginObject()
            writer.key("Seconds")
            writer.integer(seconds)
            writer.endObject()
        }
        if let count = rule.trigger.count {
            writer.key("Count")
            writer.integer(count)
        }
        if let probability = rule.trigger.probability {
            writer.key("Probability")
            writer.number(probability)
        }
        if rule.trigger.afterSeconds > 0 {
            writer.key("AfterSeconds")
            writer.number(rule.trigger.afterSeconds)
        }
        if let window = rule.trigger.forSeconds {
            writer.key("ForSeconds")
            writer.number(window)
        }
        writer.key("Seed")
        writer.integer(rule.seed)
        writer.key("Fired")
        writer.integer(fired)
        writer.key("FiredByStream")
        writer.counts(firedByStream)
        if let remaining {
            writer.key("Remaining")
            writer.integer(remaining)
            writer.key("Spent")
            writer.bool(isSpent)
        }
        writer.key("Created")
        writer.string(ISO8601Timestamp.format(created))
        writer.endObject()
    }
}
