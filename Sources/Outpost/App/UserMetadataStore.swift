import Foundation
import OutpostCore

/// What the app remembers about one user across restarts.
struct UserRecord: Sendable, Equatable {
    var id: String
    var provider: String
    var state: User.State
    var refreshToken: String?
    var accessToken: String?
    var deviceId: String?
    /// The user's custom data, as Extended JSON.
    var customData: JSONValue
    /// The profile's `data` (email, name, …: ``UserProfile``), as Extended JSON.
    var profileData: JSONValue = .object([:])
    /// The profile's identities.
    var identities: [UserIdentity] = []
}

/// The users of one app on disk: `<rootDirectory>/<appId>/users.json` (mode 0600: it holds tokens).
///
/// ```json
/// {"version": 1, "users": [{"id": "…", "provider": "local-userpass", "state": "loggedIn",
///   "refresh_token": "…", "access_token": "…", "device_id": "…", "custom_data": {}, "profile_data": {}}]}
/// ```
/// Users are listed in login order; the current user is the last one still logged in.
struct UserMetadataStore: Sendable {
    let fileURL: URL

    init(appDirectory: URL) {
        fileURL = appDirectory.appendingPathComponent("users.json")
    }

    /// The stored users, oldest login first; none when there is no file. A file that cannot be read is treated as
    /// empty (the users then log in again), never as a crash.
    func load() -> [UserRecord] {
        guard let data = try? Data(contentsOf: fileURL),
            let json = JSONValue.parse(String(decoding: data, as: UTF8.self)),
            case .array(let users)? = json.field("users")
        else { return [] }
        return users.compactMap(Self.record)
    }

    /// Writes the users atomically.
    func save(_ users: [UserRecord]) throws {
        let json = JSONValue.object(["version": .int(1), "users": .array(users.map(Self.json))])
        let directory = fileURL.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.text.utf8).write(to: fileURL, options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fileURL.path)
    }

    private static func json(_ user: UserRecord) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(user.id), "provider": .string(user.provider), "state": .string(user.state.name),
            "custom_data": user.customData, "profile_data": user.profileData,
        ]
        if let token = user.refreshToken { fields["refresh_token"] = .string(token) }
        if let token = user.accessToken { fields["access_token"] = .string(token) }
        if let device = user.deviceId { fields["device_id"] = .string(device) }
        if !user.identities.isEmpty { fields["identities"] = .array(user.identities.map(\.json)) }
        return .object(fields)
    }

    private static func record(_ json: JSONValue) -> UserRecord? {
        guard let id = json.stringField("id"), let provider = json.stringField("provider"),
            let state = json.stringField("state").flatMap(User.State.init(name:)), state != .removed
        else { return nil }
        return UserRecord(
            id: id, provider: provider, state: state, refreshToken: json.stringField("refresh_token"),
            accessToken: json.stringField("access_token"), deviceId: json.stringField("device_id"),
            customData: json.field("custom_data") ?? .object([:]), profileData: json.field("profile_data") ?? .object([:]),
            identities: UserIdentity.list(inProfile: json) ?? [])
    }
}
