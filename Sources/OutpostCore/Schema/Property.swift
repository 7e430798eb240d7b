/// One persisted property of an object schema.
public struct Property: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The name apps use: the Swift property's name, in queries, key-value coding and key paths.
    public var name: String
    /// The name the property is stored and synced under: its column in the file, its field in sync documents, event
    /// payloads and the server's collections. The same as `name` unless the class maps it (`propertiesMapping()`).
    public var columnName: String
    public var type: PropertyType
    public var collection: CollectionKind
    /// For a single value: whether it may be nil. For a collection: whether its elements may be nil.
    public var isOptional: Bool
    public var isPrimaryKey: Bool
    public var isIndexed: Bool
    /// The linked class for `.object` and `.linkingObjects` properties.
    public var objectClassName: String?
    /// For `.linkingObjects`: the property of `objectClassName` that links here.
    public var linkOriginPropertyName: String?

    public init(
        name: String, type: PropertyType, collection: CollectionKind = .none, isOptional: Bool = false,
        isPrimaryKey: Bool = false, isIndexed: Bool = false, objectClassName: String? = nil,
        linkOriginPropertyName: String? = nil, columnName: String? = nil
    ) {
        self.name = name
        self.columnName = columnName ?? name
        self.type = type
        self.collection = collection
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
    }

    /// Whether the property is a `List`.
    public var isArray: Bool { collection == .list }
    /// Whether the property is a `MutableSet`.
    public var isSet: Bool { collection == .set }
    /// Whether the property is a `Map`.
    public var isMap: Bool { collection == .map }
    private enum CodingKeys: String, CodingKey {
        case name, columnName, type, collection, isOptional, isPrimaryKey, isIndexed, objectClassName
        case linkOriginPropertyName
    }

    /// Schemas stored before column names existed, and properties without one, read with the name as column name.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        columnName = try c.decodeIfPresent(String.self, forKey: .columnName) ?? name
        type = try c.decode(PropertyType.self, forKey: .type)
        collection = try c.decode(CollectionKind.self, forKey: .collection)
        isOptional = try c.decode(Bool.self, forKey: .isOptional)
        isPrimaryKey = try c.decode(Bool.self, forKey: .isPrimaryKey)
        isIndexed = try c.decode(Bool.self, forKey: .isIndexed)
        objectClassName = try c.decodeIfPresent(String.self, forKey: .objectClassName)
        linkOriginPropertyName = try c.decodeIfPresent(String.self, forKey: .linkOriginPropertyName)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        if columnName != name { try c.encode(columnName, forKey: .columnName) }
        try c.encode(type, forKey: .type)
        try c.encode(collection, forKey: .collection)
        try c.encode(isOptional, forKey: .isOptional)
        try c.encode(isPrimaryKey, forKey: .isPrimaryKey)
        try c.encode(isIndexed, forKey: .isIndexed)
        try c.encodeIfPresent(objectClassName, forKey: .objectClassName)
        try c.encodeIfPresent(linkOriginPropertyName, forKey: .linkOriginPropertyName)
    }

    /// The type as Realm writes it in migration messages, e.g. `string?`, `array<int>`, `object<Dog>?`.
    public var typeDescription: String {
        var base = type == .object || type == .linkingObjects
            ? "\(type == .object ? "object" : "linking objects")<\(objectClassName ?? "?")>" : type.realmName
        if isOptional { base += "?" }
        switch collection {
        case .none: return base
        case .list: return "array<\(base)>"
        case .set: return "set<\(base)>"
        case .map: return "dictionary<string, \(base)>"
        }
    }

    /// Realm's text: the name, then one `key = value;` line per attribute inside braces.
    public var description: String {
        func yesNo(_ flag: Bool) -> String { flag ? "YES" : "NO" }
        var text = "\(name) {\n\ttype = \(Self.descriptionTypeName(type));\n"
        if type == .object || type == .linkingObjects {
            text += "\tobjectClassName = \(objectClassName ?? "(null)");\n"
            text += "\tlinkOriginPropertyName = \(linkOriginPropertyName ?? "(null)");\n"
        }
        text += "\tcolumnName = \(columnName);\n\tindexed = \(yesNo(isIndexed));\n\tisPrimary = \(yesNo(isPrimaryKey));\n"
        text += "\tarray = \(yesNo(isArray));\n\tset = \(yesNo(isSet));\n\tdictionary = \(yesNo(isMap));\n"
        // Realm describes `AnyRealmValue` as not optional: it holds its own null.
        return text + "\toptional = \(yesNo(isOptional && type != .mixed));\n}"
    }

    /// The type names of Realm's schema descriptions (which differ from those of its messages for a few types).
    private static func descriptionTypeName(_ type: PropertyType) -> String {
        switch type {
        case .objectId: "object id"
        case .linkingObjects: "linking objects"
        default: type.rawValue
        }
    }
}
