import OutpostCore

extension AppServicesImport {
    /// Device Sync: `sync/config.json`, or the Atlas service's `config.sync` / `config.flexible_sync` in realm-cli v1
    /// exports (development mode then in the root file's `sync`).
    mutating func importSync() throws(AppImportError) {
        var file = "sync/config.json"
        var config = try export.object(file)
        var developmentMode = config?["development_mode_enabled"]?.boolValue
        if config == nil, export.layout == .legacy {
            for service in export.list("services") {
                let path = "services/\(service)/config.json"
                guard let service = try export.object(path), let inner = service["config"]?.objectValue else { continue }
                if let partition = inner["sync"]?.objectValue {
                    config = partition.merging(["type": .string("partition")]) { old, _ in old }
                    file = "\(path): config.sync"
                } else if let flexible = inner["flexible_sync"]?.objectValue {
                    config = flexible.merging(["type": .string("flexible")]) { old, _ in old }
                    file = "\(path): config.flexible_sync"
                }
                if config != nil { break }
            }
            developmentMode = export.root["sync"]?.objectValue?["development_mode_enabled"]?.boolValue
        }
        guard let config else {
            sync = ["mode": .string("flexible")]
            report.leaveOut("sync", "the export has no Device Sync; Outpost serves Flexible Sync with nothing queryable "
                + "but _id until sync.queryable_fields_names is set")
            return
        }
        // Files without `type` are older partition configurations.
        let mode = config["type"]?.stringValue ?? (config["partition"] != nil ? "partition" : "flexible")
        sync["mode"] = .string(mode == "partition" ? "partition" : "flexible")
        sync["development_mode_enabled"] = .bool(developmentMode ?? false)
        report.carry(file, "sync (\(mode == "partition" ? "Partition-Based" : "Flexible") Sync, development mode "
            + "\(developmentMode == true ? "on" : "off"))")
        if let state = config["state"]?.stringValue, state != "enabled" {
            report.leaveOut("\(file): state \"\(state)\"", "sync was off in the export; Outpost serves it")
        }
        for key in ["client_max_offline_days", "is_recovery_mode_disabled"] where config[key] != nil {
            report.leaveOut("\(file): \(key)", key == "client_max_offline_days"
                ? "Outpost does not compact history by client age; no client needs a reset for being offline"
                : "client reset recovery is the client's choice (clientResetMode) with Outpost")
        }
        if mode == "partition" {
            importPartition(config, file: file)
        } else {
            importFlexible(config, file: file)
        }
    }

    private mutating func importFlexible(_ config: [String: JSONValue], file: String) {
        for key in ["queryable_fields_names", "indexed_queryable_fields_names"] {
            if let fields = config[key]?.arrayValue, !fields.isEmpty {
                sync[key] = .array(fields)
                report.carry("\(file): \(key)", "sync.\(key) (\(fields.compactMap(\.stringValue).joined(separator: ", ")))")
            }
        }
        if let byCollection = config["collection_queryable_fields_names"]?.objectValue, !byCollection.isEmpty {
            var out: [String: JSONValue] = [:]
            for (collection, fields) in byCollection { out[classOfCollection[collection] ?? collection] = fields }
            sync["collection_queryable_fields_names"] = .object(out)
            report.carry("\(file): collection_queryable_fields_names",
                "sync.collection_queryable_fields_names (\(out.keys.sorted().joined(separator: ", ")))")
        }
        if let tables = config["asymmetric_tables"]?.arrayValue, !tables.isEmpty {
            let names = tables.compactMap(\.stringValue).map { classOfCollection[$0] ?? $0 }
            sync["asymmetric_tables"] = .array(names.map(JSONValue.string))
            report.carry("\(file): asymmetric_tables", "sync.asymmetric_tables (\(names.joined(separator: ", ")))")
        }
        if let permissions = config["permissions"]?.objectValue {
            importLegacyPermissions(permissions, file: "\(file): permissions")
        }
    }

