import Logging

/// Holds the metadata set on a logger and hands it to the wrapped handler only with a message.
///
/// Hummingbird tags every request's logger with `hb.request.id`, and `StreamLogHandler` renders its
/// whole metadata to text each time metadata is set — once per request, although the server seldom
/// logs while answering one. Passing the metadata with each message prints the same line.
struct DeferredMetadataLogHandler: LogHandler {
    private var wrapped: any LogHandler
    private var own: Logger.Metadata = [:]

    init(wrapping handler: any LogHandler) {
        wrapped = handler
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    var metadata: Logger.Metadata {
        get { own.isEmpty ? wrapped.metadata : wrapped.metadata.merging(own) { $1 } }
        set {
            wrapped.metadata = [:]
            own = newValue
        }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { own[key] ?? wrapped[metadataKey: key] }
        set { own[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !own.isEmpty {
            event.metadata = event.metadata.map { own.merging($0) { $1 } } ?? own
        }
        wrapped.log(event: event)
    }
}
