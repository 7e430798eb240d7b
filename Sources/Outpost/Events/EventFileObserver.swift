/// The event library's part in the opens of Realm files (``RealmFileObserver``): every instance of a file that has an
/// event context (one was opened with an `eventConfiguration` in this process) gets an ``EventRecorder``. Instances
/// the library opens for its own work record nothing.
struct EventFileObserver: RealmFileObserver {
    /// Validates the event configuration and finds (or makes) the file's context before anything of the file exists.
    func willOpen(_ configuration: Realm.Configuration, path: String) throws -> (any CommitObserver)? {
        guard !configuration.isInternalWorker,
            let context = try EventContextRegistry.context(for: configuration, path: path)
        else { return nil }
        return EventRecorder(context: context)
    }

    func didOpen(_ instance: RealmInstance, fileExisted: Bool) throws {}

    /// This open's configuration may bring events to a file opened without (or new metadata): the instance's recorder
    /// takes the context, keeping what it captured in an open write transaction.
    func didReopen(_ instance: RealmInstance, with configuration: Realm.Configuration) throws {
        guard !configuration.isInternalWorker else { return }
        let context = try EventContextRegistry.context(for: configuration, path: instance.path)
        if let recorder = instance.eventRecorder {
            if let context { recorder.context = context } else { instance.detach(recorder) }
        } else if let context {
            instance.attach(EventRecorder(context: context))
        }
    }

    func appInstanceDidClose(path: String, configuration: Realm.Configuration) {}

    func fileDidChangeExternally(path: String) {}
}
