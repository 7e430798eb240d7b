import Foundation

/// Sync's part in the opens and closes of Realm files (``RealmFileObserver``): a synced file gets its sync tables,
/// an upload recorder on every instance and a session that runs while the app has the file open. Local files are
/// left alone.
struct SyncFileObserver: RealmFileObserver {
    func willOpen(_ configuration: Realm.Configuration, path: String) throws -> (any CommitObserver)? {
        nil
    }

    func didOpen(_ instance: RealmInstance, fileExisted: Bool) throws {
        guard instance.configuration.syncConfiguration != nil else { return }
        try SyncOpenSupport.prepare(instance, fileExisted: fileExisted)
    }

    func didReopen(_ instance: RealmInstance, with configuration: Realm.Configuration) throws {
        // The file's session may have stopped since (its user logged out and in again).
        guard !configuration.isInternalWorker, configuration.syncConfiguration != nil else { return }
        SyncSessionRegistry.shared.ensureSession(configuration, path: instance.path)
    }

    /// The file's session stops once its changes are uploaded, when the app has no Realm of the file left open. Told
    /// from another thread: a deinit may run where a lock the session takes is held (the session checks again).
    func appInstanceDidClose(path: String, configuration: Realm.Configuration) {
        guard configuration.syncConfiguration != nil, RealmRegistry.shared.openAppInstanceCount(path: path) == 0 else {
            return
        }
        DispatchQueue.global().async { SyncSessionRegistry.shared.lastInstanceClosed(path: path) }
    }

    /// Another process may have queued uploads for this process's session.
    func fileDidChangeExternally(path: String) {
        SyncSessionRegistry.shared.localChange(path: path)
    }
}
