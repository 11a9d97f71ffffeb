import DurableStorage
import FirehoseWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// What the control plane knows about a delivery stream beyond how it delivers: when and how it was
/// made, its tags, and when it becomes ACTIVE. Persisted for streams created or changed through the
/// API, so they survive a restart.
public struct StreamRecord: Codable, Sendable, Equatable {
    public enum Origin: String, Codable, Sendable {
        /// Defined in the configuration file: recreated from it at every start.
        case configurationFile
        /// Created with CreateDeliveryStream: persisted in the data directory.
        case api
    }

    /// The CreateDeliveryStream request with every UpdateDestination merged in.
    public var definition: CreateDeliveryStreamInput
    public var versionID: Int
    public var createTime: Date
    public var lastUpdateTime: Date?
    public var tags: [Tag]
    public var origin: Origin
    /// CREATING until this moment, ACTIVE from then on.
    public var activeAt: Date

    public init(
        definition: CreateDeliveryStreamInput, versionID: Int = 1, createTime: Date, lastUpdateTime: Date? = nil,
        tags: [Tag] = [], origin: Origin, activeAt: Date
    ) {
        self.definition = definition
        self.versionID = versionID
        self.createTime = createTime
        self.lastUpdateTime = lastUpdateTime
        self.tags = tags
        self.origin = origin
        self.activeAt = activeAt
    }

    public func isActive(at now: Date) -> Bool { now >= activeAt }
}

/// One registered stream: the actor that buffers and delivers, and a copy of its settings and
/// record readable without hopping onto the actor.
struct StreamEntry {
    let actor: DeliveryStream
    var settings: DeliveryStreamSettings
    var record: StreamRecord
}

/// `<data-dir>/.firehose-local/streams.json`: the streams created or changed through the API.
struct StreamCatalogFile {
    let path: String

    struct Contents: Codable {
        var format = 1
        var streams: [StreamRecord]
    }

    func load() throws(FileSystemError) -> [StreamRecord] {
        let bytes: [UInt8]
        do {
            bytes = try POSIX.readFile(path)
        } catch  where error.errno == ENOENT {
            return []
        }
        do {
            return try JSONDecoder().decode(Contents.self, from: Data(bytes)).streams
        } catch {
            throw FileSystemError(operation: "parse", path: path, errno: EINVAL)
        }
    }

    /// Written to a temporary file, fsynced and renamed over the old one: never half-written.
    func save(_ records: [StreamRecord]) throws(FileSystemError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(Contents(streams: records)) else {
            throw FileSystemError(operation: "encode", path: path, errno: EINVAL)
        }
        try AtomicFile.replace(path, with: Array(data), temporary: path + ".tmp", durable: true)
    }
}
