import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a stream has received and delivered since the process started.
public struct StreamCounters: Sendable, Equatable {
    public var recordsReceived = 0
    public var bytesReceived = 0
    public var objectsWritten = 0
    public var recordsDelivered = 0
    public var bytesDelivered = 0
    /// Records written to the error output, by error output type (`metadata-extraction-failed`, ...).
    public var errorRecords: [String: Int] = [:]
    /// Records a processor dropped on purpose (CloudWatch Logs control messages).
    public var recordsDropped = 0
    /// What the source-record backup delivered (counted apart: those records are delivered twice).
    public var backupObjectsWritten = 0
    public var backupRecordsDelivered = 0
    /// What an HTTP endpoint destination took and refused (a delivery there writes no object).
    public var endpoint = EndpointCounters()
    public var lastDelivery: DeliveredObject?
    public var lastDeliveryTime: Date?
    /// Failed delivery attempts (each retry that fails counts).
    public var deliveryFailures = 0
    /// Whether the latest attempt failed: something stays staged until an attempt succeeds.
    public var deliveryFailing = false
    public var lastDeliveryError: String?
    public var lastDeliveryErrorTime: Date?

    public init() {}

    /// Objects written, and requests an HTTP endpoint accepted: what `/_local/wait` counts.
    public var deliveries: Int { objectsWritten + endpoint.requestsAccepted }
}

/// An HTTP endpoint destination's requests and records since the process started.
public struct EndpointCounters: Sendable, Equatable {
    /// Requests the endpoint accepted, and the records in them.
    public var requestsAccepted = 0
    public var recordsDelivered = 0
    /// Attempts that failed (each retry counts).
    public var attemptsFailed = 0
    /// Records of requests no attempt got accepted: sent to the `http-endpoint-failed` error output.
    public var recordsFailed = 0
}

/// What happened to a request to an HTTP endpoint destination.
public enum HTTPEndpointEvent: Sendable, Equatable {
    /// The endpoint accepted a request of `records` records.
    case accepted(records: Int)
    /// An attempt failed with AWS's error code (`HttpEndpoint.ResponseTooLarge`, ...) and message.
    case attemptFailed(code: String, message: String)
    /// No attempt got a request of `records` records accepted: they go to the error output.
    case gaveUp(records: Int)
}

/// Counts what every stream received and delivered, and lets callers wait for deliveries without
/// polling: the basis of `/_local/streams`, `/_local/wait` and the metrics.
final class DeliveryTracker: Sendable {
    private struct Waiter {
        var stream: String?
        var objects: Int
        var continuation: CheckedContinuation<Bool, Never>
        var id: UInt64
    }

    private struct State {
        var counters: [String: StreamCounters] = [:]
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Objects delivered by a stream while someone records them (`startRecording`), by recording.
        var recordings: [UInt64: (stream: String, objects: [DeliveredObject])] = [:]
    }

    private let state = Mutex(State())

    func received(records: Int, bytes: Int, stream: String) {
        state.withLock {
            $0.counters[stream, default: StreamCounters()].recordsReceived += records
            $0.counters[stream, default: StreamCounters()].bytesReceived += bytes
        }
    }

    func dropped(records: Int, stream: String) {
        state.withLock { $0.counters[stream, default: StreamCounters()].recordsDropped += records }
    }

    func delivered(_ object: DeliveredObject, at time: Date) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            var counters = state.counters[object.stream, default: StreamCounters()]
            if object.isSourceBackup {
                counters.backupObjectsWritten += 1
                counters.backupRecordsDelivered += object.records
            } else {
                counters.objectsWritten += 1
                counters.recordsDelivered += object.records
                counters.bytesDelivered += object.bytes
                if let type = object.errorOutputType { counters.errorRecords[type, default: 0] += object.records }
                counters.lastDelivery = object
                counters.lastDeliveryTime = time
                // The destination delivers again. An object of a backup stage says nothing about it
                // (an HTTP endpoint's S3 configuration writes error objects while the endpoint fails).
                if !object.isBackup { counters.deliveryFailing = false }
            }
            state.counters[object.stream] = counters
            for (id, recording) in state.recordings where recording.stream == object.stream {
                state.recordings[id]?.objects.append(object)
            }
            return Self.takeSatisfied(&state)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    func deliveryFailed(stream: String, error: String, at time: Date) {
        state.withLock { state in
            var counters = state.counters[stream, default: StreamCounters()]
            counters.deliveryFailures += 1
            counters.deliveryFailing = true
            counters.lastDeliveryError = error
            counters.lastDeliveryErrorTime = time
            state.counters[stream] = counters
        }
    }

