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
    private var reference: ThreadSafeReference<T>?
    private var configuration: Realm.Configuration?
    private let lock = NSLock()

    public var wrappedValue: T? {
        get {
            lock.lock()
            defer { lock.unlock() }
            guard let reference, let configuration else { return nil }
            let realm: Realm
            do {
                realm = try Realm(configuration: configuration)
            } catch {
                fatalError("\(error)")
            }
            guard let value = realm.resolve(reference) else {
                self.reference = nil
                return nil
            }
            // A reference resolves once: keep a new one for the next read.
            self.reference = ThreadSafeReference(to: value)
            return value
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            guard let newValue else {
                reference = nil
                return
            }
            guard let realm = Self.realm(of: newValue) else {
                fatalError("Only managed objects may be wrapped as thread safe.")
            }
            configuration = realm.configuration
            reference = ThreadSafeReference(to: newValue)
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
