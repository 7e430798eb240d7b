import Foundation
import OutpostCore
import Synchronization

/// Discovers each class's schema once, from its `@Persisted` properties (through `Mirror`), and keeps
/// the class for each Realm class name seen in this process.
final class ObjectSchemaRegistry: Sendable {
    static let shared = ObjectSchemaRegistry()

    private struct Entry: @unchecked Sendable {  // ObjectBase.Type is an immutable metatype
        let type: ObjectBase.Type
        let schema: ObjectSchema
    }

    private let byType = Mutex<[ObjectIdentifier: Entry]>([:])
    private let byName = Mutex<[String: Entry]>([:])

    /// The schema of `type`, discovering it on first use.
    ///
    /// Several Swift classes may share one Realm class name (for example the versions of a model
    /// across a schema migration); `type(named:)` answers the one a Realm was most recently opened
    /// with, or the first one seen.
    func schema(for type: ObjectBase.Type) -> ObjectSchema {
        // `DynamicObject` stands for objects of any class; it is never a class of its own.
        precondition(type != DynamicObject.self,
                     "DynamicObject is not a model class: read objects by class name with realm.dynamicObjects(_:)")
        if let entry = byType.withLock({ $0[ObjectIdentifier(type)] }) { return entry.schema }
        let schema = Self.discover(type)
        let entry = Entry(type: type, schema: schema)
        byType.withLock { $0[ObjectIdentifier(type)] = entry }
        byName.withLock { names in
            if names[schema.className] == nil { names[schema.className] = entry }
        }
        return schema
    }

    /// Makes `types` the classes answered by `type(named:)` for their class names (a Realm was just
    /// opened with them).
    func makeCurrent(_ types: [ObjectBase.Type]) {
        let entries = types.map { Entry(type: $0, schema: schema(for: $0)) }
        byName.withLock { names in
            for entry in entries { names[entry.schema.className] = entry }
        }
    }

    /// The class registered for a Realm class name, if it was seen in this process.
    func type(named className: String) -> ObjectBase.Type? {
        byName.withLock { $0[className]?.type }
    }

    /// Every class name seen so far in this process, with its current class.
    var allTypes: [ObjectBase.Type] {
        byName.withLock { $0.values.map(\.type) }
    }

    /// `type` and every class reachable from it through links, embedded objects and linking objects.
    func closure(of types: [ObjectBase.Type]) -> [ObjectBase.Type] {
        var seen: Set<ObjectIdentifier> = []
        var out: [ObjectBase.Type] = []
        var stack = types
        while let type = stack.popLast() {
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            out.append(type)
            for info in Self.linkedTypes(of: type) { stack.append(info) }
        }
        return out
    }

    /// ``closure(of:)`` with one class per Realm class name. Two classes of one name (two modules' `Dog`, two
    /// versions of a migrated model) cannot share a file. In a default schema (`preferLinked`), whose roots are
    /// whichever classes were seen last, a class reached through a link of another is kept over a root of that
    /// name: the link needs exactly it. Otherwise the schema is ambiguous and the open fails saying so, instead of
    /// failing later on the table both would make.
    func schemaClosure(of roots: [ObjectBase.Type], preferLinked: Bool) throws(Realm.Error) -> [ObjectBase.Type] {
        var roots = roots
        while true {
            let all = closure(of: roots)
            let byName = Dictionary(grouping: all) { $0.className() }.filter { $0.value.count > 1 }
            guard let (name, classes) = byName.sorted(by: { $0.key < $1.key }).first else { return all }
            let linked = Set(all.flatMap { Self.linkedTypes(of: $0) }.map(ObjectIdentifier.init))
            let needed = classes.filter { linked.contains(ObjectIdentifier($0)) }
            let dropped = roots.filter { root in
                root.className() == name && !needed.contains { $0 == root }
            }
            guard preferLinked, needed.count == 1, !dropped.isEmpty else {
                let names = classes.map { String(reflecting: $0) }.sorted().joined(separator: ", ")
                throw Realm.Error(.schemaMismatch,
                    "Object type '\(name)' is defined by more than one class (\(names)); a Realm's schema holds one "
                        + "class per name: list the classes to use in Realm.Configuration.objectTypes")
            }
            roots.removeAll { root in dropped.contains { $0 == root } }
        }
    }

