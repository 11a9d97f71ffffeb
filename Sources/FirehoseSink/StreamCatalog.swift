import DurableStorage
public import FirehoseWire

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
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
    /// Server-side encryption as Start/StopDeliveryStreamEncryption last left it; nil: as created
    /// (`definition.deliveryStreamEncryptionConfigurationInput`).
    public var encryption: StreamEncryption?

    /// Server-side encryption in force. Nothing is encrypted at rest here; it is described and
    /// answered (`Encrypted`) as AWS does.
    public var encryptionInForce: StreamEncryption? {
        encryption
            ?? definition.deliveryStreamEncryptionConfigurationInput.map {
                StreamEncryption(keyType: $0.keyType ?? StreamEncryption.awsOwnedKey, keyARN: $0.keyARN, enabled: true)
            }
    }

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

/// A stream's server-side encryption: its key, and whether it is on.
public struct StreamEncryption: Codable, Sendable, Equatable {
    public static let awsOwnedKey = "AWS_OWNED_CMK"
    public static let customerManagedKey = "CUSTOMER_MANAGED_CMK"

    public var keyType: String
    /// Only with `CUSTOMER_MANAGED_CMK`.
    public var keyARN: String?
    public var enabled: Bool

    public init(keyType: String, keyARN: String? = nil, enabled: Bool) {
        self.keyType = keyType
        self.keyARN = keyARN
        self.enabled = enabled
    }
}

/// One registered stream: the actor that buffers and delivers, and a copy of its settings and
/// record readable without hopping onto the actor.
struct StreamEntry {
    /// The stages that deliver objects.
    let actor: DeliveryStream
    /// A transformed stream's source stage, which takes its records first (`LambdaTransformation`).
    var source: DeliveryStream?
    /// The source-record backup's stage, which takes every record as received, beside `source` or
    /// `actor`.
    var backup: DeliveryStream?
    var settings: DeliveryStreamSettings
    var record: StreamRecord

    /// Records and bytes waiting in the stream's buffers, the source stage's included (the backup's,
    /// a second copy of the same records, not).
    var bufferFill: (records: Int, bytes: Int) {
        get async {
            let delivery = await actor.bufferFill
            guard let source else { return delivery }
            let staged = await source.bufferFill
            return (delivery.records + staged.records, delivery.bytes + staged.bytes)
        }
    }
}

/// The streams created or changed through the API, one file each:
/// `<data-dir>/.firehose-local/streams/<name>.json`.
///
/// A change writes, or removes, the one file of its stream, durably, before it becomes visible: its
/// cost does not grow with the number of streams, and a change that fails leaves no trace. Stream
/// names (`[a-zA-Z0-9_.-]{1,64}`) are safe file names once `.json` is appended.
struct StreamCatalog {
    let directory: String
    /// `streams.json`, the single file of earlier versions: read, and converted at start.
    let legacyFile: String

    init(privateFolder: String) {
        directory = "\(privateFolder)/streams"
        legacyFile = "\(privateFolder)/streams.json"
    }

    private struct StoredRecord: Codable {
        var format = 1
        var stream: StreamRecord
    }

    private struct LegacyContents: Codable {
        var format = 1
        var streams: [StreamRecord]
    }

    private static let suffix = ".json"

    func path(of name: String) -> String { "\(directory)/\(name)\(Self.suffix)" }

    /// Every saved record, by name; a stream's own file wins over the legacy file. Reads only.
    func load() throws(FileSystemError) -> [StreamRecord] {
        var records: [String: StreamRecord] = [:]
        for record in try loadLegacy() {
            if let name = record.definition.deliveryStreamName { records[name] = record }
        }
        for file in POSIX.listDirectory(directory) where file.hasSuffix(Self.suffix) {
            let path = "\(directory)/\(file)"
            let bytes = try POSIX.readFile(path)
            guard let stored = try? JSONDecoder().decode(StoredRecord.self, from: Data(bytes)),
                stored.stream.definition.deliveryStreamName.map({ self.path(of: $0) == path }) == true
            else { throw FileSystemError(operation: "parse", path: path, errno: EINVAL) }
            records[stored.stream.definition.deliveryStreamName!] = stored.stream
        }
        return records.keys.sorted().map { records[$0]! }
    }

    private func loadLegacy() throws(FileSystemError) -> [StreamRecord] {
        let bytes: [UInt8]
        do {
            bytes = try POSIX.readFile(legacyFile)
        } catch  where error.errno == ENOENT {
            return []
        }
        guard let contents = try? JSONDecoder().decode(LegacyContents.self, from: Data(bytes)) else {
            throw FileSystemError(operation: "parse", path: legacyFile, errno: EINVAL)
        }
        return contents.streams
    }

    /// Gives each record of the legacy file a file of its own, then removes the legacy file. Safe to
    /// repeat after a crash: files already written are rewritten with the same record first.
    func convertLegacy() throws(FileSystemError) {
        guard POSIX.exists(legacyFile) else { return }
        for record in try loadLegacy() where !POSIX.exists(path(of: record.definition.deliveryStreamName ?? "")) {
            try save(record)
        }
        try POSIX.remove(legacyFile)
        try POSIX.fsyncParent(of: legacyFile)
    }

    /// Written to a temporary file, fsynced, renamed over the old one and the folder fsynced: on disk
    /// whole, or not at all, when this returns.
    func save(_ record: StreamRecord) throws(FileSystemError) {
        guard let name = record.definition.deliveryStreamName else {
            throw FileSystemError(operation: "save", path: directory, errno: EINVAL)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(StoredRecord(stream: record)) else {
            throw FileSystemError(operation: "encode", path: path(of: name), errno: EINVAL)
        }
        try POSIX.makeDirectoriesDurably(directory)
        try AtomicFile.replace(path(of: name), with: Array(data), temporary: path(of: name) + ".tmp", durable: true)
    }

    /// Removes the stream's file, durably; nothing to do when it has none.
    func remove(_ name: String) throws(FileSystemError) {
        guard try POSIX.remove(path(of: name)) else { return }
        try POSIX.fsyncDirectory(directory)
    }
}
