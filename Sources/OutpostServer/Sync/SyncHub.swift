import OutpostCore
import Synchronization

/// Fans new server versions out to the sessions of each app and keeps the most recent changesets of each app in
/// memory, so that a commit seen by a hundred sessions is read from storage once.
actor SyncHub {
    private let storage: any DocumentStorage
    private var latest: [String: Int64] = [:]
    private var recent: [String: [ServerChangeset]] = [:]
    private var listeners: [String: [ObjectIdentifier: SessionWaker]] = [:]
    /// Storage reads in flight: sessions that miss the cache for the same range wait for the one read.
    private var loads: [LoadKey: Task<[ServerChangeset], any Error>] = [:]
    /// At most this many changesets are kept per app…
    private let cacheLimit = 4_096
    /// …and about this much memory of their documents (``memoryWeight(of:)``): large transactions are not kept by
    /// the thousand. The newest changeset is always kept.
    private let cacheBytes: Int
    private var recentBytes: [String: Int] = [:]

    private struct LoadKey: Hashable {
        let appId: String
        let after: Int64
        let upTo: Int64
        let limit: Int
    }

    /// - Parameter cacheBytes: about how much memory of recent changesets to keep per app (64 MiB by default).
    init(storage: any DocumentStorage, cacheBytes: Int = 64 << 20) {
        self.storage = storage
        self.cacheBytes = cacheBytes
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
        var bytes = recentBytes[appId] ?? 0
        defer {
            recent[appId] = cached
            recentBytes[appId] = bytes
        }
        if let last = cached.last, last.serverVersion + 1 >= first.serverVersion {
            let new = changesets.filter { $0.serverVersion > last.serverVersion }
            cached.append(contentsOf: new)
            bytes += new.reduce(0) { $0 + Self.memoryWeight(of: $1) }
        } else if cached.isEmpty || first.serverVersion > (cached.last?.serverVersion ?? 0) {
            cached = changesets
            bytes = changesets.reduce(0) { $0 + Self.memoryWeight(of: $1) }
        } else {
            return
        }
        // Trimmed by a quarter at a time rather than by one element per commit.
        var drop = cached.count > cacheLimit + cacheLimit / 4 ? cached.count - cacheLimit : 0
        var kept = bytes
        for changeset in cached.prefix(drop) { kept -= Self.memoryWeight(of: changeset) }
        if kept > cacheBytes {
            // Down to three quarters, so that a full cache is not trimmed again at every commit.
            while kept > cacheBytes / 4 * 3, drop < cached.count - 1 {
                kept -= Self.memoryWeight(of: cached[drop])
                drop += 1
            }
        }
        if drop > 0 {
            cached.removeFirst(drop)
            bytes = kept
        }
    }

    /// About the memory a cached changeset holds: its documents (as values and, when kept, as text) and a little
    /// per change.
    static func memoryWeight(of changeset: ServerChangeset) -> Int {
        var bytes = 256
        for change in changeset.draft.changes {
            bytes += 128
            if let text = change.afterText { bytes += 2 * text.utf8.count } else if change.after != nil { bytes += 512 }
            if change.before != nil { bytes += 512 }
        }
        return bytes
    }

    /// How many changesets of an app are in memory, and about how many bytes they hold (for tests).
    func cached(appId: String) -> (changesets: Int, bytes: Int) {
        (recent[appId]?.count ?? 0, recentBytes[appId] ?? 0)
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
