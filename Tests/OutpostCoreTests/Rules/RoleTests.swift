import OutpostCore
import Testing

@Suite struct RoleTests {
    static let ownerReadWrite = """
        { "name": "owner-read-write", "apply_when": {},
          "document_filters": { "read": { "ownerId": "%%user.id" }, "write": { "ownerId": "%%user.id" } },
          "read": true, "write": true }
        """
    static let u1 = RuleContext(userId: "u1")

    @Test func seedRoleAllowsTheOwnerOnly() throws {
        let role = try Role.parse(jsonText: Self.ownerReadWrite)
        #expect(role.name == "owner-read-write")
        #expect(role.isSyncCompatible)
        #expect(role.syncIncompatibility == nil)
        #expect(role.applyWhen.evaluate(context: Self.u1))
        let mine: Document = ["_id": .int(1), "ownerId": .string("u1"), "name": .string("a")]
        let theirs: Document = ["_id": .int(2), "ownerId": .string("u2"), "name": .string("b")]
        #expect(role.canRead(mine, context: Self.u1))
        #expect(role.canWrite(mine, context: Self.u1))
        #expect(role.canInsert(mine, context: Self.u1))
        #expect(role.canDelete(mine, context: Self.u1))
        #expect(!role.canRead(theirs, context: Self.u1))
        #expect(!role.canWrite(theirs, context: Self.u1))
        #expect(!role.canInsert(theirs, context: Self.u1))
        #expect(!role.canDelete(theirs, context: Self.u1))
        #expect(!role.canRead(mine, context: RuleContext()))
        #expect(role.canRead(field: "name") && role.canWrite(field: "name") && role.canRead(field: "_id"))
        #expect(role.documentFilters.read?.referencedFields == ["ownerId"])
        #expect(role.insert == .alwaysTrue && role.delete == .alwaysTrue && role.search == .alwaysTrue)
    }

    @Test func coreCompensatingWriteRole() throws {
        let role = try Role.parse(jsonText: """
            {"name": "compensating_write_perms", "apply_when": {},
             "document_filters": {"read": true, "write": {"queryable_str_field": {"$in": ["foo", "bar"]}}},
             "read": true, "write": true}
            """)
        #expect(role.isSyncCompatible)
        let foo: Document = ["queryable_str_field": .string("foo")]
        let baz: Document = ["queryable_str_field": .string("baz")]
        #expect(role.canWrite(foo, context: RuleContext()))
        #expect(!role.canWrite(baz, context: RuleContext()))
        #expect(role.canRead(baz, context: RuleContext()))
        #expect(!role.canInsert(baz, context: RuleContext()))
    }

