package import FirehoseWire

extension FirehoseError {
    /// The request-memory budget is spent: shed (SDKs retry a 503) rather than queue.
    package static var requestMemorySpent: FirehoseError {
        .serviceUnavailable("firehose-local is holding its maximum of request data in memory; retry shortly.")
    }
}
