import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Collections listed in `sync.asymmetric_tables` (Data Ingest): uploads insert documents once, a later write to one
/// (its uploader's or another user's) is dropped, nothing of them enters the history, and they cannot be subscribed
/// to. Real WebSocket connections to an in-process server on every storage driver.
@Suite struct AsymmetricTablesTests {
    static func app() -> AppDefinition {
        var app = AppDefinition.development(appId: "ingest")
        app.sync.asymmetricTables = ["Reading"]
        return app
    }

    @Test(arguments: Driver.enabled)
    func uploadsInsertOnceAndAreNeverSubscribedTo(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(configuration: Self.app(), storage: storage) { server in
                var first = try await ObjectNameTests.Connection.flexible(server)
                let id = Value.objectId(.generate())
                let versionBefore = try await storage.latestServerVersion(appId: server.appId)
                #expect(try await first.upload([.create(className: "Reading", primaryKey: id,
                                                        fields: ["sensor": .string("a"), "value": .double(1)])]) == nil)
                let stored = try await storage.document(appId: server.appId, collection: "Reading", primaryKey: id)
                #expect(stored?["sensor"] == .string("a"))
                #expect(try await storage.latestServerVersion(appId: server.appId) == versionBefore,
                        "an asymmetric insert is not in the history")

                // The same key again, from the uploader and from another user: dropped, no error.
                #expect(try await first.upload([.create(className: "Reading", primaryKey: id, fields: ["sensor": .string("b")])]) == nil)
                var second = try await ObjectNameTests.Connection.flexible(server)
                #expect(try await second.upload([.set(className: "Reading", primaryKey: id, field: "sensor", value: .string("x"))]) == nil)
                #expect(try await second.upload([.erase(className: "Reading", primaryKey: id)]) == nil)
                #expect(try await storage.document(appId: server.appId, collection: "Reading", primaryKey: id)?["sensor"]
                    == .string("a"))

                second.client.send(.query(session: 1, subscriptions: SubscriptionQuery(version: 2, queries: [
                    "Item": "TRUEPREDICATE", "Reading": "TRUEPREDICATE",
                ])))
                let refusal = try await second.client.next { if case .queryError = $0 { true } else { false } }
                guard case .queryError(_, let version, let code, let message) = refusal else {
                    Issue.record("expected a query error, got \(refusal)")
                    return
                }
                #expect(version == 2 && code == .badQuery)
                #expect(message == "Invalid query: table \"Reading\" is asymmetric: its objects are only uploaded and cannot be subscribed to")
                await first.client.close()
                await second.client.close()
            }
        }
    }

    @Test func theConfigurationListsThemForFlexibleSyncOnly() throws {
        let app = try AppDefinition(jsonText: #"{"app_id": "a", "sync": {"mode": "flexible", "asymmetric_tables": ["Reading"]}}"#)
        #expect(app.sync.asymmetricTables == ["Reading"])
        #expect(try AppDefinition(jsonText: app.jsonText) == app)
        #expect(try SyncAppSettings(app: app).asymmetricTables == ["Reading"])
        #expect(throws: ConfigurationError.self) {
            try AppDefinition(jsonText: #"""
                {"app_id": "p", "sync": {"mode": "partition", "partition": {"key": "k", "type": "string"},
                 "asymmetric_tables": ["Reading"]}}
                """#)
        }
    }
}
