/// The schema of one object class: its name, properties and primary key.
public struct ObjectSchema: Hashable, Sendable, Codable, CustomStringConvertible {
    public var className: String
    /// Every property, linking objects included, in declaration order: the order of the stored rows' fields and of
    /// every property index.
    public var allProperties: [Property]
    /// Embedded objects live only inside their parent and have no primary key.
    public var isEmbedded: Bool
    /// Asymmetric objects (`AsymmetricObject`) are only uploaded: created on a device, inserted on the server, never
    /// kept on the device nor downloaded.
    public var isAsymmetric: Bool

    public init(className: String, properties: [Property], isEmbedded: Bool = false, isAsymmetric: Bool = false) {
        self.className = className
        self.allProperties = properties
        self.isEmbedded = isEmbedded
        self.isAsymmetric = isAsymmetric
    }

    private enum CodingKeys: String, CodingKey {
        case className, properties, isEmbedded, isAsymmetric
    }

    /// Schemas stored before `isAsymmetric` existed read as not asymmetric.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        className = try container.decode(String.self, forKey: .className)
        allProperties = try container.decode([Property].self, forKey: .properties)
        isEmbedded = try container.decode(Bool.self, forKey: .isEmbedded)
        isAsymmetric = try container.decodeIfPresent(Bool.self, forKey: .isAsymmetric) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(className, forKey: .className)
        try container.encode(allProperties, forKey: .properties)
        try container.encode(isEmbedded, forKey: .isEmbedded)
        if isAsymmetric { try container.encode(true, forKey: .isAsymmetric) }
    }

    /// The persisted properties (Realm's `properties`: linking objects are in ``computedProperties``).
    public var properties: [Property] { allProperties.filter { $0.type != .linkingObjects } }

    /// The linking-objects properties (Realm's `computedProperties`).
    public var computedProperties: [Property] { allProperties.filter { $0.type == .linkingObjects } }

    /// The primary key property, if the class has one.
    public var primaryKeyProperty: Property? { allProperties.first { $0.isPrimaryKey } }

    public subscript(propertyName: String) -> Property? {
        allProperties.first { $0.name == propertyName }
    }

    /// The persisted property stored under `columnName` (see `Property.columnName`).
    public func property(column columnName: String) -> Property? {
        allProperties.first { $0.columnName == columnName && $0.type != .linkingObjects }
    }

    /// Realm's text: the class (marked when embedded), then each property's description indented, the persisted
    /// ones first.
    public var description: String {
        let lines = (properties + computedProperties).map {
            "\t" + $0.description.replacingOccurrences(of: "\n", with: "\n\t") + "\n"
        }
        return "\(className) \(isEmbedded ? "(embedded) " : ""){\n" + lines.joined() + "}"
    }
}

/// The schemas of every class in a database.
public struct Schema: Hashable, Sendable {
    public var objectSchemas: [ObjectSchema]

    public init(_ objectSchemas: [ObjectSchema]) {
        self.objectSchemas = objectSchemas
    }

    public subscript(className: String) -> ObjectSchema? {
        objectSchemas.first { $0.className == className }
    }

    /// The schemas of every class (Realm's name for ``objectSchemas``).
    public var objectSchema: [ObjectSchema] { objectSchemas }
}

extension Schema: CustomStringConvertible {
    /// Realm's text: each class's description, by class name, indented one tab inside `Schema { … }`.
    public var description: String {
        let classes = objectSchemas.sorted { $0.className < $1.className }
            .map { "\t" + $0.description.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n\t") + "\n" }
        return "Schema {\n" + classes.joined() + "}"
    }
}
