import Foundation

/// App Services exports written from MongoDB's documentation of each layout (docs/import.md lists the sources): the
/// files of one export by path.
enum AppServicesExportFixtures {
    /// Writes `files` under `folder`, making the folders.
    static func write(_ files: [String: String], in folder: URL) throws {
        for (path, text) in files {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// The App Services CLI's layout (`root_config.json`, `.mdb/meta.json`, unified rules with document filters), as
    /// a to-do app with Flexible Sync exports it; one role calls a function, one provider has a trailing comma.
    static let current: [String: String] = [
        ".mdb/meta.json": #"{"config_version": 20230101, "app_id": "64b0c0ffee0000000000aaaa", "client_app_id": "todo-abcde"}"#,
        "root_config.json": #"{"name": "todo", "deployment_model": "GLOBAL", "provider_region": "aws-us-east-1", "environment": ""}"#,
        "auth/providers.json": """
            { "anon-user": {"name": "anon-user", "type": "anon-user", "disabled": false},
              "api-key": {"name": "api-key", "type": "api-key", "disabled": true},
              "local-userpass": {"name": "local-userpass", "type": "local-userpass", "disabled": false,
                 "config": {"autoConfirm": true, "resetPasswordUrl": "https://todo.example/reset", "runResetFunction": false}},
              "oauth2-google": {"name": "oauth2-google", "type": "oauth2-google", "disabled": false,
                 "config": {"clientId": "1.apps.googleusercontent.com"}, "secret_config": {"clientSecret": "google"}},
            }
            """,
        "auth/custom_user_data.json": #"{"enabled": true, "mongo_service_name": "mongodb-atlas", "database_name": "todo", "collection_name": "users", "user_id_field": "userId"}"#,
        "data_sources/mongodb-atlas/config.json": #"{"name": "mongodb-atlas", "type": "mongodb-atlas", "config": {"clusterName": "Cluster0"}, "version": 1}"#,
        "data_sources/mongodb-atlas/default_rule.json": """
            {"roles": [{"name": "readAll", "apply_when": {}, "document_filters": {"read": true, "write": false},
                        "read": true, "write": false}], "filters": []}
            """,
        "data_sources/mongodb-atlas/todo/Item/schema.json": """
            {"title": "Item", "required": ["_id", "owner_id", "summary"],
             "properties": {"_id": {"bsonType": "objectId"}, "owner_id": {"bsonType": "string"},
                            "summary": {"bsonType": "string"}, "isComplete": {"bsonType": "bool"}}}
            """,
        "data_sources/mongodb-atlas/todo/Item/rules.json": """
            {"database": "todo", "collection": "Item", "roles": [
              {"name": "owner", "apply_when": {},
               "document_filters": {"read": {"owner_id": "%%user.id"}, "write": {"owner_id": "%%user.id"}},
               "read": true, "write": true, "insert": true, "delete": true, "search": true},
              {"name": "admin", "apply_when": {"%%true": {"%function": {"name": "isAdmin", "arguments": []}}},
               "read": true, "write": true}],
             "filters": [{"name": "notDeleted", "query": {"deleted": {"$ne": true}}}]}
            """,
        "data_sources/mongodb-atlas/todo/Item/relationships.json": "{}",
        "data_sources/mongodb-atlas/todo/people/schema.json": """
            {"title": "Person", "bsonType": "object",
             "properties": {"_id": {"bsonType": "objectId"}, "name": {"bsonType": "string"}}}
            """,
        "data_sources/mongodb-atlas/todo/people/relationships.json": """
            {"best_friend": {"ref": "#/relationship/mongodb-atlas/todo/people", "source_key": "best_friend",
                             "foreign_key": "_id", "is_list": false}}
            """,
        "sync/config.json": """
            {"type": "flexible", "state": "enabled", "development_mode_enabled": false, "service_name": "mongodb-atlas",
             "database_name": "todo", "client_max_offline_days": 30, "is_recovery_mode_disabled": false,
             "queryable_fields_names": ["owner_id"], "indexed_queryable_fields_names": ["owner_id"],
             "collection_queryable_fields_names": {"people": ["name"]}, "asymmetric_tables": []}
            """,
        "functions/config.json": #"[{"name": "isAdmin", "private": true}]"#,
        "functions/isAdmin.js": "exports = function() { return false; };",
        "values/apiBase.json": #"{"name": "apiBase", "value": "https://api.example", "from_secret": false}"#,
        "environments/no-environment.json": #"{"values": {}}"#,
        "environments/production.json": #"{"values": {"apiBase": "https://api.example"}}"#,
        "triggers/nightly.json": """
            {"name": "nightly", "type": "SCHEDULED", "disabled": false, "config": {"schedule": "0 3 * * *"},
             "event_processors": {"FUNCTION": {"config": {"function_name": "isAdmin"}}}}
            """,
        "graphql/config.json": #"{"use_natural_pluralization": true}"#,
        "https_endpoints/config.json": #"[{"route": "/stats", "http_method": "GET", "function_name": "isAdmin"}]"#,
        "https_endpoints/data_api_config.json": #"{"disabled": false, "versions": ["v1"], "return_type": "EJSON"}"#,
        "hosting/config.json": #"{"enabled": false}"#,
    ]

    /// realm-cli v2 (`realm_config.json`, 20210101) with Flexible Sync permissions from before unified rules.
    static let realmCLIv2: [String: String] = [
        "realm_config.json": #"{"app_id": "tasks-fghij", "config_version": 20210101, "name": "tasks", "location": "IE"}"#,
        "auth/providers.json": #"{"anon-user": {"name": "anon-user", "type": "anon-user", "disabled": false}}"#,
        "data_sources/mongodb-atlas/config.json": #"{"name": "mongodb-atlas", "type": "mongodb-atlas", "config": {}}"#,
        "data_sources/mongodb-atlas/app/tasks/schema.json": """
            {"title": "Task", "bsonType": "object",
             "properties": {"_id": {"bsonType": "objectId"}, "owner": {"bsonType": "string"}, "team": {"bsonType": "string"}}}
            """,
        "sync/config.json": """
            {"type": "flexible", "state": "enabled", "development_mode_enabled": true, "database_name": "app",
             "queryable_fields_names": ["owner", "team"],
             "permissions": {
               "rules": {"Task": [{"name": "owner", "applyWhen": {}, "read": {"owner": "%%user.id"},
                                   "write": {"owner": "%%user.id"}}]},
               "defaultRoles": [{"name": "admin", "applyWhen": {"%%user.data.admin": true}, "read": true, "write": true}]}}
            """,
        "http_endpoints/config.json": "[]",
    ]

    /// realm-cli v1 (`config.json`, 20200603): providers one per file, partition sync in the Atlas service, rules
    /// with their schema inside, functions one folder each.
    static let legacy: [String: String] = [
        "config.json": """
            {"app_id": "tracker-klmno", "config_version": 20200603, "name": "tracker", "location": "US-VA",
             "deployment_model": "GLOBAL", "security": {"allowed_request_origins": ["http://localhost:8080"]},
             "hosting": {"enabled": true}, "sync": {"development_mode_enabled": true}}
            """,
        "auth_providers/anon-user.json": #"{"id": "1", "name": "anon-user", "type": "anon-user", "disabled": false}"#,
        "auth_providers/local-userpass.json": """
            {"id": "2", "name": "local-userpass", "type": "local-userpass", "disabled": false,
             "config": {"autoConfirm": false, "runConfirmationFunction": true, "confirmationFunctionName": "confirm"}}
            """,
        "auth_providers/custom-token.json": """
            {"id": "3", "name": "custom-token", "type": "custom-token", "disabled": false,
             "config": {"signingAlgorithm": "HS256", "audience": "tracker"},
             "secret_config": {"signingKeys": ["jwtKey"]},
             "metadata_fields": [{"required": false, "name": "user.email", "field_name": "email"}]}
            """,
        "services/mongodb-atlas/config.json": """
            {"id": "4", "name": "mongodb-atlas", "type": "mongodb-atlas",
             "config": {"clusterName": "Cluster0", "sync": {"state": "enabled", "database_name": "tracker",
               "partition": {"key": "_partition", "type": "long", "required": true,
                 "permissions": {"read": true, "write": {"%%true": {"%function": {"name": "canWrite", "arguments": ["%%partition"]}}}}}}}}
            """,
        "services/mongodb-atlas/rules/tracker.Task.json": """
            {"id": "5", "database": "tracker", "collection": "Task",
             "roles": [{"name": "default", "apply_when": {}, "insert": true, "delete": true, "search": true,
                        "read": true, "write": true, "additional_fields": {}}],
             "filters": [],
             "schema": {"title": "Task", "bsonType": "object",
                        "properties": {"_id": {"bsonType": "objectId"}, "_partition": {"bsonType": "long"},
                                       "name": {"bsonType": "string"}}}}
            """,
        "services/twilio/config.json": #"{"name": "twilio", "type": "twilio", "config": {}}"#,
        "functions/canWrite/config.json": #"{"id": "6", "name": "canWrite", "private": true}"#,
        "functions/canWrite/source.js": "exports = function(partition) { return true; };",
        "functions/confirm/config.json": #"{"id": "7", "name": "confirm", "private": true}"#,
        "functions/confirm/source.js": "exports = function() { return {status: 'success'}; };",
    ]
}
