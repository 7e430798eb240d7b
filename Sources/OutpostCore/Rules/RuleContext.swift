/// The values a rule's `%%` expansions stand for: who the user is, the partition, app values and, when a rule
/// is evaluated against a document, that document.
///
/// The server builds one context per sync session (Sync freezes expansions at session start) or per Data API
/// request.
///
/// ```swift
/// let context = RuleContext(userId: "6500…", customData: ["team": .string("blue")])
/// context.resolve("%%user.id")                // .string("6500…")
/// context.resolve("%%user.custom_data.team")  // .string("blue")
/// ```
public struct RuleContext: Hashable, Sendable {
    /// The user's id; `%%user.id` is this as a string. Nil when there is no user.
    public var userId: String?
    /// The user's profile data (`%%user.data`), e.g. `email` and `name`.
    public var userData: Document
    /// The user's custom data document (`%%user.custom_data`).
    public var customData: Document
    /// The Partition-Based Sync partition value (`%%partition`); nil outside Partition-Based Sync.
    public var partition: Value?
    /// App values (`%%values.<name>`).
    public var values: Document
    /// The environment (`%%environment.tag`, `%%environment.values.<name>`).
    public var environment: Document
    /// The document a rule is evaluated against (`%%root`). Evaluating with a document sets it.
    public var root: Document?
    /// The document as it was before the write being checked (`%%prevRoot`); nil for inserts.
    public var prevRoot: Document?
    /// The results of the request's `%function` calls (nil: no rule calls a function; a call fails closed).
    public var functionResults: RuleFunctionResults?

    /// Creates a context; every part is optional.
    public init(
        userId: String? = nil,
        userData: Document = [:],
        customData: Document = [:],
        partition: Value? = nil,
        values: Document = [:],
        environment: Document = [:],
        root: Document? = nil,
        prevRoot: Document? = nil
    ) {
        self.userId = userId
        self.userData = userData
        self.customData = customData
        self.partition = partition
        self.values = values
        self.environment = environment
        self.root = root
        self.prevRoot = prevRoot
    }

    /// The value an expansion such as `%%user.id` stands for.
    ///
    /// - Returns: nil when the text is not an expansion Outpost knows, or when the value is missing
    ///   (no user id, no such field in the custom data, no partition, …).
    public func resolve(_ expansion: String) -> Value? {
        RuleExpansion.parse(expansion).flatMap(resolve)
    }

    func resolve(_ expansion: RuleExpansion) -> Value? {
        switch expansion {
        case .constant(let value): return .bool(value)
        case .userId: return userId.map(Value.string)
        case .user:
            var user: Document = ["data": .document(userData), "custom_data": .document(customData)]
            if let userId { user["id"] = .string(userId) }
            return .document(user)
        case .userData(let path): return Self.lookup(path, in: userData)
        case .customData(let path): return Self.lookup(path, in: customData)
        case .partition: return partition
        case .values(let path): return Self.lookup(path, in: values)
        case .environment(let path): return Self.lookup(path, in: environment)
        case .root(let path): return root.flatMap { Self.lookup(path, in: $0) }
        case .prevRoot(let path): return prevRoot.flatMap { Self.lookup(path, in: $0) }
        }
    }

    /// The value at a dotted path through embedded documents; the whole document for an empty path.
    private static func lookup(_ path: [String], in document: Document) -> Value? {
        var current = Value.document(document)
        for key in path {
            guard case .document(let inner) = current, let next = inner[key] else { return nil }
            current = next
        }
        return current
    }
}
