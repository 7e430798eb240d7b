import Foundation
import OutpostCore
import OutpostServerTesting
import Testing

@testable import OutpostServer

/// `outpost-server import-app`'s conversion: each layout of App Services exports, what is carried over, what is
/// reported as not carried over, and bad exports.
@Suite struct AppServicesImportTests {
    private func importing(_ files: [String: String], secrets: [String: String] = [:], appId: String? = nil)
        throws -> (AppDefinition, AppImportReport)
    {
        let dir = try TemporaryDirectory("app-import")
        defer { dir.remove() }
        try AppServicesExportFixtures.write(files, in: dir.url)
        return try AppServicesImport.run(folder: dir.url, appId: appId, secrets: secrets)
    }

    private func left(_ report: AppImportReport, _ setting: String) -> String? {
        report.notCarried.first { $0.setting.contains(setting) }?.note
    }

    @Test func theCurrentLayoutCarriesAuthSchemaRulesAndSync() throws {
        let (app, report) = try importing(AppServicesExportFixtures.current)
        #expect(app.appId == "todo-abcde" && app.name == "todo")
        #expect(app.auth.anonymousEnabled && app.auth.emailPasswordEnabled && app.auth.emailPasswordAutoConfirm)
        #expect(!app.auth.apiKeysEnabled && app.auth.customToken == nil)
        // Collections are named by their class (the schema's title), as sync names them.
        #expect(app.schemaCollectionNames == ["Item", "Person"])
        #expect(app.schema["Item"]?.objectValue?["properties"]?.objectValue?.keys.sorted()
            == ["_id", "isComplete", "owner_id", "summary"])
        // Both roles come along in the export's order, the one calling a function too (its function is imported).
        guard case .object(let itemRule)? = app.rules["Item"], case .array(let roles)? = itemRule["roles"] else {
            Issue.record("no rules for Item")
            return
        }
        #expect(roles.compactMap { $0.objectValue?["name"]?.stringValue } == ["owner", "admin"])
        #expect(app.defaultRule != nil)
        #expect(app.sync.mode == .flexible && !app.sync.developmentModeEnabled)
        #expect(app.sync.queryableFieldsNames == ["owner_id"] && app.sync.indexedQueryableFieldsNames == ["owner_id"])
        #expect(app.sync.collectionQueryableFieldsNames == ["Person": ["name"]])
        #expect(app.dataAPI.enabled)

