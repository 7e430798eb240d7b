/// An error thrown when text or bytes cannot be turned into one of Outpost's value types
/// (``ObjectId``, ``Decimal128``).
///
/// The ``code`` is stable and meant for matching; the ``message`` says what was wrong and where.
/// Match a code directly in a `catch` clause:
///
/// ```swift
/// do {
///     _ = try ObjectId(string: input)
/// } catch ValueError.Code.invalidObjectIdString {
///     // …
/// }
/// ```
public struct ValueError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The text is not 24 hexadecimal characters.
        public static let invalidObjectIdString = Code(rawValue: "invalidObjectIdString")
        /// The byte collection is not exactly 12 bytes long.
        public static let invalidObjectIdBytes = Code(rawValue: "invalidObjectIdBytes")
        /// The text is not a decimal number, `NaN` or an infinity.
        public static let invalidDecimal128String = Code(rawValue: "invalidDecimal128String")

        /// Lets `catch ValueError.Code.invalidObjectIdString` match a thrown ``ValueError``.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ValueError)?.code == code
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation naming the bad input and where it went wrong.
    public let message: String
    /// The offending text, when the input was text.
    public let text: String?
    /// The zero-based character offset of the first offending character, when there is one.
    public let position: Int?

    /// Creates an error; Outpost's parsers use this, it is public so that adapters can rethrow.
    public init(code: Code, message: String, text: String? = nil, position: Int? = nil) {
        self.code = code
        self.message = message
        self.text = text
        self.position = position
    }

    public var description: String { message }

    /// Quotes user text for a message, shortening very long input so messages stay readable.
    static func quoted(_ text: String) -> String {
        let limit = 64
        if text.count <= limit { return "'\(text)'" }
        return "'\(text.prefix(limit))…' (\(text.count) characters)"
    }
}
