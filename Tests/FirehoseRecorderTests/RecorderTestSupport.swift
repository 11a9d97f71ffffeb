import FirehoseClient
import FirehoseTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirehoseRecorder

/// A recorder on a fresh directory, talking to a fake endpoint, on a hand-moved clock whose backoff
/// sleeps return at once and are recorded instead of waited for.
struct Harness {
    let directory: TestDirectory
    let endpoint: FakeFirehoseEndpoint
    let clock = ManualClock(date: Date(timeIntervalSince1970: 1_795_000_000), advancesWhenSlept: true)
    let recorder: FirehoseRecorder
    let events: EventLog

    init(
        _ configuration: FirehoseRecorder.Configuration = .init(),
        endpoint: FakeFirehoseEndpoint = FakeFirehoseEndpoint(),
        provider: (any CredentialsProvider)? = nil, timeout: Duration = .seconds(5), directory: TestDirectory? = nil
    ) throws {
        self.directory = try directory ?? TestDirectory("recorder")
        self.endpoint = endpoint
        let client = FirehoseClient(
            configuration: .init(
                endpoint: URL(string: "http://127.0.0.1:4573")!, region: "us-east-1",
                credentialsProvider: provider
                    ?? StaticCredentialsProvider(accessKeyId: "test", secretAccessKey: "test"),
                transport: endpoint, timeout: timeout))
        recorder = try FirehoseRecorder(
            directory: self.directory.url, client: client, configuration: configuration,
            environment: .init(now: clock.wallClock, clock: clock, random: { 0.5 }))
        events = EventLog(recorder.events)
    }

    /// A harness over `directory` once the recorder that had it open is gone. Its lock goes with its
    /// last reference, which a task it started may hold a moment after the test dropped its own (a
    /// full parallel run was seen to take seconds).
    static func reopening(
        _ configuration: FirehoseRecorder.Configuration = .init(), directory: TestDirectory
    ) async throws -> Harness {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try Harness(configuration, directory: directory)
            } catch let error as RecorderError
                where error.message.contains("in use by another FirehoseRecorder") && ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Saves `count` records `prefix-0`, `prefix-1`, … and returns their bytes in order.
    @discardableResult
    func save(_ count: Int, prefix: String = "r", stream: String = "events", size: Int? = nil) async throws -> [Data] {
        var saved: [Data] = []
        for index in 0..<count {
            var data = Data("\(prefix)-\(index)".utf8)
            if let size { data.append(Data(repeating: UInt8(ascii: "."), count: max(0, size - data.count))) }
            try await recorder.saveRecord(data, streamName: stream)
            saved.append(data)
        }
        return saved
    }

    func delivered(_ stream: String = "events") -> [Data] {
        endpoint.delivered(stream).map { Data($0) }
    }
}

/// Collects a recorder's events as they arrive; `wait` wakes on each one.
///
/// To tell that something was *not* reported, a test makes the recorder report something after it
/// (`submitAllRecords` reports its summary before it returns) and waits for that: events arrive in
/// the order they were reported, so once the later one is here nothing earlier is still on its way.
final class EventLog: Sendable {
    private struct State {
        var events: [RecorderEvent] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }
    private final class Storage: Sendable {
        let state = Mutex(State())

        func append(_ event: RecorderEvent) {
            let woken = state.withLock { state in
                state.events.append(event)
                defer { state.waiters.removeAll() }
                return Array(state.waiters.values)
            }
            for waiter in woken { waiter.resume() }
        }

        func wake(_ waiter: Int) {
            state.withLock { $0.waiters.removeValue(forKey: waiter) }?.resume()
        }
    }
    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<RecorderEvent>) {
        let storage = self.storage
        task = Task {
            for await event in stream { storage.append(event) }
        }
    }

    deinit { task.cancel() }

    var all: [RecorderEvent] { storage.state.withLock { $0.events } }

    var drops: [DroppedRecords] {
        all.compactMap {
            if case .recordsDropped(let drop) = $0 { return drop }
            return nil
        }
    }

    var thresholdCrossings: Int {
        all.filter {
            if case .thresholdCrossed = $0 { return true }
            return false
        }.count
    }

    /// Waits until `condition` holds for the events received so far, looking again as each one
    /// arrives; false if it still does not when `timeout` has passed (a failing test does not hang).
    @discardableResult
    func wait(timeout: Duration = .seconds(30), until condition: ([RecorderEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = all
            if condition(seen) { return true }
            guard ContinuousClock.now < deadline else { return false }
            await nextEvent(after: seen.count, deadline: deadline)
        }
    }

    /// Returns once an event beyond the first `count` has arrived, or at `deadline`.
    private func nextEvent(after count: Int, deadline: ContinuousClock.Instant) async {
        let storage = storage
        let waiter = storage.state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            storage.wake(waiter)
        }
        defer { timer.cancel() }
        await withCheckedContinuation { continuation in
            // Parked only if nothing arrived since `count` and the deadline is ahead: the timer's
            // wake, which takes the same lock at or after the deadline, then finds it.
            let parked = storage.state.withLock { state -> Bool in
                guard state.events.count == count, ContinuousClock.now < deadline else { return false }
                state.waiters[waiter] = continuation
                return true
            }
            if !parked { continuation.resume() }
        }
    }

    func waitForSubmits(_ count: Int) async {
        await wait {
            $0.filter {
                if case .submitFinished = $0 { return true }
                return false
            }.count >= count
        }
    }

    /// The events reported up to the `count`th submit's summary, by kind (see the type's comment).
    func kinds(throughSubmit count: Int) async -> [String] {
        await waitForSubmits(count)
        return all.map(\.kind)
    }
}

extension RecorderEvent {
    var kind: String {
        switch self {
        case .thresholdCrossed: return "thresholdCrossed"
        case .recordsDropped: return "recordsDropped"
        case .submitFinished: return "submitFinished"
        case .databaseRecovered: return "databaseRecovered"
        }
    }
}

extension SubmitSummary.Status {
    var name: String {
        switch self {
        case .completed: return "completed"
        case .streamsStopped: return "streamsStopped"
        case .offline: return "offline"
        case .cancelled: return "cancelled"
        case .storageFailed: return "storageFailed"
        }
    }
}
