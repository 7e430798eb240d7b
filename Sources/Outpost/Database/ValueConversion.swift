import Foundation
import OutpostCore

/// Converts untyped values (`create(_:value:)` dictionaries and arrays, query arguments, primary
/// keys) to stored values.
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

    /// Property contents (in schema order) from a dictionary, an array in property order, or an object.
    static func contents(of value: Any, for table: TableInfo, realm: RealmInstance) -> [_PropertyContent]? {
        let schema = table.schema
        let className = schema.className
        var out: [_PropertyContent] = []
        if let object = value as? ObjectBase {
            for property in schema.properties {
                out.append(PropertyReflection.value(of: object, property: property.name) ?? .computed)
            }
            return out
        }
        let probe = table.objectType?.init()
        let defaults = probe.map { PropertyReflection.persistedChildren(of: $0) } ?? []
        func defaultContent(_ i: Int) -> _PropertyContent {
            i < defaults.count ? defaults[i].wrapper.content() : .value(.null)
        }
        if let dictionary = value as? [String: Any] {
            for key in dictionary.keys where table.propertyIndexByName[key] == nil {
                realm.fail(Realm.Error(.invalidInput, "Invalid property name '\(key)' for class '\(className)'."))
                return nil
            }
            for (i, property) in schema.properties.enumerated() {
                if let given = dictionary[property.name] {
                    guard let content = content(given, property: property, className: className, realm: realm) else {
                        return nil
                    }
                    out.append(content)
                } else {
                    out.append(defaultContent(i))
                }
            }
            return out
        }
        if let array = value as? [Any] {
            let stored = schema.properties.filter { $0.type != .linkingObjects }
            guard array.count == stored.count else {
                realm.fail(Realm.Error(.invalidInput,
                    "Invalid array input: number of values (\(array.count)) does not match number of properties "
                        + "(\(stored.count)) of '\(className)'."))
                return nil
            }
            var iterator = array.makeIterator()
            for property in schema.properties {
                if property.type == .linkingObjects { out.append(.computed); continue }
                guard let content = content(iterator.next()!, property: property, className: className, realm: realm)
                else { return nil }
                out.append(content)
            }
            return out
        }
        realm.fail(Realm.Error(.invalidInput,
            "Invalid value '\(value)' to initialize object of type '\(className)': expected a dictionary, an array or an object."))
        return nil
    }

    /// The content of one property from an untyped value (nil, after recording an error, if it does not fit).
    static func content(_ value: Any, property: Property, className: String, realm: RealmInstance)
        -> _PropertyContent?
    {
        func element(_ v: Any) -> _StoredValue? {
            if property.type == .object, !(v is ObjectBase), let target = realm.table(named: property.objectClassName ?? ""),
                v is [String: Any] || v is [Any]
            {
                // A nested dictionary or array creates the linked object.
                guard let contents = contents(of: v, for: target, realm: realm) else { return nil }
                let object = target.objectType!.init()
                guard let row = realm.insertRow(target, contents: contents, update: .error, object: object) else {
                    return nil
                }
                if target.schema.isEmbedded { realm.parentlessEmbeddedRows.insert(ObjectIdentifier(row)) }
                return .object(object)
            }
            guard let s = stored(v, realm: realm) else {
                realm.fail(Realm.Error(.invalidInput,
                    "Invalid value '\(v)' of type '\(type(of: v))' for '\(property.typeDescription)' property "
                        + "'\(className).\(property.name)'."))
                return nil
            }
            return s
        }
        switch property.collection {
        case .none:
            if property.type == .linkingObjects { return .computed }
            return element(value).map { .value($0) }
        case .list, .set:
            guard let items = sequenceElements(value) else {
                realm.fail(Realm.Error(.invalidInput,
                    "Invalid value '\(value)' for collection property '\(className).\(property.name)': expected an array."))
                return nil
            }
            var out: [_StoredValue] = []
            for item in items {
                guard let e = element(item) else { return nil }
                out.append(e)
            }
            return property.collection == .list ? .list(out) : .set(out)
        case .map:
            guard let dictionary = value as? [String: Any] else {
                realm.fail(Realm.Error(.invalidInput,
                    "Invalid value '\(value)' for map property '\(className).\(property.name)': expected a dictionary."))
                return nil
            }
            var out: [(String, _StoredValue)] = []
            for key in dictionary.keys.sorted() {
                guard let e = element(dictionary[key]!) else { return nil }
                out.append((key, e))
            }
            return .map(out)
        }
    }

    private static func sequenceElements(_ value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        if let collection = value as? any _OutpostCollectionContents { return collection._elementsAsAny() }
        return nil
    }
}

/// Collections whose elements can be read untyped (for `create(_:value:)`).
protocol _OutpostCollectionContents {
    func _elementsAsAny() -> [Any]
}
