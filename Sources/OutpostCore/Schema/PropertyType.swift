/// The type of a persisted property's value (or of a collection's elements), as in Realm's schema.
public enum PropertyType: String, Hashable, Sendable, CaseIterable, Codable {
    case bool
    case int
    case float
    case double
    case string
    case data
    case date
    case objectId
    case decimal128
    case uuid
    /// `AnyRealmValue`.
    case mixed
    /// A link to another object (or an embedded object); the class is in `Property.objectClassName`.
    case object
    /// `LinkingObjects`: computed from the links that point at an object.
    case linkingObjects

    /// Realm Swift's name of ``uuid`` (`RLMPropertyType.UUID` as Swift imports it): `case .UUID:` matches it.
    public static let UUID = PropertyType.uuid
    /// Realm Swift's name of ``mixed`` (`RLMPropertyType.any`): `case .any:` matches it.
    public static let `any` = PropertyType.mixed

    /// The name Realm uses for this type in schema descriptions and messages.
    public var realmName: String {
        switch self {
        case .data: "binary"
        default: rawValue
        }
    }
}

/// Whether a property holds one value or a collection of them.
public enum CollectionKind: String, Hashable, Sendable, Codable {
    case none
    case list
    case set
    case map
}
