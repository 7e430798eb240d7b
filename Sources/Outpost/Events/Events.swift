import Foundation

/// Records events for a Realm, as Realm Swift's `Events`: scoped reads and writes, and custom events.
///
/// ```swift
/// let realm = try! Realm(configuration: config)
/// let events = realm.events!
/// let scope = events.beginScope(activity: "read object")
/// let person = realm.objects(Person.self).first!
/// scope.commit()
/// events.recordEvent(activity: "event", eventType: "custom event")
/// ```
///
/// The recording state belongs to the Realm file: every instance of the file in the process shares it.
public struct Events: Sendable {
    let context: EventContext

    /// Starts a scope: reads and writes on the Realm file (from any thread) are recorded until the scope is
    /// committed or cancelled. Scopes may overlap; every active scope records every event.
    public func beginScope(activity: String) -> Scope {
        let (id, metadata) = context.beginScope(activity: activity)
        return Scope(context: context, id: id, activity: activity, metadata: metadata)
    }

    /// Records a custom event, not tied to any scope: `eventType` becomes the event's `event` field and `data` is
    /// stored as given (no JSON check). `completion` is called on a background queue once the event is stored,
    /// with nil, or with the error that kept it from being stored.
    public func recordEvent(activity: String, eventType: String? = nil, data: String? = nil,
                            completion: (@Sendable (Error?) -> Void)? = nil) {
        context.persistCustomEvent(activity: activity, eventType: eventType, data: data, completion: completion)
    }

    /// Records a custom event and returns once it is stored. (Realm Swift offers a Combine `Future` instead.)
    ///
    /// In an `async` context Swift picks this overload, so call it with `try await`.
    public func recordEvent(activity: String, eventType: String? = nil, data: String? = nil) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            context.persistCustomEvent(activity: activity, eventType: eventType, data: data) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Replaces all the metadata added to events. Scopes already begun keep the metadata they started with;
    /// `updateMetadata([:])` removes it. An invalid key is a programming error (Realm terminates too).
    public func updateMetadata(_ newMetadata: [String: String]) {
        context.updateMetadata(newMetadata)
    }
}
