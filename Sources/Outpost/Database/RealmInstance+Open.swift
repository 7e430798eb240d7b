import Foundation
import OutpostCore

extension RealmInstance {
    /// Opens (or reuses, for the same thread) a Realm instance for `configuration`.
    static func open(configuration: Realm.Configuration, confinement: Confinement, scheduler: Scheduler?)
        throws -> RealmInstance
    {
        let path = configuration.resolvedPath
        if let cached = RealmRegistry.shared.cached(path: path, cacheKey: confinement.cacheKey) {
            if cached.configuration.schemaVersion != configuration.schemaVersion {
                throw Realm.Error(.fail,
                    "Realm at path '\(path)' already opened with different schema version \(cached.configuration.schemaVersion).",
                    fileURL: URL(fileURLWithPath: path))
            }
            try cached.ensureTables(for: configuration.objectTypes ?? [])
            for observer in RealmFileObservers.all { try observer.didReopen(cached, with: configuration) }
            return cached
        }
        if configuration.encryptionKey != nil {
            throw Realm.Error(.invalidInput, "Outpost does not support encryptionKey yet; open the Realm without one.")
        }
        // Before anything of the file is read or created: a part of the library may refuse the configuration.
        var observers: [any CommitObserver] = []
        for fileObserver in RealmFileObservers.all {
            if let observer = try fileObserver.willOpen(configuration, path: path) { observers.append(observer) }
        }
        let fileManager = FileManager.default
        let url = URL(fileURLWithPath: path)
        if let seed = configuration.seedFilePath, configuration.inMemoryIdentifier == nil,
            !fileManager.fileExists(atPath: path)
        {
            try copySeed(seed, to: path)
        }
        let directory = url.deletingLastPathComponent().path
        if configuration.createsDirectory && !configuration.readOnly {
            try? fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try OpenFileCheck.check(path: path, readOnly: configuration.readOnly)
        let fileExisted = fileManager.fileExists(atPath: path)
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, readOnly: configuration.readOnly)
        } catch let error as SQLiteError {
            let code: Realm.Error.Code = error.code & 0xFF == 14 /* CANTOPEN */ ? .fileAccess : .fail
            throw Realm.Error(code, "Failed to open Realm file at path '\(path)': \(error.message).", fileURL: url)
        }
        let instance = RealmInstance(configuration: configuration, path: path, connection: connection,
                                     confinement: confinement, isFrozen: false)
        for observer in observers { instance.attach(observer) }
        do {
            try instance.preparingFileAndSchema()
            try instance.beginRead()
            // Changes committed before this instance opened are not news to it.
            if case .integer(let latest) = try connection.scalar("SELECT coalesce(max(version), 0) FROM __outpost_history") {
                instance.historyVersion = latest
            }
        } catch let error as Realm.Error {
            throw error
        } catch let error as SQLiteError {
            if error.code & 0xFF == 26 /* NOTADB */ {
                throw Realm.Error(.invalidDatabase,
                    "Failed to open Realm file at path '\(path)': the file is not a Realm (Outpost) database.", fileURL: url)
            }
            throw Realm.Error(.fail, "Failed to open Realm file at path '\(path)': \(error.message).", fileURL: url)
        }
        RealmRegistry.shared.register(instance, scheduler: scheduler)
        Logger.database(.detail, "\(instance.logID) Open file: \(path)")
        Logger.database(.trace, "\(instance.logID) Schema version \(configuration.schemaVersion), history version \(instance.historyVersion)")
        for fileObserver in RealmFileObservers.all { try fileObserver.didOpen(instance, fileExisted: fileExisted) }
        return instance
    }

    /// `prepareFile()` and `loadSchema()`, again while the file is busy: when several connections open a new file at
    /// once, switching it to WAL mode (or reading it while another connection does) can fail with `SQLITE_BUSY`
    /// without waiting for the busy timeout. Both steps may run again: they create only what is missing.
    func preparingFileAndSchema() throws {
        var attempt = 0
        while true {
            do {
                try prepareFile()
                try loadSchema()
                return
            } catch let error as SQLiteError where error.code & 0xFF == 5 /* BUSY */ && attempt < 100 {
                attempt += 1
                Thread.sleep(forTimeInterval: 0.01 * Double(min(attempt, 10)))
            }
        }
    }

    /// Sets up WAL mode and Outpost's own tables, and checks the file is an Outpost database.
    func prepareFile() throws {
        if !isReadOnly {
            // `synchronous=FULL`: a transaction is on disk when `commitWrite` returns, also across a power failure,
            // as Realm's default durability promises (with NORMAL, WAL mode syncs only at checkpoints and the last
            // commits before a power loss could roll back, including changes the upload queue had not sent yet).
            // `secure_delete=FAST`: Debian's SQLite zeroes every freed page, which wrote each acknowledged upload a
            // second time (docs/storage.md).
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF; PRAGMA secure_delete=FAST")
        }
        let tables = try connection.cached("SELECT name FROM sqlite_master WHERE type = 'table'").rows()
            .compactMap { row -> String? in if case .text(let t) = row[0] { return t } else { return nil } }
        if tables.contains("__outpost_meta") {
            let format = try connection.scalar("SELECT value FROM __outpost_meta WHERE key = 'format'")
            guard format == .text(Self.fileFormat) else {
                throw Realm.Error(.unsupportedFileFormatVersion,
                    "Failed to open Realm file at path '\(path)': unsupported file format \(format).",
                    fileURL: URL(fileURLWithPath: path))
            }
            return
        }
        if !tables.isEmpty {
            throw Realm.Error(.invalidDatabase,
                "Failed to open Realm file at path '\(path)': the file is not a Realm (Outpost) database.",
                fileURL: URL(fileURLWithPath: path))
        }
        if isReadOnly {
            throw Realm.Error(.fileNotFound, "Failed to open Realm file at path '\(path)': the file is empty.",
                              fileURL: URL(fileURLWithPath: path))
        }
        try connection.execute("""
            BEGIN IMMEDIATE;
            CREATE TABLE IF NOT EXISTS __outpost_meta (key TEXT PRIMARY KEY, value);
            CREATE TABLE IF NOT EXISTS __outpost_schema (className TEXT PRIMARY KEY, swiftType TEXT, schema TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS __outpost_history (version INTEGER PRIMARY KEY, changes TEXT NOT NULL);
            INSERT OR IGNORE INTO __outpost_meta (key, value) VALUES ('format', '\(Self.fileFormat)');
            INSERT OR IGNORE INTO __outpost_meta (key, value) VALUES ('schemaVersion', 0);
            COMMIT;
            """)
    }

    static let fileFormat = "outpost-1"

    /// Reads the stored schema, compares it with the classes, and migrates or creates tables.
    func loadSchema() throws {
        try readStoredSchema()
        var types = configuration.objectTypes ?? ObjectSchemaRegistry.shared.allTypes
        if configuration.objectTypes == nil, !configuration.holdsAsymmetricObjects {
            // The default schema of a Realm that cannot hold asymmetric objects leaves them out.
            types.removeAll { $0 is AsymmetricObject.Type }
        }
        if configuration.objectTypes == nil {
            for (name, _) in storedSchemas where !types.contains(where: { $0.className() == name }) {
                if let swiftName = storedSwiftTypes[name], let type = _typeByName(swiftName) as? ObjectBase.Type {
                    types.append(type)
                }
            }
        }
        let all = try ObjectSchemaRegistry.shared.schemaClosure(of: types, preferLinked: configuration.objectTypes == nil)
        let asymmetricErrors = configuration.asymmetricSchemaErrors(
            all.map { ObjectSchemaRegistry.shared.schema(for: $0) })
        if !asymmetricErrors.isEmpty {
            throw Realm.Error(.fail, "Schema validation failed due to the following errors:"
                + asymmetricErrors.map { "\n- \($0)" }.joined(), fileURL: URL(fileURLWithPath: path))
        }
        ObjectSchemaRegistry.shared.makeCurrent(all)
        let plan = SchemaPlan(stored: storedSchemas, code: all.map { ObjectSchemaRegistry.shared.schema(for: $0) })
        let url = URL(fileURLWithPath: path)
        let breaking = !plan.breakingChanges.isEmpty
        let lower = configuration.schemaVersion < schemaVersion
        let bumped = configuration.schemaVersion > schemaVersion
        let changeList = plan.breakingChanges.map { "\n- \($0)" }.joined()
        if (breaking || lower) && configuration.deleteRealmIfMigrationNeeded && !isReadOnly {
            try resetFile()
            try applySchema(types: all, plan: SchemaPlan(stored: [:], code: plan.code))
            return
        }
        if lower {
            throw Realm.Error(.schemaMismatch,
                "Provided schema version \(configuration.schemaVersion) is less than last set version "
                    + "\(schemaVersion).", fileURL: url)
        }
        if isReadOnly {
            if breaking {
                throw Realm.Error(.schemaMismatch,
                    "The following changes cannot be made in read-only schema mode:" + changeList, fileURL: url)
            }
            if bumped {
                throw Realm.Error(.schemaMismatch,
                    "Provided schema version \(configuration.schemaVersion) does not equal last set version "
                        + "\(schemaVersion).", fileURL: url)
            }
        } else if breaking || bumped {
            if !bumped {
                throw Realm.Error(.schemaMismatch, "Migration is required due to the following errors:" + changeList,
                                  fileURL: url)
            }
            try MigrationRunner(realm: self, types: all, plan: plan).run()
            return
        }
        try applySchema(types: all, plan: plan)
    }

    /// Makes sure tables exist for `types` (and the classes they link to): additive changes only.
    func ensureTables(for types: [ObjectBase.Type]) throws {
        let missing = types.filter { tablesByType[ObjectIdentifier($0)] == nil }
        guard !missing.isEmpty else { return }
        let all = ObjectSchemaRegistry.shared.closure(of: missing).filter { tablesByType[ObjectIdentifier($0)] == nil }
        let plan = SchemaPlan(stored: storedSchemas, code: all.map { ObjectSchemaRegistry.shared.schema(for: $0) })
        if !plan.breakingChanges.isEmpty {
            fatalError("Migration is required due to the following errors:\n"
                + plan.breakingChanges.map { "- \($0)" }.joined(separator: "\n")
                + "\n(list these classes in Realm.Configuration.objectTypes so the mismatch is reported when the Realm opens)")
        }
        try applySchema(types: all, plan: plan)
    }

    /// The table for a class, creating it (an additive change) when the Realm has not seen it yet.
    func table(for type: ObjectBase.Type) -> TableInfo {
        synchronized { unsynchronizedTable(for: type) }
    }

    private func unsynchronizedTable(for type: ObjectBase.Type) -> TableInfo {
        if let table = tablesByType[ObjectIdentifier(type)] { return table }
        do {
            try ensureTables(for: [type])
        } catch {
            fatalError("Outpost could not add '\(type.className())' to the Realm at '\(path)': \(error)")
        }
        return tablesByType[ObjectIdentifier(type)]!
    }

    func table(named className: String) -> TableInfo? {
        synchronized {
            if let table = tablesByName[className] { return table }
            if let type = ObjectSchemaRegistry.shared.type(named: className) { return table(for: type) }
            return nil
        }
    }

    func readStoredSchema() throws {
        storedSchemas = [:]
        storedSwiftTypes = [:]
        let decoder = JSONDecoder()
        for row in try connection.cached("SELECT className, swiftType, schema FROM __outpost_schema").rows() {
            guard case .text(let name) = row[0], case .text(let json) = row[2] else { continue }
            storedSchemas[name] = try decoder.decode(ObjectSchema.self, from: Data(json.utf8))
            if case .text(let swiftType) = row[1] { storedSwiftTypes[name] = swiftType }
        }
        if case .integer(let v) = try connection.scalar("SELECT value FROM __outpost_meta WHERE key = 'schemaVersion'") {
            schemaVersion = UInt64(v)
        }
    }

    /// Creates missing tables, columns and indexes (in a write transaction of its own if needed).
    func applySchema(types: [ObjectBase.Type], plan: SchemaPlan) throws {
        // A class whose stored schema differs without a new column (a Swift property renamed over the same stored
        // name, an index dropped) is stored again, so the recorded names are the ones the app uses.
        let needsWrite = try !additiveStatements(plan).isEmpty || configuration.schemaVersion > schemaVersion
            || plan.code.contains { code in storedSchemas[code.className].map { $0 != code } ?? false }
        if needsWrite && !isReadOnly {
            if isInWriteTransaction { tablesAddedInWrite += types }
            try withSchemaTransaction {
                // Read again under the write lock: another connection (a thread or process opening the same new
                // file at the same moment) may have added these tables since this one read the schema.
                try readStoredSchema()
                let current = SchemaPlan(stored: storedSchemas, code: plan.code)
                if !current.breakingChanges.isEmpty {
                    throw Realm.Error(.schemaMismatch, "Migration is required due to the following errors:"
                        + current.breakingChanges.map { "\n- \($0)" }.joined(), fileURL: URL(fileURLWithPath: path))
                }
                for sql in try additiveStatements(current) { try connection.execute(sql) }
                try storeSchemas(types: types)
            }
        }
        installTables(types)
    }

    /// The statements that bring the file to `plan`'s classes. Indexes the file has are not created again: an open
    /// of an unchanged file then writes nothing (and does not wait for SQLite's lock behind a writer of the file).
    private func additiveStatements(_ plan: SchemaPlan) throws -> [String] {
        let existingIndexes = Set(try connection.cached("SELECT name FROM sqlite_master WHERE type = 'index'").rows()
            .compactMap { row -> String? in if case .text(let name) = row[0] { return name } else { return nil } })
        return plan.additiveSQL(existingIndexes: existingIndexes)
    }

    /// After a rollback: the rolled-back transaction took the tables it added with it, but this instance (and any
    /// `Results` made meanwhile) already uses them, so they are added again in a transaction of their own.
    func restoreTablesAddedInWrite() {
        guard !tablesAddedInWrite.isEmpty else { return }
        let types = tablesAddedInWrite
        tablesAddedInWrite.removeAll()
        connection.clearStatementCache()
        do {
            try readStoredSchema()
            let plan = SchemaPlan(stored: storedSchemas, code: types.map { ObjectSchemaRegistry.shared.schema(for: $0) })
            try withSchemaTransaction {
                for sql in plan.additiveSQL() { try connection.execute(sql) }
                try storeSchemas(types: types)
            }
        } catch {
            fatalError("Outpost could not add \(types.map { $0.className() }) to the Realm at '\(path)' again: \(error)")
        }
    }

    /// Sets up the table layout of each class for this instance.
    func installTables(_ types: [ObjectBase.Type]) {
        for type in types {
            let schema = ObjectSchemaRegistry.shared.schema(for: type)
            let table = TableInfo(schema: schema, objectType: type)
            if isReadOnly && storedSchemas[schema.className] == nil { table.isMissing = true }
            tablesByName[schema.className] = table
            tablesByType[ObjectIdentifier(type)] = table
        }
    }

    /// Runs `body` in a write transaction, whether or not one is open already.
    func withSchemaTransaction(_ body: () throws -> Void) throws {
        if isInWriteTransaction {
            try body()
            connection.clearStatementCache()
            return
        }
        let wasReading = readTransactionOpen
        endRead()
        // In turn with the process's other writers of the file (`WriteLock`): SQLite's busy handler alone let a
        // thread writing in a loop keep the lock for as long as the loop ran.
        acquireWriteLock()
        defer { releaseWriteLock() }
        try restoreDurability()
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        connection.clearStatementCache()
        if wasReading {
            try beginRead()
            let external = try consumeHistory()
            if !external.isEmpty { notifier.deliver(external, realm: self, synchronously: false) }
        }
    }

    func storeSchemas(types: [ObjectBase.Type]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for type in types {
            let schema = ObjectSchemaRegistry.shared.schema(for: type)
            let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
            try connection.cached("INSERT OR REPLACE INTO __outpost_schema (className, swiftType, schema) VALUES (?, ?, ?)")
                .run([.text(schema.className), .text(String(reflecting: type)), .text(json)])
            storedSchemas[schema.className] = schema
            storedSwiftTypes[schema.className] = String(reflecting: type)
        }
        if configuration.schemaVersion > schemaVersion {
            try connection.cached("UPDATE __outpost_meta SET value = ? WHERE key = 'schemaVersion'")
                .run([.integer(Int64(configuration.schemaVersion))])
            schemaVersion = configuration.schemaVersion
        }
    }

    /// Deletes every table (for `deleteRealmIfMigrationNeeded`).
    func resetFile() throws {
        try withSchemaTransaction {
            let names = try connection.cached("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_\\_outpost%' ESCAPE '\\'").rows()
            for row in names { if case .text(let n) = row[0] { try connection.execute("DROP TABLE \(SQL.quote(n))") } }
            try connection.execute("DELETE FROM __outpost_schema; DELETE FROM __outpost_history; UPDATE __outpost_meta SET value = 0 WHERE key = 'schemaVersion'")
        }
        storedSchemas = [:]
        storedSwiftTypes = [:]
        schemaVersion = 0
        historyVersion = 0
    }

    /// Copies the seed file to `path` whole or not at all: through a temporary file linked into place, so a Realm
    /// opened at the same time on another thread or process sees either no file or the whole seed.
    private static func copySeed(_ seed: URL, to path: String) throws {
        let temporary = path + ".seed-\(UUID().uuidString)"
        defer { unlink(temporary) }
        do {
            try FileManager.default.copyItem(atPath: seed.path, toPath: temporary)
        } catch {
            throw Realm.Error(.fileNotFound, "Could not copy the seed file '\(seed.path)' to '\(path)': \(error.localizedDescription)",
                              fileURL: seed)
        }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw Realm.Error(.fileAccess, "Could not copy the seed file '\(seed.path)' to '\(path)': "
                + String(cString: strerror(errno)), fileURL: URL(fileURLWithPath: path))
        }
    }
}

extension RealmInstance {
    /// The instance's number in the database's log lines.
    var logID: UInt { UInt(bitPattern: ObjectIdentifier(self).hashValue) % 100_000 }
}