    private static func linkedTypes(of type: ObjectBase.Type) -> [ObjectBase.Type] {
        let probe = type.init()
        return PropertyReflection.persistedChildren(of: probe).compactMap { $0.wrapper.persistedType._typeInfo.objectType }
    }

    private static func discover(_ type: ObjectBase.Type) -> ObjectSchema {
        let probe = type.init()
        var properties: [Property] = []
        for (name, wrapper) in PropertyReflection.persistedChildren(of: probe) {
            let persistedType = wrapper.persistedType
            let info = persistedType._typeInfo
            var property = Property(
                name: name, type: info.type, collection: persistedType._collectionKind, isOptional: info.isOptional,
                isPrimaryKey: wrapper.isPrimaryKey, isIndexed: wrapper.isIndexed || wrapper.isPrimaryKey,
                objectClassName: info.objectType?.className())
            if info.type == .object && property.collection == .list || property.collection == .set {
                if info.type == .object { property.isOptional = false }
            }
            if info.type == .linkingObjects {
                property.linkOriginPropertyName = wrapper.linkOrigin
            }
            properties.append(property)
        }
        let className = type.className()
        Self.applyColumnNames(type.propertiesMapping(), of: className, in: &properties)
        let primaryKeys = properties.filter(\.isPrimaryKey)
        if primaryKeys.count > 1 {
            fatalError("Properties '\(primaryKeys[0].name)' and '\(primaryKeys[1].name)' are both marked as the primary key of '\(className)'")
        }
        if let name = type.primaryKey() {
            Self.makePrimaryKey(name, of: className, in: &properties)
        }
        let isEmbedded = type is EmbeddedObject.Type
        if isEmbedded, let pk = primaryKeys.first {
            fatalError("Outpost: embedded object '\(type.className())' cannot have a primary key ('\(pk.name)')")
        }
        return ObjectSchema(className: className, properties: properties, isEmbedded: isEmbedded,
                            isAsymmetric: type is AsymmetricObject.Type)
    }

    /// A class's `propertiesMapping()`: each mapped property is stored under its column name. A key that names no
    /// persisted property is ignored, as in Realm; two properties stored under one name would share a column, so that
    /// model error traps, as a wrong `primaryKey()` does.
    private static func applyColumnNames(_ mapping: [String: String], of className: String,
                                         in properties: inout [Property]) {
        for (name, column) in mapping.sorted(by: { $0.key < $1.key }) {
            guard let index = properties.firstIndex(where: { $0.name == name && $0.type != .linkingObjects }) else {
                continue
            }
            guard !column.isEmpty else {
                fatalError("Property '\(className).\(name)' is mapped to an empty column name in propertiesMapping()")
            }
            properties[index].columnName = column
        }
        var seen: [String: String] = [:]
        for property in properties where property.type != .linkingObjects {
            if let other = seen[property.columnName] {
                fatalError("Properties '\(className).\(other)' and '\(className).\(property.name)' are both stored "
                    + "as '\(property.columnName)'; propertiesMapping() must give each property its own name")
            }
            seen[property.columnName] = property.name
        }
    }

    /// A class's `primaryKey()` override: that property becomes the primary key (and indexed), in place of any
    /// `@Persisted(primaryKey: true)`, as in Realm.
    private static func makePrimaryKey(_ name: String, of className: String, in properties: inout [Property]) {
        guard let index = properties.firstIndex(where: { $0.name == name }) else {
            fatalError("Primary key property '\(name)' does not exist on object '\(className)'")
        }
        let property = properties[index]
        guard property.collection == .none, [.int, .string, .objectId, .uuid].contains(property.type) else {
            fatalError("Property '\(name)' cannot be made the primary key of '\(className)' because it is not a 'string', 'int', 'objectId', or 'uuid' property.")
        }
        for i in properties.indices { properties[i].isPrimaryKey = i == index }
        properties[index].isIndexed = true
    }
}

extension ObjectSchema {
    /// The Swift class of the schema's objects. Traps for a class no Swift type of this process declares (a class
    /// only the file knows, read through the dynamic API).
    public var objectClass: AnyClass {
        guard let type = ObjectSchemaRegistry.shared.type(named: className) else {
            fatalError("Object type '\(className)' is not managed by the Realm")
        }
        return type
    }
}
