import Foundation
import OutpostCore

/// What every Realm collection is: a random-access, lazy collection of ``RealmCollectionValue``s confined to a
/// thread (Realm's base protocol; `map` and `filter` with a closure answer lazily, as Realm's do).
public protocol RealmCollectionBase: RandomAccessCollection, LazyCollectionProtocol, CustomStringConvertible, ThreadConfined
where Element: RealmCollectionValue {
    typealias ElementType = Element
}

/// What every Realm collection offers — `Results`, `List`, `MutableSet`, `LinkingObjects` — so code can be written
/// once for all of them (`func show<C: RealmCollection>(_ items: C) where C.Element == Item`). Queries on a
/// collection give `Results` over the same elements, in the collection's order: `owner.dogs.filter("age > 2")`,
/// `owner.tags.sorted()`.
///
/// Outpost's protocol has Realm's members that Outpost implements so far; `docs/public-api.md` lists the rest.
public protocol RealmCollection<Element>: RealmCollectionBase, Equatable where Iterator == RLMIterator<Element> {
    /// The Realm of the collection; nil when it is unmanaged.
    var realm: Realm? { get }
    var count: Int { get }
    var isEmpty: Bool { get }
    var first: Element? { get }
    var last: Element? { get }
    /// The elements as live results over the collection (the collection itself for `Results`). Traps with
    /// Realm's text when the collection is unmanaged. (Outpost's hook for the shared members; not in Realm.)
    var _results: Results<Element> { get }
    /// The position of `object`: a managed object by identity (the same row), a value by equality; nil if absent.
    func index(of object: Element) -> Int?
    /// Calls `block` with the initial elements and after every change, on this thread or `queue`.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken
    /// Calls `block` with the initial elements and after every change, on `actor`.
    func observe<A: Actor>(keyPaths: [String]?, on actor: A, _isolation: isolated (any Actor)?,
                           _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void) async
        -> NotificationToken
}

extension RealmCollection {
    /// The text Realm traps with when an unmanaged collection is queried.
    static var _unmanagedQueryMessage: String {
        switch Self.self {
        case is any _OutpostSetCollection.Type: "This method may only be called on RLMSet instances retrieved from an RLMRealm"
        default: "This method may only be called on RLMArray instances retrieved from an RLMRealm"
        }
    }

    /// Realm's text for querying a collection of values (only sorting, distinct and aggregates apply to them).
    static var _valueQueryMessage: String {
        switch Self.self {
        case is any _OutpostSetCollection.Type: "Querying is currently only implemented for sets of Realm Objects"
        default: ResultsSource.valueQueryMessage
        }
    }

    // MARK: Queries

