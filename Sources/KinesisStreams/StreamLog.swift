import Crypto
import DurableStorage
package import Foundation
import GRDB
import Synchronization

/// A data stream as the log keeps it.
public struct StoredStream: Sendable, Equatable {
    public enum Mode: String, Sendable {
        case provisioned = "PROVISIONED"
        case onDemand = "ON_DEMAND"
    }

    /// Never reused, so a sequence number or iterator of a deleted stream is not taken for one of a
    /// stream re-created under its name.
    public var id: Int64
    public var name: String
    public var createdMilliseconds: Int64
    public var shardCount: Int
    public var mode: Mode
    public var retentionHours: Int
    public var maxRecordSizeInKiB: Int

    public var keySpace: HashKeySpace { HashKeySpace(shardCount: shardCount) }

    /// Records that arrived before this instant are past the retention period.
    public func retentionCutoff(nowMilliseconds: Int64) -> Int64 {
        nowMilliseconds - Int64(retentionHours) * 3_600_000
    }
}

/// What a stream is created with.
public struct StreamDefinition: Sendable, Equatable {
    public var name: String
    public var shardCount: Int
    public var mode: StoredStream.Mode
    public var retentionHours: Int
    public var maxRecordSizeInKiB: Int
    public var tags: [String: String]

    public init(
        name: String, shardCount: Int, mode: StoredStream.Mode = .provisioned, retentionHours: Int = 24,
        maxRecordSizeInKiB: Int = 1024, tags: [String: String] = [:]
    ) {
        self.name = name
        self.shardCount = shardCount
        self.mode = mode
        self.retentionHours = retentionHours
        self.maxRecordSizeInKiB = maxRecordSizeInKiB
        self.tags = tags
    }
}

/// One put's records, for `StreamLog.append(_:)` with the puts written in the same transaction.
public struct AppendGroup: Sendable {
    public var records: [RecordToAppend]
    public var stream: StoredStream
    public var nowMilliseconds: Int64

    public init(records: [RecordToAppend], stream: StoredStream, nowMilliseconds: Int64) {
        self.records = records
        self.stream = stream
        self.nowMilliseconds = nowMilliseconds
    }
}

/// One record to append: the shard its hash key chose, and what GetRecords gives back.
public struct RecordToAppend: Sendable {
    public var shard: Int
    public var partitionKey: String
    public var data: [UInt8]

    public init(shard: Int, partitionKey: String, data: [UInt8]) {
        self.shard = shard
        self.partitionKey = partitionKey
        self.data = data
    }
}

/// A record read back from a shard.
public struct ShardRecord: Sendable, Equatable {
    public var position: Int64
    public var arrivalMilliseconds: Int64
    public var partitionKey: String
    public var data: [UInt8]
}

/// A page of one shard's records.
public struct ShardRead: Sendable, Equatable {
    public var records: [ShardRecord]
    /// Where the next read of this shard starts.
    public var nextPosition: Int64
    /// Arrival of the shard's newest record not in `records`, if any: how far behind the reader is.
    public var oldestUnreadArrival: Int64?
}

public enum StreamLogError: Error, Sendable, Equatable {
    case streamNotFound(String)
    case streamExists(String)
    case tooManyStreams(limit: Int)
    case tooManyTags(stream: String, limit: Int)
    /// SQLite failed (full disk, damaged file…): nothing was acknowledged.
    case storage(String)
}

/// Every data stream's records, durable before a put is answered: one SQLite database in WAL mode
/// with `synchronous=FULL` (a commit is on disk when it returns), so an acknowledged record
/// survives `kill -9` and power loss. A record's position is its row id, which only grows (SQLite's
/// AUTOINCREMENT never reuses one), so positions order every shard's records and a shard's records
/// are read by one index range. Records past their stream's retention are neither read nor kept:
/// reads skip them and `trim` deletes them, so the file stays the size of the retained data.
public final class StreamLog: Sendable {
    /// Where the log's writes run (puts, stream changes, checkpoints, trims): their own thread, so
    /// a put's fsync neither waits behind Firehose's group commits nor holds them up (SQLite has one
    /// writer anyway).
    package static let writeQueue = DispatchQueue(label: "firehose-local.kinesis-writes")

    private let pool: DatabasePool
    /// Seals the iterators and paging tokens handed out, with a key kept in the log.
    public let seal: TokenSeal
    /// The newest arrival written, so arrivals never go backwards with the wall clock and a
    /// timestamp read finds records in position order.
    private let lastArrival = Mutex<Int64>(0)
    public static let maxStreams = 1_000

