import DurableStorage
import FirehoseWire
import HTTPTransports
import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Delivers records to an HTTP endpoint as Firehose does (`HTTPEndpointContract`): at most 10,000
/// records per request, each request retried with the same request id as `RetryOptions` says
/// (`HTTPEndpointRetry`, waits on the injected clock), and the records of a request no attempt got
/// accepted given back as AWS's `http-endpoint-failed` error records. Nothing here decides where
/// those go: the stream's S3 configuration.
struct HTTPEndpointDelivery: Sendable {
    let transport: any HTTPTransport
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    let logger: Logger
    /// A factor from 0.85 to 1.15 for each wait (random in use; tests fix it).
    var jitter: @Sendable () -> Double = { Double.random(in: 0.85...1.15) }
    /// Told each request accepted, attempt failed and request given up (counters, metrics).
    var onEvent: @Sendable (HTTPEndpointEvent) -> Void = { _ in }
    /// Where requests run. Once shutdown begins a failed request is not retried and a wait under way
    /// ends within a second; once its time is up, requests are abandoned. Their records stay staged.
    var outgoing = OutgoingWork()
    /// How long an endpoint has to answer each attempt.
    var responseTimeout = HTTPEndpointContract.responseTimeout
    /// The endpoint settings in force now, for a request staged under the given ones: read again
    /// before every attempt, so that UpdateDestination (a new Url, key or RetryOptions) also reaches
    /// what waits to be retried.
    var currentSettings: @Sendable (HTTPEndpointSettings) -> HTTPEndpointSettings = { $0 }

    /// What became of a batch of records.
    struct Outcome: Sendable {
        /// Error records (one JSON line each) of the records no attempt got accepted, for the
        /// `http-endpoint-failed` error output.
        var failed = RecordBatch()
        /// Requests the endpoint accepted.
        var accepted = 0
        /// Attempts made, the accepted ones included.
        var attempts = 0
        /// Delivery stopped before every record was accepted or failed (shutdown cancelled a wait, or
        /// the stream was deleted): the records stay staged, to be sent again, and `failed` is empty.
        var interrupted = false
    }

    /// Distinguishes the error records' `dataId` across the deliveries of this run.
    private static let nextDataID = Atomic<UInt64>(0)

    /// Sends `records` (with their arrivals in epoch milliseconds), in order.
    /// - Parameter isStopped: true once the stream is deleted: no further attempt is made, and what
    ///   was not accepted is not reported as failed (the stream's records are discarded).
    func deliver(
        _ records: [(data: ArraySlice<UInt8>, arrival: Int64)], settings: HTTPEndpointSettings,
        isStopped: @escaping @Sendable () -> Bool = { false }
    ) async -> Outcome {
        var outcome = Outcome()
        var start = 0
        while start < records.count, !isStopped() {
            let end = min(start + HTTPEndpointContract.maxRecordsPerRequest, records.count)
            let batch = records[start..<end]
            start = end
            let failure: HTTPEndpointContract.Failure
            let attempts: Int
            switch await send(batch.map(\.data), settings: settings, isStopped: isStopped) {
            case .accepted(let attempts):
                outcome.attempts += attempts
                outcome.accepted += 1
                continue
            case .interrupted:
                // The whole buffer stays staged and is sent again: nothing of it is reported failed.
                return Outcome(accepted: outcome.accepted, attempts: outcome.attempts, interrupted: true)
            case .failed(let last, let made):
                outcome.attempts += made
                (failure, attempts) = (last, made)
            }
            onEvent(.gaveUp(records: batch.count))
            let ending = now()
            for record in batch {
                let dataID = LambdaTransformation.recordID(Self.nextDataID.add(1, ordering: .relaxed).oldValue)
                ErrorOutput.appendHTTPEndpointFailure(
                    record.data, failure: failure,
                    arrival: Date(timeIntervalSince1970: TimeInterval(record.arrival) / 1000), attemptEnding: ending,
                    attemptsMade: attempts, dataID: dataID + ".0", to: &outcome.failed)
            }
        }
        guard start == records.count else {
            return Outcome(accepted: outcome.accepted, attempts: outcome.attempts, interrupted: true)
        }
        return outcome
    }

    private enum Sent {
        case accepted(attempts: Int)
        case failed(HTTPEndpointContract.Failure, attempts: Int)
        case interrupted
    }

