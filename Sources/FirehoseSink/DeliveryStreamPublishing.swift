import DurableStorage
import FirehoseKeyLayout
import FirehoseWire
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

// Publishing: the retired buffers of a stream go, in order, to the destination or the stage's
// consumer (`PublishQueue`), with the work ahead of them started off the actor (`WorkAhead`), the
// requests held back while delivery encodings catch up (`EncodingRoom`), and retries on a timer.
extension DeliveryStream {
    /// Content of retired buffers still to be encoded at delivery beyond which a request waits before
    /// it stages anything (`waitForEncodingRoom`): the configured bytes (32 MiB), and at least twice
    /// the size hint, so that one full buffer being encoded never holds requests back.
    func encodingBacklogLimit() -> Int {
        max(encodingBacklogBytes, 2 * settings.bufferSizeBytes)
    }

    /// Holds a request to a stream whose objects are encoded whole at delivery (GZIP by libdeflate)
    /// back while the buffers waiting to be encoded hold more content than `encodingBacklogLimit`,
    /// this stream's or every stream's encodings under way. (A partitioned stream's buffers, encoded
    /// a chunk at a time, do not wait: its ~120 partitions retire in bursts of ~120 MiB, and waiting
    /// for a burst to drain took its p99.9 from 0.6 to 2.1 s.) Staging as they are takes
    /// records in far faster than the encodings on their own threads compress them, so without this
    /// the backlog, its files and descriptors, and the time a flush or a shutdown takes would grow as
    /// long as the load lasts; with it, intake runs at the rate objects are delivered, as it does when
    /// records are compressed as they arrive. Only where this stream publishes into a folder itself:
    /// an upload to a store, a function or an endpoint may be down for long, and staging durably
    /// while it is, is the point. Never while publishing fails (the retry timer has the backlog then).
    func waitForEncodingRoom() async {
        guard settings.encoding is any WholeObjectEncoding, !receiverMayBeAway else { return }
        while true {
            var backlog = 0
            for (buffer, _) in publishQueue.retired where buffer.encodesAtDelivery {
                backlog += buffer.uncompressedBytes
            }
            switch encodingRoom.admit(
                backlog: backlog, limit: encodingBacklogLimit(), publishingFails: publishQueue.consecutiveFailures > 0,
                streamDeleted: discarded.load(ordering: .relaxed))
            {
            case .pass: return
            case .wait: await withCheckedContinuation { encodingRoom.wait($0) }
            case .enter:
                // Every stream's encodings share the cores (`DeliveryEncoding.gate`): with a backlog
                // each, a stream's next object would wait behind all of theirs.
                await DeliveryEncoding.waitForRoom(below: encodingBacklogLimit())
                return
            }
        }
    }

    /// Lets waiting requests look again (`waitForEncodingRoom`): a buffer left the queue, publishing
    /// failed, or the stream went.
    func wakeEncodingRoomWaiters() {
        for waiter in encodingRoom.wakeAll() { waiter.resume() }
    }

    /// Publishes what a request made ready. A source stage's publishing runs the function, which may
    /// take minutes: the request is not kept waiting for it, and it runs in a task of its own. So
    /// does the publishing of a transformed stream's delivery stages, which that one task feeds: it
    /// must not wait for their buffers to be compressed and delivered before it transforms the next.
    func publishAfterRequest() async -> [DeliveredObject] {
        // A rename into a folder is delivered in the request that filled the buffer; an upload to a
        // store, a function or an endpoint in the background, so no put waits for them. So is an
        // object encoded whole at delivery: the request that filled its buffer would wait for the
        // whole object's compression, queued behind every other stream's (eight libdeflate streams:
        // p99 421 ms, where records compressed as they arrive gave 123).
        // (Not with `IntervalInSeconds: 0`, which promises the object by the time the put returns.)
        guard receiverMayBeAway || (settings.encoding is any WholeObjectEncoding && settings.bufferIntervalSeconds > 0)
        else {
            return await publishLoggingFailure()
        }
        // A buffer retired behind one being consumed starts its consumption now.
        if consumer != nil { startConsuming() }
        // After a failure the retry timer publishes, with backoff: a request must not run the
        // function again for every put meanwhile (but does once a publishing succeeded: a stream whose
        // intake waits for its encodings would otherwise wait for the timer).
        if publishQueue.startBackgroundPublisher() {
            Task {
                _ = await self.publishLoggingFailure()
                self.publishQueue.backgroundPublisherEnded()
            }
        }
        return []
    }

