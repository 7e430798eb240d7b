/// `map`, `compactMap`, `flatMap` and `filter` with a closure answer an array read through the collection's
/// iterator: one query read of a `Results` (objects loaded a page at a time, one read event), not one lookup per
/// element as `Collection`'s versions make through the subscript. Realm's are `LazyCollectionProtocol`'s (lazy
/// sequences); code written for them compiles here too, except code that names the lazy type
/// (docs/differences-from-realm.md).
extension RealmCollection {
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var result: [T] = []
        result.reserveCapacity(underestimatedCount)
        var iterator = makeIterator()
        while let element = iterator.next() { result.append(try transform(element)) }
        return result
    }

    public func compactMap<T, E: Error>(_ transform: (Element) throws(E) -> T?) throws(E) -> [T] {
        var result: [T] = []
        var iterator = makeIterator()
        while let element = iterator.next() {
            if let value = try transform(element) { result.append(value) }
        }
        return result
    }

    public func flatMap<S: Sequence, E: Error>(_ transform: (Element) throws(E) -> S) throws(E) -> [S.Element] {
        var result: [S.Element] = []
        var iterator = makeIterator()
        while let element = iterator.next() { result.append(contentsOf: try transform(element)) }
        return result
    }

    public func filter<E: Error>(_ isIncluded: (Element) throws(E) -> Bool) throws(E) -> [Element] {
        var result: [Element] = []
        var iterator = makeIterator()
        while let element = iterator.next() {
            if try isIncluded(element) { result.append(element) }
        }
        return result
    }
}
