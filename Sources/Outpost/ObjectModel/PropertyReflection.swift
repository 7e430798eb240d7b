@_spi(Reflection) import Swift
import Foundation
import OutpostCore
import Synchronization

/// Reads the `@Persisted` wrappers of an object. The layout of each class (names, offsets and types
/// of its wrappers) is found once with the runtime's field reflection; reading an instance then
/// costs one typed load per property instead of a `Mirror` walk.
enum PropertyReflection {
    /// One `@Persisted` stored property of a class.
    struct Field: @unchecked Sendable {  // metatypes and the reader closures are immutable
        let name: String
        let offset: Int
        let type: any PersistedReflectable.Type
        /// Reads the wrapper's content at `offset` from an object's address (specialised per type).
        let readContent: (UnsafeRawPointer) -> _PropertyContent
        /// For scalar properties of the common types (and their optionals): reads the unmanaged value
        /// straight into its column value, compiled for the concrete type (no generic metadata lookups,
        /// no intermediate `_PropertyContent`). Nil for the other types.
        let readColumn: ((UnsafeRawPointer) -> SQLiteValue)?
    }

    private static let layouts = Mutex<[ObjectIdentifier: [Field]]>([:])

    /// The `@Persisted` fields of a class, superclass fields first.
    static func fields(of type: ObjectBase.Type) -> [Field] {
        let key = ObjectIdentifier(type)
        if let cached = layouts.withLock({ $0[key] }) { return cached }
        var fields: [Field] = []
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0) /* .classType */) { name, offset, fieldType, _ in
            let label = String(cString: name)
            if label.hasPrefix("_"), let persisted = fieldType as? any PersistedReflectable.Type {
                fields.append(Field(name: String(label.dropFirst()), offset: offset, type: persisted,
                                    readContent: contentReader(persisted, offset: offset),
                                    readColumn: columnReader(persisted, offset: offset)))
            }
            return true
        }
        layouts.withLock { $0[key] = fields }
        return fields
    }

    /// Every `@Persisted` wrapper of `object`, superclass properties first, with the property names.
    static func persistedChildren(of object: ObjectBase) -> [(name: String, wrapper: any PersistedReflectable)] {
        let fields = fields(of: type(of: object))
        return withExtendedLifetime(object) {
            let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            return fields.map { field in
                (field.name, load(field.type, base.advanced(by: field.offset)))
            }
        }
    }

    /// The unmanaged contents of every `@Persisted` property, in schema order (the `add` fast path).
    static func contents(of object: ObjectBase) -> [_PropertyContent] {
        let fields = fields(of: type(of: object))
        return withExtendedLifetime(object) {
            let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            return fields.map { $0.readContent(base) }
        }
    }

    /// Stores contents (schema order; nil leaves a property as it is) in an unmanaged object's wrappers
    /// (`init(value:)`). Returns the index of the first content that does not fit its property's type, or nil.
    static func assign(_ contents: [_PropertyContent?], to object: ObjectBase) -> Int? {
        let fields = fields(of: type(of: object))
        return withExtendedLifetime(object) {
            let base = Unmanaged.passUnretained(object).toOpaque()
            for (i, content) in zip(fields.indices, contents) {
                guard let content else { continue }
                if !fields[i].type.assign(content, at: base.advanced(by: fields[i].offset)) { return i }
            }
            return nil
        }
    }

    private static func contentReader<P: PersistedReflectable>(_ type: P.Type, offset: Int)
        -> (UnsafeRawPointer) -> _PropertyContent
    {
        { base in base.advanced(by: offset).assumingMemoryBound(to: P.self).pointee.content() }
    }

    /// A reader specialised for `Persisted<V>` (V concrete at each call site below). Hot path (the insert buffer):
    /// wrapper → stored value → column, not through `Value`, which would add a conversion per property of every `add`.
    @inline(__always)
    private static func scalarReader<V: _StorableValue & _Persistable>(_: V.Type, offset: Int) -> (UnsafeRawPointer) -> SQLiteValue {
        { base in
            let stored = base.advanced(by: offset).assumingMemoryBound(to: Persisted<V>.self).pointee.storedValue
            return ValueCoding.column((stored ?? V._defaultValue())._store())
        }
    }

    /// The column reader of a `Persisted` wrapper of a common scalar type, or nil.
    private static func columnReader(_ type: any PersistedReflectable.Type, offset: Int)
        -> ((UnsafeRawPointer) -> SQLiteValue)?
    {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(Persisted<Bool>.self): scalarReader(Bool.self, offset: offset)
        case ObjectIdentifier(Persisted<Int>.self): scalarReader(Int.self, offset: offset)
        case ObjectIdentifier(Persisted<Int8>.self): scalarReader(Int8.self, offset: offset)
        case ObjectIdentifier(Persisted<Int16>.self): scalarReader(Int16.self, offset: offset)
        case ObjectIdentifier(Persisted<Int32>.self): scalarReader(Int32.self, offset: offset)
        case ObjectIdentifier(Persisted<Int64>.self): scalarReader(Int64.self, offset: offset)
        case ObjectIdentifier(Persisted<Float>.self): scalarReader(Float.self, offset: offset)
        case ObjectIdentifier(Persisted<Double>.self): scalarReader(Double.self, offset: offset)
        case ObjectIdentifier(Persisted<String>.self): scalarReader(String.self, offset: offset)
        case ObjectIdentifier(Persisted<Data>.self): scalarReader(Data.self, offset: offset)
        case ObjectIdentifier(Persisted<Date>.self): scalarReader(Date.self, offset: offset)
        case ObjectIdentifier(Persisted<ObjectId>.self): scalarReader(ObjectId.self, offset: offset)
        case ObjectIdentifier(Persisted<Decimal128>.self): scalarReader(Decimal128.self, offset: offset)
        case ObjectIdentifier(Persisted<UUID>.self): scalarReader(UUID.self, offset: offset)
        case ObjectIdentifier(Persisted<Bool?>.self): scalarReader(Bool?.self, offset: offset)
        case ObjectIdentifier(Persisted<Int?>.self): scalarReader(Int?.self, offset: offset)
        case ObjectIdentifier(Persisted<Int8?>.self): scalarReader(Int8?.self, offset: offset)
        case ObjectIdentifier(Persisted<Int16?>.self): scalarReader(Int16?.self, offset: offset)
        case ObjectIdentifier(Persisted<Int32?>.self): scalarReader(Int32?.self, offset: offset)
        case ObjectIdentifier(Persisted<Int64?>.self): scalarReader(Int64?.self, offset: offset)
        case ObjectIdentifier(Persisted<Float?>.self): scalarReader(Float?.self, offset: offset)
        case ObjectIdentifier(Persisted<Double?>.self): scalarReader(Double?.self, offset: offset)
        case ObjectIdentifier(Persisted<String?>.self): scalarReader(String?.self, offset: offset)
        case ObjectIdentifier(Persisted<Data?>.self): scalarReader(Data?.self, offset: offset)
        case ObjectIdentifier(Persisted<Date?>.self): scalarReader(Date?.self, offset: offset)
        case ObjectIdentifier(Persisted<ObjectId?>.self): scalarReader(ObjectId?.self, offset: offset)
        case ObjectIdentifier(Persisted<Decimal128?>.self): scalarReader(Decimal128?.self, offset: offset)
        case ObjectIdentifier(Persisted<UUID?>.self): scalarReader(UUID?.self, offset: offset)
        default: nil
        }
    }

    private static func load<P: PersistedReflectable>(_ type: P.Type, _ pointer: UnsafeRawPointer) -> any PersistedReflectable {
        pointer.assumingMemoryBound(to: P.self).pointee
    }

    static func propertyName(withProbeTag tag: Int, in object: ObjectBase) -> String? {
        persistedChildren(of: object).first { $0.wrapper.tag == tag }?.name
    }

    /// The unmanaged content of one property, by name.
    static func value(of object: ObjectBase, property: String) -> _PropertyContent? {
        if let row = object._row {
            guard let index = row.table.schema.allProperties.firstIndex(where: { $0.name == property }) else { return nil }
            return row.content(ofProperty: index)
        }
        return persistedChildren(of: object).first { $0.name == property }?.wrapper.content()
    }
}

/// Key path → property name, shared by all threads.
final class PropertyNameCache: Sendable {
    static let shared = PropertyNameCache()
    private let names = Mutex<[ObjectIdentifier: String]>([:])
    private let tags = Atomic<Int>(0)

    func nextTag() -> Int {
        tags.add(1, ordering: .relaxed).newValue
    }

    func name(for keyPath: AnyKeyPath, compute: () -> String) -> String {
        let key = ObjectIdentifier(keyPath)
        if let name = names.withLock({ $0[key] }) { return name }
        let name = compute()
        names.withLock { $0[key] = name }
        return name
    }
}