    /// The buffers go to a function, an endpoint or a store, any of which may be down for long: they
    /// are published in the background, and requests go on staging while the receiver is away.
    var receiverMayBeAway: Bool {
        consumer != nil || settings.transformation != nil || objectDestination.isRemote(bucket: settings.bucket)
    }

    /// Publishes what is ready; a failure is logged and retried with backoff.
    func publishLoggingFailure() async -> [DeliveredObject] {
        let outcome = await publishReady(waitingForOthers: false)
        if let failure = outcome.failure {
            onDeliveryFailure(failure, bufferFill.records)
            logger.error(
                "Delivery failed; the buffer stays staged and is retried",
                metadata: [
                    "error": .string(failure.description),
                    "pending_objects": .stringConvertible(publishQueue.retired.count),
                    "retry_in_seconds": .stringConvertible(publishQueue.nextRetryDelay),
                ])
            scheduleRetry()
        }
        return outcome.delivered.flatMap(\.object)
    }

    /// Retries failed deliveries with exponential backoff (1 s, 2 s, 4 s … 60 s).
    /// A retry waits its backoff times a factor drawn from this range, so streams that failed
    /// together (a store that was down) do not all come back at once.
    package static let retryJitter: ClosedRange<Double> = 0.5...1.0

    func scheduleRetry() {
        defer { wakeEncodingRoomWaiters() }  // they stage while publishing fails
        guard case .arm(let seconds) = publishQueue.failed() else { return }
        let delay = DeliveryBackoff.delay(seconds: seconds, jitter: retryJitterRange)
        retryTask = Task { [clock] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            await self.retryDelivery()
        }
    }

    func retryDelivery() async {
        retryTask = nil
        publishQueue.retryFired()
        if publishQueue.isEmpty {
            for buffer in buffers.all where buffer.recordCount > 0 && buffer.settings.bufferIntervalSeconds == 0 {
                retire(buffer, reason: .interval)
            }
        }
        guard !publishQueue.isEmpty else { return }
        _ = await publishLoggingFailure()
    }

    struct PublishOutcome {
        var delivered: [(id: UUID, object: [DeliveredObject])] = []
        var failure: FileSystemError?
    }

