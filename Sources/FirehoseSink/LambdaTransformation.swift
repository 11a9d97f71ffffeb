import AsyncHTTPClientTransport
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

/// A stream's `Lambda` processor: the function that transforms its records and how Firehose buffers
/// records for it (data-transformation.html). Validated by the API layer.
package struct LambdaTransformationSettings: Sendable, Equatable {
    /// Where the function runs here.
    package var function: LambdaFunction
    /// `LambdaArn`, as given: the error records' `lambdaARN`.
    package var functionARN: String
    /// `NumberOfRetries`: invocations that fail are tried this many more times.
    package var numberOfRetries: Int
    /// `BufferSizeInMBs` in bytes: source records are batched up to this much per invocation.
    package var bufferSizeBytes: Int
    /// `BufferIntervalInSeconds`: or until the oldest has waited this long.
    package var bufferIntervalSeconds: Int
    /// The event's `deliveryStreamArn` and `region`.
    package var deliveryStreamARN: String
    package var region: String
    /// How long one invocation may take before it counts as `Lambda.FunctionTimedOut`.
    package var invocationTimeout: Duration

    /// What an invocation waits at most by default: the longest invocation Firehose supports, five
    /// minutes (data-transformation.html, "Lambda invocation duration"); one that takes longer is a
    /// timeout there too.
    package static let defaultInvocationTimeout = Duration.seconds(300)

    /// AWS's defaults for the parameters (data-transformation.html, data-transformation-failure-handling.html).
    package static let defaultNumberOfRetries = 3
    package static let defaultBufferSizeBytes = 1_048_576
    package static let defaultBufferIntervalSeconds = 60

    package init(
        function: LambdaFunction, functionARN: String, numberOfRetries: Int = Self.defaultNumberOfRetries,
        bufferSizeBytes: Int = Self.defaultBufferSizeBytes,
        bufferIntervalSeconds: Int = Self.defaultBufferIntervalSeconds, deliveryStreamARN: String, region: String,
        invocationTimeout: Duration = Self.defaultInvocationTimeout
    ) {
        self.function = function
        self.functionARN = functionARN
        self.numberOfRetries = numberOfRetries
        self.bufferSizeBytes = bufferSizeBytes
        self.bufferIntervalSeconds = bufferIntervalSeconds
        self.deliveryStreamARN = deliveryStreamARN
        self.region = region
        self.invocationTimeout = invocationTimeout
    }
}

/// How a transformed stream stages its source records until the function has seen them: each record
/// framed with its length and arrival, so a staged buffer gives back the records, their boundaries and
/// the `approximateArrivalTimestamp` of each, after a crash too.
///
/// `<UInt32 length, little-endian> <Int64 arrival in epoch milliseconds, little-endian> <record>`
enum SourceRecordFrame {
    static let headerBytes = 12

    /// Appends `record`, framed, to `storage`.
    static func append(_ record: some Collection<UInt8>, arrivalMilliseconds: Int64, to storage: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(record.count).littleEndian) { storage.append(contentsOf: $0) }
        withUnsafeBytes(of: arrivalMilliseconds.littleEndian) { storage.append(contentsOf: $0) }
        storage.append(contentsOf: record)
    }

    /// One framed record of a staged buffer.
    struct Framed {
        var arrivalMilliseconds: Int64
        /// The record's bytes in the buffer.
        var record: Range<Int>
        /// The whole frame in the buffer.
        var frame: Range<Int>
    }

    /// The frames of `bytes`, in order; nil when they do not tile it exactly (not a framed buffer).
    static func parse(_ bytes: [UInt8]) -> [Framed]? {
        var frames: [Framed] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= headerBytes else { return nil }
            var length: UInt32 = 0
            var arrival: Int64 = 0
            bytes.withUnsafeBytes { raw in
                length = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                arrival = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: Int64.self))
            }
            let start = offset + headerBytes
            guard Int(length) <= bytes.count - start else { return nil }
            frames.append(
                Framed(
                    arrivalMilliseconds: arrival, record: start..<start + Int(length),
                    frame: offset..<start + Int(length)))
            offset = start + Int(length)
        }
        return frames
    }

}

/// Frames each record with its arrival (`SourceRecordFrame`): the last step of a stage whose buffers
/// a consumer reads record by record (`RecordPipeline.framesRecords`).
struct SourceRecordFraming: RecordProcessor {
    func process(_ records: RecordBatch, context: RecordContext, outcome: inout ProcessingOutcome) -> RecordBatch {
        let size = records.totalBytes + records.count * SourceRecordFrame.headerBytes
        guard context.reserveMemory(size) else {
            outcome.memorySpent = true
            return RecordBatch()
        }
        let arrival = context.arrival.epochMilliseconds
        var storage: [UInt8] = []
        storage.reserveCapacity(size)
        var ends: [Int] = []
        ends.reserveCapacity(records.count)
        for index in 0..<records.count {
            SourceRecordFrame.append(records[index], arrivalMilliseconds: arrival, to: &storage)
            ends.append(storage.count)
        }
        return RecordBatch(storage: storage, ends: ends)
    }
}

