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

/// Collects a recorder's events as they arrive.
final class EventLog: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[RecorderEvent]>([])
    }
    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<RecorderEvent>) {
        let storage = self.storage
        task = Task {
            for await event in stream { storage.events.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    var all: [RecorderEvent] { storage.events.withLock { $0 } }

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

    /// Waits (up to 2 s) until `condition` holds for the events received so far.
    @discardableResult
    func wait(until condition: @escaping ([RecorderEvent]) -> Bool) async -> Bool {
        for _ in 0..<200 {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(all)
    }

    func waitForSubmits(_ count: Int) async {
        await wait {
            $0.filter {
                if case .submitFinished = $0 { return true }
                return false
            }.count >= count
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
