import OutpostCore
import Testing

@Suite struct RuleErrorTests {
    private func expressionError(_ text: String, path: String) -> RuleError? {
        do {
            _ = try RuleExpression.parse(jsonText: text, path: path)
            return nil
        } catch {
            return error
        }
    }

    /// Each bad expression with its code, path and full message.
    @Test(arguments: [
        (#"{"ownerId": {"$regexx": "a"}}"#, RuleError.Code.unknownOperator, "roles[0].document_filters.read",
         "Invalid rule at roles[0].document_filters.read.ownerId: unknown operator '$regexx'"),
        (#"{"$where": "this.a == 1"}"#, .unknownOperator, "roles[0].document_filters.read",
         "Invalid rule at roles[0].document_filters.read: unknown operator '$where'"),
        (#"{"a": {"$gt": 1, "b": 2}}"#, .unknownOperator, "f",
         "Invalid rule at f.a: 'b' is not an operator; an operator object may hold operators only"),
        (#"{"a": {"%regex": "x"}}"#, .unknownOperator, "f", "Invalid rule at f.a: unknown operator '%regex'"),
        (#"{"queryable_str_field": {"$in": 3}}"#, .invalidOperand, "f",
         "Invalid rule at f.queryable_str_field: $in needs an array, not a number"),
        (#"{"a": {"$nin": "x"}}"#, .invalidOperand, "f", "Invalid rule at f.a: $nin needs an array, not a string"),
        (#"{"a": {"$exists": "yes"}}"#, .invalidOperand, "f", "Invalid rule at f.a: $exists needs true or false, not a string"),
        (#"{"a": {"$not": 3}}"#, .invalidOperand, "f", "Invalid rule at f.a: $not needs an object of operators"),
        (#"{"a": {"$not": {"b": 1}}}"#, .invalidOperand, "f", "Invalid rule at f.a: $not needs an object of operators"),
        (#"{"$and": {}}"#, .invalidOperand, "f", "Invalid rule at f.$and: $and needs a non-empty array of expressions"),
        (#"{"$or": []}"#, .invalidOperand, "f", "Invalid rule at f.$or: $or needs a non-empty array of expressions"),
        (#"{"$nor": [3]}"#, .invalidOperand, "f",
         "Invalid rule at f.$nor[0]: an expression must be an object, true, false, \"%%true\" or \"%%false\", not a number"),
        ("3", .invalidOperand, "roles[0].apply_when",
         "Invalid rule at roles[0].apply_when: an expression must be an object, true, false, \"%%true\" or \"%%false\", not a number"),
        (#""%%user.id""#, .invalidOperand, "",
         "Invalid rule at $: an expression must be an object, true, false, \"%%true\" or \"%%false\", not a string"),
        ("{", .invalidOperand, "f", "Invalid rule at f: the text is not valid JSON"),
        (#"{"a..b": 1}"#, .invalidOperand, "f", "Invalid rule at f.a..b: field path 'a..b' has an empty part"),
        (#"{"_id": {"$oid": "zz"}}"#, .invalidOperand, "f", "Invalid rule at f._id: $oid 'zz' is not 24 hexadecimal characters"),
        (#"{"_id": {"$in": [{"$oid": "zz"}]}}"#, .invalidOperand, "f",
         "Invalid rule at f._id.$in[0]: $oid 'zz' is not 24 hexadecimal characters"),
        (#"{"d": {"$gt": {"$date": "yesterday"}}}"#, .invalidOperand, "f",
         "Invalid rule at f.d.$gt: $date 'yesterday' is not ISO 8601 text"),
        (#"{"a": "%%user.name"}"#, .unknownExpansion, "f", "Invalid rule at f.a: unknown expansion '%%user.name'"),
        (#"{"%%foo": 1}"#, .unknownExpansion, "f", "Invalid rule at f.%%foo: unknown expansion '%%foo'"),
        (#"{"a": {"$in": ["x", "%%usr.id"]}}"#, .unknownExpansion, "f", "Invalid rule at f.a.$in[1]: unknown expansion '%%usr.id'"),
        (#"{"a": {"$eq": "%%user.id.x"}}"#, .unknownExpansion, "f", "Invalid rule at f.a.$eq: unknown expansion '%%user.id.x'"),
        (#"{"a": "%%values"}"#, .unknownExpansion, "f", "Invalid rule at f.a: unknown expansion '%%values'"),
        (#"{"a": "%%request.remoteIPAddress"}"#, .unsupported, "f",
         "Invalid rule at f.a: expansion '%%request.remoteIPAddress' is not supported: rules cannot read the request"),
        (#"{"%%true": {"%function": {"name": "isAllowed", "arguments": ["%%user.id"]}}}"#, .unsupported, "f",
         "Invalid rule at f.%%true.%function: '%function' is allowed only in the rules of collections (Data API and functions), not here"),
    ])
    func badExpression(text: String, code: RuleError.Code, path: String, message: String) throws {
        let error = try #require(expressionError(text, path: path), "\(text)")
        #expect(error.code == code, "\(text)")
        #expect(error.message == message, "\(text)")
        #expect(error.description == message)
    }

    @Test func errorPathAndProblem() throws {
        let error = try #require(expressionError(#"{"a": {"$in": 3}}"#, path: "p"))
        #expect(error.path == "p.a")
        #expect(error.problem == "$in needs an array, not a number")
        do {
            _ = try RuleExpression.parse(jsonText: #"{"a": {"$bogus": 1}}"#)
            Issue.record("expected an error")
        } catch RuleError.Code.unknownOperator {
            // matched through ~=
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func syncIncompatibleExpansions() throws {
        let filter = try RuleExpression.parse(jsonText: #"{"$or": [{"a": 1}, {"%%root.ownerId": "%%user.id"}]}"#,
            path: "roles[0].document_filters.read")
        #expect(!filter.isSyncCompatible)
        let error = try #require(throws: RuleError.self) { try filter.checkSyncCompatible() }
        #expect(error.code == .notSyncCompatible)
        #expect(error.message == "Invalid rule at roles[0].document_filters.read.$or[1].%%root.ownerId: expansion "
            + "'%%root.ownerId' depends on a document and is not supported with Device Sync")
        let previous = try RuleExpression.parse(jsonText: #"{"status": {"$ne": "%%prevRoot.status"}}"#)
        #expect(throws: RuleError.self) { try previous.checkSyncCompatible() }
        try RuleExpression.parse(jsonText: #"{"ownerId": "%%user.id"}"#).checkSyncCompatible()
    }
}
