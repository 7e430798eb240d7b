import OutpostCore

extension AppDefinition {
    /// How many login failures and new users the server accepts before it answers 429 (`auth.throttling`):
    ///
    /// ```json
    /// "throttling": { "failed_logins_per_account": 10, "failed_logins_per_address": 100,
    ///                 "new_users_per_address": 100, "window_seconds": 300, "tracked_keys": 10000 }
    /// ```
    ///
    /// Each limit is a burst that refills over `window_seconds` (see ``AuthThrottle``); 0 turns that limit off, and
    /// `"enabled": false` turns them all off. The counts live in the server process.
    public struct Throttling: Sendable, Hashable {
        /// Failed email/password logins of one account (a success starts it afresh); guessing a password is slow.
        public var failedLoginsPerAccount: Int
        /// Failed email/password and API key logins from one client address, whichever accounts they name.
        public var failedLoginsPerAddress: Int
        /// Anonymous logins and email/password registrations from one client address (each makes a user).
        public var newUsersPerAddress: Int
        /// The time in which each limit refills completely.
        public var windowSeconds: Int
        /// The most accounts and addresses each limit tracks, so a flood of made-up names has bounded memory.
        public var trackedKeys: Int

        public init(
            failedLoginsPerAccount: Int = 10, failedLoginsPerAddress: Int = 100, newUsersPerAddress: Int = 100,
            windowSeconds: Int = 300, trackedKeys: Int = 10_000
        ) {
            self.failedLoginsPerAccount = failedLoginsPerAccount
            self.failedLoginsPerAddress = failedLoginsPerAddress
            self.newUsersPerAddress = newUsersPerAddress
            self.windowSeconds = windowSeconds
            self.trackedKeys = trackedKeys
        }

        /// No limits (`"enabled": false`).
        public static let off = Throttling(failedLoginsPerAccount: 0, failedLoginsPerAddress: 0, newUsersPerAddress: 0)

        init(_ reader: ConfigurationReader) throws(ConfigurationError) {
            try reader.rejectUnknownFields([
                "enabled", "failed_logins_per_account", "failed_logins_per_address", "new_users_per_address",
                "window_seconds", "tracked_keys",
            ])
            let defaults = Throttling()
            self.init(
                failedLoginsPerAccount: try reader.nonNegativeInt(
                    "failed_logins_per_account", default: defaults.failedLoginsPerAccount),
                failedLoginsPerAddress: try reader.nonNegativeInt(
                    "failed_logins_per_address", default: defaults.failedLoginsPerAddress),
                newUsersPerAddress: try reader.nonNegativeInt(
                    "new_users_per_address", default: defaults.newUsersPerAddress),
                windowSeconds: try reader.positiveInt("window_seconds", default: defaults.windowSeconds),
                trackedKeys: try reader.positiveInt("tracked_keys", default: defaults.trackedKeys))
            guard trackedKeys >= 2 else {
                throw ConfigurationError(
                    .invalidValue, path: reader.path(of: "tracked_keys"), "must be at least 2, found \(trackedKeys)")
            }
            if try !reader.bool("enabled", default: true) {
                (failedLoginsPerAccount, failedLoginsPerAddress, newUsersPerAddress) = (0, 0, 0)
            }
        }

        var json: JSONValue {
            .object([
                "failed_logins_per_account": .int(Int64(failedLoginsPerAccount)),
                "failed_logins_per_address": .int(Int64(failedLoginsPerAddress)),
                "new_users_per_address": .int(Int64(newUsersPerAddress)),
                "window_seconds": .int(Int64(windowSeconds)), "tracked_keys": .int(Int64(trackedKeys)),
            ])
        }
    }
}
