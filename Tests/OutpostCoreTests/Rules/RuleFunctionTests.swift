import Foundation
@testable import OutpostCore
import Testing

/// `%function` in roles: parsed where rules allow it, its calls collected per document, evaluated from the
/// results the caller put in the context, failing closed without one, and refused by Sync.
@Suite struct RuleFunctionTests {
    func role(_ json: String) throws -> Role {
        try Role.parse(JSONValue.parse(json)!, path: "roles[0]")
    }

    static let ownerCheck = #"{"%%true": {"%function": {"name": "isOwner", "arguments": ["%%root.ownerId", "%%user.id"]}}}"#

    @Test func aRoleCallsAFunctionPerDocument() throws {
        let role = try role(#"{"name": "checked", "apply_when": \#(Self.ownerCheck), "read": true, "write": true}"#)
        #expect(role.callsFunctions)
        #expect(role.applyWhen.callsFunctions)
        var context = RuleContext(userId: "u1")
        let mine: Document = ["_id": .int(1), "ownerId": .string("u1")]
        let theirs: Document = ["_id": .int(2), "ownerId": .string("u2")]
        let calls = role.functionCalls(mine, context: context)
        #expect(calls == [RuleFunctionCall(name: "isOwner", arguments: [.string("u1"), .string("u1")])])
        // Without results the condition is false: fail closed.
        #expect(!role.applyWhen.evaluate(mine, context: context))
        let results = RuleFunctionResults()
        context.functionResults = results
        #expect(!role.applyWhen.evaluate(mine, context: context))
        results.set(.bool(true), for: calls[0])
        results.set(.bool(false), for: RuleFunctionCall(name: "isOwner", arguments: [.string("u2"), .string("u1")]))
        #expect(role.applyWhen.evaluate(mine, context: context))
        #expect(!role.applyWhen.evaluate(theirs, context: context))
    }

    @Test func functionsAsOperandsAndWholeExpressions() throws {
        let results = RuleFunctionResults()
        var context = RuleContext(userId: "u1")
        context.functionResults = results
        let level = try RuleExpression.parse(
            JSONValue.parse(#"{"level": {"$gte": {"%function": {"name": "minimumLevel"}}}}"#)!, path: "f", allowingFunctions: true)
        let whole = try RuleExpression.parse(
            JSONValue.parse(#"{"%function": {"name": "open", "arguments": [1, "%%user.id"]}}"#)!, path: "f", allowingFunctions: true)
        results.set(.int(3), for: RuleFunctionCall(name: "minimumLevel", arguments: []))
        results.set(.bool(true), for: RuleFunctionCall(name: "open", arguments: [.int(1), .string("u1")]))
        #expect(level.evaluate(["level": .int(4)], context: context))
        #expect(!level.evaluate(["level": .int(2)], context: context))
        #expect(whole.evaluate([:], context: context))
        #expect(whole.functionCalls(nil, context: context) == [RuleFunctionCall(name: "open", arguments: [.int(1), .string("u1")])])
    }

    @Test func syncRefusesRolesThatCallFunctions() throws {
        let checked = try role(#"{"name": "checked", "apply_when": \#(Self.ownerCheck), "read": true, "write": true}"#)
        #expect(checked.syncIncompatibility?.code == .notSyncCompatible)
        #expect(checked.syncIncompatibility?.message.contains("%function") == true)
        let rules = RuleSet(collections: ["Item": [checked, try role(#"{"name": "all", "read": true, "write": true}"#)]])
        #expect(rules.callsFunctions)
        guard case .notSyncCompatible(let role, _) = rules.role(forCollection: "Item", context: RuleContext(userId: "u"), forSync: true)
        else {
            Issue.record("Sync must stop at the role calling a function")
            return
        }
        #expect(role.name == "checked")
    }

    @Test func elsewhereItIsRefused() {
        for (json, path) in [(Self.ownerCheck, "f.%%true.%function"),
                             (#"{"a": {"%function": {"name": "x"}}}"#, "f.a.%function")] {
            do {
                _ = try RuleExpression.parse(JSONValue.parse(json)!, path: "f")
                Issue.record("\(json) must be refused outside roles")
            } catch {
                #expect(error.code == .unsupported && error.path == path, "\(error)")
            }
        }
        let bad: [(String, String)] = [
            (#"{"%function": 3}"#, "f.%function"),
            (#"{"%function": {"arguments": []}}"#, "f.%function.name"),
            (#"{"%function": {"name": "x", "args": []}}"#, "f.%function.args"),
            (#"{"%function": {"name": "x", "arguments": {}}}"#, "f.%function.arguments"),
            (#"{"%function": {"name": "x", "arguments": [{"%function": {"name": "y"}}]}}"#, "f.%function.arguments[0]"),
        ]
        for (json, path) in bad {
            do {
                _ = try RuleExpression.parse(JSONValue.parse(json)!, path: "f", allowingFunctions: true)
                Issue.record("\(json) must be refused")
            } catch {
                #expect(error.path == path, "\(json): \(error)")
            }
        }
    }
}
