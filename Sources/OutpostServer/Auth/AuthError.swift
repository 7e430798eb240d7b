/// Why an auth request or a token was refused, with a stable code.
///
/// ```swift
/// do { _ = try await auth.authenticate(accessToken: token) }
/// catch AuthError.Code.expiredToken { /* refresh */ }
/// ```
public struct AuthError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No token where one is required (no `Authorization: Bearer …` header).
        public static let missingToken = Code(rawValue: "missingToken")
        /// The token is not a well-formed token of the expected kind, or its session has ended.
        public static let invalidToken = Code(rawValue: "invalidToken")
        /// The token's signature does not verify with this server's signing key.
        public static let invalidSignature = Code(rawValue: "invalidSignature")
        /// The token has expired.
        public static let expiredToken = Code(rawValue: "expiredToken")
        /// The token was issued for another app.
        public static let wrongApp = Code(rawValue: "wrongApp")
        /// Wrong email or password (also for an unknown email, so as not to reveal which emails exist).
        public static let invalidPassword = Code(rawValue: "invalidPassword")
        /// The API key is unknown, disabled or wrong.
        public static let invalidAPIKey = Code(rawValue: "invalidAPIKey")
        /// The user (or the confirmation's user, or the API key) does not exist, or the user is disabled.
        public static let userNotFound = Code(rawValue: "userNotFound")
        /// An email/password user with this email exists.
        public static let userExists = Code(rawValue: "userExists")
        /// The email/password user has not confirmed yet.
        public static let notConfirmed = Code(rawValue: "notConfirmed")
        /// The auth provider is not enabled in the app configuration.
        public static let providerDisabled = Code(rawValue: "providerDisabled")
        /// The email address is not valid.
        public static let invalidEmail = Code(rawValue: "invalidEmail")
        /// The password is shorter than 6 characters (or longer than 128), as App Services.
        public static let passwordTooShort = Code(rawValue: "passwordTooShort")
        /// The custom-token provider's JSON Web Key Set (`jwk_uri`) could not be fetched or read, and no keys
        /// fetched earlier can stand in (answered with 503: the token may be fine; try again later).
        public static let signingKeysUnavailable = Code(rawValue: "signingKeysUnavailable")
        /// The confirmation token is wrong, or the user is already confirmed.
        public static let invalidConfirmation = Code(rawValue: "invalidConfirmation")
        /// The password reset token is wrong, used or expired.
        public static let invalidResetToken = Code(rawValue: "invalidResetToken")
        /// The app runs no function for this request (a custom confirmation or password reset function).
        public static let functionNotConfigured = Code(rawValue: "functionNotConfigured")
        /// Too many failed logins for the account or from the client's address, or too many new users from the
        /// address (answered with 429 and `Retry-After`; see ``AuthThrottle``).
        public static let tooManyRequests = Code(rawValue: "tooManyRequests")
        /// Too many logins already wait for password hashing (answered with 503 and `Retry-After`; see
        /// ``PasswordHashingPool``).
        public static let hashingBusy = Code(rawValue: "hashingBusy")

        /// The identity being linked belongs to another user already (App Services' text: "a user already exists
        /// with the specified provider").
        public static let identityInUse = Code(rawValue: "identityInUse")
        /// The credentials cannot be linked: anonymous ones, or a second email/password identity.
        public static let linkNotAllowed = Code(rawValue: "linkNotAllowed")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? AuthError)?.code == code
        }
    }

    public var code: Code
    /// What was wrong; never contains a password or a token.
    public var message: String
    /// When to try again, in seconds (`Retry-After`), for `tooManyRequests` and `hashingBusy`.
    public var retryAfterSeconds: Int?

    public init(_ code: Code, _ message: String, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code): \(message)" }
}
