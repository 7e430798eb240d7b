import Foundation
import OutpostCore

/// Realm's `RealmKeyedCollection` members on `Map`: key-value coding, queries and sorts that answer `Results` of the
/// values (not the key-value pairs), and aggregates.
extension Map {
    /// Realm's text when a query or sort is asked of an unmanaged map.
    static var unmanagedMessage: String { "This method may only be called on RLMDictionary instances retrieved from an RLMRealm" }

    /// The values as live results, in key order.
    var _results: Results<Value> {
        guard let accessor else { fatalError(Self.unmanagedMessage) }
        return accessor.collectionResults()
    }

    /// Sets the value for `key`, adding the pair when the key is new.
    public func updateValue(_ value: Value, forKey key: Key) { self[key] = value }

    /// Whether some pair satisfies `predicate`.
    public func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool {
        contains { predicate($0.key, $0.value) }
    }


    // MARK: Key-value coding

    /// The value for a string key, as an object (nil when the key is absent, `NSNull()` when it holds nil).
    public func object(forKey key: AnyObject) -> AnyObject? {
        guard let key = key as? String else { return nil }
        return value(forKey: key)
    }

    /// The value for `key`, as an object: nil when the key is absent, `NSNull()` when it holds nil (as Realm's
    /// Objective-C dictionary answers).
    public func value(forKey key: String) -> AnyObject? {
        guard let value = self[Key(_outpostKey: key)] else { return nil }
        if value is AnyRealmValue { return Self.unwrapped(value) }  // `.none` reads as nil there (Realm's tests)
        return Self.unwrapped(value) ?? NSNull()
    }

    /// `key.property…`: the value for the first component, then key-value coding on it (objects); a single key is
    /// ``value(forKey:)``.
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return value(forKey: keyPath) }
        guard let value = self[Key(_outpostKey: parts[0])], let object = Self.unwrapped(value) as? ObjectBase else {
            return nil
        }
        return object[parts[1]].flatMap(KeyValueBridge.flatten).map { $0 as AnyObject }
    }

    /// Sets (or with nil, removes) the value for a string key. A value of another type traps, naming it.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value, !(value is NSNull) else {
            removeObject(for: Key(_outpostKey: key))
            return
        }
        guard let typed = value as? Value else {
            fatalError("Invalid value '\(value)' of type '\(type(of: value))' for key '\(key)' of a map of '\(Value.self)'")
        }
        self[Key(_outpostKey: key)] = typed
    }

    /// A value as Realm's key-value coding hands it out: the wrapped value of an optional, nil for nil.
    private static func unwrapped(_ value: Value) -> AnyObject? {
        KeyValueBridge.flatten(value).map { $0 as AnyObject }
    }

    // MARK: Queries and sorts (of the values)

    /// The values matching a predicate built by the type-safe query builder or the parser (Realm's
    /// `filter(NSPredicate)`; see ``RealmCollection/filter(_:)-(QueryPredicate)``).
    public func filter(_ predicate: QueryPredicate) -> Results<Value> {
        let results = _results
        if results.valueType != nil { fatalError(ResultsSource.valueQueryMessage) }
        return results.filter(predicate)
    }

    /// The values matching a type-safe query: `owner.pets.where { $0.age > 2 }` (a map of optional objects).
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        let results = _results
        if results.valueType != nil { fatalError(ResultsSource.valueQueryMessage) }
        let (predicate, arguments) = isIncluded(Query<Value>()).build()
        return results.filtered(predicate, arguments)
    }

    /// Outpost-only (Realm's `Map` takes an `NSPredicate`, which Linux's Foundation cannot parse): the values
    /// matching a query in Realm's query language.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value> {
        let results = _results
        if results.valueType != nil { fatalError(ResultsSource.valueQueryMessage) }
        do {
            return try results.filter(checked: predicateFormat, args)
        } catch {
            fatalError("\(error)")
        }
    }

    /// The values sorted by a key path of the objects (`"age"`).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        _results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The values sorted by several descriptors, the first being the most significant.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Element == SortDescriptor {
        _results.sorted(by: sortDescriptors)
    }

    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        _results.min(ofProperty: property)
    }

    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        _results.max(ofProperty: property)
    }

    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        _results.sum(ofProperty: property)
    }

    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        _results.average(ofProperty: property)
    }
}

extension Map where Value.PersistedType: SortableType {
    /// The values sorted (by `self`).
    public func sorted(ascending: Bool = true) -> Results<Value> {
        _results.sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)])
    }
}

extension Map where Value.PersistedType: MinMaxType {
    /// The smallest value (nil when there are none; nils are left out).
    public func min() -> Value? { ValueAggregate.min(storedValues).flatMap(Value._load) }
    /// The largest value (nil when there are none; nils are left out).
    public func max() -> Value? { ValueAggregate.max(storedValues).flatMap(Value._load) }
}

extension Map where Value.PersistedType: AddableType {
    /// The sum of the values (zero when there are none; nils are left out).
    public func sum() -> Value {
        Value._load(ValueAggregate.sum(storedValues, of: Value.self, managed: realm != nil, keyed: true)) ?? Value._defaultValue()
    }

    /// The average of the values (nil when there are none; nils are left out).
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        ValueAggregate.average(storedValues, of: Value.self, managed: realm != nil, as: T.self)
    }
}

extension Map where Value: OptionalProtocol, Value.Wrapped: ObjectBase {
    /// The values sorted by the property at a key path of their objects.
    public func sorted<T: _HasPersistedType>(by keyPath: KeyPath<Value.Wrapped, T>, ascending: Bool = true)
        -> Results<Value> where T.PersistedType: SortableType
    {
        _results.sorted(by: [SortDescriptor(keyPath: _KeyPathTracer.names(of: keyPath).joined(separator: "."), ascending: ascending)])
    }

    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: MinMaxType {
        _results.min(ofProperty: _KeyPathTracer.names(of: keyPath).joined(separator: "."))
    }

    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: MinMaxType {
        _results.max(ofProperty: _KeyPathTracer.names(of: keyPath).joined(separator: "."))
    }

    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T where T.PersistedType: AddableType {
        _results.sum(ofProperty: _KeyPathTracer.names(of: keyPath).joined(separator: "."))
    }

    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? where T.PersistedType: AddableType {
        _results.average(ofProperty: _KeyPathTracer.names(of: keyPath).joined(separator: "."))
    }
}

extension Map {
    /// The values as stored, nulls left out: what the aggregates of values work on, managed or not.
    var storedValues: [_StoredValue] { storedEntries.map(\.1).filter { !$0.isNull } }
}
