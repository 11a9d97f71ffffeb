import FaultInjection
import FirehoseSink
import FirehoseWire
import Logging
import ServerCore
import ServiceLifecycle
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a Firehose request meets the fault rules: asks them, waits out the latency, and refuses,
/// hangs or marks the request for a connection reset as they decided. Counts and logs each rule that
/// fired.
struct FaultStage {
    let api: FirehoseAPI
    let request: APIRequest
    let requestID: String
    let operation: FaultOperation
    /// The caller's access key, when a rule may ask for it.
    var accessKeyID: String?
    /// What the rules decided, once `apply` has run.
    private(set) var outcome: FaultDecision.Outcome?

    init(api: FirehoseAPI, request: APIRequest, requestID: String, operation: FaultOperation) {
        self.api = api
        self.request = request
        self.requestID = requestID
        self.operation = operation
    }

    /// The PutRecordBatch records a rule failed, as the answer lists them (ascending positions).
    var failedRecords: [PutRecordsResponse.RecordFailure] {
        guard case .failRecords(let positions, let code, let message) = outcome else { return [] }
        return positions.map { .init(position: $0, code: code, message: message) }
    }

    /// Runs the rules on the request. Throws the error a rule answers with; returns the answer that
    /// replaces the request's own (a connection reset, after a hang or not), or nil to carry it out.
    /// - Parameters:
    ///   - stream: the stream the request names, a valid name (or nil).
    ///   - streamExists: whether it exists; firings are counted by stream only then.
    mutating func apply(stream: String?, streamExists: Bool = true, records: Int) async throws(FirehoseError)
        -> APIResponse?
    {
        guard !api.faults.isEmpty else { return nil }
        let request = FaultRequest(
            operation: operation, stream: stream, streamExists: streamExists, accessKeyID: accessKeyID,
            records: records)
        let decision = api.faults.decide(request, now: api.sink.now())
        guard !decision.isEmpty else { return nil }
        outcome = decision.outcome
        for rule in decision.fired { api.metrics.faultInjected(rule: rule, stream: request.countedStream) }
        api.logFault(decision, requestID: requestID, operation: operation.name, stream: stream)
        if decision.latency > .zero, let reason = await waitUnlessInterrupted(for: decision.latency) {
            // A client that gave up does not get its request carried out behind its back.
            api.log("Fault delay cut short; the request is not carried out", metadata(reason))
            return .connectionReset
        }
        switch decision.outcome {
        case .error(let error):
            throw error
        case .resetConnection(.beforeRead):
            return .connectionReset
        case .hang(let duration):
            await hang(for: duration)
            return .connectionReset
        case .resetConnection(.afterRead), .failRecords, nil:
            return nil
        }
    }

    /// The request's answer, or a reset in its place when a rule asked for one after the request.
    func finish(_ response: APIResponse) -> APIResponse {
        guard case .resetConnection(.afterRead) = outcome else { return response }
        return .connectionReset
    }

    /// Holds the request unanswered until the client closes its connection, the server shuts down or
    /// `duration` passes. Hangs take the waiting slots of `/_local/wait` requests, so they cannot take
    /// every connection; past the limit the connection is reset at once.
    private func hang(for duration: Duration) async {
        guard api.takeWaitingSlot() else {
            api.log("Hang refused: every waiting slot is taken; the connection is reset at once", metadata(nil))
            return
        }
        defer { api.releaseWaitingSlot() }
        let reason = await waitUnlessInterrupted(for: duration)
        api.log("Hang over", metadata(reason ?? "its \(duration) passed"))
    }

    /// Waits `duration` on the sink's clock unless the client closes its side of the connection, the
    /// server shuts down or the request is cancelled first; returns which of those, or nil.
    private func waitUnlessInterrupted(for duration: Duration) async -> String? {
        let clock = api.sink.clock
        let sleeper = Task { try? await clock.sleep(for: duration) }
        // The first reason to stop is the one reported.
        let interrupted = Mutex<String?>(nil)
        let stop = { @Sendable (reason: String) in
            interrupted.withLock { if $0 == nil { $0 = reason } }
            sleeper.cancel()
        }
        request.onClientGone { stop("the client closed the connection") }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await sleeper.value
            } onGracefulShutdown: {
                stop("the server is shutting down")
            }
        } onCancel: {
            stop("the request was cancelled")
        }
        return interrupted.withLock { $0 }
    }

    private func metadata(_ reason: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["request_id": .string(requestID)]
        if let reason { metadata["reason"] = .string(reason) }
        return metadata
    }

    /// `DeliveryStreamName` of a control-plane request body when it is a valid name, for rules that
    /// match on streams (an invalid name cannot name a stream, and is not logged). Read as the control
    /// plane reads it: of repeated members, the last.
    static func streamName(in body: [UInt8]) -> String? {
        guard let name = try? RequestJSON.decode(StreamNameShape.self, from: body).DeliveryStreamName,
            ServiceLimits.streamNameViolations(name).isEmpty
        else { return nil }
        return name
    }

    /// The data stream a Kinesis request names (`StreamName`, else `StreamARN`'s), when valid.
    static func kinesisStreamName(in body: [UInt8]) -> String? {
        guard let shape = try? RequestJSON.decode(KinesisStreamNameShape.self, from: body) else { return nil }
        if let name = shape.StreamName {
            return ServiceLimits.kinesisStreamNameViolations(name).isEmpty ? name : nil
        }
        return shape.StreamARN.flatMap { ServiceLimits.kinesisStreamARNParts($0)?.name }
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    private struct StreamNameShape: Decodable {
        var DeliveryStreamName: String?
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    private struct KinesisStreamNameShape: Decodable {
        var StreamName: String?
        var StreamARN: String?
    }
}

extension APIResponse {
    /// No answer: the HTTP layer resets the connection (a fault rule's doing).
    static var connectionReset: APIResponse {
        var response = APIResponse(status: 500)
        response.resetsConnection = true
        return response
    }

    /// The `code` label of requests answered with a reset in the request metrics.
    static let connectionResetCode = "ConnectionReset"
}

extension FirehoseAPI {
    func logFault(_ decision: FaultDecision, requestID: String, operation: String, stream: String?) {
        var metadata: Logger.Metadata = [
            "request_id": .string(requestID), "operation": .string(operation),
            "rules": .array(decision.fired.map { .string($0) }),
        ]
        if let stream { metadata["stream"] = .string(stream) }
        if decision.latency > .zero { metadata["latency"] = .string("\(decision.latency)") }
        switch decision.outcome {
        case .failRecords(let positions, let code, _):
            metadata["effect"] = .string("\(positions.count) of the batch's records fail with \(code)")
        case .error(let error):
            metadata["effect"] = .string("answered \(error.httpStatus) \(error.code)")
        case .resetConnection(let moment):
            metadata["effect"] = .string(
                moment == .beforeRead
                    ? "connection reset, request not carried out" : "request carried out, connection reset")
        case .hang(let duration):
            metadata["effect"] = .string("no answer for up to \(duration), then a connection reset")
        case nil:
            metadata["effect"] = .string("delayed")
        }
        log("Fault injected", metadata)
    }
}