    /// Opens (or creates) the log at `path`, with its folder.
    public init(path: String) throws(StreamLogError) {
        do {
            try POSIX.makeDirectoriesDurably((path as NSString).deletingLastPathComponent)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.label = "KinesisStreams"
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA secure_delete = FAST; PRAGMA temp_store = MEMORY")
            }
            pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets NORMAL when it opens a pool in WAL mode: FULL is set on the open writer.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // Pages freed by trimming go back to the file system (`incremental_vacuum` after a
                // trim). A file already in WAL mode takes the setting at a VACUUM only: once, when
                // the file is new and empty.
                let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
                if tables == 0, try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 {
                    try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL; VACUUM")
                }
            }
            try pool.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS streams (
                            id INTEGER PRIMARY KEY AUTOINCREMENT,
                            name TEXT NOT NULL UNIQUE,
                            created_ms INTEGER NOT NULL,
                            shard_count INTEGER NOT NULL,
                            mode TEXT NOT NULL,
                            retention_hours INTEGER NOT NULL,
                            max_record_kib INTEGER NOT NULL
                        );
                        CREATE TABLE IF NOT EXISTS records (
                            position INTEGER PRIMARY KEY AUTOINCREMENT,
                            stream INTEGER NOT NULL,
                            shard INTEGER NOT NULL,
                            arrival_ms INTEGER NOT NULL,
                            partition_key TEXT NOT NULL,
                            data BLOB NOT NULL
                        );
                        CREATE INDEX IF NOT EXISTS records_by_shard ON records (stream, shard, position);
                        CREATE INDEX IF NOT EXISTS records_by_arrival ON records (stream, shard, arrival_ms);
                        CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value BLOB NOT NULL);
                        CREATE TABLE IF NOT EXISTS consumers (name TEXT PRIMARY KEY, start_ms INTEGER NOT NULL);
                        CREATE TABLE IF NOT EXISTS tags (
                            stream INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (stream, key)
                        );
                        CREATE TABLE IF NOT EXISTS checkpoints (
                            consumer TEXT NOT NULL,
                            stream INTEGER NOT NULL,
                            shard INTEGER NOT NULL,
                            position INTEGER NOT NULL,
                            PRIMARY KEY (consumer, stream, shard)
                        );
                        """)
            }
            let key = try pool.write { db -> [UInt8] in
                if let saved = try Data.fetchOne(db, sql: "SELECT value FROM settings WHERE name = 'token-key'") {
                    return [UInt8](saved)
                }
                let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { [UInt8]($0) }
                try db.execute(
                    sql: "INSERT INTO settings (name, value) VALUES ('token-key', ?)", arguments: [Data(fresh)])
                return fresh
            }
            seal = TokenSeal(key: key)
            let newest = try pool.read { db in try Int64.fetchOne(db, sql: "SELECT max(arrival_ms) FROM records") }
            lastArrival.withLock { $0 = newest ?? 0 }
        } catch let error as StreamLogError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    // MARK: Streams

    public func create(_ definition: StreamDefinition, nowMilliseconds: Int64) throws(StreamLogError) -> StoredStream {
        try write { db throws(StreamLogError) in
            do {
                if try Self.stream(named: definition.name, in: db) != nil {
                    throw StreamLogError.streamExists(definition.name)
                }
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM streams") ?? 0
                guard count < Self.maxStreams else { throw StreamLogError.tooManyStreams(limit: Self.maxStreams) }
                try db.execute(
                    sql: """
                        INSERT INTO streams (name, created_ms, shard_count, mode, retention_hours, max_record_kib)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        definition.name, nowMilliseconds, definition.shardCount, definition.mode.rawValue,
                        definition.retentionHours, definition.maxRecordSizeInKiB,
                    ])
                let id = db.lastInsertedRowID
                try Self.setTags(definition.tags, stream: id, in: db)
                return StoredStream(
                    id: id, name: definition.name, createdMilliseconds: nowMilliseconds,
                    shardCount: definition.shardCount, mode: definition.mode, retentionHours: definition.retentionHours,
                    maxRecordSizeInKiB: definition.maxRecordSizeInKiB)
            } catch let error as StreamLogError {
                throw error
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// Deletes the stream: it is gone when this returns; its records, which nothing can read any
    /// more (they are found by its id, never reused), are deleted by `trimAll` a batch at a time,
    /// so a large stream's deletion holds no other write up.
    public func delete(name: String) throws(StreamLogError) {
        try write { db throws(StreamLogError) in
            do {
                guard let stream = try Self.stream(named: name, in: db) else {
                    throw StreamLogError.streamNotFound(name)
                }
                try db.execute(sql: "DELETE FROM checkpoints WHERE stream = ?", arguments: [stream.id])
                try db.execute(sql: "DELETE FROM tags WHERE stream = ?", arguments: [stream.id])
                try db.execute(sql: "DELETE FROM streams WHERE id = ?", arguments: [stream.id])
            } catch let error as StreamLogError {
                throw error
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    public func stream(named name: String) throws(StreamLogError) -> StoredStream? {
        try read { db in try Self.stream(named: name, in: db) }
    }

    /// The stream of this id, if it was not deleted.
    public func stream(id: Int64) throws(StreamLogError) -> StoredStream? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM streams WHERE id = ?", arguments: [id]).map(Self.stream(from:))
        }
    }

    /// Every stream, by name.
    public func streams() throws(StreamLogError) -> [StoredStream] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM streams ORDER BY name").map(Self.stream(from:))
        }
    }

    // MARK: Records

    /// Appends `records` to `stream` in one transaction, durable when this returns; their positions,
    /// in order.
    public func append(_ records: [RecordToAppend], to stream: StoredStream, nowMilliseconds: Int64)
        throws(StreamLogError) -> [Int64]
    {
        try append([AppendGroup(records: records, stream: stream, nowMilliseconds: nowMilliseconds)])[0].get()
    }

    /// Appends every group in one transaction (one commit, one sync), durable when this returns; each
    /// group's positions in order, or why that group was not appended (its stream was deleted since
    /// the caller looked it up: the other groups are appended all the same). A storage failure fails
    /// every group: nothing is appended.
    public func append(_ groups: [AppendGroup]) throws(StreamLogError) -> [Result<[Int64], StreamLogError>] {
        try write { db throws(StreamLogError) in
            do {
                let statement = try db.cachedStatement(
                    sql: "INSERT INTO records (stream, shard, arrival_ms, partition_key, data) VALUES (?, ?, ?, ?, ?)")
                var results: [Result<[Int64], StreamLogError>] = []
                results.reserveCapacity(groups.count)
                for group in groups {
                    guard try Self.stream(named: group.stream.name, in: db)?.id == group.stream.id else {
                        results.append(.failure(.streamNotFound(group.stream.name)))
                        continue
                    }
                    let arrival = lastArrival.withLock { last in
                        last = max(last, group.nowMilliseconds)
                        return last
                    }
                    var positions: [Int64] = []
                    positions.reserveCapacity(group.records.count)
                    for record in group.records {
                        try statement.execute(arguments: [
                            group.stream.id, record.shard, arrival, record.partitionKey, Data(record.data),
                        ])
                        positions.append(db.lastInsertedRowID)
                    }
                    results.append(.success(positions))
                }
                return results
            } catch let error as StreamLogError {
                throw error
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// Up to `limit` records of one shard from `position` on, stopping after the record that
    /// reaches `maxBytes` of data; records that arrived before `cutoff` are skipped.
    /// - Parameter end: positions from here on are not read (a pass's snapshot of the log's end).
    public func read(
        stream: StoredStream, shard: Int, from position: Int64, before end: Int64 = .max, limit: Int, maxBytes: Int,
        cutoffMilliseconds: Int64
    ) throws(StreamLogError) -> ShardRead {
        try read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT position, arrival_ms, partition_key, data FROM records
                    WHERE stream = ? AND shard = ? AND position >= ? AND position < ? AND arrival_ms >= ?
                    ORDER BY position
                    """,
                arguments: [stream.id, shard, position, end, cutoffMilliseconds])
            var records: [ShardRecord] = []
            var bytes = 0
            var next = position
            var unread: Int64?
            while let row = try rows.next() {
                if records.count == limit || bytes >= maxBytes {
                    unread = row["arrival_ms"]
                    break
                }
                let data: Data = row["data"]
                let record = ShardRecord(
                    position: row["position"], arrivalMilliseconds: row["arrival_ms"],
                    partitionKey: row["partition_key"], data: [UInt8](data))
                bytes += record.data.count
                next = record.position + 1
                records.append(record)
            }
            return ShardRead(records: records, nextPosition: next, oldestUnreadArrival: unread)
        }
    }

    /// The position a record put after this call gets at least: where LATEST starts.
    public func endPosition() throws(StreamLogError) -> Int64 {
        try read { db in
            let highest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'records'")
            return (highest ?? 0) + 1
        }
    }

    /// The position of the shard's first record that arrived at or after `milliseconds` (not past
    /// `cutoff`), or the end of the log when none did yet.
    public func position(
        stream: StoredStream, shard: Int, arrivedAtOrAfter milliseconds: Int64, cutoffMilliseconds: Int64
    ) throws(StreamLogError) -> Int64 {
        let end = try endPosition()
        return try read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT position FROM records WHERE stream = ? AND shard = ? AND arrival_ms >= ?
                    ORDER BY arrival_ms, position LIMIT 1
                    """,
                arguments: [stream.id, shard, max(milliseconds, cutoffMilliseconds)]) ?? end
        }
    }

    /// Deletes the records of `stream` past its retention; how many.
    @discardableResult
    public func trim(_ stream: StoredStream, nowMilliseconds: Int64) throws(StreamLogError) -> Int {
        let cutoff = stream.retentionCutoff(nowMilliseconds: nowMilliseconds)
        var deleted = 0
        for shard in 0..<stream.shardCount {
            // Arrivals grow with positions: the shard's records before its first kept one go.
            let boundary = try read { db in
                try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT position FROM records WHERE stream = ? AND shard = ? AND arrival_ms >= ?
                        ORDER BY arrival_ms, position LIMIT 1
                        """,
                    arguments: [stream.id, shard, cutoff]) ?? .max
            }
            deleted += try deleteInBatches(
                where: "stream = ? AND shard = ? AND position < ?", arguments: [stream.id, shard, boundary])
        }
        return deleted
    }

    /// Records are deleted this many at a time, each batch its own transaction, so no transaction
    /// (and no WAL) grows with the deletion. Puts queued on the Kinesis write queue meanwhile still
    /// wait for the whole trim.
    static let deletionBatch = 10_000

    private func deleteInBatches(where condition: String, arguments: StatementArguments) throws(StreamLogError) -> Int {
        var deleted = 0
        while true {
            let count = try write { db throws(StreamLogError) in
                do {
                    try db.execute(
                        sql: """
                            DELETE FROM records WHERE position IN
                                (SELECT position FROM records WHERE \(condition) LIMIT \(Self.deletionBatch))
                            """,
                        arguments: arguments)
                    return db.changesCount
                } catch {
                    throw .storage("\(error)")
                }
            }
            deleted += count
            if count < Self.deletionBatch { return deleted }
        }
    }

    /// Trims every stream (`trim`) and deletes the records of deleted streams, then gives the freed
    /// pages back to the file system; how many records went.
    @discardableResult
    public func trimAll(nowMilliseconds: Int64) throws(StreamLogError) -> Int {
        var deleted = 0
        for stream in try streams() { deleted += try trim(stream, nowMilliseconds: nowMilliseconds) }
        let orphans = try read { db in
            try Int64.fetchAll(
                db, sql: "SELECT DISTINCT stream FROM records WHERE stream NOT IN (SELECT id FROM streams)")
        }
        for orphan in orphans { deleted += try deleteInBatches(where: "stream = ?", arguments: [orphan]) }
        if deleted > 0 {
            do {
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA incremental_vacuum") }
            } catch {
                throw .storage("\(error)")
            }
        }
        return deleted
    }

    /// Bytes of record data the stream keeps now, and how many records.
    public func size(of stream: StoredStream) throws(StreamLogError) -> (records: Int, bytes: Int) {
        try read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT count(*) AS n, coalesce(sum(length(data)), 0) AS bytes FROM records WHERE stream = ?",
                arguments: [stream.id])
            return (row?["n"] ?? 0, row?["bytes"] ?? 0)
        }
    }

    /// SQLite's `auto_vacuum` of the file: 2 (incremental) for every log this type opened.
    public func autoVacuumMode() throws(StreamLogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0 }
    }

    // MARK: Tags

    /// A stream may have this many tags.
    public static let maxTags = 50

    /// Adds `tags` to the stream, replacing the values of keys it has; refused when the stream would
    /// have more than `maxTags`.
    public func addTags(_ tags: [String: String], to stream: StoredStream) throws(StreamLogError) {
        try write { db throws(StreamLogError) in
            do {
                guard try Self.stream(named: stream.name, in: db)?.id == stream.id else {
                    throw StreamLogError.streamNotFound(stream.name)
                }
                try Self.setTags(tags, stream: stream.id, in: db)
                let count = try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM tags WHERE stream = ?", arguments: [stream.id])
                if (count ?? 0) > Self.maxTags {
                    throw StreamLogError.tooManyTags(stream: stream.name, limit: Self.maxTags)
                }
            } catch let error as StreamLogError {
                throw error
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// Sets the stream's retention period: reads skip what it leaves out at once.
    public func setRetention(hours: Int, of stream: StoredStream) throws(StreamLogError) {
        try write { db throws(StreamLogError) in
            do {
                try db.execute(
                    sql: "UPDATE streams SET retention_hours = ? WHERE id = ?", arguments: [hours, stream.id])
                guard db.changesCount == 1 else { throw StreamLogError.streamNotFound(stream.name) }
            } catch let error as StreamLogError {
                throw error
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// Removes the tags of these keys (keys it does not have are ignored, as AWS ignores them).
    public func removeTags(_ keys: [String], from stream: StoredStream) throws(StreamLogError) {
        try write { db throws(StreamLogError) in
            do {
                for key in keys {
                    try db.execute(sql: "DELETE FROM tags WHERE stream = ? AND key = ?", arguments: [stream.id, key])
                }
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// The stream's tags, by key.
    public func tags(of stream: StoredStream) throws(StreamLogError) -> [(key: String, value: String)] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT key, value FROM tags WHERE stream = ? ORDER BY key", arguments: [stream.id]
            ).map { (key: $0["key"], value: $0["value"]) }
        }
    }

    private static func setTags(_ tags: [String: String], stream: Int64, in db: Database) throws {
        for (key, value) in tags {
            try db.execute(
                sql: "INSERT OR REPLACE INTO tags (stream, key, value) VALUES (?, ?, ?)",
                arguments: [stream, key, value])
        }
    }

    // MARK: Checkpoints

    /// Where `consumer` reads `shard` of `stream` next, if it saved a position.
    public func checkpoint(consumer: String, stream: StoredStream, shard: Int) throws(StreamLogError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT position FROM checkpoints WHERE consumer = ? AND stream = ? AND shard = ?",
                arguments: [consumer, stream.id, shard])
        }
    }

    /// Saves where `consumer` reads `shard` of `stream` next; synced when this returns.
    public func saveCheckpoint(consumer: String, stream: StoredStream, shard: Int, position: Int64)
        throws(StreamLogError)
    {
        try write { db throws(StreamLogError) in
            do {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO checkpoints (consumer, stream, shard, position) VALUES (?, ?, ?, ?)",
                    arguments: [consumer, stream.id, shard, position])
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// Records `consumer` as reading from `startMilliseconds` on (the arrival a shard with no
    /// checkpoint starts at), unless it is known already; its start either way. Synced.
    @discardableResult
    public func registerConsumer(_ consumer: String, startMilliseconds: Int64) throws(StreamLogError) -> Int64 {
        try write { db throws(StreamLogError) in
            do {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO consumers (name, start_ms) VALUES (?, ?)",
                    arguments: [consumer, startMilliseconds])
                return try Int64.fetchOne(
                    db, sql: "SELECT start_ms FROM consumers WHERE name = ?", arguments: [consumer])
                    ?? startMilliseconds
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    /// Forgets `consumer`: its start and every position it saved.
    public func forgetConsumer(_ consumer: String) throws(StreamLogError) {
        try write { db throws(StreamLogError) in
            do {
                try db.execute(sql: "DELETE FROM checkpoints WHERE consumer = ?", arguments: [consumer])
                try db.execute(sql: "DELETE FROM consumers WHERE name = ?", arguments: [consumer])
            } catch {
                throw .storage("\(error)")
            }
        }
    }

    // MARK: SQLite

    private static func stream(named name: String, in db: Database) throws -> StoredStream? {
        try Row.fetchOne(db, sql: "SELECT * FROM streams WHERE name = ?", arguments: [name]).map(stream(from:))
    }

    private static func stream(from row: Row) -> StoredStream {
        StoredStream(
            id: row["id"], name: row["name"], createdMilliseconds: row["created_ms"], shardCount: row["shard_count"],
            mode: StoredStream.Mode(rawValue: row["mode"]) ?? .provisioned, retentionHours: row["retention_hours"],
            maxRecordSizeInKiB: row["max_record_kib"])
    }

    private func read<Value>(_ body: (Database) throws -> Value) throws(StreamLogError) -> Value {
        do {
            return try pool.read(body)
        } catch {
            throw .storage("\(error)")
        }
    }

    private func write<Value>(_ body: (Database) throws(StreamLogError) -> Value) throws(StreamLogError) -> Value {
        do {
            return try pool.write { db in try body(db) }
        } catch let error as StreamLogError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }
}
