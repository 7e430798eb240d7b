import Synchronization

/// One `%function` call a rule makes for a document: the function's name and its arguments resolved in the rule's
/// context (`%%root.owner_id` → that document's owner).
///
/// Rules are evaluated synchronously, and functions run in another process, so the Data API collects the calls a
/// document's rules make (``RuleSet/functionCalls(forCollection:document:context:)``), runs them, and puts the
/// results in ``RuleFunctionResults`` before it evaluates. A call without a result fails closed.
public struct RuleFunctionCall: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var arguments: [Value]

    public init(name: String, arguments: [Value]) {
        self.name = name
        self.arguments = arguments
    }

    public var description: String {
        "\(name)(\(arguments.map { $0.extendedJSON.text }.joined(separator: ", ")))"
    }
}

/// The results of the `%function` calls of one request, shared by the copies of its ``RuleContext``.
public final class RuleFunctionResults: Sendable, Hashable {
    private let results = Mutex<[RuleFunctionCall: Value]>([:])

    public init() {}

    public subscript(call: RuleFunctionCall) -> Value? {
        results.withLock { $0[call] }
    }

    public func set(_ value: Value, for call: RuleFunctionCall) {
        results.withLock { $0[call] = value }
    }

    /// How many calls have a result.
    public var count: Int { results.withLock { $0.count } }

    public static func == (a: RuleFunctionResults, b: RuleFunctionResults) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
