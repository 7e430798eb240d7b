import Foundation
import OutpostCore

/// Converts untyped values (`create(_:value:)` and `init(value:)` dictionaries and arrays, query arguments,
/// primary keys) to stored values.
enum ValueConversion {
    /// A stored value for a Swift value, or nil when the type is not a Realm type.
    static func stored(_ value: Any, realm: RealmInstance?) -> _StoredValue? {
        switch value {
        case let v as _StoredValue: return v
        case let v as AnyRealmValue: return v._store()
        case Optional<Any>.none: return .null
        case is NSNull: return .null
        case let v as Bool: return .bool(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int8: return .int(Int64(v))
        case let v as Int16: return .int(Int64(v))
        case let v as Int32: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as Float: return .float(v)
        case let v as Double: return .double(v)
        case let v as String: return .string(v)
        case let v as Data: return .data(v)
        case let v as Date: return .date(v)
        case let v as ObjectId: return .objectId(v)
        case let v as Decimal128: return .decimal128(v)
        case let v as Decimal: return .decimal128(Decimal128(value: v))  // Foundation's decimal, by its digits
        case let v as UUID: return .uuid(v)
        case let v as ObjectBase: return .object(v)
        case let v as DynamicObject: return v.storedLink
        case let v as any _StorableValue: return v._store()
        case let v as any RawRepresentable:
            return stored(v.rawValue, realm: realm)
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let inner = mirror.children.first?.value else { return .null }
                return stored(inner, realm: realm)
            }
            return nil
        }
    }

    /// Property contents in schema order for `create`: what `value` gives (see `inputs`), the defaults of a new
    /// object for the rest. Nil after recording an error in `realm`'s write transaction. A dictionary key that names
    /// no property is ignored, as Realm ignores it (JSON from elsewhere often carries more fields than the model).
    static func contents(of value: Any, for table: TableInfo, realm: RealmInstance) -> [_PropertyContent]? {
        guard let inputs = inputs(of: value, schema: table.schema, context: ManagedObjectInput(realm: realm)) else {
            return nil
        }
        guard inputs.contains(where: { $0 == nil }) else { return inputs.map { $0! } }
        let defaults = table.objectType.map { PropertyReflection.contents(of: $0.init()) }
        return inputs.enumerated().map { i, input in
            if let input { return input }
            if table.schema.allProperties[i].type == .linkingObjects { return .computed }
            return defaults?[i] ?? .value(.null)
        }
    }

    /// The content of one property for `create` and the dynamic API (nil after recording an error in `realm`).
    static func content(_ value: Any, property: Property, className: String, realm: RealmInstance)
        -> _PropertyContent?
    {
        content(value, property: property, className: className, context: ManagedObjectInput(realm: realm))
    }

    /// Property contents in schema order from what Realm accepts as an object's value: a dictionary of property
    /// values, an array of values in property order (shorter is allowed), an object of the same class, or any other
    /// object or value whose properties have the schema's names. Nil marks a property the value leaves out (and
    /// linking-objects properties). Nil overall after `context.fail`.
    static func inputs(of value: Any, schema: ObjectSchema, context: some ObjectInputContext) -> [_PropertyContent?]? {
        let className = schema.className
        var out: [_PropertyContent?] = []
        out.reserveCapacity(schema.allProperties.count)
        func append(_ given: Any, _ property: Property) -> Bool {
            guard let content = content(given, property: property, className: className, context: context) else {
                return false
            }
            out.append(content)
            return true
        }
        if let dictionary = value as? [String: Any] {
            // Keys that name no property are ignored, as in Realm.
            for property in schema.allProperties {
                guard property.type != .linkingObjects, let given = dictionary[property.name] else {
                    out.append(nil)
                    continue
                }
                guard append(given, property) else { return nil }
            }
            return out
        }
        if let array = value as? [Any] {
            let persistedCount = schema.allProperties.count { $0.type != .linkingObjects }
            guard array.count <= persistedCount else {
                context.fail("Invalid array input: more values (\(array.count)) than properties (\(persistedCount)).")
                return nil
            }
            var next = array.startIndex
            for property in schema.allProperties {
                guard property.type != .linkingObjects, next < array.endIndex else {
                    out.append(nil)
                    continue
                }
                guard append(array[next], property) else { return nil }
                next += 1
            }
            return out
        }
        if let object = value as? ObjectBase {
            if object.isInvalidated {
                context.fail("Object has been deleted or invalidated.")
                return nil
            }
            if type(of: object).className() == className {
                // The same class: its contents are already in stored form.
                for property in schema.allProperties {
                    guard property.type != .linkingObjects,
                        let content = PropertyReflection.value(of: object, property: property.name)
                    else {
                        out.append(nil)
                        continue
                    }
                    out.append(property.type == .object && object._row != nil ? copyingEmbedded(content) : content)
                }
                return out
            }
        }
        if isNull(value) {
            context.fail("Must provide a non-nil value.")
            return nil
        }
        // Any other object or value: its properties by name, as Realm reads them with key-value coding.
        for property in schema.allProperties {
            guard property.type != .linkingObjects else {
                out.append(nil)
                continue
            }
            guard let given = propertyValue(named: property.name, of: value) else {
                context.fail("Invalid value '\(value)' to initialize object of type '\(className)': "
                    + "missing key '\(property.name)'")
                return nil
            }
            guard append(given, property) else { return nil }
        }
        return out
    }

