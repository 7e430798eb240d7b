import Foundation
import OutpostCore

extension AppDefinition {
    /// The configuration as the JSON of a configuration file (reading it back gives an equal configuration).
    package var json: JSONValue {
        var auth: [String: JSONValue] = [
            "anonymous": .object(["enabled": .bool(self.auth.anonymousEnabled)]),
            "email_password": .object([
                "enabled": .bool(self.auth.emailPasswordEnabled),
                "auto_confirm": .bool(self.auth.emailPasswordAutoConfirm),
            ].merging(self.auth.emailPasswordTokenWebhook.map { ["token_webhook_url": .string($0)] } ?? [:]) { $1 }),
            "api_keys": .object(["enabled": .bool(self.auth.apiKeysEnabled)]),
        ]
        if let customToken = self.auth.customToken { auth["custom_token"] = customToken.json }
        auth["access_token_lifetime_seconds"] = .int(Int64(self.auth.accessTokenLifetimeSeconds))
        auth["refresh_token_lifetime_days"] = .int(Int64(self.auth.refreshTokenLifetimeDays))
        auth["throttling"] = self.auth.throttling.json

        var sync: [String: JSONValue] = [
            "mode": .string(self.sync.mode.rawValue),
            "queryable_fields_names": .array(self.sync.queryableFieldsNames.map(JSONValue.string)),
            "indexed_queryable_fields_names": .array(self.sync.indexedQueryableFieldsNames.map(JSONValue.string)),
            "development_mode_enabled": .bool(self.sync.developmentModeEnabled),
        ]
        if !self.sync.asymmetricTables.isEmpty {
            sync["asymmetric_tables"] = .array(self.sync.asymmetricTables.map(JSONValue.string))
        }
        if !self.sync.collectionQueryableFieldsNames.isEmpty {
            sync["collection_queryable_fields_names"] = .object(
                self.sync.collectionQueryableFieldsNames.mapValues { .array($0.map(JSONValue.string)) })
        }
        if let partition = self.sync.partition {
            var fields: [String: JSONValue] = [
                "key": .string(partition.key), "type": .string(partition.type.rawValue),
                "required": .bool(partition.required),
            ]
            var permissions: [String: JSONValue] = [:]
            permissions["read"] = partition.readPermission
            permissions["write"] = partition.writePermission
            if !permissions.isEmpty { fields["permissions"] = .object(permissions) }
            sync["partition"] = .object(fields)
        }

        var root: [String: JSONValue] = [
            "app_id": .string(appId), "name": .string(name), "auth": .object(auth), "sync": .object(sync),
            "schema": .object(schema), "rules": .object(rules), "data_api": .object(dataAPIFields),
        ]
        root["default_rule"] = defaultRule
        root["events"] = events.json
        root.merge(functions.jsonFields) { $1 }
        return .object(root)
    }

    /// `data_api`, with the limits only where they differ from the defaults.
    private var dataAPIFields: [String: JSONValue] {
        var fields: [String: JSONValue] = ["enabled": .bool(dataAPI.enabled)]
        if dataAPI.maxDocumentsPerWrite != DataAPI.defaultMaxDocumentsPerWrite {
            fields["max_documents_per_write"] = .int(Int64(dataAPI.maxDocumentsPerWrite))
        }
        if dataAPI.maxWriteBytes != DataAPI.defaultMaxWriteBytes {
            fields["max_write_bytes"] = .int(Int64(dataAPI.maxWriteBytes))
        }
        return fields
    }

    /// The configuration as indented JSON text with sorted keys, as written to a file.
    public var jsonText: String {
        var out = ""
        Self.writePretty(json, indent: "", to: &out)
        return out + "\n"
    }

    private static func writePretty(_ value: JSONValue, indent: String, to out: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            if items.allSatisfy({ if case .string = $0 { true } else { false } }) {
                value.write(to: &out)  // short lists of names stay on one line
                return
            }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                writePretty(item, indent: inner, to: &out)
                out += i < items.count - 1 ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let fields) where !fields.isEmpty:
            out += "{\n"
            for (i, key) in fields.keys.sorted().enumerated() {
                out += inner
                JSONValue.writeString(key, to: &out)
                out += ": "
                writePretty(fields[key]!, indent: inner, to: &out)
                out += i < fields.count - 1 ? ",\n" : "\n"
            }
            out += indent + "}"
        default:
            value.write(to: &out)
        }
    }

    /// Writes the configuration file.
    public func write(to url: URL) throws(ConfigurationError) {
        do {
            try Data(jsonText.utf8).write(to: url, options: .atomic)
            // It may hold secrets (custom-token signing keys, values): readable by the server's user only.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw ConfigurationError(.unreadableFile, path: "$", "cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}
