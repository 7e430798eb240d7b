/// The parts of the library that watch the Realm files the app opens (``RealmFileObserver``), in the order the
/// database tells them of an open: the event library first, since it checks its configuration before anything of the
/// file is created, then sync, which sets the opened file up and may write to it (its commit observer is still the
/// first to see each commit: it attaches itself ahead of the others).
enum RealmFileObservers {
    static let all: [any RealmFileObserver] = [EventFileObserver(), SyncFileObserver()]
}
