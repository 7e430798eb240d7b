import OutpostCore
import Synchronization

/// Fans new server versions out to the sessions of each app and keeps the most recent changesets of each app in
/// memory, so that a commit seen by a hundred sessions is read from storage once.
actor SyncHub {
    private let storage: any ServerStorage
    private var latest: [String: Int64] = [:]
    private var recent: [String: [ServerChangeset]] = [:]
    private var listeners: [String: [ObjectIdentifier: SessionWaker]] = [:]
    /// Storage reads in flight: sessions that miss the cache for the same range wait for the one read.
    private var loads: [LoadKey: Task<[ServerChangeset], any Error>] = [:]
    private let cacheLimit = 4_096

    private struct LoadKey: Hashable {
        let appId: String
        let after: Int64
        let upTo: Int64
        let limit: Int
    }

    init(storage: any ServerStorage) {
        self.storage = storage
    }

    /// Registers a session's waker for an app's new versions.
    func register(appId: String, _ waker: SessionWaker) {
        listeners[appId, default: [:]][ObjectIdentifier(waker)] = waker
    }

    func unregister(appId: String, _ waker: SessionWaker) {
        listeners[appId]?[ObjectIdentifier(waker)] = nil
    }

    /// The newest server version known for an app.
    func latestVersion(appId: String) async throws -> Int64 {
        if let v = latest[appId] { return v }
        let v = try await storage.latestServerVersion(appId: appId)
        latest[appId] = max(latest[appId] ?? 0, v)
        return latest[appId]!
    }

    /// Records that an app reached a version (from this process or another) and wakes its sessions.
    func announce(_ note: ChangeNotification) {
        guard note.serverVersion > (latest[note.appId] ?? 0) else { return }
        latest[note.appId] = note.serverVersion
        for waker in (listeners[note.appId] ?? [:]).values { waker.wake() }
    }

    /// Reads the latest version of every app with sessions from storage and announces any that moved: a safety net
    /// for notifications lost while a driver's listener reconnected.
    func poll() async {
        for appId in listeners.keys where !(listeners[appId]?.isEmpty ?? true) {
            if let version = try? await storage.latestServerVersion(appId: appId) {
                announce(ChangeNotification(appId: appId, serverVersion: version))
            }
        }
    }

    /// What a session at `after` has to download: the newest version known for the app (at most `upTo`) and the
    /// first changesets after `after` up to it (at most `limit`), in one call on the hub — a hundred sessions woken
    /// by one commit each make one call, not two.
    func catchUp(appId: String, after: Int64, upTo: Int64?, limit: Int) async throws -> (latest: Int64, changesets: [ServerChangeset]) {
        var latest = try await latestVersion(appId: appId)
        if let upTo { latest = min(latest, upTo) }
        guard after < latest else { return (latest, []) }
        return (latest, try await changesets(appId: appId, after: after, upTo: latest, limit: limit))
    }

    /// Changesets with `after < version <= upTo`, from memory when they are recent, else from storage.
    ///
    /// A version announced before its changesets are in memory — another process's commit, or this process's
    /// when the storage's notification overtakes the session that records it — wakes every session of the app
    /// at once, all asking for the same range: they share one storage read (the hub is an actor, so without that
    /// each would start its own while the first one is suspended).
    func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
        if let cached = recent[appId], let first = cached.first, first.serverVersion <= after + 1,
            let last = cached.last, last.serverVersion >= upTo
        {
            let start = cached.firstIndex { $0.serverVersion > after } ?? cached.endIndex
            return Array(cached[start...].prefix { $0.serverVersion <= upTo }.prefix(limit))
        }
        let key = LoadKey(appId: appId, after: after, upTo: upTo, limit: limit)
        if let running = loads[key] { return try await running.value }
        let load = Task { [storage] in try await storage.changesets(appId: appId, after: after, upTo: upTo, limit: limit) }
        loads[key] = load
        defer { loads[key] = nil }
        let loaded = try await load.value
        remember(appId: appId, loaded)
        return loaded
    }

    /// Keeps changesets this process has just committed, so sessions need not read them back from storage.
    func record(appId: String, _ changesets: [ServerChangeset]) {
        remember(appId: appId, changesets)
    }

    private func remember(appId: String, _ changesets: [ServerChangeset]) {
        guard let first = changesets.first else { return }
        // Taken out of the dictionary while it changes, so that appending does not copy it.
        var cached = recent.removeValue(forKey: appId) ?? []
        defer { recent[appId] = cached }
        if let last = cached.last, last.serverVersion + 1 >= first.serverVersion {
            cached.append(contentsOf: changesets.filter { $0.serverVersion > last.serverVersion })
        } else if cached.isEmpty || first.serverVersion > (cached.last?.serverVersion ?? 0) {
            cached = changesets
        } else {
            return
        }
        // Trimmed by a quarter at a time rather than by one element per commit.
        if cached.count > cacheLimit + cacheLimit / 4 { cached.removeFirst(cached.count - cacheLimit) }
    }
}

/// Wakes one session when its app has a new version. Wakes coalesce: a session that has not yet handled the last
/// wake is not woken again.
final class SessionWaker: Sendable {
    private let pending = Mutex(false)
    private let signal: @Sendable () -> Void

    init(signal: @escaping @Sendable () -> Void) {
        self.signal = signal
    }

    func wake() {
        let shouldSignal = pending.withLock { queued in
            if queued { return false }
            queued = true
            return true
        }
        if shouldSignal { signal() }
    }

    /// Called by the session when it starts handling a wake.
    func consumed() {
        pending.withLock { $0 = false }
    }
}
