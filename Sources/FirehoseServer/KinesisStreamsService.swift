import FirehoseService
import FirehoseSink
import KinesisService
import KinesisStreams
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The Kinesis side's background work until the server shuts down: reads the data streams of
/// `KinesisStreamAsSource` delivery streams once a second, as Firehose polls each shard, and deletes
/// records past retention once a minute.
struct KinesisStreamsService: Service {
    let reader: KinesisSourceReader
    let kinesis: KinesisAPI
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    var interval: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await reader.readAvailable()
                let (kinesis, now) = (kinesis, now())
                await BlockingIO.run(on: StreamLog.writeQueue) { kinesis.trimExpired(now: now) }
                try? await clock.sleep(for: interval)
            }
        }
    }
}
