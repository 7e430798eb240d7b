import Foundation
import OutpostCore

/// Realm's `observe(keyPaths:on: actor)`: what is observed is handed to the actor as a thread-safe handle, resolved
/// in a Realm confined to the actor, and observed there; each change is delivered on the actor, with the actor
/// isolated, as `block(actor, change)`. The returned token keeps the actor's Realm open until it is invalidated.
enum ActorObservation {
    /// Opens the actor's Realm, resolves `handle` in it and runs `register` on the actor. A cancelled task, a Realm
    /// that cannot be opened or a value that no longer exists give a token that observes nothing and is already
    /// invalidated (`invalidate()` answers false), as Realm's is.
    static func observe<A: Actor, Value>(
        configuration: Realm.Configuration, handle: _ThreadSafeHandle, on actor: A,
        resolve: @escaping @Sendable (Realm, _ThreadSafeHandle) -> Value?,
        register: @escaping @Sendable (isolated A, Value) -> NotificationToken
    ) async -> NotificationToken {
        let carried = UncheckedBox(configuration)
        return await run(on: actor) { actor in
            guard !Task.isCancelled,
                let realm = try? await Realm(configuration: carried.value, actor: actor),
                let value = resolve(realm, handle)
            else {
                let token = NotificationToken {}
                _ = token.invalidate()
                return token
            }
            let inner = register(actor, value)
            return NotificationToken(state: inner.state) {
                withExtendedLifetime(realm) { _ = inner.invalidate() }
            }
        }
    }

    private static func run<A: Actor, T: Sendable>(
        on actor: isolated A, _ body: @Sendable (isolated A) async -> T
    ) async -> T {
        await body(actor)
    }

    /// Observes a managed collection (or map) of `realm` on `actor`: `register` observes it there, handing each
    /// change to the block it is given. Traps with Realm's texts for an unmanaged collection or inside a write.
    static func observe<A: Actor, Value: ThreadConfined, Change>(
        _ collection: Value, realm: Realm?, on actor: A, isolation: isolated (any Actor)?,
        _ block: @Sendable @escaping (isolated A, Change) -> Void,
        register: @escaping @Sendable (Value, @escaping (Change) -> Void) -> NotificationToken
    ) async -> NotificationToken {
        guard let realm, let handle = collection._threadSafeHandle else {
            fatalError("Change notifications are only supported for managed objects")
        }
        realm.instance.verifyAccess()
        if realm.instance.isInWriteTransaction {
            fatalError("Cannot register notification blocks from within write transactions.")
        }
        return await observe(
            configuration: realm.configuration, handle: handle, on: actor,
            resolve: { realm, handle in realm.resolve(handle, as: Value.self) },
            register: { actor, collection in register(collection) { change in actor.invokeIsolated(block, change) } })
    }
}

extension Actor {
    /// Calls `block` with this actor isolated, from code running on it (checked: traps elsewhere). The change is
    /// the actor's Realm's own, made on the actor.
    func invokeIsolated<Change>(_ block: @Sendable (isolated Self, Change) -> Void, _ change: Change) {
        let carried = UncheckedBox(change)
        assumeIsolated { actor in block(actor, carried.value) }
    }
}

extension RealmCollection {
    /// Calls `block` on `actor`, with the collection resolved in a Realm confined to the actor: first with the
    /// initial elements, then after every commit that changes them (only changes to the properties at `keyPaths`
    /// count as modifications).
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void
    ) async -> NotificationToken {
        await ActorObservation.observe(self, realm: realm, on: actor, isolation: _isolation, block) { collection, deliver in
            collection.observe(keyPaths: keyPaths, on: nil, deliver)
        }
    }

    /// Calls `block` with the collection's changes and the initial elements, on the calling thread (`queue` nil) or
    /// on `queue`.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping (RealmCollectionChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// `observe(keyPaths:on:_:)` with the properties named by key paths.
    public func observe(
        keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
        _ block: @escaping (RealmCollectionChange<Self>) -> Void
    ) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _name(for: $0) }, on: queue, block)
    }

    /// `observe(keyPaths:on:_isolation:_:)` on an actor, with the properties named by key paths.
    public func observe<A: Actor>(
        keyPaths: [PartialKeyPath<Element>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmCollectionChange<Self>) -> Void
    ) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}

extension Map {
    /// Calls `block` on `actor`, with the map resolved in a Realm confined to the actor: first with the initial
    /// entries, then after every commit that changes them.
    public func observe<A: Actor>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, RealmMapChange<Map>) -> Void
    ) async -> NotificationToken {
        await ActorObservation.observe(self, realm: realm, on: actor, isolation: _isolation, block) { map, deliver in
            map.observe(keyPaths: keyPaths, on: nil, deliver)
        }
    }
}

extension ObjectBase {
    /// Calls `block` on `actor` after every commit that changes this object (or deletes it), with the object
    /// resolved in a Realm confined to the actor. There is no initial notification.
    public func observe<A: Actor, T: ObjectBase>(
        keyPaths: [String]? = nil, on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void
    ) async -> NotificationToken {
        guard let row = _row, !isInvalidated else {
            fatalError("Only objects which are managed by a Realm support change notifications")
        }
        let realm = Realm(instance: row.realm)
        realm.instance.verifyAccess()
        if realm.instance.isInWriteTransaction {
            fatalError("Cannot register notification blocks from within write transactions.")
        }
        return await ActorObservation.observe(
            configuration: realm.configuration, handle: _ThreadSafeHandle(row: row), on: actor,
            resolve: { realm, handle in handle.row(in: realm).map { realm.instance.object($0.table, $0.rowid) } },
            register: { actor, object in
                object.observe(keyPaths: keyPaths, on: nil) { (change: ObjectChange<T>) in
                    actor.invokeIsolated(block, change)
                }
            })
    }

    /// `observe(keyPaths:on:_isolation:_:)` on an actor, with the properties named by key paths.
    public func observe<A: Actor, T: ObjectBase>(
        keyPaths: [PartialKeyPath<T>], on actor: A, _isolation: isolated (any Actor)? = #isolation,
        _ block: @Sendable @escaping (isolated A, ObjectChange<T>) -> Void
    ) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map { _name(for: $0) }, on: actor, block)
    }
}
