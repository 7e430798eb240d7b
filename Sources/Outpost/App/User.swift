import Foundation
import OutpostCore

/// A user of an ``App``, as Realm Swift's `User`.
///
/// The app keeps one `User` object per user id. A user stays in ``App/allUsers`` after ``logOut()`` (with
/// ``isLoggedIn`` false) until ``remove()``; anonymous users are removed when they log out, as in Realm.
public final class User: @unchecked Sendable {
    // @unchecked Sendable: `id` and `appState` are immutable; every other stored property is guarded by
    // `appState.lock`.

    /// The state of a user, as Realm's `RLMUserState`.
    public enum State: Int, Sendable {
        case loggedOut = 0
        case loggedIn = 1
        case removed = 2

        var name: String {
            switch self {
            case .loggedOut: "loggedOut"
            case .loggedIn: "loggedIn"
            case .removed: "removed"
            }
        }

        init?(name: String) {
            switch name {
            case "loggedOut": self = .loggedOut
            case "loggedIn": self = .loggedIn
            case "removed": self = .removed
            default: return nil
            }
        }
    }

    /// The user's id on the server (24 hexadecimal characters; `%%user.id` in rules).
    public let id: String
    let appState: AppState

    // Guarded by `appState.lock`.
    var provider: String
    var stateLocked: State
    var refreshTokenLocked: String?
    var accessTokenLocked: String?
    var deviceIdLocked: String?
    var customDataLocked: JSONValue
    var profileDataLocked: JSONValue
    var identitiesLocked: [UserIdentity]
    /// The refresh in flight, which concurrent callers of `accessToken(forceRefresh:)` join.
    var refreshTask: Task<String, any Error>?

    init(record: UserRecord, app: AppState) {
        id = record.id
        appState = app
        provider = record.provider
        stateLocked = record.state
        refreshTokenLocked = record.refreshToken
        accessTokenLocked = record.accessToken
        deviceIdLocked = record.deviceId
        customDataLocked = record.customData
        profileDataLocked = record.profileData
        identitiesLocked = record.identities
    }

    var recordLocked: UserRecord {
        UserRecord(
            id: id, provider: provider, state: stateLocked, refreshToken: refreshTokenLocked,
            accessToken: accessTokenLocked, deviceId: deviceIdLocked, customData: customDataLocked,
            profileData: profileDataLocked, identities: identitiesLocked)
    }

    /// The app the user belongs to.
    var app: App { App(state: appState) }

    /// Whether the user is logged in.
    public var isLoggedIn: Bool { state == .loggedIn }

    /// Logged in, logged out or removed.
    public var state: State { appState.lock.withLock { stateLocked } }

    /// The user's custom data (the server's `custom_data`), as of login or the last ``refreshCustomData()``.
    public var customData: Document {
        let json = appState.lock.withLock { customDataLocked }
        guard case .document(let document)? = try? BSONConversion.bson(json: json, path: "custom_data") else {
            return [:]
        }
        return document
    }

    /// The current access token, or nil when logged out. Prefer `accessToken(forceRefresh:)`, which refreshes it.
    public var accessToken: String? { appState.lock.withLock { accessTokenLocked } }

    /// The refresh token, or nil when logged out.
    public var refreshToken: String? { appState.lock.withLock { refreshTokenLocked } }

    /// The device id the server gave at login.
    public var deviceId: String { appState.lock.withLock { deviceIdLocked ?? "" } }

    /// A client for the server's Data API as this user (`serviceName` is accepted and ignored: one server, one
    /// database), as Realm's `user.mongoClient("mongodb-atlas")`.
    public func mongoClient(_ serviceName: String) -> MongoClient {
        MongoClient(user: self, name: serviceName)
    }
}

extension User: Hashable {
    public static func == (lhs: User, rhs: User) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension User: CustomStringConvertible {
    public var description: String { "User(id: \(id), state: \(state.name))" }
}
