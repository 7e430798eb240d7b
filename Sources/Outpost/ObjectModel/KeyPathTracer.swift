import Foundation
import OutpostCore

/// Records the property names a Swift key path visits, by evaluating it on probe objects whose
/// `@Persisted` getters report their names. Used by the type-safe query builder and key-path APIs.
public final class _KeyPathTracer {
    private(set) var names: [String] = []

    init() {}

    public func _record(_ name: String) {
        names.append(name)
    }

    /// A probe element for a collection of objects in a traced key path (`list[0].name`), nil for other elements.
    func probeElement<Element>(_ type: Element.Type) -> Element? {
        guard let persistable = type as? any _StorableValue.Type, let objectType = persistable._typeInfo.objectType else {
            return nil
        }
        return probe(objectType) as? Element
    }

    /// A probe of `type` that reports to this tracer.
    func probe(_ type: ObjectBase.Type) -> ObjectBase {
        let object = type.init()
        object._tracer = self
        return object
    }

    /// The property names of a key path rooted at an object class (`\Person.dog.name` → `["dog", "name"]`).
    static func names<Root: ObjectBase, Value>(of keyPath: KeyPath<Root, Value>) -> [String] {
        let tracer = _KeyPathTracer()
        let probe = tracer.probe(Root.self) as! Root
        _ = probe[keyPath: keyPath]
        return tracer.names
    }
}

/// The dotted name of a key path: `_name(for: \Person.dog.name)` is `"dog.name"` (Realm's helper).
public func _name<T: ObjectBase>(for keyPath: PartialKeyPath<T>) -> String {
    let tracer = _KeyPathTracer()
    let probe = tracer.probe(T.self) as! T
    _ = probe[keyPath: keyPath]
    return tracer.names.joined(separator: ".")
}
