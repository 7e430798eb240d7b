import Foundation
import Outpost
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

final class AsymReading: AsymmetricObject {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var sensor: String
    @Persisted var value: Double
    @Persisted var place: AsymPlace?
}

final class AsymPlace: EmbeddedObject {
    @Persisted var room: String
}

/// `AsymmetricObject` against a real server whose app lists the collection in `asymmetric_tables`: created objects
/// upload and leave the device, the server inserts them once, and nothing of them is downloaded.
@Suite(.timeLimit(.minutes(2))) struct AsymmetricObjectTests {
    static func serverApp(_ appId: String) -> AppDefinition {
        var app = AppDefinition.development(appId: appId)
        app.sync.asymmetricTables = ["AsymReading"]
        return app
    }

    @Test func createdObjectsUploadAndLeaveTheDevice() async throws {
        try await withTestServer(configuration: Self.serverApp("asymmetric")) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var config = user.flexibleSyncConfiguration()
                config.objectTypes = [AsymReading.self, AsymPlace.self]
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                let ids = [ObjectId.generate(), ObjectId.generate()]
                try realm.write {
                    realm.create(AsymReading.self, value: ["_id": ids[0], "sensor": "a", "value": 1.5,
                                                           "place": ["room": "lab"]])
                    realm.create(AsymReading.self, value: [ids[1], "b", 2.5])
                }
                #expect(realm.isEmpty, "asymmetric objects leave the device at the commit")
                try await realm.syncSession!.wait(for: .upload)
                let first = try #require(try await server.storage.document(
                    appId: server.appId, collection: "AsymReading", primaryKey: .objectId(ids[0])))
                #expect(first["sensor"] == .string("a") && first["value"] == .double(1.5))
                #expect(first["place"] == .document(["room": .string("lab")]))
                #expect(try await server.storage.document(
                    appId: server.appId, collection: "AsymReading", primaryKey: .objectId(ids[1]))?["value"] == .double(2.5))

                // The same key again, later, from this user and from another one: inserted once, the first kept.
                try realm.write { realm.create(AsymReading.self, value: ["_id": ids[0], "sensor": "again", "value": 9.0]) }
                try await realm.syncSession!.wait(for: .upload)
                try await app.emailPasswordAuth.registerUser(email: "other@example.com", password: "password1")
                let other = try await app.login(credentials: .emailPassword(email: "other@example.com", password: "password1"))
                var otherConfig = other.flexibleSyncConfiguration()
                otherConfig.objectTypes = [AsymReading.self, AsymPlace.self]
                let otherRealm = try await Realm(configuration: otherConfig, downloadBeforeOpen: .always)
                try otherRealm.write {
                    otherRealm.create(AsymReading.self, value: ["_id": ids[0], "sensor": "taken", "value": 0.0])
                }
                try await otherRealm.syncSession!.wait(for: .upload)
                #expect(try await server.storage.document(
                    appId: server.appId, collection: "AsymReading", primaryKey: .objectId(ids[0]))?["sensor"] == .string("a"))
                #expect(otherRealm.isEmpty)
                try await realm.syncSession!.wait(for: .download)
                #expect(realm.isEmpty, "nothing of them is downloaded")
            }
        }
    }
}
