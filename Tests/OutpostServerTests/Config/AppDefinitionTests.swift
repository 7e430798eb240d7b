import Foundation
import OutpostCore
import OutpostServer
import Testing

@Suite struct AppDefinitionTests {
    @Test func readsTheDocumentedExample() throws {
        let app = try AppDefinition(jsonText: exampleConfigurationText)
        #expect(app.appId == "tasks-app")
        #expect(app.name == "Tasks")
        #expect(app.auth.anonymousEnabled && app.auth.emailPasswordEnabled && app.auth.apiKeysEnabled)
        #expect(!app.auth.emailPasswordAutoConfirm)
        #expect(app.auth.accessTokenLifetimeSeconds == 1800 && app.auth.refreshTokenLifetimeDays == 60)
        #expect(app.auth.throttling == AppDefinition.Throttling())
        #expect(app.sync.mode == .flexible && app.sync.partition == nil && !app.sync.developmentModeEnabled)
        #expect(app.sync.queryableFieldsNames == ["_id", "complexity", "ownerId"])
        #expect(app.sync.queryableFields(of: "Item") == ["_id", "complexity", "ownerId", "itemName"])
        #expect(app.sync.queryableFields(of: "Other") == ["_id", "complexity", "ownerId"])
        #expect(app.sync.indexedQueryableFieldsNames == ["ownerId"])
        #expect(app.schemaCollectionNames == ["Item"] && app.ruleCollectionNames == ["Item"])
        guard case .object(let rule)? = app.rules["Item"], case .array(let roles)? = rule["roles"],
            case .object(let role)? = roles.first
        else { Issue.record("no Item role"); return }
        #expect(role["name"] == .string("owner-read-write"))
        #expect(app.defaultRule != nil)
        #expect(app.dataAPI.enabled)
    }

