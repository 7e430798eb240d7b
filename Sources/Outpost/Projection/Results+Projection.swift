import Foundation
import OutpostCore

extension Realm {
    /// Projections of all objects of the projection's root class: `realm.objects(PersonProjection.self)` is a
    /// `Results<PersonProjection>`, queried, sorted and observed by the root's properties (`"lastName == 'Snow'"`).
    public func objects<Root: Object, Element: Projection<Root>>(_ type: Element.Type) -> Results<Element> {
        instance.verifyAccess()
        instance.verifyReadable()
        return Results(realm: instance, table: instance.table(for: Root.self))
    }
}

extension Results {
    /// Sorted by the root property a key path of the projections reads (`\PersonProjection.homeCity` sorts by
    /// `address.city`). Outpost-only: Realm sorts projections by key path text (`sorted(byKeyPath:)`).
    public func sorted<O: ObjectBase & RealmCollectionValue & ThreadConfined, T: _HasPersistedType>(
        by keyPath: KeyPath<Element, T>, ascending: Bool = true
    ) -> Results<Element> where Element: Projection<O>, T.PersistedType: SortableType {
        sorted(byKeyPath: ProjectionSchema.originName(of: keyPath), ascending: ascending)
    }

    /// The element for an object loaded from the table: the object itself, or a projection of it when the results
    /// hold projections.
    @inline(__always)
    static func makeElement(_ object: ObjectBase) -> Element {
        if let element = object as? Element { return element }
        if Element.self == DynamicObject.self, let row = object._row { return DynamicObject(row: row) as! Element }
        guard let projection = Element.self as? any ProjectionElement.Type else {
            fatalError("Could not cast value of type '\(type(of: object))' to '\(Element.self)'")
        }
        return projection.projecting(object) as! Element
    }

    /// The object an element is, or projects; nil for values.
    static func object(in element: Element) -> ObjectBase? {
        (element as? ObjectBase) ?? (element as? any ProjectionElement)?.projectedObject
    }
}
