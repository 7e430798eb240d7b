import Foundation
import OutpostCore

/// Key-value coding on collections, as Realm offers it: the values of one property of every element, collection
/// operators (`@count`, `@min.age`, …), and setting a property on every element.
extension RealmCollection {
    /// The value of `key` for every element, in order (`NSNull()` for nil); `"self"` gives the elements. A
    /// `MutableSet` gives a `Set` of them.
    public func value(forKey key: String) -> Any? { _kvcValue(forKey: key) }

    func _kvcValue(forKey key: String) -> Any? {
        let values = map { element in Self.value(of: element, key: key) ?? NSNull() }
        guard self is any _OutpostSetCollection else { return values }
        return Set(values.compactMap { $0 as? AnyHashable })
    }

    /// Like ``value(forKey:)`` for a dotted key path (`"owner.name"`), or a collection operator over one:
    /// `@count`, `@min.age`, `@max.age`, `@sum.age`, `@avg.age`.
    public func value(forKeyPath keyPath: String) -> Any? { _kvcValue(forKeyPath: keyPath) }

    func _kvcValue(forKeyPath keyPath: String) -> Any? {
        guard keyPath.hasPrefix("@") else {
            let components = keyPath.split(separator: ".").map(String.init)
            let values = map { element -> Any in
                var value: Any? = element
                for component in components { value = value.flatMap { Self.value(of: $0, key: component) } }
                return value ?? NSNull()
            }
            guard self is any _OutpostSetCollection else { return values }
            return Set(values.compactMap { $0 as? AnyHashable })
        }
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        if parts[0] == "@count" { return count }
        // Foundation's array operators: the values of a key path of every element, or each distinct one once.
        if parts.count == 2, parts[0] == "@unionOfObjects" || parts[0] == "@distinctUnionOfObjects" {
            let inner = _kvcValue(forKeyPath: parts[1])
            let values: [Any] = (inner as? [Any]) ?? (inner as? Set<AnyHashable>)?.map { $0.base } ?? []
            let present = values.filter { !($0 is NSNull) }
            guard parts[0] == "@distinctUnionOfObjects" else { return present }
            var seen = Set<AnyHashable>()
            return present.filter { ($0 as? AnyHashable).map { seen.insert($0).inserted } ?? true }
        }
        guard parts.count == 2 else {
            fatalError("Invalid key path '\(keyPath)': a collection operator other than @count needs a property")
        }
        guard !parts[1].contains(".") else {
            fatalError("Nested key paths are not supported yet for KVC collection operators.")
        }
        let stored: [_StoredValue] = map { element -> _StoredValue in
            Self.storedValue(Self.value(of: element, key: parts[1]))
        }.filter { !$0.isNull }
        let result: _StoredValue?
        switch parts[0] {
        case "@min": result = ValueAggregate.min(stored)
        case "@max": result = ValueAggregate.max(stored)
        case "@sum": result = ValueAggregate.sum(stored)
        case "@avg": result = ValueAggregate.average(stored)
        default: fatalError("Unsupported KVC collection operator found in key path '\(keyPath)'")
        }
        return result.flatMap(Self.swiftValue)
    }

    /// Sets `key` to `value` on every element (inside a write transaction when managed); `"self"` on a `List`
    /// replaces every element with `value`.
    public func setValue(_ value: Any?, forKey key: String) {
        if key == "self", let list = self as? List<Element> {
            guard let element = value as? Element else {
                fatalError("Invalid value '\(value ?? "nil")' for a list of \(Element.self)")
            }
            for index in list.indices { list[index] = element }
            return
        }
        for element in self {
            guard let object = element as? ObjectBase else {
                fatalError("[<\(Element.self)> setValue:forUndefinedKey:]: this class is not key value coding-compliant "
                    + "for the key \(key).")
            }
            object[key] = value
        }
    }

    private static func value(of element: Any, key: String) -> Any? {
        if key == "self" { return KeyValueBridge.flatten(element) }
        guard let object = element as? ObjectBase else {
            fatalError("[<\(type(of: element))> valueForUndefinedKey:]: this class is not key value coding-compliant "
                + "for the key \(key).")
        }
        return object[key]
    }

    private static func storedValue(_ value: Any?) -> _StoredValue {
        switch value {
        case let v as any _StorableValue: v._store()
        default: .null
        }
    }

    private static func swiftValue(_ value: _StoredValue) -> Any? {
        switch value {
        case .int(let v): Int(v)
        case .float(let v): v
        case .double(let v): v
        case .decimal128(let v): v
        case .date(let v): v
        default: nil
        }
    }
}

/// Realm's `List` and `MutableSet` answer key-value reads with an array of objects (a set's values once each).
extension List {
    /// The value of `key` for every element, in order (`NSNull()` for nil); `"self"` gives the elements.
    public func value(forKey key: String) -> [AnyObject] { objects(_kvcValue(forKey: key), keyPath: key) }

    /// Like ``value(forKey:)`` for a dotted key path (`"owner.name"`). A collection operator gives one value, not an
    /// array: read it through `AnyRealmCollection` or `Results` (on a `List` Realm traps too).
    public func value(forKeyPath keyPath: String) -> [AnyObject] { objects(_kvcValue(forKeyPath: keyPath), keyPath: keyPath) }
}

extension MutableSet {
    /// The values of `key` of the elements, each once, in no particular order.
    public func value(forKey key: String) -> [AnyObject] { objects(_kvcValue(forKey: key), keyPath: key) }
}

extension RealmCollection {
    fileprivate func objects(_ value: Any?, keyPath: String) -> [AnyObject] {
        if let array = value as? [Any] { return array.map { $0 as AnyObject } }
        if let set = value as? Set<AnyHashable> { return set.map { $0.base as AnyObject } }
        fatalError("Key path '\(keyPath)' gives one value, not one per element: read it through AnyRealmCollection")
    }
}