    func endpoint(_ event: HTTPEndpointEvent, stream: String, at time: Date) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            var counters = state.counters[stream, default: StreamCounters()]
            switch event {
            case .accepted(let records):
                counters.endpoint.requestsAccepted += 1
                counters.endpoint.recordsDelivered += records
                counters.deliveryFailing = false
            case .attemptFailed(let code, let message):
                counters.endpoint.attemptsFailed += 1
                counters.deliveryFailures += 1
                counters.deliveryFailing = true
                counters.lastDeliveryError = "\(code): \(message)"
                counters.lastDeliveryErrorTime = time
            case .gaveUp(let records):
                // The records leave the stage for the error output: nothing waits on the endpoint.
                counters.endpoint.recordsFailed += records
                counters.deliveryFailing = false
            }
            state.counters[stream] = counters
            return Self.takeSatisfied(&state)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Starts keeping the objects `stream` delivers, until `stopRecording`.
    func startRecording(stream: String) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.recordings[state.nextID] = (stream, [])
            return state.nextID
        }
    }

    /// The objects delivered since `startRecording` returned `id`, in order.
    func stopRecording(_ id: UInt64) -> [DeliveredObject] {
        state.withLock { $0.recordings.removeValue(forKey: id)?.objects ?? [] }
    }

    func removeStream(_ stream: String) {
        state.withLock { _ = $0.counters.removeValue(forKey: stream) }
    }

    func counters(_ stream: String) -> StreamCounters {
        state.withLock { $0.counters[stream] ?? StreamCounters() }
    }

    /// Deliveries of `stream` (or all streams) since start: objects written, and requests an HTTP
    /// endpoint accepted (a delivery there writes no object).
    func deliveries(_ stream: String?) -> Int {
        state.withLock { Self.objects(in: $0, stream: stream) }
    }

    /// Waits until `stream` (or all streams together) has made at least `objects` deliveries since
    /// start (`StreamCounters.deliveries`); false when `timeout` passes first on `clock`.
    func waitForObjects(_ objects: Int, stream: String?, timeout: Duration, clock: any Clock<Duration>) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        // The timer or a cancellation may come before the waiter is registered; `expired` makes that
        // case answer at once.
        let expired = ExpiredWaits()
        let expire: @Sendable () -> Void = { [self] in
            let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                expired.ids.withLock { _ = $0.insert(id) }
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            continuation?.resume(returning: false)
        }
        let timer = Task {
            try? await clock.sleep(for: timeout)
            expire()
        }
        defer { timer.cancel() }
        // A cancelled wait (the client went away) answers at once instead of holding its waiter.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer = state.withLock { state -> Bool? in
                    if Self.objects(in: state, stream: stream) >= objects { return true }
                    if expired.ids.withLock({ $0.contains(id) }) { return false }
                    state.waiters.append(Waiter(stream: stream, objects: objects, continuation: continuation, id: id))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            expire()
        }
    }

    private static func objects(in state: State, stream: String?) -> Int {
        if let stream { return state.counters[stream]?.deliveries ?? 0 }
        return state.counters.values.reduce(0) { $0 + $1.deliveries }
    }

    private static func takeSatisfied(_ state: inout State) -> [CheckedContinuation<Bool, Never>] {
        var ready: [CheckedContinuation<Bool, Never>] = []
        var waiting: [Waiter] = []
        for waiter in state.waiters {
            if objects(in: state, stream: waiter.stream) >= waiter.objects {
                ready.append(waiter.continuation)
            } else {
                waiting.append(waiter)
            }
        }
        state.waiters = waiting
        return ready
    }
}

private final class ExpiredWaits: Sendable {
    let ids = Mutex<Set<UInt64>>([])
}
