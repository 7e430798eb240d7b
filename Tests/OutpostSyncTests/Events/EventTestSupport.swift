import Foundation
import OutpostCoreTesting
import OutpostServerTesting
@testable import Outpost

/// The seed page's model, with its custom event representation.
class Person: Object, CustomEventRepresentable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var employeeId: Int
    @Persisted var userId: String?

    convenience init(name: String, employeeId: Int) {
        self.init()
        self.name = name
        self.employeeId = employeeId
    }

    func customEventRepresentation() -> String {
        if employeeId == 0 {
            return "invalid json"
        }
        return "{\"int\": \(employeeId)}"
    }
}

/// A plain model, serialized by default.
final class EvPerson: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var flag: Bool

    convenience init(_ id: Int, _ name: String, _ age: Int) {
        self.init()
        _id = id
        self.name = name
        self.age = age
    }
}

final class EvEmbedded: EmbeddedObject {
    @Persisted var value: Int

    convenience init(_ value: Int) {
        self.init()
        self.value = value
    }
}

/// Every property type.
final class EvAllTypes: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var bool: Bool
    @Persisted var int: Int
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var optionalString: String?
    @Persisted var optionalData: Data?
    @Persisted var intList: List<Int>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var intMap: Map<String, Int?>
    @Persisted var link: EvPerson?
    @Persisted var linkList: List<EvPerson>
    @Persisted var embedded: EvEmbedded?
    @Persisted var embeddedList: List<EvEmbedded>
}

/// A fresh directory (under the run's `ScratchRoot`) with a local Realm configuration that records events.
func localEventConfiguration(_ events: EventConfiguration = EventConfiguration(), types: [ObjectBase.Type])
    throws -> Realm.Configuration
{
    let dir = try ScratchRoot.directory("outpost-events")
    var config = Realm.Configuration(fileURL: dir.appendingPathComponent("default.realm"), objectTypes: types)
    config.eventConfiguration = events
    return config
}

/// Every stored event of the Realm's event store, in `_id` order.
/// The events the server's `AuditEvent` collection holds, as stored events (metadata: the other string fields), in
/// `_id` order.
func serverEvents(_ server: TestServer) async throws -> [StoredEvent] {
    let fixed: Set<String> = ["_id", "timestamp", "activity", "event", "data"]
    return try await server.storage.documents(appId: server.appId, collection: "AuditEvent").compactMap { document in
        guard case .objectId(let id)? = document["_id"], case .date(let timestamp)? = document["timestamp"],
            case .string(let activity)? = document["activity"]
        else { return nil }
        func text(_ key: String) -> String? { if case .string(let s)? = document[key] { s } else { nil } }
        var metadata: [String: String] = [:]
        for key in document.sortedKeys where !fixed.contains(key) { metadata[key] = text(key) }
        return StoredEvent(id: id, timestamp: timestamp, activity: activity, event: text("event"), data: text("data"),
                           metadata: metadata)
    }.sorted { $0.id.stringValue < $1.id.stringValue }
}

func storedEvents(_ realm: Realm) throws -> [StoredEvent] {
    try realm.events!.context.store.shardFiles.flatMap { try EventStore.events(inShard: $0) }.sorted {
        $0.id.stringValue < $1.id.stringValue
    }
}

/// The `data` payloads of the stored events.
func storedData(_ realm: Realm) throws -> [String] {
    try storedEvents(realm).map { $0.data ?? "null" }
}
