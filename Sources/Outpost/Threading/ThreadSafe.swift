import Foundation
import OutpostCore
import Synchronization

/// A property that holds a managed object or collection and can be read on any thread: each read resolves it in
/// the reading thread's Realm (nil once it is deleted).
///
/// ```swift
/// @ThreadSafe var dog = realm.objects(Dog.self).first
/// DispatchQueue.global().async { print(dog?.name ?? "gone") }
/// ```
@propertyWrapper public final class ThreadSafe<T: ThreadConfined>: @unchecked Sendable {  // state behind `lock`
    /// Where the value lives: resolvable any number of times, unlike a `ThreadSafeReference`.
    private var handle: _ThreadSafeHandle?
    private var configuration: Realm.Configuration?
    private let lock = NSLock()

    public var wrappedValue: T? {
        get {
            // The lock guards the stored handle only: resolving may refresh the Realm and deliver notifications,
            // whose observers may read this property again.
            lock.lock()
            let (handle, configuration) = (self.handle, self.configuration)
            lock.unlock()
            guard let handle, let configuration else { return nil }
            let realm: Realm
            do {
                realm = try Realm(configuration: configuration)
            } catch {
                fatalError("\(error)")
            }
            return realm.resolve(handle, as: T.self)
        }
        set {
            guard let newValue else {
                lock.lock()
                handle = nil
                lock.unlock()
                return
            }
            guard let realm = Self.realm(of: newValue), let newHandle = newValue._threadSafeHandle,
                !newValue.isInvalidated
            else {
                fatalError("Only managed objects may be wrapped as thread safe.")
            }
            lock.lock()
            configuration = realm.configuration
            handle = newHandle
            lock.unlock()
        }
    }

    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }

    private static func realm(of value: T) -> Realm? {
        switch value {
        case let object as ObjectBase: object.realm
        case let collection as any RealmCollection: collection.realm
        default: (value as? any _RealmOwned)?.realm
        }
    }
}

/// Thread-confined values with a Realm that are not `RealmCollection`s (`Map`).
protocol _RealmOwned {
    var realm: Realm? { get }
}

extension Map: _RealmOwned {}