    /// Sends one request until the endpoint accepts it, the retries are spent, or delivery stops.
    private func send(
        _ records: [ArraySlice<UInt8>], settings: HTTPEndpointSettings, isStopped: () -> Bool
    ) async -> Sent {
        let requestID = UUID().uuidString.lowercased()
        let timestamp = now()
        var settings = currentSettings(settings)
        var retry = HTTPEndpointRetry(duration: settings.retryDuration)
        var attempts = 0
        // Every attempt sends the same request, id and timestamp included, unless the settings change.
        var request = HTTPEndpointContract.request(
            id: requestID, timestamp: timestamp, records: records, settings: settings, timeout: responseTimeout)
        while true {
            if attempts > 0, case let latest = currentSettings(settings), latest != settings {
                // Updated while this request waited: the new settings, and their retry window.
                settings = latest
                retry = HTTPEndpointRetry(duration: latest.retryDuration)
                request = HTTPEndpointContract.request(
                    id: requestID, timestamp: timestamp, records: records, settings: latest, timeout: responseTimeout)
            }
            attempts += 1
            let answer = await outgoing.run {
                [transport, request, responseTimeout] () -> HTTPEndpointContract.Failure? in
                do {
                    return HTTPEndpointContract.check(try await transport.send(request), requestID: requestID)
                } catch let failure as TransportFailure {
                    if failure.timedOut { return .timedOut(after: responseTimeout) }
                    if failure.answerTooLarge { return .responseTooLarge }
                    return .connectionFailed(failure.reason)
                } catch {
                    return .connectionFailed("\(error)")
                }
            }
            // Abandoned at shutdown before it started.
            guard let answer else { return .interrupted }
            guard let failure = answer else {
                // Not for a deleted stream: its counters are gone, and a stream of that name may come.
                if !isStopped() { onEvent(.accepted(records: records.count)) }
                return .accepted(attempts: attempts)
            }
            // Abandoned on its way (the failure is the cancellation): the records are sent again.
            guard !outgoing.isAbandoned, !isStopped() else { return .interrupted }
            onEvent(.attemptFailed(code: failure.code, message: failure.message))
            let next = retry.attemptFailed(failure, jitter: jitter())
            logger.warning(
                "HTTP endpoint delivery attempt failed",
                metadata: [
                    "url": .string(settings.url.absoluteString), "request_id": .string(requestID),
                    "records": .stringConvertible(records.count), "attempt": .stringConvertible(attempts),
                    "error_code": .string(failure.code), "error": .string(failure.message),
                    "retry": .string(next == .giveUp ? "no: retries spent" : "yes"),
                ])
            guard !isStopped(), !outgoing.retriesStopped else { return .interrupted }
            guard case .retry(let delay) = next else { return .failed(failure, attempts: attempts) }
            // In slices of a second at most, so that a shutdown does not wait out a 2-minute wait.
            var left = delay
            while left > .zero {
                let slice = min(left, .seconds(1))
                do {
                    try await clock.sleep(for: slice)
                } catch {
                    // Cancelled: the records stay staged and are delivered by the next start.
                    return .interrupted
                }
                left -= slice
                guard !isStopped(), !outgoing.retriesStopped else { return .interrupted }
            }
        }
    }
}

/// An HTTP endpoint destination (`HttpEndpointDestinationConfiguration`): the stream's records are
/// framed in its stage's buffers and sent by `HTTPEndpointDelivery`; the stream's backup stage is
/// then its `S3Configuration`, which takes the records no attempt got accepted (and, with
/// `AllData`, every record as received).
package struct HTTPEndpointDestination: StreamDestination {
    package var endpoint: HTTPEndpointSettings

    package init(_ endpoint: HTTPEndpointSettings) {
        self.endpoint = endpoint
    }

    static let destinationName = "HttpEndpoint"

    package var name: String { Self.destinationName }
    package var consumesRecords: Bool { true }
    package var backsUpEveryRecord: Bool { endpoint.backupMode == .allData }
    package var deliversBeforeUpdate: Bool { false }

    /// A buffer's records go to the endpoint, and those no attempt got accepted to the S3
    /// configuration's stage, in the `http-endpoint-failed` error output, as do error records
    /// processors made. One buffer at a time: an endpoint gets requests in order.
    package func consumer(in context: DestinationContext) -> StagedBufferConsumer? {
        guard let s3 = context.s3Stage else {
            preconditionFailure("an HTTP endpoint stream has its S3 configuration's stage")
        }
        var delivery = HTTPEndpointDelivery(
            transport: context.transport, clock: context.clock, now: context.now, logger: context.logger)
        delivery.onEvent = context.onEndpointEvent
        delivery.outgoing = context.outgoing
        delivery.responseTimeout = context.responseTimeout
        let current = context.current
        delivery.currentSettings = { staged in
            (current() as? HTTPEndpointDestination)?.endpoint ?? staged
        }
        return StagedBufferConsumer(ahead: 1, errorsTo: s3) { [delivery] staged, isStopped in
            guard let endpoint = staged.settings.httpEndpoint else {
                preconditionFailure("an HTTP endpoint stage's buffer has the endpoint's settings")
            }
            let records: [(data: ArraySlice<UInt8>, arrival: Int64)]
            switch await staged.framedRecords() {
            case .success(let read): records = read
            case .failure(let error): return .failure(error)
            }
            let outcome = await delivery.deliver(records, settings: endpoint, isStopped: isStopped)
            guard !outcome.interrupted else {
                return .failure(
                    FileSystemError(operation: "deliver to", path: endpoint.url.absoluteString, errno: ECANCELED))
            }
            let failed = outcome.failed
            return .success {
                await s3.stage(
                    errorRecords: failed, type: ErrorOutput.httpEndpointFailedType, arrival: staged.firstArrival)
            }
        }
    }
}

extension DeliveryStreamSettings {
    /// The HTTP endpoint the stream delivers to, if it does (what DescribeDeliveryStream and
    /// `/_local/streams` show of it).
    package var httpEndpoint: HTTPEndpointSettings? { (destination as? HTTPEndpointDestination)?.endpoint }
}