    /// The elements matching a query in Realm's query language (`%@` and `$0` take `args`).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        let results = _results
        if results.valueType != nil { fatalError(Self._valueQueryMessage) }
        do {
            return try results.filter(checked: predicateFormat, args)
        } catch {
            fatalError("\(error)")
        }
    }

    /// The elements matching a predicate built by the type-safe query builder or the parser.
    public func filter(_ predicate: QueryPredicate) -> Results<Element> {
        let results = _results
        if results.valueType != nil { fatalError(Self._valueQueryMessage) }
        return results.filter(predicate)
    }

    /// The elements matching an `NSPredicate`. Linux's Foundation builds only constant ones (`NSPredicate(value:)`,
    /// read through their format text); a block predicate traps, as Realm's does.
    public func filter(_ predicate: NSPredicate) -> Results<Element> {
        filter(Self.queryText(of: predicate))
    }

    /// The position of the first element matching an `NSPredicate` (see ``filter(_:)-(NSPredicate)``), or nil.
    public func index(matching predicate: NSPredicate) -> Int? {
        index(matching: Self.queryText(of: predicate))
    }

    private static func queryText(of predicate: NSPredicate) -> String {
        let text = predicate.predicateFormat
        guard text == "TRUEPREDICATE" || text == "FALSEPREDICATE" else {
            fatalError("Unsupported predicate '\(text)': on Linux only NSPredicate(value:) can be read; use query text or where { … }")
        }
        return text
    }

    /// The elements sorted by several descriptors, the first being the most significant; ties keep the
    /// collection's order.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        _results.sorted(by: sortDescriptors)
    }

    /// Only the first element for each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        _results.distinct(by: keyPaths)
    }

    /// The position of the first element matching a query, or nil.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        let results = _results
        if results.valueType != nil { fatalError(Self._valueQueryMessage) }
        let matching: Results<Element>
        do {
            matching = try results.filter(checked: predicateFormat, args)
        } catch {
            fatalError("\(error)")
        }
        return Self.firstIndex(of: matching, in: results)
    }

    /// The elements at `indexes`. Traps when one is out of bounds, with Realm's text.
    public func objects(at indexes: IndexSet) -> [Element] {
        if let results = self as? Results<Element> {  // only the objects asked for, not every one
            guard indexes.allSatisfy({ $0 < results.count }) else { fatalError("Indexes for collection are out of bounds.") }
            return indexes.map { results[$0] }
        }
        let all = Array(self)
        guard indexes.allSatisfy({ $0 < all.count }) else { fatalError("Indexes for collection are out of bounds.") }
        return indexes.map { all[$0] }
    }

    /// The position in `all` of the first element of `matching` (both over the same source).
    static func firstIndex(of matching: Results<Element>, in all: Results<Element>) -> Int? {
        guard let first = matching.rowids.first else { return nil }
        return all.rowids.firstIndex(of: first)
    }

    // MARK: Aggregates of a property of the objects

    /// The smallest value of a property of the objects (nil when there are none).
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if let values = _unmanagedValues(property) { return ValueAggregate.min(values, as: T.self) }
        return _results.min(ofProperty: property)
    }
    /// The largest value of a property of the objects (nil when there are none).
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if let values = _unmanagedValues(property) { return ValueAggregate.max(values, as: T.self) }
        return _results.max(ofProperty: property)
    }
    /// The sum of a property of the objects (zero when there are none).
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        if let values = _unmanagedValues(property) { return ValueAggregate.sum(values, as: T.self) }
        return _results.sum(ofProperty: property)
    }
    /// The average of a property of the objects (nil when there are none).
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        if let values = _unmanagedValues(property) { return ValueAggregate.average(values, as: T.self) }
        return _results.average(ofProperty: property)
    }

    /// The non-null values of a property of the objects of an unmanaged list or set, which Realm aggregates in
    /// memory (it queries nothing else unmanaged); nil for a managed collection. An unknown name traps as in Realm.
    func _unmanagedValues(_ property: String) -> [_StoredValue]? {
        guard realm == nil, self is any _OutpostCollectionContents else { return nil }
        return compactMap { element -> _StoredValue? in
            guard let object = element as? ObjectBase else { return nil }
            return (object.value(forKeyPath: property) as? any _StorableValue)?._store()
        }.filter { !$0.isNull }
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The objects matching a type-safe query: `owner.dogs.where { $0.age > 2 }`.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        _results.where(isIncluded)
    }

    /// The position of the first object matching a type-safe query, or nil.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        let all = _results
        return Self.firstIndex(of: all.where(isIncluded), in: all)
    }

    /// Sorted by a key path of the objects (`"age"`, `"owner.name"`).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        _results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// Sorted by the property at a key path: `sorted(by: \.age, ascending: false)`.
    public func sorted<T: _HasPersistedType>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element>
    where T.PersistedType: SortableType {
        _results.sorted(by: keyPath, ascending: ascending)
    }

    /// Only the first object for each distinct combination of the properties at the key paths.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        _results.distinct(by: keyPaths)
    }

    /// ``_unmanagedValues(_:)`` of the property at a key path of the objects.
    private func _unmanagedValues<T>(_ keyPath: KeyPath<Element, T>) -> [_StoredValue]? {
        _unmanagedValues(_KeyPathTracer.names(of: keyPath).joined(separator: "."))
    }

    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        if let values = _unmanagedValues(keyPath) { return ValueAggregate.min(values, as: T.self) }
        return _results.min(of: keyPath)
    }

    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        if let values = _unmanagedValues(keyPath) { return ValueAggregate.max(values, as: T.self) }
        return _results.max(of: keyPath)
    }

    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        if let values = _unmanagedValues(keyPath) { return ValueAggregate.sum(values, as: T.self) }
        return _results.sum(of: keyPath)
    }

    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: AddableType {
        if let values = _unmanagedValues(keyPath) { return ValueAggregate.average(values, as: T.self) }
        return _results.average(of: keyPath)
    }
}

extension RealmCollection where Element.PersistedType: SortableType {
    /// The values sorted (Realm sorts collections of values by `self`).
    public func sorted(ascending: Bool = true) -> Results<Element> {
        _results.sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)])
    }

    /// The values without repeats, each at its first place.
    public func distinct() -> Results<Element> {
        _results.distinct(by: ["self"])
    }
}

extension RealmCollection where Element.PersistedType: MinMaxType {
    /// The smallest value (nil when there are none; nils are left out).
    public func min() -> Element? { ValueAggregate.min(_storedValues).flatMap(Element._load) }
    /// The largest value (nil when there are none; nils are left out).
    public func max() -> Element? { ValueAggregate.max(_storedValues).flatMap(Element._load) }
}

extension RealmCollection where Element.PersistedType: AddableType {
    /// The sum of the values (zero when there are none; nils are left out).
    public func sum() -> Element {
        Element._load(ValueAggregate.sum(_storedValues, of: Element.self, managed: realm != nil)) ?? Element._defaultValue()
    }

    /// The average of the values (nil when there are none; nils are left out).
    public func average<T: _HasPersistedType>() -> T? where T.PersistedType: AddableType {
        ValueAggregate.average(_storedValues, of: Element.self, managed: realm != nil, as: T.self)
    }
}

extension RealmCollection {
    /// The elements as stored, nulls left out: what the aggregates of values work on, managed or not.
    var _storedValues: [_StoredValue] { map { $0._store() }.filter { !$0.isNull } }
}

/// Marks `MutableSet` for Realm's set-specific trap texts.
protocol _OutpostSetCollection {}
