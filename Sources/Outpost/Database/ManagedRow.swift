import Foundation
import OutpostCore

/// The storage behind a managed object: its table, rowid and a cache of its column values for the
/// Realm's current version. All objects for one row of one Realm instance share one `ManagedRow`,
/// so a write through one is seen by all. Implementation detail.
public final class ManagedRow {
    let realm: RealmInstance
    let table: TableInfo
    let rowid: Int64
    var values: [SQLiteValue]
    var loadedVersion: Int
    var isDeleted = false
    /// The instance's `invalidationEpoch` when the row was made: `Realm.invalidate()` detaches older rows.
    let epoch: Int
    /// Decoded collections by column, valid while `loadedVersion` is current.
    var decodedCollections: [Int: [_StoredValue]] = [:]
    var decodedMaps: [Int: [(String, _StoredValue)]] = [:]
    /// The row's slot in its table's list of rows just inserted (`RowIdentityMap`), or -1.
    var freshSlot = -1

    init(realm: RealmInstance, table: TableInfo, rowid: Int64, values: [SQLiteValue]?) {
        self.realm = realm
        self.table = table
        self.rowid = rowid
        self.values = values ?? []
        self.loadedVersion = values == nil ? -1 : realm.snapshotVersion
        self.epoch = realm.invalidationEpoch
    }

    deinit {
        if freshSlot >= 0 { table.rows.releaseFresh(self) }
    }

    var isInvalidated: Bool {
        realm.synchronized {
            if realm.isInvalidated || epoch != realm.invalidationEpoch { return true }
            if isDeleted { return true }
            if loadedVersion != realm.snapshotVersion { reload() }
            return isDeleted
        }
    }

    /// Whether values read from this row may be kept on its object: not for a frozen Realm's, whose objects are
    /// read from any thread at once.
    public var _keepsCollections: Bool { !realm.isFrozen }

    public func _propertyIndex(_ keyPath: AnyKeyPath, name: () -> String) -> Int {
        realm.synchronized { table.propertyIndex(for: keyPath, name: name) }
    }

    /// Makes sure the cached values belong to the current version; traps if the row is gone.
    @inline(__always)
    func ensureLoaded() {
        realm.verifyAccess()
        realm.verifyReadable()
        if loadedVersion != realm.snapshotVersion { reload() }
        if isDeleted || epoch != realm.invalidationEpoch {
            fatalError("Object has been deleted or invalidated.")
        }
    }

    func reload() {
        decodedCollections.removeAll(keepingCapacity: true)
        decodedMaps.removeAll(keepingCapacity: true)
        guard let loaded = realm.loadRow(table, rowid), !isReused(by: loaded) else {
            isDeleted = true
            loadedVersion = realm.snapshotVersion
            return
        }
        values = loaded
        loadedVersion = realm.snapshotVersion
    }

    /// Whether `loaded` (this rowid's values now) belong to another object: SQLite gives a new row the rowid of the
    /// table's last row once that row is deleted, also when another instance (another thread, or the sync session
    /// applying a download) deleted this object and added that one. Detected by the primary key; objects of
    /// classes without one cannot be told apart.
    func isReused(by loaded: [SQLiteValue]) -> Bool {
        guard let column = table.primaryKeyColumn, column < values.count, column < loaded.count else { return false }
        return values[column] != loaded[column]
    }

    /// The stored value of a single-valued property.
    func read(property index: Int) -> _StoredValue {
        realm.synchronized {
            ensureLoaded()
            guard let column = table.columnOfProperty[index] else { return .null }
            let type = table.propertyTypes[index]
            if type != .object && type != .mixed {
                return ValueCoding.scalar(values[column], type: type)  // hot path: no Property copy
            }
            return realm.decodeColumn(values[column], property: table.schema.allProperties[index])
        }
    }

    /// The elements of a list or set property.
    func readCollection(property index: Int) -> [_StoredValue] {
        realm.synchronized {
            ensureLoaded()
            guard let column = table.columnOfProperty[index] else { return [] }
            if let cached = decodedCollections[column] { return cached }
            let decoded = realm.decodeCollection(values[column], property: table.schema.allProperties[index])
            decodedCollections[column] = decoded
            return decoded
        }
    }

    /// The entries of a map property, sorted by key.
    func readMap(property index: Int) -> [(String, _StoredValue)] {
        realm.synchronized {
            ensureLoaded()
            guard let column = table.columnOfProperty[index] else { return [] }
            if let cached = decodedMaps[column] { return cached }
            let decoded = realm.decodeMap(values[column], property: table.schema.allProperties[index])
            decodedMaps[column] = decoded
            return decoded
        }
    }

    /// The content of a property for descriptions and copies.
    func content(ofProperty index: Int) -> _PropertyContent {
        let property = table.schema.allProperties[index]
        switch property.collection {
        case _ where property.type == .linkingObjects: return .computed
        case .none: return .value(read(property: index))
        case .list: return .list(readCollection(property: index))
        case .set: return .set(readCollection(property: index))
        case .map: return .map(readMap(property: index))
        }
    }
}

/// Access to one property of one managed object. Implementation detail of `@Persisted`.
public struct _PropertyAccessor {
    let row: ManagedRow
    let propertyIndex: Int

    /// Whether this is `other`'s property itself (the same row and property, not a collection nested in it).
    func isProperty(_ other: _PropertyAccessor) -> Bool {
        nested == nil && other.nested == nil && row === other.row && propertyIndex == other.propertyIndex
    }
    /// The way from the property's value to a collection nested in a mixed value (`[]`: the mixed property's value
    /// itself); nil for the property itself.
    var nested: [MixedPathStep]?

    @inlinable
    public init(row: ManagedRow, propertyIndex: Int) {
        self = _PropertyAccessor(uncheckedRow: row, propertyIndex: propertyIndex)
    }

    @usableFromInline
    init(uncheckedRow row: ManagedRow, propertyIndex: Int) {
        self.row = row
        self.propertyIndex = propertyIndex
        self.nested = nil
    }

    public func read() -> _StoredValue {
        let value = row.read(property: propertyIndex)
        // Following a link is a read of the object it reaches (ReadObserver.swift).
        if case .object = value, let observer = row.realm.readObserver {
            observer.didFollowLink(from: row, propertyIndex: propertyIndex, to: value)
        }
        return value
    }

    public func write(_ value: _StoredValue) {
        row.realm.setProperty(row, propertyIndex, .value(value))
    }

    var property: Property { row.table.schema.allProperties[propertyIndex] }
}
