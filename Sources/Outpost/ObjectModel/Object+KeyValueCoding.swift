import Foundation
import OutpostCore

extension ObjectBase {
    /// `self[key]` of a model object (its `@Persisted` fields).
    func _keyValueGet(_ key: String) -> Any? {
        do {
            let field = Self.field(named: key, of: self)
            if let row = _row {
                guard let (index, _) = row.table.property(named: key) else { Self.invalidName(key, of: self) }
                return KeyValueBridge.flatten(field.type.managedValue(_PropertyAccessor(row: row, propertyIndex: index)))
            }
            return withExtendedLifetime(self) {
                let base = Unmanaged.passUnretained(self).toOpaque()
                return KeyValueBridge.flatten(field.type.value(at: base.advanced(by: field.offset)))
            }
        }
    }

    /// `self[key] = newValue` of a model object.
    func _keyValueSet(_ key: String, _ newValue: Any?) {
        do {
            _ = Self.field(named: key, of: self)
            let value = newValue ?? NSNull()
            if let row = _row {
                let realm = row.realm
                realm.requireWrite()  // before the value is converted: a nested object would be inserted
                guard let (index, property) = row.table.property(named: key) else { Self.invalidName(key, of: self) }
                guard let content = ValueConversion.content(value, property: property, className: row.table.className,
                                                            realm: realm)
                else { return }
                realm.setProperty(row, index, content)
                return
            }
            let type = type(of: self)
            let schema = ObjectSchemaRegistry.shared.schema(for: type)
            let context = UnmanagedObjectInput(ownerType: type)
            guard let inputs = ValueConversion.inputs(of: [key: value], schema: schema, context: context) else { return }
            if let index = PropertyReflection.assign(inputs, to: self) {
                let property = schema.allProperties[index]
                context.fail("Invalid value '\(value)' for \(ValueConversion.describe(property)) property "
                    + "'\(schema.className).\(property.name)'.")
            }
        }
    }

    private static func field(named key: String, of object: ObjectBase) -> PropertyReflection.Field {
        guard let field = PropertyReflection.fields(of: type(of: object)).first(where: { $0.name == key }) else {
            invalidName(key, of: object)
        }
        return field
    }

    private static func invalidName(_ key: String, of object: ObjectBase) -> Never {
        fatalError("Invalid property name '\(key)' for class '\(type(of: object).className())'.")
    }

}

extension ObjectBase {
    /// The value of the property named `key`, as `self[key]` (Realm's objects answer it as `NSObject`s; Outpost's
    /// objects, not `NSObject`s on Linux, have the same call).
    public func value(forKey key: String) -> Any? { self[key] }

    /// The value at a dotted key path through links and embedded objects (`"owner.name"`); nil when a link on the way
    /// is nil. Traps with Realm's text for an unknown name.
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: Any? = self
        for name in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            guard let object = current as? ObjectBase else { return nil }
            current = object[String(name)]
        }
        return current
    }

    /// Sets the property named `key`, as `self[key] = value` (Realm's `NSObject` key-value coding).
    public func setValue(_ value: Any?, forKey key: String) { self[key] = value }

    /// Sets the property at a dotted key path through links and embedded objects (`"owner.name"`); nothing when a
    /// link on the way is nil, as `NSObject`'s key-value coding does. Traps with Realm's text for an unknown name.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        var names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = names.removeLast()
        var object: ObjectBase = self
        for name in names {
            guard let next = object[name] as? ObjectBase else { return }
            object = next
        }
        object[last] = value
    }
}

/// Values as Realm's key-value coding answers them (through Objective-C there): an optional unwrapped (nil for
/// nil), an enum as its raw value, an `AnyRealmValue` as what it holds. Objects, maps and collections share it.
enum KeyValueBridge {
    /// `value` unwrapped from the optional it may be, nil for a nil optional; an enum as its raw value (what the file
    /// holds, as Realm's key-value coding answers).
    static func flatten(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else {
            if let persistable = value as? any PersistableEnum { return persistable.rawValue }
            if let mixed = value as? AnyRealmValue { return payload(of: mixed) }
            return value
        }
        guard let wrapped = mirror.children.first?.value else { return nil }
        return flatten(wrapped)
    }

    /// What an `AnyRealmValue` holds, as Realm's key-value coding answers it (`1` for `.int(1)`, nil for `.none`).
    static func payload(of value: AnyRealmValue) -> Any? {
        switch value {
        case .none: nil
        case .int(let v): v
        case .bool(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .object(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        case .list(let v): v
        case .dictionary(let v): v
        }
    }
}
