import OutpostCore

extension SyncAppSettings {
    /// The sync settings of a configured app: its mode, partition key and permissions, queryable fields,
    /// development mode, the field types of its configured schema, and its rules.
    ///
    /// - Throws: ``RuleError`` when a rule or a partition permission does not parse.
    public init(app: AppDefinition) throws {
        let rules = try RuleSet.parse(rules: .object(app.rules), defaultRule: app.defaultRule)
        var partition: PartitionSettings?
        if app.sync.mode == .partition, let p = app.sync.partition {
            partition = PartitionSettings(
                key: p.key, type: PartitionSettings.KeyType(rawValue: p.type.rawValue) ?? .string, required: p.required,
                readPermission: try p.readPermission.map { try RuleExpression.parse($0, path: "sync.partition.permissions.read") } ?? .alwaysTrue,
                writePermission: try p.writePermission.map { try RuleExpression.parse($0, path: "sync.partition.permissions.write") } ?? .alwaysTrue)
        }
        var schema: [String: [String: String]] = [:]
        for (collection, json) in app.schema {
            guard case .object(let root) = json, case .object(let properties)? = root["properties"] else { continue }
            schema[collection] = properties.mapValues { property in
                if case .object(let p) = property, case .string(let type)? = p["bsonType"] { return type }
                return "mixed"
            }
        }
        self.init(
            appId: app.appId, mode: app.sync.mode == .partition ? .partition : .flexible, partition: partition,
            queryableFields: Set(app.sync.queryableFieldsNames),
            collectionQueryableFields: app.sync.collectionQueryableFieldsNames.mapValues { Set($0) },
            developmentMode: app.sync.developmentModeEnabled, schema: schema, rules: rules)
        asymmetricTables = Set(app.sync.asymmetricTables)
        values = app.functions.ruleValues
    }
}
