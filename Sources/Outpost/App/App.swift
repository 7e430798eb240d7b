import Foundation

/// An app on an outpost-server: login, its users and its sync manager, as Realm Swift's `App`.
///
/// ```swift
/// let app = App(id: "outpost-dev", configuration: AppConfiguration(baseURL: "http://127.0.0.1:9090"))
/// let user = try await app.login(credentials: .anonymous)
/// ```
///
/// Apps are cached as in Realm: every `App(id:configuration:)` with the same id, base URL and root directory shares
/// one set of users and one ``syncManager``; `App(id:)` without a configuration uses the latest app created with
/// that id (or the default configuration).
public final class App: Sendable {
    let state: AppState

    init(state: AppState) {
        self.state = state
    }

    /// The app with this id: the latest one created for it, or one with the default configuration.
    public convenience init(id: String) {
        self.init(state: AppState.shared(appId: id, configuration: nil))
    }

    /// The app with this id on the configured server.
    public convenience init(id: String, configuration: AppConfiguration?) {
        self.init(state: AppState.shared(appId: id, configuration: configuration))
    }

    /// The app id.
    public var appId: String { state.appId }

    /// The configuration the app was created with.
    public var configuration: AppConfiguration { state.configuration }

    /// The sync manager shared by every synced Realm of the app's users.
    public var syncManager: SyncManager { state.syncManager }

    /// Registration and confirmation of email/password users.
    public var emailPasswordAuth: EmailPasswordAuth { EmailPasswordAuth(state: state) }

    /// The most recently logged-in user who is still logged in.
    public var currentUser: User? {
        state.lock.withLock { state.users.last { $0.stateLocked == .loggedIn } }
    }

    /// Every user on this device that has not been removed, logged in or not, by id.
    public var allUsers: [String: User] {
        state.lock.withLock { Dictionary(state.users.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }) }
    }

    /// Makes a logged-in user the ``currentUser``.
    ///
    /// - Precondition: the user belongs to this app and is logged in (Realm raises an exception otherwise).
    public func `switch`(to user: User) {
        state.lock.withLock {
            precondition(
                user.appState === state && user.stateLocked == .loggedIn,
                "Switching to a user who is not logged in to this app (user \(user.id)) is not allowed")
            state.moveToFrontLocked(user)
            try? state.persistLocked()
        }
    }

    /// The server's `http://host:port`, for the sync connection.
    var baseURL: URL {
        URL(string: state.api.baseURL) ?? URL(string: AppConfiguration.defaultBaseURL)!
    }
}
