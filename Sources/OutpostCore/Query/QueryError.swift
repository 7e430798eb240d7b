/// An error from parsing, binding or evaluating a query.
///
/// Parse errors carry the query text, the 0-based character offset of the offending token and the
/// token itself; binding and evaluation errors have no position. The description has one shape:
///
///     Invalid predicate: 'age >> 5': unknown operator at position 4 near '>>'
///     Invalid predicate: 'name == "abc': unterminated string at position 8 near '"abc'
///     Invalid predicate: 'age > ': expected a value or key path at end of input (position 6)
///     Invalid predicate: request for argument at index 1 but only 1 argument is provided
///
/// Match on the stable `kind`: `catch QueryError.Kind.syntax { … }` works through `~=`.
public struct QueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable category of a query error.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The text is not a well-formed query (unknown operator, missing operand, unbalanced
        /// parentheses, unterminated string, trailing text, mixed `%@` and `$n` arguments, …).
        public static let syntax = Kind(rawValue: "syntax")
        /// A typed literal is malformed: `oid(…)`, `uuid(…)`, a timestamp, `B64"…"`, `decimal128(…)`,
        /// or an integer out of range.
        public static let invalidLiteral = Kind(rawValue: "invalidLiteral")
        /// An argument `$n` has no value: binding got too few arguments, or evaluation met an
        /// unbound argument.
        public static let unknownArgument = Kind(rawValue: "unknownArgument")
        /// An argument (or literal list) has a shape the operator cannot use, e.g. `BETWEEN` with
        /// a list that does not have two elements.
        public static let invalidArgument = Kind(rawValue: "invalidArgument")
        /// A key path cannot be applied to the value it reaches, e.g. `@count` of an int.
        public static let invalidKeyPath = Kind(rawValue: "invalidKeyPath")
        /// An operator cannot compare the given types, e.g. `age BEGINSWITH 5`.
        public static let typeMismatch = Kind(rawValue: "typeMismatch")

        /// `catch QueryError.Kind.syntax` matches a `QueryError` of that kind.
        public static func ~= (kind: Kind, error: any Error) -> Bool {
            (error as? QueryError)?.kind == kind
        }
    }

    public var kind: Kind
    /// What was wrong, without the position (e.g. `unknown operator`).
    public var message: String
    /// The query text, when the error comes from parsing.
    public var query: String?
    /// The 0-based character offset of the offending token in `query`; `query.count` at the end.
    public var position: Int?
    /// The offending token's text; empty at the end of the input.
    public var token: String?

    public init(_ kind: Kind, _ message: String, query: String? = nil, position: Int? = nil, token: String? = nil) {
        self.kind = kind
        self.message = message
        self.query = query
        self.position = position
        self.token = token
    }

    public var description: String {
        var out = "Invalid predicate: "
        if let query { out += "'\(query)': " }
        out += message
        if let position {
            if let token, !token.isEmpty {
                out += " at position \(position) near '\(token)'"
            } else {
                out += " at end of input (position \(position))"
            }
        }
        return out
    }
}
