import Foundation
import OutpostCore

/// A Realm: an Outpost database opened on this thread (or queue, or actor).
///
/// ```swift
/// let realm = try Realm()
/// try realm.write { realm.add(item) }
/// let easy = realm.objects(Item.self).where { $0.complexity <= 4 }
/// ```
public struct Realm {
    let instance: RealmInstance

    init(instance: RealmInstance) {
        self.instance = instance
    }

    /// Opens the Realm described by `configuration`, confined to the current thread.
    public init(configuration: Configuration = .defaultConfiguration) throws {
        let scheduler: Scheduler? = Thread.isMainThread ? .runLoop(.main) : .runLoop(.current)
        instance = try RealmInstance.open(configuration: configuration, confinement: .currentThread(),
                                          scheduler: scheduler)
    }

    /// Opens the Realm confined to a serial `queue`; use it only from blocks running on that queue.
    public init(configuration: Configuration = .defaultConfiguration, queue: DispatchQueue?) throws {
        guard let queue else {
            self = try Realm(configuration: configuration)
            return
        }
        let key = DispatchSpecificKey<UInt8>()
        queue.setSpecific(key: key, value: 1)
        instance = try RealmInstance.open(configuration: configuration, confinement: .queue(queue, key),
                                          scheduler: .queue(queue))
    }

    /// Opens the file at `fileURL` with the default configuration's other settings.
    public init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    // MARK: Properties

    /// The configuration the Realm was opened with.
    public var configuration: Configuration { instance.configuration }

    /// The schema of the classes this Realm holds.
    public var schema: Schema {
        Schema(instance.tablesByName.values.map(\.schema).sorted { $0.className < $1.className })
    }

    /// Whether the Realm holds no objects.
    public var isEmpty: Bool {
        instance.verifyAccess()
        return instance.synchronized {
            instance.verifyReadable()
            return instance.tablesByName.values.allSatisfy { table in
                table.isMissing
                    || (try? instance.connection.scalar("SELECT EXISTS (SELECT 1 FROM \(table.sqlName))")) == .integer(0)
            }
        }
    }

    /// Whether a write transaction is open.
    public var isInWriteTransaction: Bool { instance.isInWriteTransaction }

    /// Whether this Realm is frozen.
    public var isFrozen: Bool { instance.isFrozen }

    /// Whether the Realm advances to new versions automatically on its thread's run loop or queue.
    public var autorefresh: Bool {
        get { instance.autorefresh }
        nonmutating set {
            if instance.isFrozen && newValue {
                fatalError("Auto-refresh cannot be enabled for frozen Realms.")
            }
            instance.autorefresh = newValue
        }
    }

    // MARK: Transactions