    /// Flexible Sync permissions from before App Services' unified rules (2023): roles with `applyWhen` and
    /// `read`/`write` expressions, per class and by default. Converted as App Services' migration did: the
    /// expressions become the document filters, and the role may then read, write, insert, delete and search.
    private mutating func importLegacyPermissions(_ permissions: [String: JSONValue], file: String) {
        func convert(_ role: JSONValue) -> JSONValue {
            guard case .object(let old) = role else { return role }
            var new: [String: JSONValue] = ["name": old["name"] ?? .string("role")]
            new["apply_when"] = old["applyWhen"] ?? old["apply_when"] ?? .object([:])
            new["document_filters"] = .object(["read": old["read"] ?? .bool(false), "write": old["write"] ?? .bool(false)])
            for key in ["read", "write", "insert", "delete", "search"] { new[key] = .bool(true) }
            return .object(new)
        }
        for (className, roles) in (permissions["rules"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            let name = classOfCollection[className] ?? className
            let converted = convertRoles((roles.arrayValue ?? []).map(convert), file: "\(file).rules.\(className)")
            if rules[name] != nil {
                report.carry("\(file).rules.\(className)", "rules.\(name), in place of the collection's data access rules "
                    + "(sync permissions govern synced data)")
            } else {
                report.carry("\(file).rules.\(className)", "rules.\(name) (\(converted.count) role\(converted.count == 1 ? "" : "s"))")
            }
            rules[name] = .object(["roles": .array(converted)])
        }
        if let defaults = permissions["defaultRoles"]?.arrayValue, !defaults.isEmpty {
            let converted = convertRoles(defaults.map(convert), file: "\(file).defaultRoles")
            defaultRule = .object(["roles": .array(converted)])
            report.carry("\(file).defaultRoles", "default_rule (\(converted.count) role\(converted.count == 1 ? "" : "s"))")
        }
    }

    private mutating func importPartition(_ config: [String: JSONValue], file: String) {
        guard let partition = config["partition"]?.objectValue, let key = partition["key"]?.stringValue else {
            report.leaveOut(file, "Partition-Based Sync without a partition key; Flexible Sync is served instead")
            sync["mode"] = .string("flexible")
            return
        }
        let type: String
        switch partition["type"]?.stringValue ?? "string" {
        case "string": type = "string"
        case "objectId": type = "objectId"
        case "long", "int": type = "int"
        case "uuid": type = "uuid"
        case let other:
            report.leaveOut("\(file): partition.type \"\(other)\"", "not a partition type Outpost knows; string is used")
            type = "string"
        }
        var out: [String: JSONValue] = ["key": .string(key), "type": .string(type)]
        if let required = partition["required"]?.boolValue { out["required"] = .bool(required) }
        var permissions: [String: JSONValue] = [:]
        for kind in ["read", "write"] {
            guard let expression = partition["permissions"]?.objectValue?[kind] else { continue }
            if Self.isEnforceable(expression) {
                permissions[kind] = expression
            } else {
                permissions[kind] = .bool(false)
                report.leaveOut("\(file): partition.permissions.\(kind)",
                    "uses what Outpost cannot evaluate (\(Self.unsupportedParts(expression).joined(separator: ", "))); "
                        + "it becomes false (nobody may \(kind)) until rewritten")
            }
        }
        if !permissions.isEmpty { out["permissions"] = .object(permissions) }
        sync["partition"] = .object(out)
        report.carry("\(file): partition", "sync.partition (key \(key), \(type))")
    }

    /// Whether Outpost's rule engine takes an expression (no functions, values or requests), parsed as the server
    /// parses partition permissions.
    static func isEnforceable(_ expression: JSONValue) -> Bool {
        unsupportedParts(expression).isEmpty && (try? RuleExpression.parse(expression, path: "")) != nil
    }

    /// The parts of an expression Outpost does not evaluate, by name.
    static func unsupportedParts(_ expression: JSONValue) -> [String] {
        var found: Set<String> = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let fields):
                for (key, inner) in fields {
                    if key == "%function" { found.insert("%function") }
                    if key.hasPrefix("%%values") || key.hasPrefix("%%environment") || key.hasPrefix("%%request") {
                        found.insert(String(key.split(separator: ".").first ?? ""))
                    }
                    walk(inner)
                }
            case .array(let items): items.forEach(walk)
            case .string(let text):
                for prefix in ["%%values", "%%environment", "%%request"] where text.hasPrefix(prefix) { found.insert(prefix) }
            default: break
            }
        }
        walk(expression)
        return found.sorted()
    }
}
