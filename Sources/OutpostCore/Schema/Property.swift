/// One persisted property of an object schema.
public struct Property: Hashable, Sendable, Codable, CustomStringConvertible {
    public var name: String
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
        linkOriginPropertyName: String? = nil
    ) {
        self.name = name
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
    /// The name of the property's column in the file; Outpost has no custom column names, so it is the name.
    public var columnName: String { name }

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

    public var description: String {
        var flags = ""
        if isPrimaryKey { flags += " [pk]" }
        if isIndexed { flags += " [indexed]" }
        return "\(name): \(typeDescription)\(flags)"
    }
}
