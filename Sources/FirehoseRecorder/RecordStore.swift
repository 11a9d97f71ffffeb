import Foundation
import GRDB
import Synchronization

/// The SQLite side of the recorder: one table of records (a record's `size` is its data and
/// partition key bytes, as the limits count them), byte and row totals kept by triggers in
/// the same transactions, WAL. Records arrive in batches from the journal (`RecordJournal`) with the
/// ids `saveRecord` gave them; `sqlite_sequence` (AUTOINCREMENT) remembers the highest id ever
/// stored, so ids are never reused and a journal frame at or below it is known to be here already.
///
/// Commits use `synchronous=NORMAL` (the WAL is synced at checkpoints: a commit survives the process,
/// not necessarily a power loss) or, for `Durability.powerLoss`, `FULL`. Records are safe in the
/// journal until a commit has them, so NORMAL loses nothing the journal's own durability keeps.
final class RecordStore: Sendable {
    static let fileName = "firehose-records.sqlite"
    /// 2 added `partition_key` (Kinesis); a version-1 file gains the column, empty, when opened.
    static let schemaVersion = 2

    struct Row: Sendable, Equatable {
        var id: Int64
        var stream: String
        var size: Int
    }

    struct Pending: Sendable {
        var id: Int64
        /// A slice of one buffer that holds the whole batch: no allocation per record.
        var data: ArraySlice<UInt8>
        var attempts: Int
        var partitionKey: String = ""
    }

    struct InsertResult: Sendable {
        var expired: [Row] = []
        var evicted: [Row] = []
    }

    /// What the last write transaction left, read inside it: the recorder's saves check the limits
    /// against this instead of asking SQLite each time.
    struct Snapshot: Sendable {
        var bytes = 0
        var records = 0
        /// `created_at` of the oldest record (seconds since 1970), nil when empty.
        var oldestCreatedAt: Double?
        /// The highest id ever stored (`sqlite_sequence`).
        var highestID: Int64 = 0
    }

    let pool: DatabasePool
    let path: String
    private let snapshotState = Mutex(Snapshot())

    private init(pool: DatabasePool, path: String) {
        self.pool = pool
        self.path = path
    }

    var snapshot: Snapshot { snapshotState.withLock { $0 } }

    /// Opens (creating if needed) the store in `directory`. A file SQLite cannot read, or one that
    /// fails `quick_check`, is moved aside and replaced; the second result says where it went and why.
    /// After a replacement, call `seedIDs(above:)` once the journal is replayed.
    static func open(
        directory: URL, fileName: String = RecordStore.fileName, now: Date, durability: RecorderDurability
    ) throws -> (RecordStore, recovery: (movedTo: URL, reason: String)?) {
        let url = directory.appendingPathComponent(fileName)
        var recovery: (movedTo: URL, reason: String)?
        let store: RecordStore
        do {
            store = try openChecked(url)
        } catch let failure as Unreadable {
            let movedTo = try moveAside(url, now: now)
            store = try openChecked(url)
            recovery = (movedTo, failure.reason)
        }
        try store.setDurability(durability)
        try store.pool.read { db in try store.refreshSnapshot(db) }
        return (store, recovery)
    }

    /// Ids of a lost database are unknown: later ones start far above any it could have used.
    func seedIDs(above seed: Int64) throws {
        try write { db in try Self.markUsed(db, through: seed) }
    }

