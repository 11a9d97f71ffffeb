package import DurableStorage
import FirehoseWire

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What publishes a stage's buffers instead of writing each as an object: for a transformed stream's
/// source stage, the `Lambda` processor (`LambdaTransformation.consumer`); for a stage whose
/// destination consumes records, the destination's (`StreamDestination.consumer`). Publishing a buffer runs
/// in two halves: `start` reads the staged buffer and does the slow part (invoking a function) off
/// the stage, for up to `ahead` buffers at once; the `Finish` it gives back stages the outcome
/// further on, in buffer order. The buffer stays staged until `Finish` succeeds, so a crash or a
/// failure repeats the work rather than lose records (at least once).
package struct StagedBufferConsumer: Sendable {
    /// A buffer whose content is all written (`StagingBuffer.finishEncoding`), as `start` reads it.
    package struct Staged: Sendable {
        package var path: String
        /// Bytes staged, and their CRC-32: content that no longer matches is refused.
        package var length: Int
        package var contentCRC: UInt32
        package var firstArrival: Date
        /// The settings the buffer was staged with.
        package var settings: DeliveryStreamSettings
        package var partition: PartitionKey
    }

    /// The second half: stages what the first made of the buffer; the objects delivered on the way.
    package typealias Finish = @Sendable () async -> Result<[DeliveredObject], FileSystemError>

    package typealias Start =
        @Sendable (_ staged: Staged, _ isStopped: @escaping @Sendable () -> Bool) async -> Result<
            Finish, FileSystemError
        >

    /// How many buffers' first halves may run at once, the one being published included.
    package let ahead: Int
    /// The first half. `isStopped` turns true once the stream is deleted: the work stops.
    package let start: Start

    package init(ahead: Int, start: @escaping Start) {
        self.ahead = ahead
        self.start = start
    }

    /// A consumer whose stage's error-output buffers (error records a processor made, one line
    /// each) go on as they are to the error output of `errors`, and whose other buffers `records`
    /// consumes (framed, `SourceRecordFrame`).
    init(ahead: Int, errorsTo errors: DeliveryStream, records: @escaping Start) {
        self.ahead = ahead
        start = { staged, isStopped in
            guard let type = staged.partition.errorOutputType else { return await records(staged, isStopped) }
            return await staged.content().map { bytes in
                let lines = ErrorOutput.lines(bytes)
                return { await errors.stage(errorRecords: lines, type: type, arrival: staged.firstArrival) }
            }
        }
    }
}

extension StagedBufferConsumer.Staged {
    /// The staged bytes; refused (EIO) when they no longer match what was written, as delivery
    /// refuses them.
    package func content() async -> Result<[UInt8], FileSystemError> {
        let (path, length, contentCRC) = (path, length, contentCRC)
        return await BlockingIO.run { () -> Result<[UInt8], FileSystemError> in
            do throws(FileSystemError) {
                let bytes = try POSIX.readFile(path)
                guard bytes.count == length, bytes.withUnsafeBytes({ CRC32.checksum($0) }) == contentCRC else {
                    return .failure(FileSystemError(operation: "read", path: path, errno: EIO))
                }
                return .success(bytes)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The records framed in the buffer, with their arrivals in epoch milliseconds.
    package func framedRecords() async -> Result<[(data: ArraySlice<UInt8>, arrival: Int64)], FileSystemError> {
        await content().flatMap { bytes in
            guard let frames = SourceRecordFrame.parse(bytes) else {
                return .failure(FileSystemError(operation: "read", path: path, errno: EIO))
            }
            return .success(frames.map { (bytes[$0.record], $0.arrivalMilliseconds) })
        }
    }
}

extension DeliveryStream {
    /// Stages error records another stage made in the error output of `type`: a consumer's second half.
    nonisolated func stage(errorRecords records: RecordBatch, type: String, arrival: Date) async -> Result<
        [DeliveredObject], FileSystemError
    > {
        guard !records.isEmpty else { return .success([]) }
        do {
            return .success(try await append(errorRecords: records, type: type, arrival: arrival))
        } catch {
            return .failure(error.asFileSystemError)
        }
    }
}

extension SinkError {
    /// The failure as a consumer's second half reports it: the storage error, or the refusal itself.
    var asFileSystemError: FileSystemError {
        storageError ?? FileSystemError(operation: "stage", path: description, errno: ECANCELED)
    }
}
