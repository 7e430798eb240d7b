import Foundation
import OutpostCore

/// What the auth provider knows about a user (Realm's `UserProfile`): the server's profile `data`, as of login or
/// the last `refreshCustomData()`. Email/password users have an `email`; the other fields are set by providers that
/// know them (a custom JWT's `metadata_fields`).
public final class UserProfile: Sendable {
    /// The provider's data, as BSON.
    public let metadata: Document

    init(metadata: Document) {
        self.metadata = metadata
    }

    private func text(_ key: String) -> String? {
        guard case .string(let value)?? = metadata[key] else { return nil }
        return value
    }

    /// The full name of the user.
    public var name: String? { text("name") }
    /// The email address of the user.
    public var email: String? { text("email") }
    /// A URL to the user's profile picture.
    public var pictureURL: String? { text("picture_url") ?? text("picture") }
    /// The first name of the user.
    public var firstName: String? { text("first_name") }
    /// The last name of the user.
    public var lastName: String? { text("last_name") }
    /// The gender of the user.
    public var gender: String? { text("gender") }
    /// The birthdate of the user.
    public var birthday: String? { text("birthday") }
    /// The minimum age of the user.
    public var minAge: String? { text("min_age") }
    /// The maximum age of the user.
    public var maxAge: String? { text("max_age") }
}

extension User {
    /// The user's profile (Realm's `profile`).
    public var profile: UserProfile {
        let json = appState.lock.withLock { profileDataLocked }
        guard case .document(let document)? = try? BSONConversion.bson(json: json, path: "data") else {
            return UserProfile(metadata: [:])
        }
        return UserProfile(metadata: document)
    }
}