/// What a function made of a batch of source records, on its way to the stages after it.
struct TransformedRecords: Sendable {
    /// The `Ok` records, as the function gave them, in order.
    var records = RecordBatch()
    /// Each `Ok` record's `metadata.partitionKeys` (empty without).
    var partitionKeys: [[String: String]] = []
    /// Error records (`processing-failed`) of the records the function failed on.
    var failed = RecordBatch()
}

/// The publishing step of a transformed stream's source stage: a staged buffer of source records
/// goes through the function (`invoke`) — batched under Lambda's payload limit, each invocation
/// retried as `NumberOfRetries` says — and what it gives back into the stream's delivery stages
/// (`stage`, into `downstream`);
/// records it fails, or that no attempt could transform, to the `processing-failed` error output.
/// The buffer stays staged until that is staged in turn, so a crash or a failure to stage repeats
/// the transformation rather than lose records (at least once).
struct LambdaTransformation: Sendable {
    let downstream: DeliveryStream
    let now: @Sendable () -> Date
    let logger: Logger
    /// Whether the stream's role may invoke the function, when roles are checked: the stream's name and
    /// role, and the gate (nil: no role to check).
    var roleCheck: (stream: String, roleARN: String, gate: DeliveryRoleGate)?
    /// Told how many records the function dropped on purpose (`Dropped`).
    let onDropped: @Sendable (Int) -> Void
    /// How an Invoke API endpoint is reached.
    var transport: any HTTPTransport = AsyncHTTPClientTransport()
    /// Where invocations run: a shutdown whose time is up abandons them, and their records stay staged.
    var outgoing = OutgoingWork()

    /// How many buffers' functions run at once, the one of the buffer being published included: the
    /// function is invoked for the next buffer while the previous result is staged (Firehose, too,
    /// invokes a function concurrently).
    static let invocationsAhead = 2

    /// The source stage's consumer: `invoke`, then `stage`; error records a processor before the
    /// function made (a record Decompression could not gunzip) go on to the stream's error output.
    var consumer: StagedBufferConsumer {
        StagedBufferConsumer(ahead: Self.invocationsAhead, errorsTo: downstream) { staged, isStopped in
            guard let settings = staged.settings.transformation else {
                preconditionFailure("a source stage's buffer has the Lambda processor's settings")
            }
            let invoked = await invoke(
                staged, settings: settings, isStopped: { [outgoing] in isStopped() || outgoing.isAbandoned })
            return invoked.map { invoked in { await stage(invoked, firstArrival: staged.firstArrival) } }
        }
    }

    /// Distinguishes record ids across the invocations of this run.
    private static let nextRecordID = Atomic<UInt64>(0)

    /// What the function made of a staged source buffer, before it is staged downstream.
    struct Invoked: Sendable {
        var records: TransformedRecords
        /// Records the function answered `Dropped`.
        var dropped: Int
    }

    /// Runs the function over a staged source buffer. The first half of publishing a source buffer;
    /// invocations of several buffers may run at once, each staged in turn (`stage`).
    /// - Parameter isStopped: true once the stream is deleted: the transformation stops (between
    ///   invocations).
    func invoke(
        _ staged: StagedBufferConsumer.Staged, settings: LambdaTransformationSettings,
        isStopped: @escaping @Sendable () -> Bool = { false }
    ) async -> Result<Invoked, FileSystemError> {
        switch await staged.framedRecords() {
        case .success(let records): return await invoke(records, settings: settings, isStopped: isStopped)
        case .failure(let error): return .failure(error)
        }
    }

