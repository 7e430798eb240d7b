import Foundation
import OutpostCore

/// Declares a property of a ``Projection``: a key path into the projection's root object, read (and, when the key path
/// is writable, written) through that object.
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// }
/// ```
@propertyWrapper
public struct Projected<T: ObjectBase, Value> {
    /// Where the value lives in the root object.
    let projectedKeyPath: KeyPath<T, Value>

    /// Declares a property that reads `projectedKeyPath` of the projection's root object.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        self.projectedKeyPath = projectedKeyPath
    }

    @available(*, unavailable, message: "@Projected can only be used as a property on a Projection")
    public var wrappedValue: Value {
        // The static subscript below is used instead: the wrapper only works inside a Projection.
        get { fatalError("called wrappedValue getter") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("called wrappedValue setter") }
    }

    /// Reads and writes through the projection's root object. Writing a managed object needs a write transaction, as
    /// writing the object's own property does; a key path that is not writable (`lastName.localizedUppercase`) traps.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            projection.rootObject[keyPath: projection[keyPath: storageKeyPath].projectedKeyPath]
        }
        set {
            let keyPath = projection[keyPath: storageKeyPath].projectedKeyPath
            guard let writable = keyPath as? ReferenceWritableKeyPath<T, Value> else {
                preconditionFailure("KeyPath is not writable")
            }
            projection.rootObject[keyPath: writable] = newValue
        }
    }
}

/// A `@Projected` wrapper seen through `Mirror`, with its root type erased: what the projection schema is built from.
protocol ProjectedDeclaration {
    /// The property the wrapper declares, named `label`, with the root property names its key path visits.
    func property(label: String) -> ProjectionProperty
}

extension Projected: ProjectedDeclaration {
    func property(label: String) -> ProjectionProperty {
        // The key path is evaluated on a probe of the root class, whose `@Persisted` getters report their names.
        let tracer = _KeyPathTracer()
        let probe = tracer.probe(T.self) as! T
        let value = probe[keyPath: projectedKeyPath]
        guard !tracer.names.isEmpty else {
            fatalError("@Projected property '\(label)' must be a part of Realm object")
        }
        let origin = tracer.names.joined(separator: ".")
        // A projected collection is watched down to the property its elements are mapped through.
        let elementName = (value as? any ProjectedCollectionTracing)?.elementPropertyName ?? ""
        return ProjectionProperty(label: label, keyPath: projectedKeyPath, origin: origin,
                                  watched: elementName.isEmpty ? origin : "\(origin).\(elementName)")
    }
}
