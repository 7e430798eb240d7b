import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// Documents written through the Data API reach synced clients (reference/sync.md §6, `testSubscribeAlways`).
@Suite struct DataAPISyncTests {
    @Test(arguments: Driver.enabled)
    func dataAPIInsertReachesASubscribedClient(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(storage: storage) { server in
                let login = try await SyncWebSocketTests.anonymousLogin(server.client, appId: server.appId)
                let client = try await SyncTestClient.connect(url: server.syncURL(), accessToken: login.token)
                try await SyncWebSocketTests.bindAndSubscribe(client, query: ["Item": "name == \"from-data-api\""])
                let response = try await server.client.send(
                    "POST", server.clientPath("data/Item/insertOne"),
                    rawBody: #"{"document": {"_id": "d1", "name": "from-data-api"}}"#, bearer: login.token)
                #expect(response.status == 201, "\(response.text)")
                let download = try await client.next { !SyncWebSocketTests.upserted($0).isEmpty }
                #expect(SyncWebSocketTests.upserted(download) == [.string("d1")])
                await client.close()
            }
        }
    }
}
