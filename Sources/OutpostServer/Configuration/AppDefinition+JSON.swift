import Foundation
import OutpostCore

extension AppDefinition {
    /// Reads an app configuration file.
    ///
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first problem.
    public init(contentsOf url: URL) throws(ConfigurationError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(.unreadableFile, path: "$", "cannot read \(url.path): \(error.localizedDescription)")
        }
        try self.init(jsonText: String(decoding: data, as: UTF8.self), baseDirectory: url.deletingLastPathComponent())
    }

    /// Reads an app configuration from JSON text; files it names (function sources) are relative to
    /// `baseDirectory` (the working directory when nil).
    public init(jsonText: String, baseDirectory: URL? = nil) throws(ConfigurationError) {
        guard let json = JSONValue.parse(jsonText) else {
            throw ConfigurationError(.invalidJSON, path: "$", "the configuration is not valid JSON")
        }
        try self.init(json: json, baseDirectory: baseDirectory)
    }

    /// Reads an app configuration from parsed JSON.
    package init(json: JSONValue, baseDirectory: URL? = nil) throws(ConfigurationError) {
        let root = try ConfigurationReader(json, path: "$")
        try root.rejectUnknownFields(Functions.fieldNames.union([
            "app_id", "name", "auth", "sync", "schema", "rules", "default_rule", "data_api", "events",
        ]))
        let appId = try root.requiredString("app_id")
        guard appId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw ConfigurationError(
                .invalidValue, path: "app_id", "may contain only letters, digits, '-' and '_', found \"\(appId)\"")
        }
        let auth = try root.object("auth").map { reader throws(ConfigurationError) in try Self.auth(reader) } ?? Auth()
        let sync = try root.object("sync").map { reader throws(ConfigurationError) in try Self.sync(reader) } ?? Sync()
        let schema = try Self.perCollection(root, "schema") { value, path throws(ConfigurationError) in
            try Self.checkSchema(value, path: path)
        }
        let rules = try Self.perCollection(root, "rules") { value, path throws(ConfigurationError) in
            try Self.checkRule(value, path: path)
        }
        var defaultRule: JSONValue?
        if let value = root.value("default_rule") {
            try Self.checkRule(value, path: "default_rule")
            defaultRule = value
        }
        var dataAPI = DataAPI()
        if let reader = try root.object("data_api") {
            try reader.rejectUnknownFields(["enabled", "max_documents_per_write", "max_write_bytes"])
            dataAPI.enabled = try reader.bool("enabled", default: false)
            dataAPI.maxDocumentsPerWrite = try reader.positiveInt(
                "max_documents_per_write", default: DataAPI.defaultMaxDocumentsPerWrite)
            dataAPI.maxWriteBytes = try reader.positiveInt("max_write_bytes", default: DataAPI.defaultMaxWriteBytes)
        }
        let events = try root.object("events").map { reader throws(ConfigurationError) in try Events(reader) } ?? Events()
        self.init(
            appId: appId, name: try root.string("name") ?? appId, auth: auth, sync: sync, schema: schema, rules: rules,
            defaultRule: defaultRule, dataAPI: dataAPI, events: events)
        self.functions = try Functions(root, baseDirectory: baseDirectory)
    }

    private static func auth(_ reader: ConfigurationReader) throws(ConfigurationError) -> Auth {
        try reader.rejectUnknownFields([
            "anonymous", "email_password", "api_keys", "custom_token", "access_token_lifetime_seconds",
            "refresh_token_lifetime_days", "throttling",
        ])
        var auth = Auth()
        if let anonymous = try reader.object("anonymous") {
            try anonymous.rejectUnknownFields(["enabled"])
            auth.anonymousEnabled = try anonymous.bool("enabled", default: false)
        }
        if let emailPassword = try reader.object("email_password") {
            try emailPassword.rejectUnknownFields(["enabled", "auto_confirm", "token_webhook_url"])
            auth.emailPasswordEnabled = try emailPassword.bool("enabled", default: false)
            auth.emailPasswordAutoConfirm = try emailPassword.bool("auto_confirm", default: false)
            if let webhook = try emailPassword.string("token_webhook_url") {
                // Tokens sent over plain HTTP could be read on the way, and with them any account taken over.
                guard Self.isHTTPSOrLoopback(webhook) else {
                    throw ConfigurationError(.invalidValue, path: emailPassword.path(of: "token_webhook_url"),
                        "expected an https URL (http only on a loopback address), found \"\(webhook)\"")
                }
                auth.emailPasswordTokenWebhook = webhook
            }
        }
        if let apiKeys = try reader.object("api_keys") {
            try apiKeys.rejectUnknownFields(["enabled"])
            auth.apiKeysEnabled = try apiKeys.bool("enabled", default: false)
        }
        if let customToken = try reader.object("custom_token"), try customToken.bool("enabled", default: false) {
            auth.customToken = try CustomToken(customToken)
        }
        auth.accessTokenLifetimeSeconds = try reader.positiveInt("access_token_lifetime_seconds", default: 1800)
        auth.refreshTokenLifetimeDays = try reader.positiveInt("refresh_token_lifetime_days", default: 60)
        if let throttling = try reader.object("throttling") { auth.throttling = try Throttling(throttling) }
        return auth
    }

    /// Whether `text` is an https URL, or an http one on a loopback address (where nothing on the way can read it).
    static func isHTTPSOrLoopback(_ text: String) -> Bool {
        guard let url = URL(string: text), let host = url.host, !host.isEmpty else { return false }
        let scheme = url.scheme?.lowercased()
        return scheme == "https" || (scheme == "http" && ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host))
    }

    private static func sync(_ reader: ConfigurationReader) throws(ConfigurationError) -> Sync {
        try reader.rejectUnknownFields([
            "mode", "partition", "queryable_fields_names", "collection_queryable_fields_names",
            "indexed_queryable_fields_names", "development_mode_enabled", "asymmetric_tables",
        ])
        var sync = Sync()
        let modeText = try reader.string("mode") ?? "flexible"
        guard let mode = Sync.Mode(rawValue: modeText) else {
            throw ConfigurationError(
                .invalidValue, path: reader.path(of: "mode"), "expected \"flexible\" or \"partition\", found \"\(modeText)\"")
        }
        sync.mode = mode
        if let partition = try reader.object("partition") {
            guard mode == .partition else {
                throw ConfigurationError(
                    .invalidValue, path: partition.path, "a partition is only allowed with \"mode\": \"partition\"")
            }
            sync.partition = try Self.partition(partition)
        } else if mode == .partition {
            throw ConfigurationError(
                .missingField, path: reader.path(of: "partition"),
                "partition mode needs a partition: {\"key\": …, \"type\": …}")
        }
        sync.queryableFieldsNames = try reader.stringArray("queryable_fields_names")
        if let perCollection = try reader.object("collection_queryable_fields_names") {
            for (collection, value) in perCollection.fields {
                sync.collectionQueryableFieldsNames[collection] = try ConfigurationReader.stringArray(
                    value, path: perCollection.path(of: collection))
            }
        }
        sync.indexedQueryableFieldsNames = try reader.stringArray("indexed_queryable_fields_names")
        sync.developmentModeEnabled = try reader.bool("development_mode_enabled", default: false)
        sync.asymmetricTables = try reader.stringArray("asymmetric_tables")
        if !sync.asymmetricTables.isEmpty, mode != .flexible {
            throw ConfigurationError(.invalidValue, path: reader.path(of: "asymmetric_tables"),
                                     "asymmetric tables are only allowed with \"mode\": \"flexible\"")
        }
        return sync
    }

    private static func partition(_ reader: ConfigurationReader) throws(ConfigurationError) -> Partition {
        try reader.rejectUnknownFields(["key", "type", "required", "permissions"])
        let key = try reader.requiredString("key")
        let typeText = try reader.requiredString("type")
        guard let type = Partition.KeyType(rawValue: typeText) else {
            let allowed = Partition.KeyType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw ConfigurationError(
                .invalidValue, path: reader.path(of: "type"), "expected one of \(allowed), found \"\(typeText)\"")
        }
        var partition = Partition(key: key, type: type, required: try reader.bool("required", default: false))
        if let permissions = try reader.object("permissions") {
            try permissions.rejectUnknownFields(["read", "write"])
            partition.readPermission = permissions.value("read")
            partition.writePermission = permissions.value("write")
        }
        return partition
    }

    private static func perCollection(
        _ root: ConfigurationReader, _ key: String,
        check: (JSONValue, String) throws(ConfigurationError) -> Void
    ) throws(ConfigurationError) -> [String: JSONValue] {
        guard let reader = try root.object(key) else { return [:] }
        for (collection, value) in reader.fields {
            try check(value, reader.path(of: collection))
        }
        return reader.fields.filter { if case .null = $0.value { false } else { true } }
    }

    /// A collection schema must be an object whose `bsonType` (when given) is `"object"` and whose `properties`
    /// (when given) is an object; the rest is the schema engine's to interpret.
    private static func checkSchema(_ value: JSONValue, path: String) throws(ConfigurationError) {
        let reader = try ConfigurationReader(value, path: path)
        if let bsonType = try reader.string("bsonType"), bsonType != "object" {
            throw ConfigurationError(
                .invalidValue, path: reader.path(of: "bsonType"), "expected \"object\", found \"\(bsonType)\"")
        }
        _ = try reader.object("properties")
        _ = try reader.stringArray("required")
        _ = try reader.string("title")
    }

    /// A rule must be an object with a `roles` array of objects, each with a string `name`.
    private static func checkRule(_ value: JSONValue, path: String) throws(ConfigurationError) {
        let reader = try ConfigurationReader(value, path: path)
        let roles = try reader.required("roles")
        guard case .array(let items) = roles else {
            throw reader.wrongType("roles", "an array of roles", roles)
        }
        for (i, item) in items.enumerated() {
            let role = try ConfigurationReader(item, path: "\(reader.path(of: "roles"))[\(i)]")
            _ = try role.requiredString("name")
        }
    }
}
