import Foundation
import Synchronization

extension Realm {
    /// How to open a Realm: where its file is, its schema and how to migrate it.
    public struct Configuration: @unchecked Sendable {  // the migration block is only called on open
        /// The default used by `Realm()`.
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.withLock { $0 } }
            set { defaultStorage.withLock { $0 = newValue } }
        }
        private static let defaultStorage = Mutex<Configuration>(Configuration())

        /// The file. Setting it clears `inMemoryIdentifier`.
        public var fileURL: URL? {
            get { _fileURL }
            set {
                _fileURL = newValue
                if newValue != nil { _inMemoryIdentifier = nil }
            }
        }
        /// An in-memory Realm with this name: its data lives as long as one instance of it is open.
        /// Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            get { _inMemoryIdentifier }
            set {
                _inMemoryIdentifier = newValue
                if newValue != nil { _fileURL = nil }
            }
        }
        private var _fileURL: URL?
        private var _inMemoryIdentifier: String?

        /// Open the file read-only.
        public var readOnly = false
        /// The schema version of the classes; a higher version than the file's runs `migrationBlock`.
        public var schemaVersion: UInt64 = 0
        /// Called to migrate data when the schema version increases.
        public var migrationBlock: MigrationBlock?
        /// Delete the file instead of migrating when the schema changed in a breaking way.
        public var deleteRealmIfMigrationNeeded = false
        /// The classes the Realm holds; nil means every class the process has used or the file stores.
        public var objectTypes: [ObjectBase.Type]?
        /// Outpost keeps no encryption yet; a key is rejected when the Realm opens.
        public var encryptionKey: Data?
        /// How the Realm syncs with a server; nil for a local Realm. Set by `user.configuration(partitionValue:)` and
        /// `user.flexibleSyncConfiguration()`.
        public var syncConfiguration: SyncConfiguration?
        /// Records reads, writes and custom events for this Realm (the Event Library) when set; see ``Realm/events``.
        public var eventConfiguration: EventConfiguration?
        /// Set on an instance that a part of the library opens for its own work (the sync session's, which applies
        /// downloads): it is not one of the app's instances, so it pins no thread, is not counted among the file's open
        /// Realms, and its close is not told to the file's observers (``RealmFileObserver``), which see from this flag
        /// at its open that it is not the app's.
        var isInternalWorker = false
        /// Called on first open of the process to decide whether to compact the file (VACUUM).
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?
        /// A Realm file (one `writeCopy` made) copied to `fileURL` when the Realm is opened and its file does not
        /// exist yet. Not for in-memory Realms.
        public var seedFilePath: URL?

        public init(
            fileURL: URL? = nil, inMemoryIdentifier: String? = nil, encryptionKey: Data? = nil, readOnly: Bool = false,
            schemaVersion: UInt64 = 0, migrationBlock: MigrationBlock? = nil, deleteRealmIfMigrationNeeded: Bool = false,
            shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? = nil, objectTypes: [ObjectBase.Type]? = nil,
            seedFilePath: URL? = nil
        ) {
            if let inMemoryIdentifier {
                _inMemoryIdentifier = inMemoryIdentifier
            } else {
                _fileURL = fileURL ?? Configuration.defaultFileURL
            }
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.seedFilePath = seedFilePath
        }

        /// `default.realm` in the current directory.
        static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.realm")
        }

        /// Whether an open creates the file's directory when it is missing: a synced Realm's file lives in the app's
        /// sync directory, which its first open makes.
        var createsDirectory: Bool { syncConfiguration != nil }

        /// The SQLite file path: the file URL, or a private temporary file for in-memory Realms.
        var resolvedPath: String {
            if let id = inMemoryIdentifier {
                let safe = id.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? String($0) : "_" }.joined()
                let dir = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
                let generation = InMemoryGeneration.current.load(ordering: .relaxed)
                return (dir as NSString).appendingPathComponent(
                    "outpost-memory-\(getpid())-\(generation == 0 ? "" : "\(generation)-")\(safe)-\(abs(id.hashValue)).realm")
            }
            return (fileURL ?? Configuration.defaultFileURL).path
        }
    }

    /// The migration block: `(migration, oldSchemaVersion)`.
    public typealias MigrationBlock = (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void
}

/// The migration block of a configuration (Realm declares it at the top level as well as in `Realm`).
public typealias MigrationBlock = Realm.MigrationBlock

/// The block `Migration.enumerateObjects(ofType:_:)` calls with each object's old and new version.
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

/// Which in-memory Realms an identifier opens: those of the current generation (see `Realm._startNewInMemoryRealms()`).
enum InMemoryGeneration {
    static let current = Atomic<Int>(0)
}

extension Realm {
    /// Test support, Outpost-only (Realm's own tests reset its caches with the private `RLMRealm.resetRealmState()`):
    /// in-memory Realms opened from now on start empty, even while instances of earlier ones are still open (a test
    /// case that keeps a managed object keeps its Realm); those keep their own data until they close.
    @_spi(Testing) public static func _startNewInMemoryRealms() {
        InMemoryGeneration.current.add(1, ordering: .relaxed)
    }
}
