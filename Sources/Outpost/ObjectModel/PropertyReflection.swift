import Foundation
import OutpostCore
import Synchronization

/// Reads `@Persisted` wrappers of an object through `Mirror` (slow: schema discovery and `add` only).
enum PropertyReflection {
    /// Every `@Persisted` wrapper of `object`, superclass properties first, with the property names.
    static func persistedChildren(of object: ObjectBase) -> [(name: String, wrapper: any PersistedReflectable)] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let m = mirror {
            mirrors.append(m)
            mirror = m.superclassMirror
        }
        var out: [(String, any PersistedReflectable)] = []
        for m in mirrors.reversed() {
            for child in m.children {
                guard let label = child.label, label.hasPrefix("_"),
                    let wrapper = child.value as? any PersistedReflectable
                else { continue }
                out.append((String(label.dropFirst()), wrapper))
            }
        }
        return out
    }

    static func propertyName(withProbeTag tag: Int, in object: ObjectBase) -> String? {
        persistedChildren(of: object).first { $0.wrapper.tag == tag }?.name
    }

    /// The unmanaged content of one property, by name.
    static func value(of object: ObjectBase, property: String) -> _PropertyContent? {
        if let row = object._row {
            guard let index = row.table.schema.properties.firstIndex(where: { $0.name == property }) else { return nil }
            return row.content(ofProperty: index)
        }
        return persistedChildren(of: object).first { $0.name == property }?.wrapper.content()
    }
}

/// Key path → property name, shared by all threads.
final class PropertyNameCache: Sendable {
    static let shared = PropertyNameCache()
    private let names = Mutex<[ObjectIdentifier: String]>([:])
    private let tags = Atomic<Int>(0)

    func nextTag() -> Int {
        tags.add(1, ordering: .relaxed).newValue
    }

    func name(for keyPath: AnyKeyPath, compute: () -> String) -> String {
        let key = ObjectIdentifier(keyPath)
        if let name = names.withLock({ $0[key] }) { return name }
        let name = compute()
        names.withLock { $0[key] = name }
        return name
    }
}
