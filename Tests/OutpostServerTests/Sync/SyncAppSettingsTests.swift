import OutpostCore
import OutpostServer
import Testing

/// The sync settings built from an app configuration, and their bad inputs (rules are parsed here, when the server
/// starts, so a bad rule stops the start with a message naming where it is).
@Suite struct SyncAppSettingsTests {
    @Test func seedAppSettings() throws {
        let app = try AppDefinition(jsonText: #"""
            {"app_id": "a", "sync": {"mode": "flexible", "queryable_fields_names": ["complexity"],
             "collection_queryable_fields_names": {"Item": ["ownerId"]}, "development_mode_enabled": false},
             "schema": {"Item": {"title": "Item", "bsonType": "object", "properties": {"_id": {"bsonType": "objectId"}}}},
             "rules": {"Item": {"roles": [{"name": "owner-read-write", "apply_when": {},
                "document_filters": {"read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true}]}}}
            """#)
        let settings = try SyncAppSettings(app: app)
        #expect(settings.mode == .flexible && !settings.developmentMode)
        #expect(settings.isQueryable("_id", in: "Dog") && settings.isQueryable("complexity", in: "Dog"))
        #expect(settings.isQueryable("ownerId", in: "Item") && !settings.isQueryable("ownerId", in: "Dog"))
        #expect(settings.schema == ["Item": ["_id": "objectId"]])
        #expect(settings.rules.roles(forCollection: "Item").map(\.name) == ["owner-read-write"])
    }

    @Test func badRuleNamesItsPlace() throws {
        let app = try AppDefinition(jsonText: #"""
            {"app_id": "a", "rules": {"Item": {"roles": [{"name": "r", "document_filters": {"read": {"ownerId": {"$regexx": 1}}, "write": true}}]}}}
            """#)
        #expect {
            _ = try SyncAppSettings(app: app)
        } throws: { error in
            guard let e = error as? RuleError else { return false }
            return e.code == .unknownOperator && e.path.hasSuffix("roles[0].document_filters.read.ownerId")
        }
    }

    @Test func badPartitionPermissionNamesItsPlace() throws {
        let app = try AppDefinition(jsonText: #"""
            {"app_id": "a", "sync": {"mode": "partition", "partition": {"key": "realm_id", "type": "string",
             "permissions": {"read": {"%%partition": {"$bogus": 1}}, "write": true}}}}
            """#)
        #expect {
            _ = try SyncAppSettings(app: app)
        } throws: { error in
            guard let e = error as? RuleError else { return false }
            return e.code == .unknownOperator && e.path.hasPrefix("sync.partition.permissions.read")
        }
    }
}
