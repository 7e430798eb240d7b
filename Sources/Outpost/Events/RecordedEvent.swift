import Foundation
import OutpostCore

/// One object as captured for an event: its column values (classes of plain scalar properties), its document
/// (links as primary keys, embedded objects inline), or the text its class's ``CustomEventRepresentable``
/// conformance returned.
enum EventObject: Sendable {
    case row(EventRowWriter, [SQLiteValue])
    case document(OutpostCore.Document)
    case custom(className: String, text: String)
}

/// What one committed transaction changed in one class, for a write event.
struct EventWriteChanges: Sendable {
    var insertions: [EventObject] = []
    var deletions: [EventObject] = []
    var modifications: [(old: EventObject, new: EventObject)] = []

    var isEmpty: Bool { insertions.isEmpty && deletions.isEmpty && modifications.isEmpty }
}

/// One committed transaction's write event: class name → changes, and its JSON text, written on the event worker
/// as soon as the transaction is committed (``EventContext/prepare(_:)``) so that the scope's commit finds it ready.
final class EventWritePayload: @unchecked Sendable {
    // @unchecked Sendable: `classes` is immutable and `prepared` is only touched under `lock`.
    let classes: [String: EventWriteChanges]
    private let lock = NSLock()
    private var prepared: Result<String?, Error>?

    init(_ classes: [String: EventWriteChanges]) {
        self.classes = classes
    }

    /// Writes the JSON text unless already written.
    func prepare() {
        lock.withLock {
            guard prepared == nil else { return }
            prepared = Result {
                // About 200 bytes an object: one allocation instead of a dozen doublings.
                let objects = classes.values.reduce(0) {
                    $0 + $1.insertions.count + $1.deletions.count + $1.modifications.count
                }
                var data = EventJSONWriter(capacity: 256 + 200 * objects)
                return try EventSerializer.writePayload(classes, to: &data) ? data.text : nil
            }
        }
    }

    /// The event's `data` (nil when the transaction changed nothing reportable); throws when a
    /// ``CustomEventRepresentable`` returned invalid JSON.
    func text() throws -> String? {
        prepare()
        return try lock.withLock { try prepared!.get() }
    }
}

/// A read or write recorded while a scope was active, kept until the scope is committed or cancelled.
struct RecordedEvent: Sendable {
    enum Kind: Sendable {
        /// Objects of one class read at one version (a query, one object, or one object reached through a link).
        case read(EventRead)
        /// One committed transaction.
        case write(EventWritePayload)
    }

    let timestamp: Date
    var kind: Kind
}

/// An event row ready for the store.
struct StoredEvent: Sendable, Equatable {
    var id: ObjectId
    var timestamp: Date
    var activity: String
    var event: String?
    var data: String?
    var metadata: [String: String]
}

extension StoredEvent {
    /// About how many bytes the event takes on the wire.
    var estimatedSize: Int {
        var size = 96 + activity.utf8.count + (event?.utf8.count ?? 0) + (data?.utf8.count ?? 0)
        for (key, value) in metadata { size += key.utf8.count + value.utf8.count + 8 }
        return size
    }
}
