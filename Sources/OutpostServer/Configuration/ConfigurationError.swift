/// A problem in an app configuration file, with the JSON path where it was found.
///
/// ```swift
/// do { _ = try AppDefinition(jsonText: text) } catch let error as ConfigurationError {
///     print(error)   // sync.partition.type: expected one of "string", "int", "objectId", "uuid", found "float"
/// }
/// ```
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The file could not be read or written.
        public static let unreadableFile = Code(rawValue: "unreadableFile")
        /// The text is not JSON.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// A required field is absent.
        public static let missingField = Code(rawValue: "missingField")
        /// A field has the wrong JSON type.
        public static let wrongType = Code(rawValue: "wrongType")
        /// A field has the right type but a value that is not allowed.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// A field that the configuration does not know (often a typo).
        public static let unknownField = Code(rawValue: "unknownField")

        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ConfigurationError)?.code == code
        }
    }

    public var code: Code
    /// The JSON path of the problem, for example `sync.partition.type` or `rules.Item.roles[0]`; `$` for the root.
    public var path: String
    /// What was wrong.
    public var message: String

    public init(_ code: Code, path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
