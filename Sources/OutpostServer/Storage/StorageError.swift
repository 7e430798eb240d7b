/// A failure of a storage driver, with a stable code.
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
        /// The database could not be opened or reached.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The database reported an error.
        public static let database = Code(rawValue: "database")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StorageError)?.code == code
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
