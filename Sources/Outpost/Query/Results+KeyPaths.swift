import Foundation
import OutpostCore

extension Results where Element: ObjectBase {
    /// Sorted by the property at a key path: `sorted(by: \.age, ascending: false)`.
    public func sorted<T: _HasPersistedType>(by keyPath: KeyPath<Element, T>, ascending: Bool = true)
        -> Results<Element> where T.PersistedType: SortableType
    {
        sorted(byKeyPath: _name(for: keyPath), ascending: ascending)
    }

    /// Only the first object for each distinct combination of the properties at the key paths.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map { _name(for: $0) })
    }

    /// The smallest value of the property at a key path (nil when there are no objects).
    public func min<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        min(ofProperty: _name(for: keyPath))
    }

    /// The largest value of the property at a key path (nil when there are no objects).
    public func max<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: MinMaxType {
        max(ofProperty: _name(for: keyPath))
    }

    /// The sum of the property at a key path (zero when there are no objects).
    public func sum<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T where T.PersistedType: AddableType {
        sum(ofProperty: _name(for: keyPath))
    }

    /// The average of the property at a key path (nil when there are no objects). For integer
    /// properties the average is truncated to an integer, as `T` requires.
    public func average<T: _HasPersistedType>(of keyPath: KeyPath<Element, T>) -> T? where T.PersistedType: AddableType {
        let name = _name(for: keyPath)
        if T._storedTypeInfo?.type == .decimal128 { return average(ofProperty: name) }
        guard let average: Double = average(ofProperty: name) else { return nil }
        return T._loadStored(.double(average)) ?? T._loadStored(.int(Int64(average.rounded(.towardZero))))
    }
}

extension ObjectBase {
    /// Calls `block` when the properties at `keyPaths` change or the object is deleted.
    public func observe<T: ObjectBase>(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken
    {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }
}

extension SortDescriptor {
    /// A sort key from a key path: `SortDescriptor(keyPath: \Person.age, ascending: false)`.
    public init<Root: ObjectBase>(keyPath: PartialKeyPath<Root>, ascending: Bool = true) {
        self.init(keyPath: _name(for: keyPath), ascending: ascending)
    }
}