    /// GRDB turns `synchronous` to NORMAL when it opens a pool in WAL mode (after any
    /// `prepareDatabase`), so the writer's setting is made here, on the open pool.
    func setDurability(_ durability: RecorderDurability) throws {
        try pool.writeWithoutTransaction { db in
            switch durability {
            case .appCrash:
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            case .powerLoss:
                // fullfsync: on Apple platforms a plain fsync leaves the data in the drive's cache.
                try db.execute(
                    sql: "PRAGMA synchronous = FULL; PRAGMA fullfsync = ON; PRAGMA checkpoint_fullfsync = ON")
            }
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
            // Builds with SQLITE_SECURE_DELETE (Debian's, for one) zero every deleted record, which
            // writes each delivered batch's pages a second time; FAST zeroes only pages written anyway.
            // Statement journals (a multi-row DELETE with triggers spills one) stay in memory.
            try db.execute(sql: "PRAGMA secure_delete = FAST; PRAGMA temp_store = MEMORY")
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
            if version == 1 {
                // A constant default: SQLite changes only the schema, not the rows.
                try db.execute(
                    sql: """
                        ALTER TABLE record ADD COLUMN partition_key TEXT NOT NULL DEFAULT '';
                        PRAGMA user_version = 2;
                        """)
                return
            }
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS record (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        stream TEXT NOT NULL,
                        data BLOB NOT NULL,
                        size INTEGER NOT NULL,
                        created_at REAL NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        partition_key TEXT NOT NULL DEFAULT ''
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
                    PRAGMA user_version = 2;
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

    /// A write transaction that leaves `snapshot` up to date.
    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.write { db in
            let result = try body(db)
            try refreshSnapshot(db)
            return result
        }
    }

    private func refreshSnapshot(_ db: Database) throws {
        let totals = try Self.totals(db)
        let oldest = try Double.fetchOne(db, sql: "SELECT MIN(created_at) FROM record")
        let highest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'record'") ?? 0
        snapshotState.withLock {
            $0 = Snapshot(bytes: totals.bytes, records: totals.records, oldestCreatedAt: oldest, highestID: highest)
        }
    }

    // MARK: Saving

    /// Stores journal entries and, in the same transaction, drops expired records and evicts the
    /// oldest ones (not `inFlight`, unless nothing else is left) until `incoming` more bytes fit
    /// within `byteLimit`. Entries at or below the highest id ever stored are here already (a
    /// journal replayed after a crash between a commit and the journal's reset) and are skipped.
    func insert(
        _ entries: [RecordJournal.Entry], expireBefore: Date?, incoming: Int, byteLimit: Int, inFlight: Set<Int64>
    ) throws -> InsertResult {
        try write { db in
            var result = InsertResult()
            let highest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'record'") ?? 0
            let statement = try db.cachedStatement(
                sql: "INSERT INTO record (id, stream, data, size, created_at, partition_key) VALUES (?, ?, ?, ?, ?, ?)")
            for entry in entries where entry.id > highest {
                statement.setUncheckedArguments([
                    entry.id, entry.stream, entry.data, entry.data.count + entry.partitionKey.utf8.count,
                    entry.createdAt,
                    entry.partitionKey,
                ])
                try statement.execute()
            }
            if let expireBefore { result.expired = try Self.expire(db, before: expireBefore) }
            let bytes = try Self.totals(db).bytes
            if bytes + incoming > byteLimit {
                result.evicted = try Self.evict(db, excess: bytes + incoming - byteLimit, inFlight: inFlight)
            }
            return result
        }
    }

    private static func evict(_ db: Database, excess: Int, inFlight: Set<Int64>) throws -> [Row] {
        var victims: [Int64] = []
        var deferred: [(id: Int64, size: Int)] = []
        var freed = 0
        // Oldest first; records on the wire only if nothing else is left (their send may still
        // succeed). The record being saved is not stored yet, so it is never a victim.
        let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT id, size FROM record ORDER BY id")
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
        try write { db in try Self.expire(db, before: before) }
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

    /// The next batch of `stream` after `cursor`, oldest first: at most `count` records and
    /// `bytes` bytes of data and partition keys, checked before adding a record; the first record always goes (alone if it is
    /// over `bytes`). One query, read only as far as the batch goes.
    ///
    /// Async: the read runs on one of GRDB's reader threads, not the caller's.
    func nextBatch(stream: String, after cursor: Int64, upTo maxID: Int64, count: Int, bytes: Int) async throws
        -> [Pending]
    {
        try await pool.read { db in
            let rows = try GRDB.Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT id, size, data, attempts, partition_key FROM record
                        WHERE stream = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?
                        """),
                arguments: [stream, cursor, maxID, count])
            var records: [(id: Int64, end: Int, attempts: Int, partitionKey: String)] = []
            var arena: [UInt8] = []
            var total = 0
            while let row = try rows.next() {
                let partitionKey: String = row[4]
                let size: Int = row[1]
                if !records.isEmpty, total + size > bytes { break }
                if arena.isEmpty { arena.reserveCapacity(min(bytes, size * count)) }
                try row.withUnsafeData(atIndex: 2) { data in if let data { arena.append(contentsOf: data) } }
                total += size
                records.append((row[0], arena.count, row[3], partitionKey))
            }
            var start = 0
            return records.map { record in
                defer { start = record.end }
                return Pending(
                    id: record.id, data: arena[start..<record.end], attempts: record.attempts,
                    partitionKey: record.partitionKey)
            }
        }
    }

    /// The records with these ids that still exist, in id order.
    func load(ids: [Int64]) throws -> [Pending] {
        guard !ids.isEmpty else { return [] }
        return try pool.read { db in
            try GRDB.Row.fetchAll(
                db,
                sql: "SELECT id, data, attempts, partition_key FROM record WHERE id IN (\(Self.list(ids))) ORDER BY id"
            ).map {
                Pending(
                    id: $0["id"], data: ArraySlice([UInt8]($0["data"] as Data)), attempts: $0["attempts"],
                    partitionKey: $0["partition_key"])
            }
        }
    }

    /// Deletes delivered records; unlike `delete(ids:)` nothing is reported, so nothing is returned.
    /// Async: the transaction runs on GRDB's writer thread, not the caller's. It runs even if the
    /// calling task is cancelled (GRDB's async `write` would not start then): the records were
    /// delivered, and keeping them would send them again.
    func deleteDelivered(ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            pool.asyncWrite(
                { db in
                    for start in stride(from: 0, to: ids.count, by: 500) {
                        let chunk = ids[start..<min(start + 500, ids.count)]
                        try db.execute(sql: "DELETE FROM record WHERE id IN (\(Self.list(chunk)))")
                    }
                    try self.refreshSnapshot(db)
                },
                completion: { _, result in continuation.resume(with: result) })
        }
    }

    func delete(ids: [Int64]) throws -> [Row] {
        guard !ids.isEmpty else { return [] }
        return try write { db in try Self.delete(db, ids: ids) }
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
        return try write { db in
            try GRDB.Row.fetchAll(
                db,
                sql: "UPDATE record SET attempts = attempts + 1 WHERE id IN (\(Self.list(ids))) RETURNING id, attempts"
            ).map { (id: $0["id"] as Int64, attempts: $0["attempts"] as Int) }
        }
    }

    /// Deletes every record, and marks ids up to `highestID` as used so that journal frames not yet
    /// moved here are not replayed later.
    func removeAll(highestID: Int64) throws -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM record")
            let removed = db.changesCount
            try Self.markUsed(db, through: highestID)
            return removed
        }
    }

    private static func markUsed(_ db: Database, through id: Int64) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO sqlite_sequence(name, seq)
                VALUES ('record', MAX(?, IFNULL((SELECT seq FROM sqlite_sequence WHERE name = 'record'), 0)))
                """,
            arguments: [id])
    }

    /// Every record, oldest first (tests and tools).
    func all() throws -> [(id: Int64, stream: String, data: Data, attempts: Int, partitionKey: String)] {
        try pool.read { db in
            try GRDB.Row.fetchAll(
                db, sql: "SELECT id, stream, data, attempts, partition_key FROM record ORDER BY id"
            ).map {
                (
                    id: $0["id"], stream: $0["stream"], data: $0["data"], attempts: $0["attempts"],
                    partitionKey: $0["partition_key"]
                )
            }
        }
    }

    private static func list(_ ids: some Sequence<Int64>) -> String {
        ids.map(String.init).joined(separator: ",")
    }
}
