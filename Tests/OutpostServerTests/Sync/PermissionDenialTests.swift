import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// The permission reasons of compensating writes other than the write filter's (which `SeedScenarioTests` covers):
/// insert and delete permissions, and field permissions, both where fields differ (the first denied field in name
/// order is reported) and where every field gets the same answer. Allowed writes beside them are integrated.
@Suite struct PermissionDenialTests {
    static let user = AuthenticatedUser(appId: "perm-app", userId: "6413800c6852d9220b2e2bb1")

    static func settings() throws -> SyncAppSettings {
        let filters = #""document_filters": {"read": true, "write": true}"#
        let rules = try RuleSet.parse(rulesText: """
            {"Clerk": {"roles": [{"name": "clerk", "apply_when": {}, \(filters), "read": true, "write": true,
                                  "fields": {"salary": {"read": true, "write": false}, "bonus": {"read": true, "write": false}}}]},
             "Viewer": {"roles": [{"name": "viewer", "apply_when": {}, \(filters), "read": true, "write": false}]},
             "Ledger": {"roles": [{"name": "append-only", "apply_when": {}, \(filters), "read": true, "write": true,
                                   "delete": false}]},
             "Archive": {"roles": [{"name": "no-new", "apply_when": {}, \(filters), "read": true, "write": true,
                                    "insert": false}]}}
            """)
        return SyncAppSettings(appId: "perm-app", mode: .flexible, queryableFields: [], developmentMode: true,
                               schema: [:], rules: rules)
    }

    static func reason(_ pk: ObjectId, _ table: String, _ text: String) -> String {
        "write to \"\(pk.stringValue)\" in table \"\(table)\" was denied by \(text)"
    }

    @Test(arguments: Driver.enabled)
    func permissionDenialsNameThePermissionAndTheField(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withEngine(storage: storage, settings: [try Self.settings()]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile()
                _ = try await client.subscribe(version: 1, [
                    "Clerk": "TRUEPREDICATE", "Viewer": "TRUEPREDICATE", "Ledger": "TRUEPREDICATE", "Archive": "TRUEPREDICATE",
                ])
                var version: Int64 = 0
                func upload(_ instruction: SyncInstruction) async throws {
                    version += 1
                    try await client.upload(clientVersion: version, [instruction])
                }
                func rejection() async throws -> String? {
                    try await SeedScenarioTests.compensation(client).rejectedUpdates?.first?.reason
                }
                func acknowledged() async throws {
                    let expected = version
                    _ = try await client.next { if case .download(let d) = $0 { d.uploadAck == expected } else { false } }
                }
                func stored(_ table: String, _ pk: ObjectId) async throws -> Document? {
                    try await storage.document(appId: "perm-app", collection: table, primaryKey: .objectId(pk))
                }

                // Field permissions that differ by field: of the two denied fields the first in name order is named.
                let both = ObjectId.generate()
                try await upload(.create(className: "Clerk", primaryKey: .objectId(both), fields: [
                    "name": .string("Ann"), "salary": .int(10), "bonus": .int(1)]))
                #expect(try await rejection() == Self.reason(both, "Clerk", #"field permissions in role "clerk" for field "bonus""#))
                #expect(try await stored("Clerk", both) == nil)
                // A create that writes only writable fields is integrated; a later set of a denied field is not.
                let plain = ObjectId.generate()
                try await upload(.create(className: "Clerk", primaryKey: .objectId(plain), fields: ["name": .string("Bob")]))
                try await acknowledged()
                #expect(try await stored("Clerk", plain)?["name"] == .string("Bob"))
                try await upload(.set(className: "Clerk", primaryKey: .objectId(plain), field: "salary", value: .int(5)))
                #expect(try await rejection() == Self.reason(plain, "Clerk", #"field permissions in role "clerk" for field "salary""#))
                #expect(try await stored("Clerk", plain)?["salary"] == nil)
                try await upload(.set(className: "Clerk", primaryKey: .objectId(plain), field: "name", value: .string("Bo")))
                try await acknowledged()
                #expect(try await stored("Clerk", plain)?["name"] == .string("Bo"))

                // Every field denied alike (top-level write false): the first field in name order, never `_id`.
                let viewed = ObjectId.generate()
                try await upload(.create(className: "Viewer", primaryKey: .objectId(viewed), fields: [
                    "zeta": .int(1), "alpha": .int(2)]))
                #expect(try await rejection() == Self.reason(viewed, "Viewer", #"field permissions in role "viewer" for field "alpha""#))
                #expect(try await stored("Viewer", viewed) == nil)

                // Insert permission.
                let archived = ObjectId.generate()
                try await upload(.create(className: "Archive", primaryKey: .objectId(archived), fields: ["n": .int(1)]))
                #expect(try await rejection() == Self.reason(archived, "Archive", #"insert permission in role "no-new""#))
                #expect(try await stored("Archive", archived) == nil)

                // Delete permission: the entry is created, its erase refused, and it stays.
                let entry = ObjectId.generate()
                try await upload(.create(className: "Ledger", primaryKey: .objectId(entry), fields: ["amount": .int(7)]))
                try await acknowledged()
                try await upload(.erase(className: "Ledger", primaryKey: .objectId(entry)))
                #expect(try await rejection() == Self.reason(entry, "Ledger", #"delete permission in role "append-only""#))
                #expect(try await stored("Ledger", entry)?["amount"] == .int(7))
                await client.close()
            }
        }
    }
}
