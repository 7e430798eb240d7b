/// A failure of a storage driver, with a stable code.
///
/// `description` holds the code and a message that says what failed and where; it never includes document
/// contents. The driver's own error (a GRDB `DatabaseError`, a postgres-nio `PSQLError`) is kept in
/// ``underlying`` for logs, and takes no part in equality.
public struct StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A record with the same key exists.
        public static let duplicate = Code(rawValue: "duplicate")
        /// The record to update does not exist.
        public static let notFound = Code(rawValue: "notFound")
        /// A name (collection, field) that storage cannot hold.
        public static let invalidName = Code(rawValue: "invalidName")
        /// A document that storage cannot hold (for example one without an `_id` field).
        public static let invalidDocument = Code(rawValue: "invalidDocument")
        /// The database could not be opened or reached.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The driver's configuration is malformed (for example a connection URL).
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// The database reported an error.
        public static let database = Code(rawValue: "database")
        /// Another writer changed the app's history during a transaction (only when several processes share one
        /// SQLite file, which ``SQLiteStorage`` does not support).
        public static let conflict = Code(rawValue: "conflict")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StorageError)?.code == code
        }
    }

    public var code: Code
    public var message: String
    /// The driver's error that caused this one, when there is one.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { "\(code): \(message)" }

    public static func == (lhs: StorageError, rhs: StorageError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