    @Test func writeFilterImpliesRead() throws {
        let role = try Role.parse(jsonText: """
            {"name": "r", "document_filters": {"read": {"public": true}, "write": {"ownerId": "%%user.id"}}}
            """)
        #expect(role.canRead(["public": .bool(true)], context: Self.u1))
        #expect(role.canRead(["public": .bool(false), "ownerId": .string("u1")], context: Self.u1))
        #expect(!role.canRead(["public": .bool(false), "ownerId": .string("u2")], context: Self.u1))
        #expect(!role.canWrite(["public": .bool(true)], context: Self.u1))
        let ingest = try Role.parse(jsonText: #"{"name": "ingest", "document_filters": {"read": true, "write": false}}"#)
        #expect(ingest.canRead([:], context: RuleContext()) && !ingest.canWrite([:], context: RuleContext()))
    }

    @Test func defaultsForAbsentKeys() throws {
        let role = try Role.parse(jsonText: #"{"name": "bare"}"#)
        #expect(role.applyWhen.evaluate(context: RuleContext()))
        #expect(role.read == nil && role.write == nil && role.fields.isEmpty && role.additionalFields == nil)
        #expect(role.canInsert([:], context: RuleContext()) && role.canDelete([:], context: RuleContext()))
        #expect(role.canRead([:], context: RuleContext()) && role.canWrite([:], context: RuleContext()))
        #expect(!role.canRead(field: "name") && !role.canWrite(field: "name") && role.canRead(field: "_id"))
        #expect(role.syncIncompatibility?.code == .notSyncCompatible)
        let noInsert = try Role.parse(jsonText: #"{"name": "n", "insert": false, "delete": {"ownerId": "%%user.id"}}"#)
        #expect(!noInsert.canInsert([:], context: Self.u1))
        #expect(noInsert.canDelete(["ownerId": .string("u1")], context: Self.u1))
        #expect(!noInsert.canDelete(["ownerId": .string("u2")], context: Self.u1))
    }

    @Test func fieldPermissions() throws {
        let role = try Role.parse(jsonText: """
            {"name": "f", "read": false, "write": false,
             "fields": {"name": {"read": true}, "salary": {"write": true}, "address": {"read": true, "write": false}}}
            """)
        #expect(role.fields["name"] == FieldPermission(read: true, write: false))
        #expect(role.canRead(field: "name") && !role.canWrite(field: "name"))
        #expect(role.canRead(field: "salary") && role.canWrite(field: "salary"))
        #expect(role.canRead(field: "address.city") && !role.canWrite(field: "address.city"))
        #expect(!role.canRead(field: "other") && !role.canWrite(field: "other"))
        #expect(role.canRead(field: "_id"))

        let additional = try Role.parse(jsonText: """
            {"name": "a", "read": false, "write": true, "fields": {"name": {"read": true, "write": true}},
             "additional_fields": {"read": true}}
            """)
        #expect(additional.canRead(field: "other") && !additional.canWrite(field: "other"))
        #expect(additional.canWrite(field: "name"))

        // Field permissions override the top-level ones; unlisted fields fall back to them.
        let override = try Role.parse(jsonText: """
            {"name": "o", "read": true, "write": true, "fields": {"secret": {"read": false, "write": false}}}
            """)
        #expect(!override.canRead(field: "secret") && !override.canWrite(field: "secret"))
        #expect(override.canRead(field: "name") && override.canWrite(field: "name"))
        let writeOnly = try Role.parse(jsonText: #"{"name": "w", "write": true}"#)
        #expect(writeOnly.canRead(field: "name"))
    }

    @Test func expressionPermissionsForTheDataAPI() throws {
        let role = try Role.parse(jsonText: """
            {"name": "admin-or-owner", "read": {"%%user.custom_data.isAdmin": true}, "write": {"ownerId": "%%user.id"}}
            """)
        let admin = RuleContext(userId: "u9", customData: ["isAdmin": .bool(true)])
        #expect(role.canRead(field: "name", context: admin))
        #expect(!role.canRead(field: "name", context: Self.u1))
        #expect(role.canRead(field: "name", document: ["ownerId": .string("u1")], context: Self.u1))
        #expect(role.canWrite(field: "name", document: ["ownerId": .string("u1")], context: Self.u1))
        #expect(!role.canWrite(field: "name", document: ["ownerId": .string("u2")], context: Self.u1))
        #expect(role.syncIncompatibility?.path == "document_filters")
    }

    /// Each reason a role cannot be used with Sync, with its path and message.
    @Test(arguments: [
        (#"{"name": "x", "document_filters": {"read": true}}"#, "roles[2].document_filters",
         "Invalid rule at roles[2].document_filters: role \"x\" needs both document_filters.read and document_filters.write for Sync"),
        (#"{"name": "x", "document_filters": {"read": true, "write": true}, "read": {"%%user.custom_data.isAdmin": true}}"#,
         "roles[2].read", "Invalid rule at roles[2].read: role \"x\" must have a boolean 'read' for Sync"),
        (#"{"name": "x", "document_filters": {"read": true, "write": true}, "write": {}}"#,
         "roles[2].write", "Invalid rule at roles[2].write: role \"x\" must have a boolean 'write' for Sync"),
        (#"{"name": "x", "document_filters": {"read": true, "write": true}, "fields": {"_id": {"read": true}}}"#,
         "roles[2].fields._id", "Invalid rule at roles[2].fields._id: role \"x\" may not have field permissions on '_id' with Sync"),
        (#"{"name": "x", "apply_when": {"ownerId": "%%user.id"}, "document_filters": {"read": true, "write": true}}"#,
         "roles[2].apply_when",
         "Invalid rule at roles[2].apply_when: role \"x\" has an apply_when that reads document fields, which Sync cannot evaluate"),
        (#"{"name": "x", "document_filters": {"read": {"%%root.a": 1}, "write": true}}"#,
         "roles[2].document_filters.read.%%root.a",
         "Invalid rule at roles[2].document_filters.read.%%root.a: expansion '%%root.a' depends on a document and is not supported with Device Sync"),
    ])
    func notSyncCompatible(text: String, path: String, message: String) throws {
        let role = try Role.parse(jsonText: text, path: "roles[2]")
        #expect(!role.isSyncCompatible)
        let error = try #require(throws: RuleError.self) { try role.checkSyncCompatible(path: "roles[2]") }
        #expect(error.code == .notSyncCompatible)
        #expect(error.path == path)
        #expect(error.message == message)
    }

    /// Each malformed role with its code and full message.
    @Test(arguments: [
        (#""owner""#, RuleError.Code.invalidRole, "Invalid rule at roles[0]: a role must be an object, not a string"),
        ("[]", .invalidRole, "Invalid rule at roles[0]: a role must be an object, not an array"),
        (#"{"apply_when": {}}"#, .invalidRole, "Invalid rule at roles[0]: a role needs a 'name'"),
        (#"{"name": 3}"#, .invalidRole, "Invalid rule at roles[0].name: a role's name must be a non-empty string"),
        (#"{"name": ""}"#, .invalidRole, "Invalid rule at roles[0].name: a role's name must be a non-empty string"),
        (#"{"name": "x", "document_filter": {}}"#, .invalidRole,
         "Invalid rule at roles[0].document_filter: unknown key 'document_filter' in a role"),
        (#"{"name": "x", "document_filters": []}"#, .invalidRole,
         "Invalid rule at roles[0].document_filters: 'document_filters' must be an object like {\"read\": <expression>, \"write\": <expression>}"),
        (#"{"name": "x", "document_filters": {"reed": true}}"#, .invalidRole,
         "Invalid rule at roles[0].document_filters.reed: unknown key 'reed' in document_filters (expected read, write)"),
        (#"{"name": "x", "document_filters": {"read": {"ownerId": {"$regexx": "^u"}}, "write": true}}"#, .unknownOperator,
         "Invalid rule at roles[0].document_filters.read.ownerId: unknown operator '$regexx'"),
        (#"{"name": "x", "apply_when": {"%%user.nme": "a"}}"#, .unknownExpansion,
         "Invalid rule at roles[0].apply_when.%%user.nme: unknown expansion '%%user.nme'"),
        (#"{"name": "x", "read": 1}"#, .invalidOperand,
         "Invalid rule at roles[0].read: an expression must be an object, true, false, \"%%true\" or \"%%false\", not a number"),
        (#"{"name": "x", "insert": "yes"}"#, .invalidOperand,
         "Invalid rule at roles[0].insert: an expression must be an object, true, false, \"%%true\" or \"%%false\", not a string"),
        (#"{"name": "x", "fields": []}"#, .invalidRole, "Invalid rule at roles[0].fields: 'fields' must be an object of field permissions"),
        (#"{"name": "x", "fields": {"a": true}}"#, .invalidRole,
         "Invalid rule at roles[0].fields.a: a field permission must be an object like {\"read\": true, \"write\": false}"),
        (#"{"name": "x", "fields": {"a": {"read": "yes"}}}"#, .invalidRole,
         "Invalid rule at roles[0].fields.a.read: a field permission must be true or false"),
        (#"{"name": "x", "fields": {"a": {"fields": {}}}}"#, .unsupported,
         "Invalid rule at roles[0].fields.a.fields: field permissions inside embedded objects are not supported"),
        (#"{"name": "x", "additional_fields": {"read": true, "delete": true}}"#, .invalidRole,
         "Invalid rule at roles[0].additional_fields.delete: unknown key 'delete' in a field permission (expected read, write)"),
        ("{", .invalidRole, "Invalid rule at roles[0]: the text is not valid JSON"),
    ])
    func badRole(text: String, code: RuleError.Code, message: String) throws {
        let error = try #require(throws: RuleError.self) { try Role.parse(jsonText: text, path: "roles[0]") }
        #expect(error.code == code, "\(text)")
        #expect(error.message == message, "\(text)")
    }
}
