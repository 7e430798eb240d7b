import Foundation
import OutpostCore
import Testing

@testable import Outpost
import OutpostTesting

final class LocalAsymReading: AsymmetricObject {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var value: Int
}

/// Realm's schema checks of asymmetric classes, with its texts.
@Suite struct AsymmetricSchemaTests {
    @Test func aLocalRealmCannotHoldThem() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        #expect(LocalAsymReading.sharedSchema()?.isAsymmetric == true)
        do {
            _ = try Realm(configuration: dir.configuration(objectTypes: [LocalAsymReading.self]))
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.message == "Schema validation failed due to the following errors:\n"
                + "- Asymmetric table 'LocalAsymReading' not allowed in a local Realm")
        }
        // The default schema of a local Realm leaves them out (Realm would fail the open).
        let realm = try Realm(configuration: dir.configuration("default.realm"))
        #expect(realm.schema["LocalAsymReading"] == nil)
    }

    @Test func linksToThemAndPartitionSyncAreRefused() {
        let reading = ObjectSchema(className: "Reading", properties: [], isAsymmetric: true)
        let holder = ObjectSchema(className: "Holder", properties: [
            Property(name: "one", type: .object, isOptional: true, objectClassName: "Reading"),
            Property(name: "many", type: .object, collection: .list, objectClassName: "Reading"),
        ])
        #expect(RealmInstance.asymmetricSchemaErrors([reading, holder], isFlexibleSync: true, isSynced: true) == [
            "Property 'Holder.one' of type 'object' cannot be a link to an asymmetric object.",
            "Property 'Holder.many' of type 'array' cannot be a link to an asymmetric object.",
        ])
        #expect(RealmInstance.asymmetricSchemaErrors([reading], isFlexibleSync: false, isSynced: true)
            == ["Asymmetric table 'Reading' not allowed in partition based sync"])
        #expect(RealmInstance.asymmetricSchemaErrors([holder], isFlexibleSync: false, isSynced: false).isEmpty)
    }

    /// Stored schemas written before `isAsymmetric` existed still read.
    @Test func olderStoredSchemasRead() throws {
        let text = #"{"className":"Old","properties":[],"isEmbedded":false}"#
        let schema = try JSONDecoder().decode(ObjectSchema.self, from: Data(text.utf8))
        #expect(!schema.isAsymmetric && schema.className == "Old")
        let again = try JSONDecoder().decode(ObjectSchema.self, from: JSONEncoder().encode(
            ObjectSchema(className: "New", properties: [], isAsymmetric: true)))
        #expect(again.isAsymmetric)
    }
}
