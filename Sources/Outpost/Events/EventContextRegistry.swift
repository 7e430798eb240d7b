import Foundation

/// The event contexts of the process, one per Realm file: created when the file is first opened with an
/// `eventConfiguration`, then shared by every instance of that file (as Realm's audit context).
enum EventContextRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var contexts: [String: EventContext] = [:]  // guarded by `lock`

    /// The file's context: validates the configuration and creates the context on first use; a later
    /// configuration with events replaces the metadata. Nil when events were never configured for the file.
    static func context(for configuration: Realm.Configuration, path: String) throws -> EventContext? {
        guard let events = configuration.eventConfiguration else {
            return lock.withLock { contexts[path] }
        }
        try events.validate()
        let user = events.syncUser ?? configuration.syncConfiguration?.user
        if let existing = lock.withLock({ contexts[path] }) {
            existing.updateMetadata(events.metadata ?? [:])
            if let user { attachUploader(existing.store, user: user, events: events) }
            return existing
        }
        let directory: URL
        var fallbackLogger: (@Sendable (SyncLogLevel, String) -> Void)?
        if let user {
            let app = user.app
            directory = app.configuration.resolvedRootDirectory
                .appendingPathComponent("realm-audit").appendingPathComponent(app.appId)
                .appendingPathComponent(user.id).appendingPathComponent(events.partitionPrefix)
            let manager = app.syncManager
            fallbackLogger = { level, line in manager.log(level, line) }
        } else {
            directory = URL(fileURLWithPath: path).deletingLastPathComponent()
                .appendingPathComponent("realm-audit").appendingPathComponent("local")
                .appendingPathComponent(events.partitionPrefix)
        }
        let store = EventStoreRegistry.store(directory: directory, partitionPrefix: events.partitionPrefix,
                                             maxShardSize: events.maxShardSize)
        let context = lock.withLock {
            if let raced = contexts[path] { return raced }
            let context = EventContext(configuration: events, path: path, store: store, fallbackLogger: fallbackLogger)
            contexts[path] = context
            return context
        }
        if let user { attachUploader(context.store, user: user, events: events) }
        return context
    }

    /// Starts (or restarts) the upload of the store's events as `user`, leftovers of earlier runs included.
    private static func attachUploader(_ store: EventStore, user: User, events: EventConfiguration) {
        let manager = user.app.syncManager
        let logger = events.logger
        store.attach(user: user, configuration: events) { level, line in
            if let logger { logger(level, line) } else { manager.log(level, line) }
        }
    }
}
