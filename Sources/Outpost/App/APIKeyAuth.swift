import Foundation
import OutpostCore

/// A user API key (Realm's `UserAPIKey`): its secret `key` is only known in the answer that created it.
public final class UserAPIKey: Sendable {
    /// Whether the key is disabled (it cannot log in).
    public let disabled: Bool
    /// The key's name, unique among the user's keys.
    public let name: String
    /// The secret to log in with (`Credentials.userAPIKey`); nil except right after ``APIKeyAuth/createAPIKey(named:)``.
    public let key: String?
    /// The key's id.
    public let objectId: ObjectId

    init(_ json: JSONValue?) throws {
        guard let json, let id = json.stringField("_id"), let objectId = try? ObjectId(string: id),
            let name = json.stringField("name")
        else { throw AppError(.badRequest, "the server's API key answer lacks _id or name") }
        self.objectId = objectId
        self.name = name
        key = json.stringField("key")
        if case .bool(let disabled)? = json.field("disabled") { self.disabled = disabled } else { disabled = false }
    }
}

/// The API keys of a logged-in user (Realm's `APIKeyAuth`, `user.apiKeysAuth`): create, fetch, enable, disable and
/// delete keys that log in as this user. The server must enable the `api_keys` provider.
///
/// - Throws: ``AppError`` with the server's message: a 400 status (`httpStatusCode`) for an empty name, 404 for an
///   id the user has no key with (another user's key included), and the errors of a logged-out user's requests.
public final class APIKeyAuth: Sendable {
    let user: User

    init(user: User) {
        self.user = user
    }

    /// Creates a key named `name`; the answer holds its secret ``UserAPIKey/key``, which is shown only once.
    public func createAPIKey(named name: String) async throws -> UserAPIKey {
        try UserAPIKey(await user.authorizedRequest(.POST, "auth/api_keys", body: .object(["name": .string(name)])))
    }

    /// The user's key with this id.
    public func fetchAPIKey(_ objectId: ObjectId) async throws -> UserAPIKey {
        try UserAPIKey(await user.authorizedRequest(.GET, "auth/api_keys/\(objectId.stringValue)"))
    }

    /// All of the user's keys, oldest first (without their secrets).
    public func fetchAPIKeys() async throws -> [UserAPIKey] {
        guard case .array(let keys)? = try await user.authorizedRequest(.GET, "auth/api_keys") else {
            throw AppError(.badRequest, "the server's API key list is not an array")
        }
        return try keys.map(UserAPIKey.init)
    }

    /// Deletes the user's key with this id.
    public func deleteAPIKey(_ objectId: ObjectId) async throws {
        _ = try await user.authorizedRequest(.DELETE, "auth/api_keys/\(objectId.stringValue)")
    }

    /// Enables the user's key with this id.
    public func enableAPIKey(_ objectId: ObjectId) async throws {
        _ = try await user.authorizedRequest(.PUT, "auth/api_keys/\(objectId.stringValue)/enable")
    }

    /// Disables the user's key with this id: it can no longer log in.
    public func disableAPIKey(_ objectId: ObjectId) async throws {
        _ = try await user.authorizedRequest(.PUT, "auth/api_keys/\(objectId.stringValue)/disable")
    }

    // MARK: Completion handlers (Realm's Objective-C forms), called on an arbitrary thread

    @preconcurrency
    public func createAPIKey(named name: String, completion: @escaping @Sendable (UserAPIKey?, Error?) -> Void) {
        deliver(completion) { try await self.createAPIKey(named: name) }
    }

    @preconcurrency
    public func fetchAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (UserAPIKey?, Error?) -> Void) {
        deliver(completion) { try await self.fetchAPIKey(objectId) }
    }

    @preconcurrency
    public func fetchAPIKeys(completion: @escaping @Sendable ([UserAPIKey]?, Error?) -> Void) {
        deliver(completion) { try await self.fetchAPIKeys() }
    }

    @preconcurrency
    public func deleteAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.deleteAPIKey(objectId) }
    }

    @preconcurrency
    public func enableAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.enableAPIKey(objectId) }
    }

    @preconcurrency
    public func disableAPIKey(_ objectId: ObjectId, completion: @escaping @Sendable (Error?) -> Void) {
        deliver(completion) { try await self.disableAPIKey(objectId) }
    }

    // MARK: Result completion handlers (Realm Swift's)

    @preconcurrency
    public func createAPIKey(named name: String, completion: @escaping @Sendable (Result<UserAPIKey, Error>) -> Void) {
        deliver(completion) { try await self.createAPIKey(named: name) }
    }

    @preconcurrency
    public func fetchAPIKey(_ objectId: ObjectId, _ completion: @escaping @Sendable (Result<UserAPIKey, Error>) -> Void) {
        deliver(completion) { try await self.fetchAPIKey(objectId) }
    }

    @preconcurrency
    public func fetchAPIKeys(_ completion: @escaping @Sendable (Result<[UserAPIKey], Error>) -> Void) {
        deliver(completion) { try await self.fetchAPIKeys() }
    }
}

extension User {
    /// The user's API keys (Realm's `apiKeysAuth`).
    public var apiKeysAuth: APIKeyAuth { APIKeyAuth(user: self) }
}
