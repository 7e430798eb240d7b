import OutpostCore

/// What the sync engine needs to know about an app: its sync mode, the partition key, queryable fields,
/// development mode, the configured schema and the rules. Built from the app's configuration file.
public struct SyncAppSettings: Sendable {
    public var appId: String
    public var mode: SyncMode
    public var partition: PartitionSettings?
    /// Fields every collection may use in subscriptions (`_id` always may). `"*"` allows every field
    /// (an Outpost extension for development apps).
    public var queryableFields: Set<String>
    /// Extra queryable fields per collection.
    public var collectionQueryableFields: [String: Set<String>]
    /// When on, the schema grows from uploads; when off, uploads must fit ``schema``.
    public var developmentMode: Bool
    /// The configured schema per collection: field name → type name (as in App Services' `bsonType`).
    public var schema: [String: [String: String]]
    public var rules: RuleSet
    /// Collections of asymmetric objects: uploads only insert into them; nothing of them is downloaded.
    public var asymmetricTables: Set<String> = []
    /// The app's values, for `%%values` in permissions.
    public var values: Document = [:]

    public init(
        appId: String, mode: SyncMode = .flexible, partition: PartitionSettings? = nil, queryableFields: Set<String> = [],
        collectionQueryableFields: [String: Set<String>] = [:], developmentMode: Bool = true,
        schema: [String: [String: String]] = [:], rules: RuleSet
    ) {
        self.appId = appId
        self.mode = mode
        self.partition = partition
        self.queryableFields = queryableFields
        self.collectionQueryableFields = collectionQueryableFields
        self.developmentMode = developmentMode
        self.schema = schema
        self.rules = rules
    }

    /// Whether a collection's field may appear in a subscription query.
    public func isQueryable(_ field: String, in collection: String) -> Bool {
        field == "_id" || queryableFields.contains("*") || queryableFields.contains(field)
            || collectionQueryableFields[collection]?.contains(field) == true
    }
}

/// Partition-Based Sync settings: the key field, its type, and the read and write permissions evaluated once
/// per session with `%%partition` and `%%user`.
public struct PartitionSettings: Sendable {
    public enum KeyType: String, Sendable, CaseIterable {
        case string, int, objectId, uuid
    }

    public var key: String
    public var type: KeyType
    /// When false, `null` is a valid partition value.
    public var required: Bool
    public var readPermission: RuleExpression
    public var writePermission: RuleExpression

    public init(
        key: String, type: KeyType, required: Bool = false, readPermission: RuleExpression = .alwaysTrue,
        writePermission: RuleExpression = .alwaysTrue
    ) {
        self.key = key
        self.type = type
        self.required = required
        self.readPermission = readPermission
        self.writePermission = writePermission
    }

    /// Checks that a bound partition value has the configured type.
    public func accepts(_ value: Value) -> Bool {
        switch (type, value) {
        case (_, .null): return !required
        case (.string, .string), (.int, .int), (.objectId, .objectId), (.uuid, .uuid): return true
        default: return false
        }
    }
}
