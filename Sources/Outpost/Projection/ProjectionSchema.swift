import Foundation
import OutpostCore
import Synchronization

/// One `@Projected` property of a projection class: its name, the key path it reads from the root object, and the
/// root properties behind it, which name it in descriptions and decide which changes of the root it reports.
struct ProjectionProperty: @unchecked Sendable {  // strings and a key path, immutable once made
    /// The projection's property name (`homeCity`).
    let label: String
    /// The key path into the root object (`\Person.address?.city`).
    let keyPath: AnyKeyPath
    /// The dotted root property path (`address.city`); for a projected collection the collection's (`friends`), as
    /// Realm's description prints it.
    let origin: String
    /// The key path an observer of the root watches: `origin`, and for a projected collection the property its
    /// elements are mapped through too (`friends.firstName`).
    let watched: String

    /// The root property a change of this property is reported under (`address`).
    var rootName: Substring { origin.prefix { $0 != "." } }

    /// Whether observer key paths select this property: by its root key path (Realm's form, `"address.city"`) or
    /// by its own name (`"homeCity"`). Nil or empty selects every property, as in Realm.
    func isSelected(by keyPaths: [String]?) -> Bool {
        guard let keyPaths, !keyPaths.isEmpty else { return true }
        return keyPaths.contains(origin) || keyPaths.contains(label)
    }
}

/// The `@Projected` properties of each projection class, found once per class with `Mirror` (superclass properties
/// first) and cached, and what projections need from them: key path names and change notifications.
enum ProjectionSchema {
    private static let cache = Mutex<[ObjectIdentifier: [ProjectionProperty]]>([:])

    /// The properties of `projection`'s class, in declaration order. Traps when a `@Projected` key path reads no
    /// persisted property of the root (Realm's text).
    static func properties(of projection: some ProjectionObservable) -> [ProjectionProperty] {
        let key = ObjectIdentifier(type(of: projection))
        if let cached = cache.withLock({ $0[key] }) { return cached }
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: projection)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var properties: [ProjectionProperty] = []
        for mirror in mirrors {
            for child in mirror.children {
                // A property wrapper's storage is the property's name with a leading underscore.
                guard let label = child.label, label.hasPrefix("_"),
                    let declaration = child.value as? any ProjectedDeclaration
                else { continue }
                properties.append(declaration.property(label: String(label.dropFirst())))
            }
        }
        let found = properties
        cache.withLock { $0[key] = found }
        return properties
    }

    /// The dotted root property path a key path of a projection reads (`\PersonProjection.homeCity` →
    /// `"address.city"`), found by reading it on a projection of a tracing probe.
    static func originName<P: ProjectionObservable>(of keyPath: PartialKeyPath<P>) -> String {
        let tracer = _KeyPathTracer()
        let projection = P(projecting: tracer.probe(P.Root.self) as! P.Root)
        _ = projection[keyPath: keyPath]
        return tracer.names.joined(separator: ".")
    }

    /// The changes of the root `object` as changes of the projection's `properties`, in the root's order: every
    /// projected property whose root property changed (all of those sharing it, as in Realm), with the value read
    /// through its key path.
    ///
    /// An old value is given when the root's is (commits from another thread or process) and the root property is a
    /// plain value: it is set on an unmanaged root object, and the projected key path read from that.
    static func changes<Root: ObjectBase>(_ changes: [PropertyChange], of object: Root,
                                          in properties: [ProjectionProperty]) -> [PropertyChange]
    {
        let rootProperties = object.objectSchema.allProperties
        var previous: Root?
        var out: [PropertyChange] = []
        for change in changes {
            let matching = properties.filter { $0.rootName == change.name }
            guard !matching.isEmpty else { continue }
            var holdsOldValue = false
            if let oldValue = change.oldValue,
                let property = rootProperties.first(where: { $0.name == change.name }), hasPlainValue(property, oldValue)
            {
                let unmanaged = previous ?? Root()
                previous = unmanaged
                unmanaged[change.name] = oldValue
                holdsOldValue = true
            }
            for property in matching {
                let oldValue = holdsOldValue ? previous.flatMap { $0[keyPath: property.keyPath] } : nil
                out.append(PropertyChange(name: property.label, oldValue: oldValue,
                                          newValue: object[keyPath: property.keyPath]))
            }
        }
        return out
    }

    /// Whether a property's old value can be set on an unmanaged object as it is reported: not a link (reported as
    /// the linked object, with its new values), a collection, or a mixed value holding one of those.
    private static func hasPlainValue(_ property: Property, _ oldValue: Any) -> Bool {
        guard property.collection == .none else { return false }
        switch property.type {
        case .object, .linkingObjects: return false
        case .mixed:
            // Reported as what it holds (as Realm's object changes give it), or as the `AnyRealmValue` itself.
            guard let mixed = oldValue as? AnyRealmValue else {
                return !(oldValue is ObjectBase || oldValue is [Any] || oldValue is [String: Any])
            }
            switch mixed {
            case .object, .list, .dictionary: return false
            default: return true
            }
        default: return true
        }
    }
}

/// The dotted name of a key path of a projection, as the root property path it reads:
/// `_name(for: \PersonProjection.homeCity)` is `"address.city"` (Realm's helper).
public func _name<O: ObjectBase & RealmCollectionValue & ThreadConfined, T: Projection<O>>(
    for keyPath: PartialKeyPath<T>
) -> String {
    ProjectionSchema.originName(of: keyPath)
}
