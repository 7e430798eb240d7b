import OutpostCore

extension AppServicesImport {
    /// One collection of the linked cluster as the export describes it.
    struct ExportedCollection {
        var database: String
        var collection: String
        /// Where its rules come from, for the report.
        var file: String
        var rules: [String: JSONValue]?
        var schema: [String: JSONValue]?
        var hasRelationships = false
    }

    /// The linked cluster's collections: schemas become the recorded schema (so development mode can be off from the
    /// first start), rules become Outpost's rules, keyed by class (the schema's `title`) as sync names them.
    mutating func importData() throws(AppImportError) {
        var collections: [ExportedCollection] = []
        var defaultRules: [(file: String, rule: [String: JSONValue])] = []
        for (service, type) in try dataServices() {
            let base = export.layout == .legacy ? "services/\(service)" : "data_sources/\(service)"
            guard type == "mongodb-atlas" || type == "mongodb" else {
                report.leaveOut("\(base)/config.json", "a \(type) data source; Outpost serves its own database only")
                continue
            }
            if let rule = try export.object("\(base)/default_rule.json") { defaultRules.append(("\(base)/default_rule.json", rule)) }
            collections += export.layout == .legacy ? try legacyCollections(base) : try currentCollections(base)
        }
        for entry in collections { try importSchema(entry) }
        for entry in collections { importRules(entry) }
        if let (file, rule) = defaultRules.first {
            let roles = convertRoles(rule["roles"]?.arrayValue ?? [], file: file)
            defaultRule = .object(["roles": .array(roles)])
            report.carry(file, "default_rule (\(roles.count) role\(roles.count == 1 ? "" : "s"))")
            noteFilters(rule, file: file)
        }
        for (file, _) in defaultRules.dropFirst() {
            report.leaveOut(file, "Outpost has one default rule; the first data source's is used")
        }
    }

    /// The data sources (services of realm-cli v1 exports) by name, with their types.
    private mutating func dataServices() throws(AppImportError) -> [(String, String)] {
        let folder = export.layout == .legacy ? "services" : "data_sources"
        var out: [(String, String)] = []
        for name in export.list(folder) where export.isFolder("\(folder)/\(name)") {
            let config = try export.object("\(folder)/\(name)/config.json")
            let type = config?["type"]?.stringValue ?? "mongodb-atlas"
            if export.layout == .legacy && !(type == "mongodb-atlas" || type == "mongodb") {
                report.leaveOut("services/\(name)", "a third-party service (\(type)); Outpost has no services")
                continue
            }
            out.append((name, type))
        }
        return out
    }

    /// `data_sources/<service>/<database>/<collection>/{rules,schema,relationships}.json`.
    private mutating func currentCollections(_ base: String) throws(AppImportError) -> [ExportedCollection] {
        var out: [ExportedCollection] = []
        for database in export.list(base) where export.isFolder("\(base)/\(database)") {
            for collection in export.list("\(base)/\(database)") where export.isFolder("\(base)/\(database)/\(collection)") {
                let folder = "\(base)/\(database)/\(collection)"
                let relationships = try export.object("\(folder)/relationships.json") ?? [:]
                out.append(ExportedCollection(
                    database: database, collection: collection, file: "\(folder)/rules.json",
                    rules: try export.object("\(folder)/rules.json"), schema: try export.object("\(folder)/schema.json"),
                    hasRelationships: !relationships.isEmpty))
            }
        }
        return out
    }

    /// `services/<service>/rules/<database>.<collection>.json`, the schema inside.
    private mutating func legacyCollections(_ base: String) throws(AppImportError) -> [ExportedCollection] {
        var out: [ExportedCollection] = []
        for name in export.list("\(base)/rules") where name.hasSuffix(".json") {
            let file = "\(base)/rules/\(name)"
            guard let rules = try export.object(file) else { continue }
            let stem = String(name.dropLast(5))
            let database = rules["database"]?.stringValue ?? String(stem.split(separator: ".").first ?? "")
            let collection = rules["collection"]?.stringValue ?? String(stem.split(separator: ".").dropFirst().joined(separator: "."))
            out.append(ExportedCollection(
                database: database, collection: collection, file: file, rules: rules,
                schema: rules["schema"]?.objectValue, hasRelationships: !(rules["relationships"]?.objectValue ?? [:]).isEmpty))
        }
        return out
    }