    @Test func defaultsWhenSectionsAreAbsent() throws {
        let app = try AppDefinition(jsonText: #"{"app_id": "a"}"#)
        #expect(app.name == "a")
        #expect(app.auth == AppDefinition.Auth())
        #expect(app.auth.accessTokenLifetimeSeconds == 1800 && app.auth.refreshTokenLifetimeDays == 60)
        #expect(app.sync.mode == .flexible && app.sync.queryableFields(of: "X") == ["_id"])
        #expect(app.schema.isEmpty && app.rules.isEmpty && app.defaultRule == nil && !app.dataAPI.enabled)
    }

    @Test func readsThrottling() throws {
        let defaults = try AppDefinition(jsonText: #"{"app_id": "a"}"#).auth.throttling
        #expect(
            defaults
                == .init(
                    failedLoginsPerAccount: 10, failedLoginsPerAddress: 100, newUsersPerAddress: 100,
                    windowSeconds: 300, trackedKeys: 10_000))
        let custom = try AppDefinition(
            jsonText: #"""
                {"app_id": "a", "auth": {"throttling": {"failed_logins_per_account": 5, "failed_logins_per_address": 0,
                 "new_users_per_address": 20, "window_seconds": 60, "tracked_keys": 500}}}
                """#)
        #expect(
            custom.auth.throttling
                == .init(
                    failedLoginsPerAccount: 5, failedLoginsPerAddress: 0, newUsersPerAddress: 20, windowSeconds: 60,
                    trackedKeys: 500))
        let off = try AppDefinition(jsonText: #"{"app_id": "a", "auth": {"throttling": {"enabled": false}}}"#)
        #expect(off.auth.throttling == .off)
        #expect(try AppDefinition(jsonText: off.jsonText) == off)
        #expect(try AppDefinition(jsonText: custom.jsonText) == custom)
    }

    @Test func readsPartitionMode() throws {
        let app = try AppDefinition(
            jsonText: #"""
                {"app_id": "p", "sync": {"mode": "partition", "partition": {"key": "_partition", "type": "objectId",
                 "required": true, "permissions": {"read": true, "write": {"%%user.id": "%%partition"}}}}}
                """#)
        #expect(app.sync.mode == .partition)
        let partition = try #require(app.sync.partition)
        #expect(partition.key == "_partition" && partition.type == .objectId && partition.required)
        #expect(partition.readPermission == .bool(true))
        #expect(partition.writePermission == .object(["%%user.id": .string("%%partition")]))
    }

    @Test func developmentApp() throws {
        let app = AppDefinition.development(appId: "dev")
        #expect(app.appId == "dev" && app.sync.developmentModeEnabled && app.sync.mode == .flexible)
        #expect(app.auth.anonymousEnabled && app.auth.emailPasswordEnabled && app.auth.emailPasswordAutoConfirm)
        #expect(app.sync.queryableFields(of: "Item") == ["*", "_id"])
        let expectedRole = try #require(
            JSONValue.parse(
                #"{"name":"default","apply_when":{},"document_filters":{"read":true,"write":true},"read":true,"write":true,"insert":true,"delete":true}"#
            ))
        #expect(app.defaultRule == .object(["roles": .array([expectedRole])]))
        #expect(AppDefinition.development().appId == "outpost-dev")
    }

    @Test func writesAndReadsBackTheSameConfiguration() throws {
        for app in [try AppDefinition(jsonText: exampleConfigurationText), .development()] {
            #expect(try AppDefinition(jsonText: app.jsonText) == app)
        }
        let partitioned = try AppDefinition(
            jsonText: #"{"app_id":"p","sync":{"mode":"partition","partition":{"key":"k","type":"uuid"}}}"#)
        #expect(try AppDefinition(jsonText: partitioned.jsonText) == partitioned)
    }

    @Test func developmentAppIsPersistedInTheDataDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-cfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try AppDefinition.loadOrCreateDevelopment(in: directory)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("app.json").path))
        var edited = first
        edited.name = "Edited"
        try edited.write(to: directory.appendingPathComponent("app.json"))
        let second = try AppDefinition.loadOrCreateDevelopment(in: directory)
        #expect(second.appId == "outpost-dev" && second.name == "Edited")
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        var json: String
        var code: ConfigurationError.Code
        var path: String
        var testDescription: String { "\(path): \(json)" }
    }

    static let badInputs: [BadInput] = [
        BadInput(json: "{", code: .invalidJSON, path: "$"),
        BadInput(json: "[]", code: .wrongType, path: "$"),
        BadInput(json: #"{}"#, code: .missingField, path: "app_id"),
        BadInput(json: #"{"app_id": 3}"#, code: .wrongType, path: "app_id"),
        BadInput(json: #"{"app_id": ""}"#, code: .invalidValue, path: "app_id"),
        BadInput(json: #"{"app_id": "a b"}"#, code: .invalidValue, path: "app_id"),
        BadInput(json: #"{"app_id": "a", "name": false}"#, code: .wrongType, path: "name"),
        BadInput(json: #"{"app_id": "a", "colour": 1}"#, code: .unknownField, path: "colour"),
        BadInput(json: #"{"app_id": "a", "auth": []}"#, code: .wrongType, path: "auth"),
        BadInput(json: #"{"app_id": "a", "auth": {"anonymous": {"enabled": "yes"}}}"#, code: .wrongType, path: "auth.anonymous.enabled"),
        BadInput(json: #"{"app_id": "a", "auth": {"email_password": {"auto_confirm": 1}}}"#, code: .wrongType, path: "auth.email_password.auto_confirm"),
        BadInput(json: #"{"app_id": "a", "auth": {"email_password": {"autoConfirm": true}}}"#, code: .unknownField, path: "auth.email_password.autoConfirm"),
        BadInput(json: #"{"app_id": "a", "auth": {"api_keys": true}}"#, code: .wrongType, path: "auth.api_keys"),
        BadInput(json: #"{"app_id": "a", "auth": {"access_token_lifetime_seconds": "1800"}}"#, code: .wrongType, path: "auth.access_token_lifetime_seconds"),
        BadInput(json: #"{"app_id": "a", "auth": {"access_token_lifetime_seconds": 0}}"#, code: .invalidValue, path: "auth.access_token_lifetime_seconds"),
        BadInput(json: #"{"app_id": "a", "auth": {"refresh_token_lifetime_days": 1.5}}"#, code: .wrongType, path: "auth.refresh_token_lifetime_days"),
        BadInput(json: #"{"app_id": "a", "auth": {"throttling": []}}"#, code: .wrongType, path: "auth.throttling"),
        BadInput(json: #"{"app_id": "a", "auth": {"throttling": {"max_failures": 3}}}"#, code: .unknownField, path: "auth.throttling.max_failures"),
        BadInput(json: #"{"app_id": "a", "auth": {"throttling": {"enabled": "no"}}}"#, code: .wrongType, path: "auth.throttling.enabled"),
        BadInput(json: #"{"app_id": "a", "auth": {"throttling": {"failed_logins_per_account": -1}}}"#, code: .invalidValue, path: "auth.throttling.failed_logins_per_account"),
        BadInput(json: #"{"app_id": "a", "auth": {"throttling": {"new_users_per_address": "10"}}}"#, code: .wrongType, path: "auth.throttling.new_users_per_address"),
        BadInput(json: #"{"app_id": "a", "auth": {"throttling": {"window_seconds": 0}}}"#, code: .invalidValue, path: "auth.throttling.window_seconds"),
        BadInput(json: #"{"app_id": "a", "auth": {"throttling": {"tracked_keys": 1}}}"#, code: .invalidValue, path: "auth.throttling.tracked_keys"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": "realtime"}}"#, code: .invalidValue, path: "sync.mode"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": 1}}"#, code: .wrongType, path: "sync.mode"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": "partition"}}"#, code: .missingField, path: "sync.partition"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": "partition", "partition": {"type": "string"}}}"#, code: .missingField, path: "sync.partition.key"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": "partition", "partition": {"key": "k", "type": "float"}}}"#, code: .invalidValue, path: "sync.partition.type"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": "partition", "partition": {"key": "k"}}}"#, code: .missingField, path: "sync.partition.type"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": "partition", "partition": {"key": "k", "type": "int", "required": "no"}}}"#, code: .wrongType, path: "sync.partition.required"),
        BadInput(json: #"{"app_id": "a", "sync": {"mode": "partition", "partition": {"key": "k", "type": "int", "permissions": {"delete": true}}}}"#, code: .unknownField, path: "sync.partition.permissions.delete"),
        BadInput(json: #"{"app_id": "a", "sync": {"partition": {"key": "k", "type": "int"}}}"#, code: .invalidValue, path: "sync.partition"),
        BadInput(json: #"{"app_id": "a", "sync": {"queryable_fields_names": "ownerId"}}"#, code: .wrongType, path: "sync.queryable_fields_names"),
        BadInput(json: #"{"app_id": "a", "sync": {"queryable_fields_names": ["ok", 2]}}"#, code: .wrongType, path: "sync.queryable_fields_names[1]"),
        BadInput(json: #"{"app_id": "a", "sync": {"collection_queryable_fields_names": {"Item": [true]}}}"#, code: .wrongType, path: "sync.collection_queryable_fields_names.Item[0]"),
        BadInput(json: #"{"app_id": "a", "sync": {"development_mode_enabled": "true"}}"#, code: .wrongType, path: "sync.development_mode_enabled"),
        BadInput(json: #"{"app_id": "a", "schema": {"Item": []}}"#, code: .wrongType, path: "schema.Item"),
        BadInput(json: #"{"app_id": "a", "schema": {"Item": {"bsonType": "array"}}}"#, code: .invalidValue, path: "schema.Item.bsonType"),
        BadInput(json: #"{"app_id": "a", "schema": {"Item": {"properties": []}}}"#, code: .wrongType, path: "schema.Item.properties"),
        BadInput(json: #"{"app_id": "a", "rules": {"Item": {}}}"#, code: .missingField, path: "rules.Item.roles"),
        BadInput(json: #"{"app_id": "a", "rules": {"Item": {"roles": {}}}}"#, code: .wrongType, path: "rules.Item.roles"),
        BadInput(json: #"{"app_id": "a", "rules": {"Item": {"roles": [{"read": true}]}}}"#, code: .missingField, path: "rules.Item.roles[0].name"),
        BadInput(json: #"{"app_id": "a", "default_rule": {"roles": [3]}}"#, code: .wrongType, path: "default_rule.roles[0]"),
        BadInput(json: #"{"app_id": "a", "data_api": {"enabled": 1}}"#, code: .wrongType, path: "data_api.enabled"),
    ]

    @Test(arguments: badInputs) func badInputNamesThePath(_ input: BadInput) {
        do {
            _ = try AppDefinition(jsonText: input.json)
            Issue.record("accepted \(input.json)")
        } catch {
            #expect(error.code == input.code)
            #expect(error.path == input.path)
            #expect("\(error)".hasPrefix("\(input.path): "))
        }
    }

    @Test func unreadableFile() {
        #expect(throws: ConfigurationError.self) {
            try AppDefinition(contentsOf: URL(fileURLWithPath: "/nonexistent/app.json"))
        }
        do {
            _ = try AppDefinition(contentsOf: URL(fileURLWithPath: "/nonexistent/app.json"))
        } catch {
            #expect(error.code == .unreadableFile)
        }
    }
}
