/// A part of the library that watches the Realm files the app opens (the event library, the sync client) and attaches
/// its ``CommitObserver`` to their instances.
///
/// The database does not know which parts exist. It tells each one in ``RealmFileObservers/all``, in that order, of
/// every open of a file and every close of an app's instance, and of changes another process made to a file. The list
/// is a constant outside this folder (Configuration/RealmFileObservers.swift) rather than something the parts register
/// into: Swift runs no code at load time, and a constant is there before the first open, whichever it is.
///
/// A part sees an instance that a part opened for its own work from its configuration
/// (``Realm/Configuration/isInternalWorker``).
protocol RealmFileObserver: Sendable {
    /// A new instance of the file at `path` is about to open; nothing of the file has been read or created yet. Throw
    /// to refuse the configuration (the open fails with the error). Returns the observer to attach to the new instance
    /// before its schema is loaded (it then sees the writes of a migration), if any.
    func willOpen(_ configuration: Realm.Configuration, path: String) throws -> (any CommitObserver)?

    /// The new instance is open: its schema is loaded and it is registered. The part sets the file up, which may
    /// attach an observer and write; a throw fails the open.
    func didOpen(_ instance: RealmInstance, fileExisted: Bool) throws

    /// An open returns the instance the calling thread or queue has open already. `configuration` is this open's,
    /// which may differ from the instance's own; a throw fails the open.
    func didReopen(_ instance: RealmInstance, with configuration: Realm.Configuration) throws

    /// One of the app's instances of the file (not a frozen one, not a part's own) closed. Called from the instance's
    /// deinit, which may run where a lock is held: anything that takes locks belongs on another thread.
    func appInstanceDidClose(path: String, configuration: Realm.Configuration)

    /// Another process changed the file.
    func fileDidChangeExternally(path: String)
}