    /// Publishes the retired buffers in order — completes the encoding, hands the data file to the
    /// destination, removes the staging files — stopping at one that still waits for reserved
    /// segments. The destination runs on the blocking-I/O thread, so the stream keeps accepting
    /// meanwhile. One publisher at a time: a caller that finds one under way
    /// returns at once (that one goes on to whatever else became ready), unless `waitingForOthers`.
    /// A failure leaves that buffer (and those after it) queued, so nothing acknowledged is dropped.
    func publishReady(waitingForOthers: Bool) async -> PublishOutcome {
        // Nearly every request passes here; a buffer being published stays queued until done.
        turn: while true {
            switch publishQueue.requestTurn(waitingForOthers: waitingForOthers) {
            case .nothingToPublish, .leftToOtherPublisher: return PublishOutcome()
            case .waitForOtherPublisher: await withCheckedContinuation { publishQueue.waitForTurn($0) }
            case .publish: break turn
            }
        }
        defer {
            for waiter in publishQueue.endTurn() { waiter.resume() }
            wakeEncodingRoomWaiters()
        }
        var outcome = PublishOutcome()
        publishing: while let (buffer, reason) = publishQueue.next, buffer.pendingSegments == 0 {
            // Buffers retired while this turn runs start encoding too, so encodings keep every core busy.
            startDeliveryEncodings()
            if buffer.isUnlinked {
                abandon(buffer)
                continue
            }
            if let consumer {
                do {
                    try await consume(buffer, with: consumer, into: &outcome)
                } catch {
                    outcome.failure = error
                    break publishing
                }
                continue
            }
            let settings = buffer.settings
            let key = buffer.objectKey
            let staged: StagedObject
            let storedBytes: Int
            do {
                try buffer.finishEncoding()
                if buffer.encodesAtDelivery {
                    let started = deliveryEncodings.remove(buffer.id) ?? startDeliveryEncoding(buffer)
                    var result = await started.value
                    if case .failure = result, !buffer.isAbandoned {
                        // Started a while ago, perhaps before a transient failure (a full disk) passed.
                        result = await startDeliveryEncoding(buffer).value
                    }
                    guard !buffer.isAbandoned else {
                        // The stream was deleted meanwhile: nothing of it is delivered.
                        publishQueue.remove(buffer)
                        POSIX.unlink(buffer.encodedPath)
                        continue publishing
                    }
                    storedBytes = try result.get()
                    staged = StagedObject(
                        path: buffer.encodedPath, descriptor: try POSIX.open(buffer.encodedPath, flags: O_RDONLY))
                } else {
                    staged = StagedObject(path: buffer.dataPath, descriptor: try buffer.duplicateDataDescriptor())
                    storedBytes = buffer.storedBytes
                }
            } catch {
                outcome.failure = error
                break publishing
            }
            // Staged as it was, the content outlives the object's delivery by a moment: removed after
            // the journal, so a crash in between leaves nothing or a journal that delivers it again.
            let stagingFiles = [buffer.journalPath] + (buffer.encodesAtDelivery ? [buffer.dataPath] : [])
            let delivery: Result<String, FileSystemError>
            do throws(FileSystemError) {
                let path = try await objectDestination.deliver(staged, bucket: buffer.settings.bucket, key: key)
                // The object is at its destination for good: the journal has done its job (and a
                // copy that was not renamed away goes with it).
                await BlockingIO.run {
                    POSIX.close(staged.descriptor)
                    for file in stagingFiles + [staged.path] { POSIX.unlink(file) }
                }
                delivery = .success(path)
            } catch {
                POSIX.close(staged.descriptor)
                delivery = .failure(error)
            }
            // The stream was deleted meanwhile: its buffers are gone, whatever this one became.
            guard !buffer.isAbandoned else {
                publishQueue.remove(buffer)
                continue
            }
            let path: String
            switch delivery {
            case .success(let delivered): path = delivered
            case .failure(let failure):
                if buffer.encodesAtDelivery {
                    // Its object file stays: the retry sends it as it is, not encoded again.
                    deliveryEncodings.record(Task { .success(storedBytes) }, for: buffer.id)
                }
                outcome.failure = failure
                break publishing
            }
            buffer.close()
            let object = DeliveredObject(
                stream: settings.name, bucket: buffer.settings.bucket, key: key, path: path,
                records: buffer.recordCount,
                bytes: buffer.uncompressedBytes, storedBytes: storedBytes, reason: reason,
                firstArrival: buffer.firstArrival, errorOutputType: buffer.partition.errorOutputType,
                isBackup: settings.isBackupStage)
            publishQueue.published(buffer, as: [object])
            if buffer.encodesAtDelivery { wakeEncodingRoomWaiters() }
            announce(object)
            outcome.delivered.append((buffer.id, [object]))
        }
        return outcome
    }