    /// `content` with each managed embedded object replaced by an unmanaged copy (at any depth): a new object made
    /// from a managed one gets embedded objects of its own, as Realm's `create` does.
    private static func copyingEmbedded(_ content: _PropertyContent) -> _PropertyContent {
        func copy(_ value: _StoredValue) -> _StoredValue {
            guard case .object(let object) = value, object._row != nil, object.objectSchema.isEmbedded,
                !(object is DynamicObject)
            else { return value }
            let detached = type(of: object).init()
            UnmanagedObjectInput.populate(detached, from: object)
            return .object(detached)
        }
        switch content {
        case .value(let value): return .value(copy(value))
        case .list(let items): return .list(items.map(copy))
        case .set(let items): return .set(items.map(copy))
        case .map(let entries): return .map(entries.map { ($0.0, copy($0.1)) })
        case .computed: return content
        }
    }

    /// The content of one property from an untyped value (nil after `context.fail` if it does not fit).
    static func content(_ value: Any, property: Property, className: String, context: some ObjectInputContext)
        -> _PropertyContent?
    {
        func notEnumerable() -> _PropertyContent? {
            context.fail("Invalid value (\(value)) for \(describe(property)) property '\(className).\(property.name)': "
                + "value is not enumerable.")
            return nil
        }
        switch property.collection {
        case .none:
            if property.type == .linkingObjects { return .computed }
            return element(value, property: property, className: className, context: context).map { .value($0) }
        case .list, .set:
            // As in Realm, nil is an empty collection.
            guard let items = sequenceElements(value) ?? (isNull(value) ? [] : nil) else { return notEnumerable() }
            var out: [_StoredValue] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard let e = element(item, property: property, className: className, context: context) else {
                    return nil
                }
                out.append(e)
            }
            return property.collection == .list ? .list(out) : .set(out)
        case .map:
            guard let entries = mapEntries(value) ?? (isNull(value) ? [:] : nil) else { return notEnumerable() }
            var out: [(String, _StoredValue)] = []
            out.reserveCapacity(entries.count)
            for key in entries.keys.sorted() {
                guard let e = element(entries[key]!, property: property, className: className, context: context) else {
                    return nil
                }
                out.append((key, e))
            }
            return .map(out)
        }
    }

    /// One value or collection element. A link takes an object of its class as it is; a dictionary, an array or
    /// another object describes a new one.
    private static func element(_ value: Any, property: Property, className: String,
                                context: some ObjectInputContext) -> _StoredValue?
    {
        func mismatch() -> _StoredValue? {
            context.fail("Invalid value '\(value)' of type '\(type(of: value))' for \(describe(property)) property "
                + "'\(className).\(property.name)'.")
            return nil
        }
        if property.type == .object {
            // A custom-persistable value stands for the (embedded) object it maps to.
            if let custom = value as? any _CustomPersistable, let object = custom._persisted as? ObjectBase,
                type(of: object).className() == property.objectClassName
            {
                return .object(object)
            }
            // A managed embedded object belongs to its parent: the new object gets a copy (Realm's create).
            if let object = value as? ObjectBase, object._row != nil, object.objectSchema.isEmbedded,
                type(of: object).className() == property.objectClassName,
                case .value(let copy) = copyingEmbedded(.value(.object(object)))
            {
                return copy
            }
            if let object = value as? ObjectBase, type(of: object).className() == property.objectClassName {
                return .object(object)
            }
            if let dynamic = value as? DynamicObject { return dynamic.storedLink ?? mismatch() }
            if isNull(value) {
                let allowed = !context.convertsTypes || property.collection == .none || property.collection == .map
                return allowed ? .null : mismatch()
            }
            return context.object(from: value, for: property).map { .object($0) }
        }
        if property.type == .mixed { return mixed(value) ?? mismatch() }
        guard let stored = stored(value, realm: nil) else { return mismatch() }
        guard context.convertsTypes else { return stored }
        if stored.isNull { return property.isOptional ? stored : mismatch() }
        // Realm reads decimal text into a decimal property (text that is no number gives NaN, as Decimal128(value:)).
        if property.type == .decimal128, case .string(let text) = stored { return .decimal128(Decimal128(value: text)) }
        return RealmInstance.convert(stored, to: property.type) ?? mismatch()
    }

    /// A mixed value: any Realm value, a Swift array as a nested list, a string-keyed dictionary as a nested
    /// dictionary (at any depth, as Realm takes them).
    private static func mixed(_ value: Any) -> _StoredValue? {
        if let stored = stored(value, realm: nil) { return stored }
        if let dictionary = value as? [String: Any] {
            var entries: [String: _StoredValue] = [:]
            for (key, item) in dictionary {
                guard let stored = mixed(item) else { return nil }
                entries[key] = stored
            }
            return .dictionary(entries)
        }
        if let array = value as? [Any] {
            var items: [_StoredValue] = []
            for item in array {
                guard let stored = mixed(item) else { return nil }
                items.append(stored)
            }
            return .list(items)
        }
        return nil
    }

    /// Realm's name for a property's type in messages: `'int'`, `'string?' array`, `'Dog?'`.
    static func describe(_ property: Property) -> String {
        let base = (property.type == .object ? property.objectClassName ?? "object" : property.type.realmName)
            + (property.isOptional ? "?" : "")
        switch property.collection {
        case .none: return "'\(base)'"
        case .list: return "'\(base)' array"
        case .set: return "'\(base)' set"
        case .map: return "'\(base)' dictionary"
        }
    }

    /// Whether a value is nil (also inside `Any`) or `NSNull`.
    static func isNull(_ value: Any) -> Bool {
        if value is NSNull { return true }
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    /// A property of any value by name, found with `Mirror` (through superclasses and property wrappers).
    private static func propertyValue(named name: String, of value: Any) -> Any? {
        if let object = value as? ObjectBase {
            guard let content = PropertyReflection.value(of: object, property: name) else { return nil }
            return untyped(content)
        }
        var mirror: Mirror? = Mirror(reflecting: value)
        while let current = mirror {
            for child in current.children where child.label == name || child.label == "_" + name {
                return child.value
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// A stored property content as the plain values `content` accepts.
    private static func untyped(_ content: _PropertyContent) -> Any {
        func plain(_ value: _StoredValue) -> Any {
            switch value {
            case .list, .dictionary: return AnyRealmValue._load(value) ?? NSNull()
            default: return value.anyValue ?? NSNull()
            }
        }
        switch content {
        case .value(let v): return plain(v)
        case .list(let items), .set(let items): return items.map(plain)
        case .map(let entries): return Dictionary(entries.map { ($0.0, plain($0.1)) }, uniquingKeysWith: { a, _ in a })
        case .computed: return NSNull()
        }
    }

    /// The elements of an array or of any Realm collection (a list's value, a query's `IN %@` argument).
    static func sequenceElements(_ value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        if let collection = value as? any _OutpostCollectionContents { return collection._elementsAsAny() }
        // Results, LinkingObjects and AnyRealmCollection: Realm takes any of its collections as a list's value.
        if let collection = value as? any RealmCollection { return collection.map { $0 as Any } }
        return nil
    }

    private static func mapEntries(_ value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let map = value as? any _OutpostMapContents { return map._entriesAsAny() }
        return nil
    }
}

/// Collections whose elements can be read untyped (for `create(_:value:)` and `init(value:)`).
protocol _OutpostCollectionContents {
    func _elementsAsAny() -> [Any]
}

/// Maps whose entries can be read untyped (for `create(_:value:)` and `init(value:)`).
protocol _OutpostMapContents {
    func _entriesAsAny() -> [String: Any]
}
