import Foundation
import OutpostCore

/// A string-keyed dictionary property: `@Persisted var prices: Map<String, Double>`.
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: Sequence, CustomStringConvertible {
    var unmanaged: [Key: Value] = [:]
    /// Set when the object holding an unmanaged collection is added (``_attach(_:to:)``).
    private(set) var accessor: _PropertyAccessor?
    /// The value every key holds while a key path is traced.
    var traceProbe: Value?

    public init() {
        accessor = nil
    }

    init(accessor: _PropertyAccessor) {
        self.accessor = accessor
    }

    var storedEntries: [(String, _StoredValue)] {
        guard let accessor else {
            return unmanaged.map { ($0.key._outpostKey, $0.value._store()) }.sorted { $0.0 < $1.0 }
        }
        if accessor.nested != nil { return accessor.nestedEntries }
        return accessor.row.readMap(property: accessor.propertyIndex)
    }

    var dictionary: [Key: Value] {
        guard accessor != nil else { return unmanaged }
        var out: [Key: Value] = [:]
        for (k, v) in storedEntries { out[Key(_outpostKey: k)] = value(v, forKey: k) }
        return out
    }

    /// The value stored under `key`; a collection nested in a mixed value is live (it writes back here).
    func value(_ stored: _StoredValue, forKey key: String) -> Value {
        if let accessor, stored.isNestedCollection, let live = AnyRealmValue.live(stored, accessor.nested(.key(key))) as? Value {
            return live
        }
        return Value._load(stored) ?? Value._defaultValue()
    }

    public var count: Int { storedEntries.count }
    /// The Realm of the owning object; nil when unmanaged.
    public var realm: Realm? { accessor.map { Realm(instance: $0.row.realm) } }
    public var keys: [Key] { storedEntries.map { Key(_outpostKey: $0.0) } }
    public var values: [Value] {
        accessor?.eventRecordLinkReads(storedEntries.map(\.1))  // element objects are reads (event library)
        return storedEntries.map { value($0.1, forKey: $0.0) }
    }

    /// The entries as ``SingleMapEntry`` values, in key order (as Realm: `for entry in map { entry.key }`;
    /// `asKeyValueSequence()` gives tuples).
    public func makeIterator() -> RLMMapIterator<SingleMapEntry<Key, Value>> {
        RLMMapIterator(entries)
    }

    /// The entries in key order; their objects count as reads for the event library.
    var entries: [SingleMapEntry<Key, Value>] {
        let stored = storedEntries
        accessor?.eventRecordLinkReads(stored.map(\.1))  // element objects are reads (event library)
        return stored.map { SingleMapEntry(key: Key(_outpostKey: $0.0), value: value($0.1, forKey: $0.0)) }
    }

    private func update(_ body: (inout [Key: Value]) -> Void) {
        var d = dictionary
        body(&d)
        if let accessor, accessor.nested != nil {
            accessor.writeNested(.dictionary(Dictionary(uniqueKeysWithValues: d.map { ($0.key._outpostKey, $0.value._store()) })))
        } else if let accessor {
            accessor.row.realm.requireWriteForCollection()
            accessor.row.realm.setProperty(accessor.row, accessor.propertyIndex,
                                           .map(d.map { ($0.key._outpostKey, $0.value._store()) }.sorted { $0.0 < $1.0 }))
        } else {
            unmanaged = d
        }
    }

    public subscript(key: Key) -> Value? {
        get {
            if let traceProbe { return traceProbe }
            if let accessor, accessor.row.realm.readObserver != nil,
                let entry = storedEntries.first(where: { $0.0 == key._outpostKey })
            {
                accessor.eventRecordLinkRead(entry.1)  // an element object is a read (event library)
            }
            return dictionary[key]
        }
        set { update { $0[key] = newValue } }
    }

    public func removeObject(for key: Key) { update { $0[key] = nil } }
    public func removeAll() { update { $0.removeAll() } }
    public func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: (Value, Value) -> Value)
        where S.Element == (key: Key, value: Value)
    {
        update { d in for (k, v) in other { d[k] = d[k].map { combine($0, v) } ?? v } }
    }

    public var description: String { _description(depth: CollectionDescription.maxDepth) }

    func _description(depth: Int) -> String {
        let entries = storedEntries
        return CollectionDescription.describeMap(
            "Map", keyTypeName: "string", typeName: CollectionDescription.typeName(Value.self), address: self,
            count: entries.count,
            entries: entries.lazy.map { ($0.0, (Value._load($0.1) ?? Value._defaultValue()) as Any) }, depth: depth)
    }
}

extension Map: _Persistable {
    /// Realm's: a collection property is stored as itself.
    public typealias PersistedType = Map
    public static var _typeInfo: _TypeInfo { Value._typeInfo }
    public static var _collectionKind: CollectionKind { .map }
    public static func _defaultValue() -> Map<Key, Value> { Map() }
    public func _content() -> _PropertyContent { .map(storedEntries) }
    public static func _unmanagedValue(_ content: _PropertyContent) -> Map<Key, Value>? {
        guard case .map(let entries) = content else { return nil }
        let map = Map()
        for (key, item) in entries {
            guard let value = Value._load(item) else { return nil }
            map.unmanaged[Key(_outpostKey: key)] = value
        }
        return map
    }
    public static func _get(_ accessor: _PropertyAccessor) -> Map<Key, Value> { Map(accessor: accessor) }
    public static func _attach(_ value: Map<Key, Value>, to accessor: _PropertyAccessor) {
        guard value.accessor == nil else { return }
        value.accessor = accessor
        value.unmanaged = [:]
    }
    public static func _isAttached(_ value: Map<Key, Value>, to accessor: _PropertyAccessor) -> Bool {
        value.accessor?.isProperty(accessor) == true
    }
    public static func _set(_ value: Map<Key, Value>, _ accessor: _PropertyAccessor) {
        accessor.row.realm.setProperty(accessor.row, accessor.propertyIndex, .map(value.storedEntries))
    }
    /// A map whose every key holds a value standing for any value, so `\.pets[""]??.name` traces as `pets.name`.
    public static func _traceValue(_ tracer: _KeyPathTracer) -> Map<Key, Value> {
        let map = Map()
        map.traceProbe = tracer.probeElement(Value.self)
        return map
    }
}

extension Map: _OutpostMapContents {
    func _entriesAsAny() -> [String: Any] {
        var out: [String: Any] = [:]
        for (key, value) in dictionary { out[key._outpostKey] = value }
        return out
    }
}
