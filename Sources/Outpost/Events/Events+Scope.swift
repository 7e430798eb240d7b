import Foundation

extension Events {
    /// A period during which reads and writes are recorded, as Realm Swift's `Events.Scope`.
    ///
    /// End it with ``commit(completion:)`` (store what it recorded) or ``cancel()`` (throw it away). Ending a scope
    /// that is no longer active is a programming error. A scope deallocated while active is cancelled, with a
    /// warning.
    public final class Scope: @unchecked Sendable {
        // @unchecked Sendable: every field is immutable; the state lives in the thread-safe context.
        let context: EventContext
        let id: Int
        let activity: String
        /// The metadata in force when the scope began.
        let metadata: [String: String]

        init(context: EventContext, id: Int, activity: String, metadata: [String: String]) {
            self.context = context
            self.id = id
            self.activity = activity
            self.metadata = metadata
        }

        deinit {
            if context.isActive(id) {
                context.log(.warn, "Deallocating an active event scope. The scope's events will be discarded.")
                _ = context.endScope(id)
            }
        }

        /// True until ``commit(completion:)`` or ``cancel()`` is called.
        public var isActive: Bool { context.isActive(id) }

        /// Ends the scope and stores its events. `completion` is called on a background queue once they are durably
        /// in the on-device event store (not when they are uploaded), or with the error that kept the whole scope
        /// from being stored (for example a ``CustomEventRepresentable`` that returned invalid JSON).
        public func commit(completion: (@Sendable (Error?) -> Void)? = nil) {
            let events = context.endScope(id)
            context.persistScope(id: id, activity: activity, metadata: metadata, events: events, completion: completion)
        }

        /// Ends the scope and returns once its events are stored; throws what kept them from being stored.
        /// (Realm Swift offers a Combine `Future` instead.)
        ///
        /// In an `async` context Swift picks this overload for `scope.commit()`, so call it with `try await`.
        public func commit() async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                commit { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        }

        /// Ends the scope and throws its events away. No completion is called.
        public func cancel() {
            _ = context.endScope(id)
        }
    }
}
