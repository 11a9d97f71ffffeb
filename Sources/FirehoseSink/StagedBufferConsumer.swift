import DurableStorage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What publishes a stage's buffers instead of writing each as an object: for a transformed stream's
/// source stage, the `Lambda` processor (`LambdaTransformation.consumer`). Publishing a buffer runs
/// in two halves: `start` reads the staged buffer and does the slow part (invoking a function) off
/// the stage, for up to `ahead` buffers at once; the `Finish` it gives back stages the outcome
/// further on, in buffer order. The buffer stays staged until `Finish` succeeds, so a crash or a
/// failure repeats the work rather than lose records (at least once).
struct StagedBufferConsumer: Sendable {
    /// A buffer whose content is all written (`StagingBuffer.finishEncoding`), as `start` reads it.
    struct Staged: Sendable {
        var path: String
        /// Bytes staged, and their CRC-32: content that no longer matches is refused.
        var length: Int
        var contentCRC: UInt32
        var firstArrival: Date
        /// The settings the buffer was staged with.
        var settings: DeliveryStreamSettings
        var partition: PartitionKey
    }

    /// The second half: stages what the first made of the buffer; the objects delivered on the way.
    typealias Finish = @Sendable () async -> Result<[DeliveredObject], FileSystemError>

    /// How many buffers' first halves may run at once, the one being published included.
    let ahead: Int
    /// The first half. `isStopped` turns true once the stream is deleted: the work stops.
    let start:
        @Sendable (_ staged: Staged, _ isStopped: @escaping @Sendable () -> Bool) async -> Result<
            Finish, FileSystemError
        >
}
