import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a thread's Realm alive while it is in a write transaction, until the transaction ends or the thread exits:
/// `try Realm().beginWrite()` … `try Realm().commitWrite()` is one transaction, as with Realm's per-thread cache,
/// and a thread that ends inside a write still rolls it back and lets the next writer in (its instance goes with it).
enum ThreadWritePin {
    /// The instances pinned on one thread; released by the thread-local destructor when the thread exits.
    private final class Pins {
        var instances: [ObjectIdentifier: RealmInstance] = [:]
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        #if canImport(Glibc)
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Pins>.fromOpaque(pointer).release() }
        }
        #else
        pthread_key_create(&key) { pointer in Unmanaged<Pins>.fromOpaque(pointer).release() }
        #endif
        return key
    }()

    private static var current: Pins {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Pins>.fromOpaque(pointer).takeUnretainedValue() }
        let pins = Pins()
        pthread_setspecific(key, Unmanaged.passRetained(pins).toOpaque())
        return pins
    }

    /// Called on the instance's own thread as its write transaction begins.
    static func pin(_ instance: RealmInstance) {
        current.instances[ObjectIdentifier(instance)] = instance
    }

    /// Called on the instance's own thread as its write transaction ends. The caller still holds the instance, so
    /// it does not go away inside this call.
    static func unpin(_ instance: RealmInstance) {
        guard let pointer = pthread_getspecific(key) else { return }
        let pins = Unmanaged<Pins>.fromOpaque(pointer).takeUnretainedValue()
        pins.instances[ObjectIdentifier(instance)] = nil
    }
}