    /// A collection's JSON Schema becomes the class's recorded schema, under the class name sync uses (its `title`).
    private mutating func importSchema(_ entry: ExportedCollection) throws(AppImportError) {
        let name = "\(entry.database)/\(entry.collection)"
        guard var schema = entry.schema, !schema.isEmpty else {
            classOfCollection[entry.collection] = classOfCollection[entry.collection] ?? entry.collection
            return
        }
        let className = schema["title"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? entry.collection
        if let other = classOfCollection.first(where: { $0.value == className && $0.key != entry.collection }) {
            report.leaveOut("\(name) schema.json",
                "its class '\(className)' is also collection '\(other.key)'s; Outpost names collections by class")
            return
        }
        if let type = schema["bsonType"], type != .string("object") {
            throw AppImportError(file: entry.file.replacingOccurrences(of: "rules.json", with: "schema.json"),
                "the schema of a collection must have bsonType \"object\", not \(type.text)")
        }
        schema["bsonType"] = .string("object")
        schema["title"] = .string(className)
        classOfCollection[entry.collection] = className
        self.schema[className] = .object(schema)
        let fields = schema["properties"]?.objectValue?.count ?? 0
        report.carry("\(name) schema", "schema.\(className) (\(fields) field\(fields == 1 ? "" : "s"))"
            + (className == entry.collection ? "" : ", collection '\(entry.collection)' named by its class"))
        if entry.hasRelationships {
            report.leaveOut("\(name) relationships",
                "not needed: sync carries links as the linked object's class and primary key")
        }
    }

    private mutating func importRules(_ entry: ExportedCollection) {
        guard let rule = entry.rules, let roles = rule["roles"]?.arrayValue else { return }
        let className = classOfCollection[entry.collection] ?? entry.collection
        guard rules[className] == nil else {
            report.leaveOut(entry.file, "the rules of class '\(className)' were already taken from another collection")
            return
        }
        let converted = convertRoles(roles, file: entry.file)
        rules[className] = .object(["roles": .array(converted)])
        report.carry(entry.file, "rules.\(className) (\(converted.count) of \(roles.count) role\(roles.count == 1 ? "" : "s"))")
        noteFilters(rule, file: entry.file)
    }

    /// App Services' query filters (`filters`) on a collection.
    private mutating func noteFilters(_ rule: [String: JSONValue], file: String) {
        if let filters = rule["filters"]?.arrayValue, !filters.isEmpty {
            report.leaveOut("\(file): filters",
                "Outpost has no rule filters; express them in the roles' document_filters")
        }
    }

    /// The roles Outpost can enforce, in order. A role it cannot parse (nested field rules, `%%request`) is
    /// left out and reported: the roles after it still apply, and the users it matched fall to them or are denied,
    /// so nothing becomes more open than in the export.
    mutating func convertRoles(_ roles: [JSONValue], file: String) -> [JSONValue] {
        var out: [JSONValue] = []
        for (index, role) in roles.enumerated() {
            guard case .object(var fields) = role else { continue }
            let name = fields["name"]?.stringValue ?? "#\(index)"
            let known: Set = ["_id", "name", "apply_when", "document_filters", "read", "write", "insert", "delete",
                              "search", "fields", "additional_fields"]
            for key in fields.keys.sorted() where !known.contains(key) {
                fields[key] = nil
                report.leaveOut("\(file): role '\(name)': \(key)", "Outpost roles have no '\(key)'")
            }
            do {
                _ = try Role.parse(.object(fields), path: "roles[\(index)]")
                out.append(.object(fields))
                let missing = Self.unsupportedParts(.object(fields)).filter { $0 != "%function" && $0 != "%%values" }
                if !missing.isEmpty {
                    report.leaveOut("\(file): role '\(name)': \(missing.joined(separator: ", "))",
                        "Outpost has no environments or request data: these read as missing, so the "
                            + "conditions using them are false")
                }
            } catch {
                report.leaveOut("\(file): role '\(name)'",
                    "left out (\(error.path): \(error.problem)); the roles after it apply to the users it matched, or none does and they are "
                        + "denied")
            }
        }
        return out
    }
}
