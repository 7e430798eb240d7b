import Foundation

// `sectioned(...)` on every Realm collection — `Results`, `List`, `MutableSet`, `LinkingObjects`,
// `AnyRealmCollection` — with Realm's signatures and trap texts. Realm declares `sectioned(sortDescriptors:_:)` as a
// `RealmCollection` requirement; here it is an extension member, which callers cannot tell apart.

extension RealmCollection {
    /// Sorts the collection by `sortDescriptors` and cuts it into sections by the key `keyBlock` gives each element.
    ///
    /// The first descriptor should decide the key, so that elements with one key are next to each other; a key that
    /// comes back later still has one section, where it first appeared. Traps when `sortDescriptors` is empty, and
    /// (Realm's text) when the collection is unmanaged.
    public func sectioned<Key: _Persistable & Hashable>(
        sortDescriptors: [SortDescriptor], _ keyBlock: @escaping ((Element) -> Key)
    ) -> SectionedResults<Key, Element> {
        if sortDescriptors.isEmpty {
            fatalError("There must be at least one SortDescriptor when using SectionedResults.")
        }
        return SectionedResults(results: _results.sorted(by: sortDescriptors), keyBlock: keyBlock)
    }

    /// Sections by the value at `keyPath`, whose stored name (`name`: an object's property path, or the root
    /// property a projection's key path reads) must be the first descriptor's, with Realm's trap texts.
    fileprivate func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, named name: String, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        guard let first = sortDescriptors.first else {
            fatalError("Can not section Results with empty sortDescriptor parameter.")
        }
        if name != first.keyPath {
            fatalError("The section key path must match the primary sort descriptor.")
        }
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// Sorts the values (by `self`) and sections them by the key `block` gives each one:
    /// `tags.sectioned(by: { String($0.prefix(1)) })`.
    public func sectioned<Key: _Persistable & Hashable>(
        by block: @escaping ((Element) -> Key), ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: "self", ascending: ascending)], block)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// Sorts the objects by the property at `keyPath` and makes a section for each of its values. A key path through a
    /// computed property sorts by the persisted property it reads: `sectioned(by: \.firstLetter)`, where `firstLetter`
    /// is `name.first`, sorts by `name`.
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        let name = _name(for: keyPath)
        return sectioned(by: keyPath, named: name, sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)])
    }

    /// Sorts the objects by `sortDescriptors` and makes a section for each value at `keyPath`, which must be the
    /// first descriptor's key path (Realm traps otherwise, and so does Outpost, with Realm's text).
    public func sectioned<Key: _Persistable & Hashable>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        sectioned(by: keyPath, named: _name(for: keyPath), sortDescriptors: sortDescriptors)
    }

    /// Sorts the objects by `sortDescriptors` and sections them by the key `block` gives each one.
    public func sectioned<Key: _Persistable & Hashable>(
        by block: @escaping ((Element) -> Key), sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }
}

extension RealmCollection {
    /// Sorts the projections by the root property the key path reads (`\.firstLetter`, computed from the projected
    /// `name`, sorts by the root's `name`) and makes a section for each value at `keyPath`, as Realm.
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase & RealmCollectionValue & ThreadConfined>(
        by keyPath: KeyPath<Element, Key>, ascending: Bool = true
    ) -> SectionedResults<Key, Element> where Element: Projection<O> {
        let name = ProjectionSchema.originName(of: keyPath)
        return sectioned(by: keyPath, named: name, sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)])
    }

    /// Sorts the projections by `sortDescriptors` and makes a section for each value at `keyPath`, whose root
    /// property path must be the first descriptor's (Realm's trap text otherwise).
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase & RealmCollectionValue & ThreadConfined>(
        by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> where Element: Projection<O> {
        sectioned(by: keyPath, named: ProjectionSchema.originName(of: keyPath), sortDescriptors: sortDescriptors)
    }

    /// Sorts the projections by `sortDescriptors` and sections them by the key `block` gives each one.
    public func sectioned<Key: _Persistable & Hashable, O: ObjectBase & RealmCollectionValue & ThreadConfined>(
        by block: @escaping ((Element) -> Key), sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> where Element: Projection<O> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }
}