    /// Runs `block` in a write transaction and commits it; if the block throws, nothing is written.
    /// Invalid operations inside the block (a duplicate primary key, a value of the wrong type, …)
    /// make the commit throw a `Realm.Error` naming the type, property and value.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken] = [], _ block: () throws -> Result) throws
        -> Result
    {
        try instance.beginWrite()
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite(withoutNotifying: tokens) }
        return result
    }

    /// Opens a write transaction. As in Realm, a failure to begin one (a read-only or frozen Realm, one already in
    /// a write transaction, a file that cannot be locked or written) is a programming error and traps with its
    /// message; ``write(withoutNotifying:_:)`` throws those errors instead.
    public func beginWrite() {
        do {
            try instance.beginWrite()
        } catch let error as Realm.Error {
            fatalError(error.localizedDescription)
        } catch {
            fatalError("\(error)")
        }
    }

    /// Commits the open write transaction.
    public func commitWrite(withoutNotifying tokens: [NotificationToken] = []) throws {
        instance.notifier.skip(tokens)
        defer {
            instance.notifier.skip([])
            Self.resumeAsyncWritesAfterWrite(instance)
        }
        try instance.commitWrite()
    }

    /// Discards everything written since `beginWrite()`.
    public func cancelWrite() {
        instance.cancelWrite()
        Self.resumeAsyncWritesAfterWrite(instance)
    }

    /// Advances to the latest version and delivers notifications. Returns whether anything changed.
    @discardableResult
    public func refresh() -> Bool {
        instance.verifyAccess()
        guard !instance.isFrozen else { return false }
        guard let changes = try? instance.advance() else { return false }
        if !changes.isEmpty {
            instance.notifier.deliver(changes, realm: instance, synchronously: true)
            instance.notifier.notifyRealmObservers(.didChange)
        }
        return !changes.isEmpty
    }

    /// Releases the pinned version: objects and collections read before are invalidated (using them
    /// traps; `isInvalidated` is true), `Results` re-evaluate at the latest version on next access.
    /// Cancels a write transaction in progress. On a frozen Realm, nothing can be read afterwards.
    public func invalidate() {
        instance.verifyAccess()
        if instance.isFrozen {
            // A frozen Realm releases its version for good; reading it afterwards traps.
            instance.synchronized {
                instance.isInvalidated = true
                instance.endRead()
            }
            return
        }
        if instance.isInWriteTransaction { cancelWrite() }
        instance.endRead()
        instance.invalidateRowCaches()
        // Objects, lists, sets and maps read before are detached (Realm's semantics); results
        // re-evaluate at the new version.
        instance.invalidationEpoch &+= 1
        for table in instance.tablesByName.values { table.rows = RowIdentityMap() }
        try? instance.beginRead()
    }

    // MARK: Adding and creating

    /// How `add` and `create` treat an existing object with the same primary key.
    public enum UpdatePolicy: Int, Sendable {
        /// Fail (the write throws).
        case error = 1
        /// Update only the properties whose values differ.
        case modified = 3
        /// Update every property.
        case all = 2
    }

    /// Adds an unmanaged object (and the objects it links to) to the Realm.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        instance.requireWrite()
        if update != .error && object.objectSchema.primaryKeyProperty == nil {
            instance.fail(Realm.Error(.invalidInput,
                "'\(object.objectSchema.className)' does not have a primary key and can not be updated"))
            return
        }
        instance.insertObject(object, update: update)
    }

    /// Adds several objects.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// Creates an object from a dictionary of property values, an array of values in property order (properties past
    /// its end get their defaults), or another object, and returns it managed. Nested values create linked objects.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        instance.requireWrite()
        let table = instance.table(for: type)
        if update != .error && table.primaryKeyProperty == nil {
            instance.fail(Realm.Error(.invalidInput, "'\(table.className)' does not have a primary key and can not be updated"))
        }
        guard let contents = ValueConversion.contents(of: value, for: table, realm: instance),
            let row = instance.insertRow(table, contents: contents, update: update, object: nil)
        else {
            return T()  // unmanaged placeholder; the write will throw
        }
        let object = T()
        object._row = row
        return object
    }

    // MARK: Deleting

    /// Deletes an object.
    public func delete(_ object: ObjectBase) {
        instance.requireWrite()
        guard let row = object._row, row.realm === instance else {
            instance.fail(Realm.Error(.invalidInput, "Can only delete an object from the Realm it belongs to."))
            return
        }
        instance.deleteRow(row)
    }

    /// Deletes the objects of a sequence (Results, List, an array …).
    public func delete<S: Sequence>(_ objects: S) where S.Element: ObjectBase {
        let rows = objects.map { $0 }
        for object in rows { delete(object) }
    }

    /// Deletes every object.
    public func deleteAll() {
        instance.deleteAllObjects()
    }

    // MARK: Reading

    /// All objects of a class.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        instance.verifyAccess()
        instance.verifyReadable()
        return Results(realm: instance, table: instance.table(for: type))
    }

    /// The object with the given primary key, or nil.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        instance.verifyAccess()
        let table = instance.table(for: type)
        guard let rowid = existingRow(table, primaryKey: key) else { return nil }
        if let observer = instance.readObserver { observer.didReadObject(table, rowid: rowid, in: instance) }
        return instance.object(table, rowid) as? Element
    }

    /// The row of `table` whose primary key is `key`; traps with Realm's texts for a class without a primary key or a
    /// key of the wrong type.
    func existingRow(_ table: TableInfo, primaryKey key: Any) -> Int64? {
        guard let pkIndex = table.primaryKeyProperty else {
            fatalError("'\(table.className)' does not have a primary key")
        }
        let property = table.schema.allProperties[pkIndex]
        guard let stored = ValueConversion.stored(key, realm: instance),
            let value = RealmInstance.convert(stored, to: property.type).map(ValueCoding.column)
                ?? (stored.isNull ? SQLiteValue.null : nil)
        else {
            fatalError("Invalid value '\(key)' of type '\(type(of: key))' for primary key of '\(table.className)' "
                + "(\(property.typeDescription))")
        }
        return instance.existingRow(table, primaryKey: value, property: property)
    }

    // MARK: Files

    /// Writes a compacted copy of the Realm to `fileURL` (which must not exist): the version this
    /// Realm reads. Inside a write transaction, the copy is the version the transaction started from
    /// (Realm would include the uncommitted changes; SQLite cannot copy them from the writing connection).
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        instance.verifyAccess()
        if encryptionKey != nil {
            throw Realm.Error(.invalidInput, "Outpost does not support encryptionKey yet; write the copy without one.")
        }
        if FileManager.default.fileExists(atPath: fileURL.path) {
            throw Realm.Error(.fileExists, "File at path '\(fileURL.path)' already exists.", fileURL: fileURL)
        }
        do {
            let target = "'" + fileURL.path.replacingOccurrences(of: "'", with: "''") + "'"
            if instance.isInWriteTransaction {
                // The write lock is ours, so a new connection sees the last committed version.
                try SQLiteConnection(path: instance.path, readOnly: true).execute("VACUUM INTO \(target)")
            } else {
                // SQLite cannot VACUUM INTO inside the read transaction this Realm keeps open: copy its
                // version with the backup API, then compact the copy in place.
                let copy = try SQLiteConnection(path: fileURL.path)
                try instance.synchronized { try instance.connection.backup(into: copy) }
                try copy.execute("VACUUM")
            }
        } catch {
            try? FileManager.default.removeItem(at: fileURL)
            throw Realm.Error(.fileAccess, "Could not write a copy to '\(fileURL.path)': \(error)", fileURL: fileURL)
        }
    }

    /// Writes a compacted copy of the Realm to the file of `configuration` (which must not exist), as
    /// ``writeCopy(toFile:encryptionKey:)`` does.
    public func writeCopy(configuration: Realm.Configuration) throws {
        guard configuration.inMemoryIdentifier == nil else {
            throw Realm.Error(.invalidInput, "Cannot write a copy to an in-memory Realm's configuration.")
        }
        try writeCopy(toFile: URL(fileURLWithPath: configuration.resolvedPath), encryptionKey: configuration.encryptionKey)
    }

    /// Whether the file of `configuration` exists (always false for an in-memory configuration).
    public static func fileExists(for configuration: Configuration) -> Bool {
        guard configuration.inMemoryIdentifier == nil else { return false }
        return FileManager.default.fileExists(atPath: configuration.resolvedPath)
    }

    /// Deletes the Realm's files (database, WAL and shared-memory files). Returns whether any existed.
    /// Throws `.alreadyOpen` if the Realm is open in this process.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        let path = configuration.resolvedPath
        if RealmRegistry.shared.openCount(path: path) > 0 {
            throw Realm.Error(.alreadyOpen, "Cannot delete files of an open Realm: '\(path)' is still in use.",
                              fileURL: URL(fileURLWithPath: path))
        }
        var existed = false
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let file = path + suffix
            if FileManager.default.fileExists(atPath: file) {
                existed = true
                do {
                    try FileManager.default.removeItem(atPath: file)
                } catch {
                    throw Realm.Error(.fileOperationFailed, "Could not delete '\(file)': \(error)",
                                      fileURL: URL(fileURLWithPath: file))
                }
            }
        }
        return existed
    }
}

extension Realm: Equatable {
    public static func == (lhs: Realm, rhs: Realm) -> Bool { lhs.instance === rhs.instance }
}

extension Realm: CustomStringConvertible {
    public var description: String { "Realm(\(instance.path))" }
}