        #expect(left(report, "role 'admin'") == nil)
        #expect(left(report, "oauth2-google")?.contains("Custom JWT") == true)
        #expect(left(report, "resetPasswordUrl")?.contains("sends no email") == true)
        #expect(left(report, "custom_user_data") != nil)
        #expect(left(report, "filters") != nil)
        // Functions and values come along, sources inline.
        #expect(app.functions.definition(named: "isAdmin")?.source == "exports = function() { return false; };")
        #expect(app.functions.definition(named: "isAdmin")?.isPrivate == true)
        #expect(app.functions.values["apiBase"] == .string("https://api.example"))
        #expect(report.carried.contains { $0.setting == "values/apiBase.json" })
        #expect(left(report, "environments (production)") != nil)
        #expect(left(report, "triggers (nightly)") != nil)
        #expect(left(report, "HTTPS endpoints (GET /stats)") != nil)
        #expect(left(report, "people relationships") != nil)
        #expect(left(report, "client_max_offline_days") != nil)
        #expect(report.carried.contains { $0.setting == "auth/providers.json" && $0.note.contains("trailing commas") })
        #expect(report.description.hasPrefix("Carried over (\(report.carried.count)):\n"))
    }

    @Test func realmCLIv2FlexiblePermissionsBecomeRules() throws {
        let (app, report) = try importing(AppServicesExportFixtures.realmCLIv2)
        #expect(app.appId == "tasks-fghij")
        #expect(app.sync.developmentModeEnabled && app.sync.queryableFieldsNames == ["owner", "team"])
        // As App Services' own migration: the old read/write expressions are the document filters.
        let role = app.rules["Task"]?.objectValue?["roles"]?.arrayValue?.first?.objectValue
        #expect(role?["apply_when"] == .object([:]))
        #expect(role?["document_filters"] == .object(["read": .object(["owner": .string("%%user.id")]),
                                                      "write": .object(["owner": .string("%%user.id")])]))
        #expect(role?["read"] == .bool(true) && role?["insert"] == .bool(true))
        #expect(app.defaultRule?.objectValue?["roles"]?.arrayValue?.first?.objectValue?["apply_when"]
            == .object(["%%user.data.admin": .bool(true)]))
        #expect(report.carried.contains { $0.setting.hasSuffix("permissions.defaultRoles") })
        #expect(left(report, "location") != nil)
    }

    @Test func theLegacyLayoutCarriesPartitionSync() throws {
        let (app, report) = try importing(AppServicesExportFixtures.legacy, secrets: ["jwtKey": "s3cret-key"])
        #expect(app.appId == "tracker-klmno")
        #expect(app.sync.mode == .partition && app.sync.developmentModeEnabled)
        let partition = try #require(app.sync.partition)
        #expect(partition.key == "_partition" && partition.type == .int && partition.required)
        #expect(partition.readPermission == .bool(true))
        // A permission calling a function cannot be enforced: it becomes false, and says so.
        #expect(partition.writePermission == .bool(false))
        #expect(left(report, "partition.permissions.write")?.contains("%function") == true)
        #expect(app.schemaCollectionNames == ["Task"] && app.ruleCollectionNames == ["Task"])
        #expect(app.auth.anonymousEnabled && app.auth.emailPasswordEnabled && !app.auth.emailPasswordAutoConfirm)
        let token = try #require(app.auth.customToken)
        #expect(token.signingKeys == ["s3cret-key"] && token.audience == ["tracker"])
        #expect(token.metadataFields.map(\.name) == ["user.email"])
        #expect(left(report, "runConfirmationFunction (confirm)") != nil)
        #expect(left(report, "services/twilio") != nil)
        #expect(app.functions.definitions.map(\.name).sorted() == ["canWrite", "confirm"])
        #expect(app.functions.definition(named: "confirm")?.source == "exports = function() { return {status: 'success'}; };")
        #expect(left(report, "allowed_request_origins") != nil)
        #expect(left(report, "hosting") != nil)
    }

    /// Partition permissions Outpost can evaluate are carried as they are.
    @Test func enforceablePartitionPermissionsAreCarried() throws {
        var files = AppServicesExportFixtures.legacy
        files["services/mongodb-atlas/config.json"] = """
            {"name": "mongodb-atlas", "type": "mongodb-atlas",
             "config": {"sync": {"state": "enabled", "partition": {"key": "_partition", "type": "string",
               "permissions": {"read": {"%%partition": {"$in": ["%%user.id", "PUBLIC"]}},
                               "write": {"%%partition": "%%user.id"}}}}}}
            """
        let (app, report) = try importing(files)
        let partition = try #require(app.sync.partition)
        #expect(partition.writePermission == .object(["%%partition": .string("%%user.id")]))
        #expect(partition.readPermission == .object(["%%partition": .object(["$in": .array([.string("%%user.id"), .string("PUBLIC")])])]))
        #expect(left(report, "partition.permissions") == nil)
    }

    /// Exports name their secrets and leave the values out: without `--secret`, Custom JWT is reported, not guessed.
    @Test func customJWTWithoutItsSecretIsReported() throws {
        let (app, report) = try importing(AppServicesExportFixtures.legacy)
        #expect(app.auth.customToken == nil)
        #expect(left(report, "custom-token")?.contains("--secret <name>=<value> for 'jwtKey'") == true)
    }

    @Test func anAppIdCanBeGiven() throws {
        var files = AppServicesExportFixtures.current
        files[".mdb/meta.json"] = nil
        #expect(try importing(files).0.appId == "todo", "the app name, when the export records no client app id")
        #expect(try importing(files, appId: "todo-new").0.appId == "todo-new")
    }

    @Test(arguments: [
        (["notes.txt": "hello"], ".", "none of root_config.json"),
        (["root_config.json": #"{"name": "x", "#], "root_config.json", "it ends early"),
        (["root_config.json": "{\"name\": \"x\"}", "auth/providers.json": "{\"anon-user\": {\n  \"type\" \"anon-user\"}}"],
         "auth/providers.json", "at line 2, column 10"),
        (["root_config.json": "[1]"], "root_config.json", "must hold a JSON object, not an array"),
        (["root_config.json": #"{"name": "bad app!"}"#], "root_config.json", "give one with --app-id"),
        (["root_config.json": #"{"name": "x"}"#,
          "data_sources/mongodb-atlas/db/c/schema.json": #"{"title": "C", "bsonType": "array"}"#],
         "data_sources/mongodb-atlas/db/c/schema.json", #"bsonType "object", not "array""#),
    ] as [([String: String], String, String)])
    func aBadExportNamesTheFileAndTheProblem(files: [String: String], file: String, message: String) throws {
        do {
            _ = try importing(files)
            Issue.record("imported a bad export")
        } catch let error as AppImportError {
            #expect(file == "." ? error.message.contains(message) : error.file == file, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func trailingCommasAreRemovedOutsideStrings() {
        let text = #"{"a": [1, 2, ], "b": "x,]", "c": {"d": 1 , } , }"#
        let repaired = String(decoding: AppServicesExport.withoutTrailingCommas(Array(text.utf8)), as: UTF8.self)
        #expect(repaired == #"{"a": [1, 2 ], "b": "x,]", "c": {"d": 1  }  }"#)
    }
}