    /// Publishes a buffer of a stage with a consumer: the consumer's first half (started ahead, or
    /// now), then its second, in buffer order; then the buffer's staging files go.
    func consume(
        _ buffer: StagingBuffer, with consumer: StagedBufferConsumer, into outcome: inout PublishOutcome
    ) async throws(FileSystemError) {
        try buffer.finishEncoding()
        // Registered until the buffer is done, second half included: a request meanwhile starts the
        // next buffers' first halves beside it, never this one's again.
        let started = consuming.work(for: buffer.id) ?? startConsuming(buffer, with: consumer)
        consuming.record(started, for: buffer.id)
        // A second half that fails keeps what the first made, so a retry stages it again rather
        // than invoke the function, or send to the endpoint, once more.
        var firstToKeep: Task<Result<StagedBufferConsumer.Finish, FileSystemError>, Never>?
        defer {
            if let firstToKeep, !buffer.isAbandoned {
                consuming.record(firstToKeep, for: buffer.id)
            } else {
                consuming.remove(buffer.id)
            }
        }
        startConsuming()
        var first = await started.value
        if case .failure = first, !buffer.isAbandoned {
            // Started a while ago, perhaps before a transient failure passed.
            let again = startConsuming(buffer, with: consumer)
            consuming.record(again, for: buffer.id)
            first = await again.value
        }
        let result: Result<[DeliveredObject], FileSystemError>
        switch first {
        case .success(let finish):
            result = buffer.isAbandoned ? .success([]) : await finish()
            if case .failure = result { firstToKeep = Task { .success(finish) } }
        case .failure(let error): result = .failure(error)
        }
        guard !buffer.isAbandoned else {
            // The stream was deleted meanwhile.
            publishQueue.remove(buffer)
            return
        }
        let objects = try result.get()
        // What the consumer made of the records is staged further on: the buffer is done.
        let files = [buffer.journalPath, buffer.dataPath]
        await BlockingIO.run { for file in files { POSIX.unlink(file) } }
        buffer.close()
        publishQueue.published(buffer, as: objects)
        outcome.delivered.append((buffer.id, objects))
    }

    /// Starts the consumer's first half, off the actor, for the next retired buffers that hold all
    /// their content, up to its `ahead`; their second halves run in order.
    func startConsuming() {
        guard let consumer else { return }
        let starting = consuming.toStart(
            publishQueue.retired.lazy.map(\.buffer), needsWork: { !$0.isAbandoned }, isReady: Self.holdsAllContent)
        for buffer in starting { consuming.record(startConsuming(buffer, with: consumer), for: buffer.id) }
    }

    /// Whether every segment of the buffer is written, and its encoding finished (a failure to is met
    /// again, and reported, when the buffer's turn comes).
    static func holdsAllContent(_ buffer: StagingBuffer) -> Bool {
        buffer.pendingSegments == 0 && (try? buffer.finishEncoding()) != nil
    }

    func startConsuming(_ buffer: StagingBuffer, with consumer: StagedBufferConsumer)
        -> Task<Result<StagedBufferConsumer.Finish, FileSystemError>, Never>
    {
        let staged = StagedBufferConsumer.Staged(
            path: buffer.dataPath, length: buffer.uncompressedBytes, contentCRC: buffer.contentCRC,
            firstArrival: buffer.firstArrival, settings: buffer.settings, partition: buffer.partition)
        let isStopped: @Sendable () -> Bool = { [weak self] in self?.discarded.load(ordering: .relaxed) ?? true }
        return Task { await consumer.start(staged, isStopped) }
    }

    /// Starts encoding, off the actor, each retired buffer that is encoded at delivery and holds all
    /// its content (no reserved segment left to write), so the buffers of many partitions encode on
    /// every core while the oldest is published.
    func startDeliveryEncodings() {
        let starting = deliveryEncodings.toStart(
            publishQueue.retired.lazy.map(\.buffer), needsWork: \.encodesAtDelivery, isReady: Self.holdsAllContent)
        for buffer in starting { deliveryEncodings.record(startDeliveryEncoding(buffer), for: buffer.id) }
    }

