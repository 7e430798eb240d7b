/// An error thrown when a rule (a role, a filter expression or a collection's rule set) cannot be parsed or used.
///
/// The ``code`` is stable and meant for matching; the ``message`` names the JSON path of the offending part:
///
///     Invalid rule at roles[0].document_filters.read.ownerId: unknown operator '$regexx'
///
/// Match a code directly in a `catch` clause: `catch RuleError.Code.unknownOperator { … }`.
public struct RuleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A key starting with `$` or `%` that is not a supported operator (e.g. `$regexx`, `$where`).
        public static let unknownOperator = Code(rawValue: "unknownOperator")
        /// An operator's or expression's operand has the wrong shape (e.g. `$in: 3`, `$exists: "yes"`,
        /// an expression that is a number, a malformed Extended JSON literal).
        public static let invalidOperand = Code(rawValue: "invalidOperand")
        /// A `%%` expansion Outpost does not know (e.g. `%%user.name`, `%%foo`).
        public static let unknownExpansion = Code(rawValue: "unknownExpansion")
        /// A known construct Outpost does not support at all (`%function`, `%%request`, nested field rules).
        public static let unsupported = Code(rawValue: "unsupported")
        /// The rule is valid but cannot be used with Device Sync (e.g. it uses `%%root` or `%%prevRoot`).
        public static let notSyncCompatible = Code(rawValue: "notSyncCompatible")
        /// A role is not an object, lacks a name, has an unknown key or a key of the wrong type.
        public static let invalidRole = Code(rawValue: "invalidRole")
        /// The collection rules or the default rule do not have the expected shape.
        public static let invalidRuleSet = Code(rawValue: "invalidRuleSet")

        /// Lets `catch RuleError.Code.unknownOperator` match a thrown ``RuleError``.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? RuleError)?.code == code
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The JSON path of the offending part, e.g. `roles[0].document_filters.read.ownerId`.
    public let path: String
    /// What was wrong, without the path (e.g. `unknown operator '$regexx'`).
    public let problem: String

    /// Creates an error; Outpost's rule parser uses this, it is public so that adapters can rethrow.
    public init(code: Code, path: String, problem: String) {
        self.code = code
        self.path = path
        self.problem = problem
    }

    /// `Invalid rule at <path>: <problem>`.
    public var message: String { "Invalid rule at \(path.isEmpty ? "$" : path): \(problem)" }

    public var description: String { message }
}

extension RuleError {
    /// Joins a JSON path and an object key: `a` + `b` is `a.b`; an empty path gives just the key.
    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// Quotes user text for a message, shortening very long input.
    static func quoted(_ text: String) -> String {
        text.count <= 64 ? "'\(text)'" : "'\(text.prefix(64))…'"
    }
}
