import Foundation
import OutpostCore

/// A projection, its root type erased: what projection change notifications are written for (Realm's protocol;
/// ``Projection`` is the one conforming type).
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the projected object.
    associatedtype Root: ObjectBase
    /// The object being projected.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

extension ProjectionObservable {
    /// Registers a block called after every commit that changes a projected property of the root object (`.change`
    /// with the projection's property names) or deletes it (`.deleted`). There is no initial notification.
    ///
    /// A change is reported for every projected property whose root property changed: a change of
    /// `person.address.country` reports each property projected from `address`, as in Realm. A projected collection
    /// (`\Person.friends.projectTo.firstName`) reports insertions and removals, and changes of the elements' mapped
    /// property. Old values are given as `Object.observe` gives them (commits from another thread or process), read
    /// through the projected key path from an unmanaged copy of the root; links and collections have none.
    ///
    /// - Parameters:
    ///   - keyPaths: Only these projected properties, named by their root key path (`"address.city"`, Realm's form)
    ///     or by their own name (`"homeCity"`). Nil or empty observes every projected property.
    ///   - queue: A serial queue to deliver on, with the projection made of the object resolved there.
    ///   - block: Called with each change.
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken
    {
        let properties = ProjectionSchema.properties(of: self).filter { $0.isSelected(by: keyPaths) }
        // On this thread the observer reports this projection; on a queue, one of the object resolved there, made at
        // the first change.
        var projection: Self? = queue == nil ? self : nil
        return rootObject.observe(keyPaths: properties.map(\.watched), on: queue) { (change: ObjectChange<Root>) in
            switch change {
            case .change(let object, let rootChanges):
                let changes = ProjectionSchema.changes(rootChanges, of: object, in: properties)
                guard !changes.isEmpty else { return }
                let current = projection ?? Self(projecting: object)
                projection = current
                block(.change(current, changes))
            case .deleted:
                block(.deleted)
            case .error(let error):
                block(.error(error))
            }
        }
    }

    /// `observe(keyPaths:on:_:)` with the projected properties named by key paths of the projection
    /// (`[\PersonProjection.homeCity]`).
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken
    {
        observe(keyPaths: rootKeyPaths(keyPaths), on: queue, block)
    }

    /// Calls `block` on `actor` after every commit that changes a projected property of the root object (or deletes
    /// it), with the projection resolved in a Realm confined to the actor. There is no initial notification.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void
    ) async -> NotificationToken {
        guard let realm = rootObject.realm, !rootObject.isInvalidated, let handle = _threadSafeHandle else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        realm.instance.verifyAccess()
        if realm.instance.isInWriteTransaction {
            fatalError("Cannot register notification blocks from within write transactions.")
        }
        return await ActorObservation.observe(
            configuration: realm.configuration, handle: handle, on: actor,
            resolve: { realm, handle in realm.resolve(handle, as: Self.self) },
            register: { actor, projection in
                projection.observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<Self>) in
                    actor.invokeIsolated(block, change)
                }
            })
    }

    /// `observe(keyPaths:on:_isolation:_:)` on an actor, with the projected properties named by key paths.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<Self>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void
    ) async -> NotificationToken {
        await observe(keyPaths: rootKeyPaths(keyPaths), on: actor, block)
    }

    /// The root key paths behind key paths of the projection; nil for none (every property), as in Realm.
    private func rootKeyPaths(_ keyPaths: [PartialKeyPath<Self>]) -> [String]? {
        keyPaths.isEmpty ? nil : keyPaths.map { ProjectionSchema.originName(of: $0) }
    }
}

/// A changed property of a projection (Realm's type; projection notifications report `PropertyChange`s, as Realm's
/// do).
public struct ProjectedPropertyChange {
    /// The name of the projected property.
    public let name: String
    /// The value before the change, when known.
    public let oldValue: Any?
    /// The value after the change.
    public let newValue: Any?
}
