package import FirehoseSink
package import FirehoseWire
package import Logging
package import ServerCore
import Synchronization

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Amazon Data Firehose's API over the sink, without the HTTP server: the puts (checked, throttled
/// by each stream's quota when one is set, stored) and the control plane. The front door verifies,
/// authorizes and injects faults around it.
package final class FirehoseService: Sendable {
    package struct Configuration: Sendable {
        package var region: String
        package var accountID: String
        /// How long a stream made with CreateDeliveryStream stays CREATING.
        package var streamActivationDelay: TimeInterval
        /// zlib level of GZIP streams created through the API.
        package var gzipLevel: Int32
        /// The deflate that writes the GZIP objects of streams created through the API; nil: each
        /// stream's default (`DeliveryStreamSettings.defaultGzipImplementation`).
        package var gzipImplementation: DeliveryStreamSettings.GzipImplementation?
        /// Where the functions of `Lambda` processors run on this machine.
        package var lambdaFunctions: LambdaFunctionDirectory

        package init(
            region: String, accountID: String, streamActivationDelay: TimeInterval = 0, gzipLevel: Int32 = 6,
            gzipImplementation: DeliveryStreamSettings.GzipImplementation? = nil,
            lambdaFunctions: LambdaFunctionDirectory = LambdaFunctionDirectory()
        ) {
            self.region = region
            self.accountID = accountID
            self.streamActivationDelay = streamActivationDelay
            self.gzipLevel = gzipLevel
            self.gzipImplementation = gzipImplementation
            self.lambdaFunctions = lambdaFunctions
        }
    }

    package let configuration: Configuration
    package let sink: FirehoseSink
    /// Throughput quotas per stream, when configured.
    package let quotas: StreamQuotas?
    /// Reads the data streams of `KinesisStreamAsSource` delivery streams into them, when the
    /// Kinesis stream log could be opened.
    package let kinesisSource: KinesisSourceReader?
    /// The ids puts answer with.
    package let recordIDs = RecordIDGenerator()
    private let logger: Logger
    /// Told of the records each put stored, and of those its stream's quota refused (the metrics).
    private let recordsReceived: @Sendable (_ stream: String, _ records: Int, _ bytes: Int) -> Void
    private let recordsThrottled: @Sendable (_ stream: String, _ records: Int) -> Void

    package init(
        configuration: Configuration, sink: FirehoseSink, quotas: StreamQuotas?, kinesisSource: KinesisSourceReader?,
        logger: Logger,
        recordsReceived: @escaping @Sendable (_ stream: String, _ records: Int, _ bytes: Int) -> Void = { _, _, _ in },
        recordsThrottled: @escaping @Sendable (_ stream: String, _ records: Int) -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.sink = sink
        self.quotas = quotas
        self.kinesisSource = kinesisSource
        self.logger = logger
        self.recordsReceived = recordsReceived
        self.recordsThrottled = recordsThrottled
    }

    /// Runs a control-plane operation (any but the puts).
    package func handleControlPlane(_ operation: FirehoseOperation, body: [UInt8], now: Date)
        async throws(FirehoseError) -> [UInt8]
    {
        try await ControlPlane(service: self).handle(operation, body: body, now: now)
    }

    /// The ARN of the delivery stream `name`.
    package func streamARN(_ name: String) -> String {
        ServiceLimits.streamARN(region: configuration.region, accountID: configuration.accountID, name: name)
    }

    /// What a put's `Encrypted` says: whether the stream's server-side encryption is on.
    package func isEncrypted(_ stream: String) -> Bool { sink.isEncrypted(stream) }

    func log(_ message: Logger.Message, _ metadata: Logger.Metadata) {
        logger.info(message, metadata: metadata)
    }

    /// Stores the records of a checked put (`checkPut`), but those a fault rule failed and those over
    /// the stream's quota.
    /// - Parameters:
    ///   - failed: positions of records a fault rule failed, ascending: not stored.
    ///   - reserveMemory: charges the request's memory budget for what processors make of its
    ///     records (decompressed CloudWatch Logs records).
    /// - Returns: the records over the quota, as the answer lists them: not stored either.
    package func put(
        _ input: PutRecordsRequest, except failed: [Int] = [], reserveMemory: @escaping @Sendable (Int) -> Bool
    ) async throws(FirehoseError) -> [PutRecordsResponse.RecordFailure] {
        var throttled: [Int] = []
        let skipped = Set(failed)
        if let quotas {
            let candidates = (0..<input.records.count).filter { !skipped.contains($0) }
            let admitted = quotas.admit(
                stream: input.deliveryStreamName, sizes: candidates.map { input.records.range(of: $0).count },
                now: sink.now())
            throttled = Array(candidates[admitted...])
        }
        var records = input.records
        if !skipped.isEmpty || !throttled.isEmpty {
            let stored = skipped.union(throttled)
            // The records kept are copied: charged to the request like its body.
            guard reserveMemory(input.records.totalBytes) else { throw .requestMemorySpent }
            records = RecordBatch()
            for index in 0..<input.records.count where !stored.contains(index) {
                records.append(input.records[index])
            }
        }
        do {
            if !records.isEmpty {
                try await sink.put(records, to: input.deliveryStreamName, reserveMemory: reserveMemory)
                recordsReceived(input.deliveryStreamName, records.count, records.totalBytes)
            }
            if !throttled.isEmpty {
                quotas?.noteThrottled(stream: input.deliveryStreamName, records: throttled.count)
                recordsThrottled(input.deliveryStreamName, throttled.count)
            }
            let slowDown = FirehoseError.throttled
            return throttled.map { .init(position: $0, code: slowDown.code, message: slowDown.message) }
        } catch {
            var failure = error.firehoseError(accountID: configuration.accountID)
            if let detail = failure.logDetail {
                failure.logDetail = "records for \(input.deliveryStreamName) not stored: \(detail)"
            }
            throw failure
        }
    }

    /// What a put needs before anything happens to its records: an ACTIVE stream of that name, and a
    /// batch within 4 MiB.
    package func checkPut(_ input: PutRecordsRequest) throws(FirehoseError) {
        guard let record = sink.record(of: input.deliveryStreamName) else {
            throw .resourceNotFound(stream: input.deliveryStreamName, accountID: configuration.accountID)
        }
        if record.definition.deliveryStreamType == "KinesisStreamAsSource" {
            throw .invalidArgument("This operation is not permitted on KinesisStreamAsSource delivery stream type.")
        }
        guard record.isActive(at: sink.now()) else {
            throw FirehoseError(
                code: "ResourceNotFoundException",
                message:
                    "Firehose \(input.deliveryStreamName) under account \(configuration.accountID) is not ACTIVE yet (status CREATING); wait until DescribeDeliveryStream reports ACTIVE."
            )
        }
        if input.records.totalBytes > ServiceLimits.maxBatchBytes {
            throw .invalidArgument("Records size exceeds 4 MB limit")
        }
    }
}

