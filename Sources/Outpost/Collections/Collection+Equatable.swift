/// Realm's equality of collections. A managed list, set or map is its owner's property (two reads of `owner.dogs` are
/// equal, whatever they hold); results and linking objects are the value that was read (two reads of
/// `realm.objects(Dog.self)` are not equal, copies of one are). Unmanaged lists, sets and maps compare their
/// elements (a list in order), as Realm's unmanaged collections do; a managed one never equals an unmanaged one.
extension List: Equatable {
    public static func == (lhs: List, rhs: List) -> Bool {
        if lhs === rhs { return true }
        if lhs.accessor == nil && rhs.accessor == nil { return lhs.unmanaged == rhs.unmanaged }
        return _PropertyAccessor.same(lhs.accessor, rhs.accessor)
    }
}

extension MutableSet: Equatable {
    public static func == (lhs: MutableSet, rhs: MutableSet) -> Bool {
        if lhs === rhs { return true }
        if lhs.accessor == nil && rhs.accessor == nil { return Set(lhs.unmanaged) == Set(rhs.unmanaged) }
        return _PropertyAccessor.same(lhs.accessor, rhs.accessor)
    }
}

extension Map: Equatable {
    public static func == (lhs: Map, rhs: Map) -> Bool {
        if lhs === rhs { return true }
        if lhs.accessor == nil && rhs.accessor == nil { return lhs.unmanaged == rhs.unmanaged }
        return _PropertyAccessor.same(lhs.accessor, rhs.accessor)
    }
}

extension Results: Equatable {
    public static func == (lhs: Results, rhs: Results) -> Bool { lhs.cache === rhs.cache }
}

extension LinkingObjects: Equatable {
    public static func == (lhs: LinkingObjects, rhs: LinkingObjects) -> Bool { lhs.identity === rhs.identity }
}

extension AnyRealmCollection: Equatable {
    public static func == (lhs: AnyRealmCollection, rhs: AnyRealmCollection) -> Bool {
        switch (lhs.base, rhs.base) {
        case let (a as Results<Element>, b as Results<Element>): a == b
        case let (a as List<Element>, b as List<Element>): a == b
        case let (a as MutableSet<Element>, b as MutableSet<Element>): a == b
        default: sameIdentity(lhs.base, rhs.base)
        }
    }

    private static func sameIdentity(_ a: any RealmCollection<Element>, _ b: any RealmCollection<Element>) -> Bool {
        func identity(_ c: any RealmCollection<Element>) -> AnyObject? {
            (c as? _IdentifiedCollection)?._identity
        }
        guard let x = identity(a), let y = identity(b) else { return false }
        return x === y
    }
}

/// A collection value with an identity of its own (`LinkingObjects`).
protocol _IdentifiedCollection {
    var _identity: AnyObject { get }
}

extension LinkingObjects: _IdentifiedCollection {
    var _identity: AnyObject { identity }
}

/// The identity of a collection value that is a struct.
final class CollectionIdentity: Sendable {}

extension _PropertyAccessor {
    /// Whether two accessors are the same property of the same managed object in the same Realm instance.
    static func same(_ a: _PropertyAccessor?, _ b: _PropertyAccessor?) -> Bool {
        guard let a, let b else { return false }
        return a.row.realm === b.row.realm && a.row.table.className == b.row.table.className && a.row.rowid == b.row.rowid
            && a.propertyIndex == b.propertyIndex && a.nested == b.nested
    }
}
