import Foundation
import OutpostCore

/// Reading a value for `init(value:)`: bad input traps with Realm's message (Realm raises an exception there, and the
/// initializer cannot throw), values are converted to their property's type at once, and nested values become
/// unmanaged objects.
struct UnmanagedObjectInput: ObjectInputContext {
    /// The class whose properties are read: its `@Persisted` wrappers name the class each link property holds.
    let ownerType: ObjectBase.Type

    var convertsTypes: Bool { true }

    func fail(_ message: String) {
        fatalError(message)
    }

    func object(from value: Any, for property: Property) -> ObjectBase? {
        let field = PropertyReflection.fields(of: ownerType).first { $0.name == property.name }
        guard let type = field?.type.valueTypeInfo.objectType else {
            fail("No class found for property '\(ownerType.className()).\(property.name)'.")
            return nil
        }
        let object = type.init()
        Self.populate(object, from: value)
        return object
    }

    /// Sets the properties of the new, unmanaged `object` from `value` (see `ValueConversion.inputs`).
    static func populate(_ object: ObjectBase, from value: Any) {
        let type = type(of: object)
        let schema = ObjectSchemaRegistry.shared.schema(for: type)
        let context = UnmanagedObjectInput(ownerType: type)
        guard let inputs = ValueConversion.inputs(of: value, schema: schema, context: context) else { return }
        if let index = PropertyReflection.assign(inputs, to: object) {
            let property = schema.allProperties[index]
            context.fail("Invalid value for \(ValueConversion.describe(property)) property "
                + "'\(schema.className).\(property.name)'.")
        }
    }
}
