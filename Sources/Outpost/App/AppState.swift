import Foundation
import Synchronization

/// The state every ``App`` with the same id, base URL and root directory shares: its users, its sync manager and
/// its connection to the server. Realm caches apps per id the same way.
final class AppState: @unchecked Sendable {
    // @unchecked Sendable: the constants are immutable; `users` and every User's mutable fields are guarded by
    // `lock`, which is never held across an await or while calling out.
    let appId: String
    let configuration: AppConfiguration
    let api: ClientAPI
    let syncManager = SyncManager()
    /// `<rootDirectory>/<appId>/`.
    let appDirectory: URL
    let store: UserMetadataStore
    let lock = NSLock()
    /// Users in login order (the current user is the last logged-in one). Guarded by `lock`.
    private(set) var users: [User] = []

    init(appId: String, configuration: AppConfiguration) {
        self.appId = appId
        self.configuration = configuration
        api = ClientAPI(
            appId: appId, baseURL: configuration.resolvedBaseURL,
            transport: configuration.transport ?? RLMNetworkTransport(),
            timeout: TimeInterval(configuration.defaultRequestTimeoutMS) / 1000)
        appDirectory = configuration.resolvedRootDirectory.appendingPathComponent(appId, isDirectory: true)
        store = UserMetadataStore(appDirectory: appDirectory)
        users = store.load().map { User(record: $0, app: self) }
    }

    // MARK: Users (call with `lock` held)

    /// The user with `id`, if the app knows them.
    func userLocked(id: String) -> User? {
        users.first { $0.id == id }
    }

    /// Makes `user` the most recent one (the current user while logged in).
    func moveToFrontLocked(_ user: User) {
        users.removeAll { $0 === user }
        users.append(user)
    }

    func forgetLocked(_ user: User) {
        users.removeAll { $0 === user }
    }

    /// Writes every user's record to disk.
    func persistLocked() throws {
        try store.save(users.map(\.recordLocked))
    }

    // MARK: The cache of apps

    private struct Key: Hashable {
        var appId: String
        var baseURL: String
        var rootDirectory: String
    }

    private struct Cache {
        var byKey: [Key: AppState] = [:]
        /// The most recently created state per app id, for `App(id:)` without a configuration.
        var latestById: [String: AppState] = [:]
    }

    private static let cache = Mutex(Cache())

    /// The shared state for `appId`: with a configuration, the one for its base URL and root directory; without,
    /// the latest one created for the id (or a new one with the default configuration).
    static func shared(appId: String, configuration: AppConfiguration?) -> AppState {
        cache.withLock { cache in
            if configuration == nil, let latest = cache.latestById[appId] { return latest }
            let configuration = configuration ?? AppConfiguration()
            let key = Key(
                appId: appId, baseURL: configuration.resolvedBaseURL,
                rootDirectory: configuration.resolvedRootDirectory.path)
            if let state = cache.byKey[key] { return state }
            let state = AppState(appId: appId, configuration: configuration)
            cache.byKey[key] = state
            cache.latestById[appId] = state
            return state
        }
    }

    /// Forgets the cached app for `appId` and `configuration`, so the next `App(id:configuration:)` reads its users
    /// from disk again (a restart, in tests).
    static func removeFromCache(appId: String, configuration: AppConfiguration) {
        let key = Key(
            appId: appId, baseURL: configuration.resolvedBaseURL, rootDirectory: configuration.resolvedRootDirectory.path)
        cache.withLock { cache in
            if let state = cache.byKey.removeValue(forKey: key), cache.latestById[appId] === state {
                cache.latestById[appId] = nil
            }
        }
    }
}
