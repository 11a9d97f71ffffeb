import Testing

@testable import DurableStorage

/// The state machine alone, as SwiftNIO tests its own: events in, actions out, waiters as numbers.
@Suite("GroupCommit")
struct GroupCommitTests {
    typealias Machine = GroupCommit<Int>

    @Test("The first waiter starts a sync covering every write so far; later ones wait for it")
    func firstWaiterStartsTheSync() {
        var machine = Machine()
        machine.wrote(1)
        machine.wrote(2)
        #expect(machine.wait(for: 1, 10).isStartSync(through: 2))
        machine.wrote(3)
        #expect(machine.wait(for: 2, 20).isWait)
        #expect(machine.wait(for: 3, 30).isWait)
        #expect(machine.syncing == 2)
        #expect(machine.waiterCount == 3)
    }

    @Test("A finished sync resumes the writes it covered and starts one more for the rest")
    func syncResumesCoveredAndStartsNext() {
        // Waiter 10 starts the sync; 20 and 30 write and wait while it runs.
        var machine = Self.writingAndWaiting(through: 3)
        let first = machine.syncSucceeded()
        #expect(first.resume == [10])
        #expect(first.fail.isEmpty)
        // Writes 2 and 3 were made while the sync ran: it may have missed them, so one more sync covers both.
        #expect(first.startSync == 3)
        #expect(machine.durable == 1)
        let second = machine.syncSucceeded()
        #expect(second.resume == [20, 30])
        #expect(second.startSync == nil)
        #expect(machine.durable == 3)
        #expect(machine.syncing == nil)
        #expect(machine.waiterCount == 0)
    }

    /// Writes 1...`last`, each followed by its waiter (10 × its sequence).
    static func writingAndWaiting(through last: UInt64) -> Machine {
        var machine = Machine()
        for sequence in 1...last {
            machine.wrote(sequence)
            _ = machine.wait(for: sequence, Int(sequence) * 10)
        }
        return machine
    }

    @Test("Concurrent writers share syncs: many waiters, two syncs")
    func waitersShareSyncs() {
        var machine = Machine()
        var syncs = 0
        for sequence in 1...100 as ClosedRange<UInt64> {
            machine.wrote(sequence)
            if case .startSync = machine.wait(for: sequence, Int(sequence)) { syncs += 1 }
        }
        var resumed: [Int] = []
        var outcome = machine.syncSucceeded()
        resumed += outcome.resume
        while outcome.startSync != nil {
            syncs += 1
            outcome = machine.syncSucceeded()
            resumed += outcome.resume
        }
        #expect(syncs == 2)
        #expect(resumed == Array(1...100))
    }

    @Test("A write already durable resumes at once and starts nothing")
    func alreadyDurable() {
        var machine = Machine()
        machine.wrote(1)
        _ = machine.wait(for: 1, 10)
        _ = machine.syncSucceeded()
        guard case .resume(let waiter) = machine.wait(for: 1, 11) else {
            Issue.record("expected an immediate resume")
            return
        }
        #expect(waiter == 11)
        #expect(machine.syncing == nil)
    }

    @Test("A failed sync fails every waiter, covered or not, and the next waiter starts a new sync")
    func failedSyncFailsEveryone() {
        var machine = Self.writingAndWaiting(through: 2)
        let failed = machine.syncFailed()
        #expect(failed.fail == [10, 20])
        #expect(failed.resume.isEmpty)
        #expect(failed.startSync == nil)
        #expect(machine.durable == 0)
        machine.wrote(3)
        #expect(machine.wait(for: 3, 30).isStartSync(through: 3))
        #expect(machine.syncSucceeded().resume == [30])
        #expect(machine.durable == 3)
    }

    @Test("Writes made durable another way resume their waiters; a sync under way still finishes")
    func madeDurableElsewhere() {
        var machine = Machine()
        machine.wrote(1)
        machine.wrote(2)
        _ = machine.wait(for: 1, 10)
        _ = machine.wait(for: 2, 20)
        #expect(machine.madeDurable(through: 1) == [10])
        #expect(machine.syncing == 2)
        let outcome = machine.syncSucceeded()
        #expect(outcome.resume == [20])
        #expect(machine.durable == 2)
    }
}

extension GroupCommit.WaitAction {
    var isWait: Bool {
        if case .wait = self { return true }
        return false
    }

    func isStartSync(through expected: UInt64) -> Bool {
        if case .startSync(let through) = self { return through == expected }
        return false
    }
}