/// Opaque, unique record ids: a random per-process part and a counter, rendered as digits like AWS's.
package final class RecordIDGenerator: Sendable {
    private let processPart: [UInt8]
    private let counter = Atomic<UInt64>(0)

    package init() {
        processPart = Self.digits(UInt64.random(in: 0...UInt64.max))
    }

    /// 40 digits: the process part, then the counter zero-padded to 20 digits.
    package func next() -> String {
        let value = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 40) { output in
            _ = output.initialize(from: processPart)
            Self.writeDigits(value, into: UnsafeMutableBufferPointer(rebasing: output[20..<40]))
            return 40
        }
    }

    private static func digits(_ value: UInt64) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 20) { output, count in
            writeDigits(value, into: output)
            count = 20
        }
    }

    /// `value` in decimal, zero-padded to the buffer's 20 bytes (UInt64.max has 20 digits).
    private static func writeDigits(_ value: UInt64, into output: UnsafeMutableBufferPointer<UInt8>) {
        var rest = value
        for index in stride(from: 19, through: 0, by: -1) {
            output[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }
}

extension SinkError {
    /// The error a Firehose client sees for what the sink refused, in AWS's words.
    package func firehoseError(accountID: String) -> FirehoseError {
        if isUnknownStream, let name = streamName {
            return .resourceNotFound(stream: name, accountID: accountID)
        }
        if isStreamExists, let name = streamName {
            return FirehoseError(
                code: "ResourceInUseException", message: "Firehose \(name) under accountId \(accountID) already exists")
        }
        if isMemorySpent { return .requestMemorySpent }
        // AWS's words, with no local path in them; the cause goes to the log with the request id.
        var error = FirehoseError.serviceUnavailable("Slow down.")
        error.logDetail = description
        return error
    }
}