    /// Runs the function over `records` (with their arrivals in epoch milliseconds), in as few
    /// invocations as Lambda's payload limit allows.
    func invoke(
        _ records: [(data: ArraySlice<UInt8>, arrival: Int64)], settings: LambdaTransformationSettings,
        isStopped: @escaping @Sendable () -> Bool = { false }
    ) async -> Result<Invoked, FileSystemError> {
        let stopped = FileSystemError(operation: "transform", path: settings.deliveryStreamARN, errno: ECANCELED)
        var output = Invoked(records: TransformedRecords(), dropped: 0)
        var start = 0
        let eventBytes = 256 + settings.deliveryStreamARN.utf8.count + settings.region.utf8.count
        while start < records.count {
            // As many records as fit one invocation's payload.
            var end = start
            var bytes = eventBytes
            var batch: [LambdaContract.Record] = []
            while end < records.count {
                let record = LambdaContract.Record(
                    id: Self.recordID(Self.nextRecordID.add(1, ordering: .relaxed).oldValue),
                    approximateArrivalTimestamp: records[end].arrival, data: Array(records[end].data))
                let size = LambdaContract.eventBytes(of: record)
                guard bytes + size <= LambdaContract.maxPayloadBytes else {
                    if batch.isEmpty {
                        // Alone too large for an event (a record a processor before the function
                        // decompressed): never sent, and failed as Lambda would refuse it.
                        ErrorOutput.appendLambdaFailure(
                            record.data, failure: .recordTooLarge(record.data.count), arrival: record.arrival,
                            attemptEnding: now(), attemptsMade: 0, lambdaARN: settings.functionARN,
                            to: &output.records.failed)
                        end += 1
                    }
                    break
                }
                bytes += size
                batch.append(record)
                end += 1
            }
            start = end
            guard !batch.isEmpty else { continue }
            guard !isStopped() else { return .failure(stopped) }
            let (outcomes, attempts) = await invoke(batch, settings: settings, isStopped: isStopped)
            guard !isStopped() else { return .failure(stopped) }
            let attemptEnding = now()
            for (record, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .ok(let data, let keys):
                    output.records.records.append(data)
                    output.records.partitionKeys.append(keys)
                case .dropped:
                    output.dropped += 1
                case .failed(let failure):
                    ErrorOutput.appendLambdaFailure(
                        record.data, failure: failure, arrival: record.arrival, attemptEnding: attemptEnding,
                        attemptsMade: attempts, lambdaARN: settings.functionARN, to: &output.records.failed)
                }
            }
        }
        return .success(output)
    }

    /// Stages what the function gave back in the stream's delivery stages: the second half of
    /// publishing a source buffer, in the order the buffers were staged. Returns the objects
    /// delivered on the way.
    func stage(_ invoked: Invoked, firstArrival: Date) async -> Result<[DeliveredObject], FileSystemError> {
        do {
            let delivered = try await downstream.append(transformed: invoked.records, arrival: firstArrival)
            if invoked.dropped > 0 { onDropped(invoked.dropped) }
            return .success(delivered)
        } catch {
            return .failure(error.asFileSystemError)
        }
    }

    /// Invokes the function with `batch` until it answers with the status model or the retries are
    /// spent (or the stream is deleted); returns each record's outcome (all failed with the last
    /// failure when no attempt succeeded) and the attempts made.
    private func invoke(
        _ batch: [LambdaContract.Record], settings: LambdaTransformationSettings, isStopped: () -> Bool
    ) async -> (outcomes: [LambdaContract.Outcome], attempts: Int) {
        var attempts = 0
        var failure = LambdaContract.Failure.functionError("")
        let event = LambdaContract.event(
            invocationID: UUID().uuidString.lowercased(), deliveryStreamARN: settings.deliveryStreamARN,
            region: settings.region, records: batch)
        while attempts <= settings.numberOfRetries, !isStopped() {
            attempts += 1
            let answer: Result<[UInt8], LambdaContract.Failure>
            if let refusal = invokeRefusal(settings.functionARN) {
                // The role may not invoke the function: the attempt fails without running it.
                answer = .failure(.accessDenied(refusal))
            } else {
                guard
                    let invoked = await outgoing.run({ [event, transport] in
                        await settings.function.invoke(
                            event, timeout: settings.invocationTimeout, transport: transport)
                    }), !isStopped()
                else { break }
                answer = invoked
            }
            switch answer.flatMap({ LambdaContract.outcomes(of: $0, for: batch) }) {
            case .success(let outcomes):
                return (outcomes, attempts)
            case .failure(let error):
                failure = error
                logger.warning(
                    "Lambda invocation failed",
                    metadata: [
                        "function": .string(settings.functionARN), "records": .stringConvertible(batch.count),
                        "attempt": .stringConvertible(attempts), "error_code": .string(error.code),
                        "error": .string(error.message),
                        "retries_left": .stringConvertible(settings.numberOfRetries + 1 - attempts),
                    ])
            }
        }
        return (Array(repeating: .failed(failure), count: batch.count), attempts)
    }

    /// Why the stream's role may not invoke `functionARN`, when roles are checked.
    private func invokeRefusal(_ functionARN: String) -> DeliveryRoleRefusal? {
        guard let roleCheck else { return nil }
        return roleCheck.gate.refusal {
            DeliveryRoleRequest(
                stream: roleCheck.stream, roleARN: roleCheck.roleARN, action: "lambda:InvokeFunction",
                resource: functionARN)
        }
    }

    /// Record ids are opaque to the function; AWS's are long decimal numbers, and so are these.
    static func recordID(_ number: UInt64) -> String {
        let digits = String(number)
        return "49" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }
}