    /// Encodes a buffer staged as it is into its object file (`StagingBuffer.encodedPath`).
    /// - Precondition: every segment of the buffer is written (`finishEncoding`).
    func startDeliveryEncoding(_ buffer: StagingBuffer) -> DeliveryEncodingTask {
        let (source, length, crc, encoding, destination) = (
            buffer.dataPath, buffer.uncompressedBytes, buffer.contentCRC, buffer.settings.encoding, buffer.encodedPath
        )
        return Task {
            do throws(FileSystemError) {
                return .success(
                    try await DeliveryEncoding.encode(
                        source, length: length, contentCRC: crc, with: encoding, into: destination))
            } catch {
                return .failure(error)
            }
        }
    }

    /// A buffer dropped before its delivery encoding was used: its object file goes once written.
    func dropDeliveryEncoding(of buffer: StagingBuffer) {
        guard let task = deliveryEncodings.remove(buffer.id) else { return }
        let path = buffer.encodedPath
        Task {
            _ = await task.value
            POSIX.unlink(path)
        }
    }

    /// Delivers records recovered from a crashed run's staging files as one object, encoded with the
    /// stream's current settings, then removes the staging files.
    /// - Parameter key: the key the journal fixed when the buffer opened; nil (older journals): one
    ///   made with the stream's current settings.
    /// - Parameter encoding: the encoding the journal fixed with the key; nil (older journals): the
    ///   stream's current one.
    func deliverRecovered(
        _ raw: [UInt8], records: Int, partition: PartitionKey, key fixedKey: String?,
        encoding fixedEncoding: (any ObjectEncoding)? = nil, firstArrival: Date, versionID: Int, stagingFiles: [String]
    ) async throws(FileSystemError) -> DeliveredObject {
        let key =
            fixedKey
            ?? settings.objectKey(
                for: partition, versionID: versionID, firstArrival: firstArrival, randomSource: &random)
        // A key made now goes with the current encoding; a fixed key with the encoding fixed with it.
        let encoding = fixedKey == nil ? settings.encoding : (fixedEncoding ?? settings.encoding)
        let encoded = try encoding.encodeWhole(raw)
        let temporary = "\(stagingDirectory)/\(UUID().uuidString.lowercased()).recovered"
        let fd = try POSIX.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL)
        defer {
            POSIX.close(fd)
            POSIX.unlink(temporary)
        }
        try POSIX.writeAll(fd, encoded, at: 0, path: temporary)
        let path = try await objectDestination.deliver(
            StagedObject(path: temporary, descriptor: fd), bucket: settings.bucket, key: key)
        for file in stagingFiles { POSIX.unlink(file) }
        let object = DeliveredObject(
            stream: settings.name, bucket: settings.bucket, key: key, path: path, records: records, bytes: raw.count,
            storedBytes: encoded.count, reason: .recovery, firstArrival: firstArrival,
            errorOutputType: partition.errorOutputType, isBackup: settings.isBackupStage)
        announce(object)
        return object
    }

    /// The encoding that staged a buffer, by the name its journal gives: the stream's own, or the
    /// built-in one of that name (the stream's compression changed since).
    func encoding(named name: String) -> (any ObjectEncoding)? {
        if settings.encoding.name == name { return settings.encoding }
        return DeliveryStreamSettings.Compression(rawValue: name)?.encoding(
            gzipLevel: settings.gzipLevel, implementation: settings.gzipImplementation)
    }

    func announce(_ object: DeliveredObject) {
        var metadata: Logger.Metadata = [
            "bucket": .string(object.bucket), "key": .string(object.key),
            "records": .stringConvertible(object.records), "bytes": .stringConvertible(object.bytes),
            "stored_bytes": .stringConvertible(object.storedBytes), "reason": .string(object.reason.rawValue),
        ]
        if object.isSourceBackup { metadata["backup"] = "source records" }
        if let type = object.errorOutputType { metadata["error_output_type"] = .string(type) }
        logger.info(
            object.isSourceBackup ? "Delivered source-record backup object" : "Delivered object", metadata: metadata)
        onDelivery(object)
    }
}
