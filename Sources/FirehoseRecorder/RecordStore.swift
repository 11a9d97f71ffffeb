import Foundation
import GRDB

/// The SQLite side of the recorder: one table of records, ids from AUTOINCREMENT (never reused),
/// byte and row totals kept by triggers in the same transactions, WAL with `synchronous=FULL` so a
/// committed save survives a crash or power loss.
final class RecordStore: Sendable {
    static let fileName = "firehose-records.sqlite"
    static let schemaVersion = 1

    struct Row: Sendable, Equatable {
        var id: Int64
        var stream: String
        var size: Int
    }

    struct Pending: Sendable {
        var id: Int64
        var data: Data
        var attempts: Int
    }

    struct SaveResult: Sendable {
        var id: Int64
        var expired: [Row]
        var evicted: [Row]
        var bytesUsed: Int
    }

    let pool: DatabasePool
    let path: String

    private init(pool: DatabasePool, path: String) {
        self.pool = pool
        self.path = path
    }

    /// Opens (creating if needed) the store in `directory`. A file SQLite cannot read, or one that
    /// fails `quick_check`, is moved aside and replaced; the second result says where it went and why.
    static func open(directory: URL, now: Date) throws -> (RecordStore, recovery: (movedTo: URL, reason: String)?) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(fileName)
        do {
            return (try openChecked(url), nil)
        } catch let failure as Unreadable {
            let movedTo = try moveAside(url, now: now)
            let store = try openChecked(url)
            // Ids of the lost database are unknown: start far above any it could have used.
            try store.pool.write { db in
                let seed = Int64(now.timeIntervalSince1970 * 1_000_000)
                try db.execute(sql: "INSERT INTO sqlite_sequence(name, seq) VALUES ('record', ?)", arguments: [seed])
            }
            return (store, (movedTo, failure.reason))
        }
    }

    struct Unreadable: Error {
        var reason: String
    }

    private static func openChecked(_ url: URL) throws -> RecordStore {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "FirehoseRecorder"
        configuration.prepareDatabase { db in
            // WAL + FULL: a commit is on stable storage when it returns.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: url.path, configuration: configuration)
        } catch let error as DatabaseError where isCorruption(error) {
            throw Unreadable(reason: "SQLite cannot open it: \(error.message ?? "\(error.resultCode)")")
        }
        do {
            let check = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                try? pool.close()
                throw Unreadable(reason: "quick_check: " + check.prefix(3).joined(separator: "; "))
            }
            let store = RecordStore(pool: pool, path: url.path)
            try store.migrate()
            return store
        } catch let error as DatabaseError where isCorruption(error) {
            try? pool.close()
            throw Unreadable(reason: "SQLite cannot read it: \(error.message ?? "\(error.resultCode)")")
        }
    }

    private static func isCorruption(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    private static func moveAside(_ url: URL, now: Date) throws -> URL {
        let stamp = Int(now.timeIntervalSince1970)
        let suffix = ".corrupt-\(stamp)-\(UUID().uuidString.prefix(8).lowercased())"
        let target = URL(fileURLWithPath: url.path + suffix)
        let fm = FileManager.default
        try fm.moveItem(at: url, to: target)
        for extra in ["-wal", "-journal"] where fm.fileExists(atPath: url.path + extra) {
            try fm.moveItem(atPath: url.path + extra, toPath: target.path + extra)
        }
        if fm.fileExists(atPath: url.path + "-shm") { try fm.removeItem(atPath: url.path + "-shm") }
        return target
    }

    private func migrate() throws {
        try pool.write { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            if version > Self.schemaVersion {
                throw RecorderError(
                    kind: .storage,
                    message: "\(path) was written by a newer FirehoseRecorder (schema \(version)); not touching it.")
            }
            guard version < Self.schemaVersion else { return }
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS record (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        stream TEXT NOT NULL,
                        data BLOB NOT NULL,
                        size INTEGER NOT NULL,
                        created_at REAL NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX IF NOT EXISTS record_by_stream ON record(stream, id);
                    CREATE INDEX IF NOT EXISTS record_by_age ON record(created_at);
                    CREATE TABLE IF NOT EXISTS totals (
                        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                        bytes INTEGER NOT NULL,
                        records INTEGER NOT NULL
                    );
                    INSERT OR IGNORE INTO totals VALUES (1, 0, 0);
                    CREATE TRIGGER IF NOT EXISTS record_added AFTER INSERT ON record BEGIN
                        UPDATE totals SET bytes = bytes + NEW.size, records = records + 1;
                    END;
                    CREATE TRIGGER IF NOT EXISTS record_removed AFTER DELETE ON record BEGIN
                        UPDATE totals SET bytes = bytes - OLD.size, records = records - 1;
                    END;
                    PRAGMA user_version = 1;
                    """)
        }
    }

    func close() {
        try? pool.close()
    }

    // MARK: Totals

    func totals() throws -> (bytes: Int, records: Int) {
        try pool.read { db in try Self.totals(db) }
    }

    private static func totals(_ db: Database) throws -> (bytes: Int, records: Int) {
        let row = try GRDB.Row.fetchOne(db, sql: "SELECT bytes, records FROM totals WHERE singleton = 1")
        return (row?["bytes"] ?? 0, row?["records"] ?? 0)
    }

    // MARK: Saving

    /// Inserts a record and, in the same transaction, drops expired records and evicts the oldest
    /// ones (not `inFlight`, unless nothing else is left) until the total is within `byteLimit`.
    func save(
        stream: String, data: Data, createdAt: Date, expireBefore: Date?, byteLimit: Int, inFlight: Set<Int64>
    ) throws -> SaveResult {
        try pool.write { db in
            var expired: [Row] = []
            if let expireBefore { expired = try Self.expire(db, before: expireBefore) }
            try db.execute(
                sql: "INSERT INTO record (stream, data, size, created_at) VALUES (?, ?, ?, ?)",
                arguments: [stream, data, data.count, createdAt.timeIntervalSince1970])
            let id = db.lastInsertedRowID
            var evicted: [Row] = []
            var bytes = try Self.totals(db).bytes
            if bytes > byteLimit {
                evicted = try Self.evict(db, excess: bytes - byteLimit, keep: id, inFlight: inFlight)
                bytes = try Self.totals(db).bytes
            }
            return SaveResult(id: id, expired: expired, evicted: evicted, bytesUsed: bytes)
        }
    }

    private static func evict(_ db: Database, excess: Int, keep: Int64, inFlight: Set<Int64>) throws -> [Row] {
        var victims: [Int64] = []
        var deferred: [(id: Int64, size: Int)] = []
        var freed = 0
        // Oldest first; records on the wire only if nothing else is left (their send may still
        // succeed); the record just saved never.
        let cursor = try GRDB.Row.fetchCursor(
            db, sql: "SELECT id, size FROM record WHERE id <> ? ORDER BY id", arguments: [keep])
        while freed < excess, let row = try cursor.next() {
            let id: Int64 = row["id"]
            let size: Int = row["size"]
            if inFlight.contains(id) {
                deferred.append((id, size))
                continue
            }
            victims.append(id)
            freed += size
        }
        for record in deferred where freed < excess {
            victims.append(record.id)
            freed += record.size
        }
        return try delete(db, ids: victims)
    }

    static func expire(_ db: Database, before: Date) throws -> [Row] {
        try GRDB.Row.fetchAll(
            db, sql: "DELETE FROM record WHERE created_at < ? RETURNING id, stream, size",
            arguments: [before.timeIntervalSince1970]
        ).map { Row(id: $0["id"], stream: $0["stream"], size: $0["size"]) }.sorted { $0.id < $1.id }
    }

    func expire(before: Date) throws -> [Row] {
        try pool.write { db in try Self.expire(db, before: before) }
    }

    // MARK: Submitting

    func maxID() throws -> Int64 {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM record") ?? 0 }
    }

    /// Streams with records up to `maxID`, the one with the oldest record first.
    func streams(upTo maxID: Int64) throws -> [String] {
        try pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT stream FROM record WHERE id <= ? GROUP BY stream ORDER BY MIN(id)", arguments: [maxID])
        }
    }

    /// Ids and sizes of the next records of `stream` after `cursor`, oldest first.
    func candidates(stream: String, after cursor: Int64, upTo maxID: Int64, limit: Int) throws -> [Row] {
        try pool.read { db in
            try GRDB.Row.fetchAll(
                db,
                sql: "SELECT id, size FROM record WHERE stream = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?",
                arguments: [stream, cursor, maxID, limit]
            ).map { Row(id: $0["id"], stream: stream, size: $0["size"]) }
        }
    }

    /// The records with these ids that still exist, in id order.
    func load(ids: [Int64]) throws -> [Pending] {
        guard !ids.isEmpty else { return [] }
        return try pool.read { db in
            try GRDB.Row.fetchAll(
                db, sql: "SELECT id, data, attempts FROM record WHERE id IN (\(Self.list(ids))) ORDER BY id"
            ).map { Pending(id: $0["id"], data: $0["data"], attempts: $0["attempts"]) }
        }
    }

    func delete(ids: [Int64]) throws -> [Row] {
        guard !ids.isEmpty else { return [] }
        return try pool.write { db in try Self.delete(db, ids: ids) }
    }

    private static func delete(_ db: Database, ids: [Int64]) throws -> [Row] {
        guard !ids.isEmpty else { return [] }
        var deleted: [Row] = []
        // Chunked: SQLite parses a statement per chunk, and the IN list stays small.
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            deleted += try GRDB.Row.fetchAll(
                db, sql: "DELETE FROM record WHERE id IN (\(list(chunk))) RETURNING id, stream, size"
            ).map { Row(id: $0["id"], stream: $0["stream"], size: $0["size"]) }
        }
        return deleted.sorted { $0.id < $1.id }
    }

    /// Counts one failed attempt for each record; returns the records (still present) with their new count.
    func countAttempt(ids: [Int64]) throws -> [(id: Int64, attempts: Int)] {
        guard !ids.isEmpty else { return [] }
        return try pool.write { db in
            try GRDB.Row.fetchAll(
                db,
                sql: "UPDATE record SET attempts = attempts + 1 WHERE id IN (\(Self.list(ids))) RETURNING id, attempts"
            ).map { (id: $0["id"] as Int64, attempts: $0["attempts"] as Int) }
        }
    }

    func removeAll() throws -> Int {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM record")
            return db.changesCount
        }
    }

    /// Every record, oldest first (tests and tools).
    func all() throws -> [(id: Int64, stream: String, data: Data, attempts: Int)] {
        try pool.read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT id, stream, data, attempts FROM record ORDER BY id").map {
                (id: $0["id"], stream: $0["stream"], data: $0["data"], attempts: $0["attempts"])
            }
        }
    }

    private static func list(_ ids: some Sequence<Int64>) -> String {
        ids.map(String.init).joined(separator: ",")
    }
}
