import Foundation
import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

@Suite struct ServerLifecycleTests {
    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("outpost-srv-\(UUID().uuidString)")
    }

    @Test func signingKeyPersistsAcrossStarts() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = MemoryStorage()
        let login = try await withTestServer(storage: storage, dataDirectory: directory) { try await $0.loginAnonymous() }
        let keyFile = directory.appendingPathComponent("signing-key")
        let key = try Data(contentsOf: keyFile)
        try await withTestServer(storage: storage, dataDirectory: directory) { server in
            #expect(try Data(contentsOf: keyFile) == key)
            let profile = try await server.client.get(server.clientPath("auth/profile"), bearer: login.accessToken)
            #expect(profile.status == 200 && profile["user_id"] == login.userId)
            let refreshed = try await server.client.post(server.clientPath("auth/session"), bearer: login.refreshToken)
            #expect(refreshed.status == 201)
        }
        // A new data directory means a new key: the old tokens no longer verify.
        try await withTestServer(storage: storage) { server in
            let profile = try await server.client.get(server.clientPath("auth/profile"), bearer: login.accessToken)
            #expect(profile.status == 401 && profile.code == "invalidSignature")
        }
    }

    @Test func bodyErrorsStillStopTheServer() async throws {
        struct Boom: Error {}
        let port = PortBox()
        await #expect(throws: Boom.self) {
            try await withTestServer { server in
                port.set(server.port)
                throw Boom()
            }
        }
        // The port is closed again.
        let client = TestHTTPClient(baseURL: "http://127.0.0.1:\(port.get())")
        await #expect(throws: (any Error).self) { try await client.get("/health") }
    }

    @Test func configurationDefaults() {
        let configuration = OutpostServerConfiguration()
        #expect(configuration.host == "127.0.0.1" && configuration.port == 9090)
        #expect(configuration.dataDirectory.lastPathComponent == "outpost-data")
        #expect(configuration.resolvedDatabase == .sqlite(path: configuration.dataDirectory.appendingPathComponent("outpost.sqlite").path))
        #expect(
            OutpostServerConfiguration.Database(argument: "postgres://u:pw@localhost:5432/db")
                == .postgres(url: "postgres://u:pw@localhost:5432/db"))
        #expect("\(OutpostServerConfiguration.Database(argument: "postgres://u:pw@localhost/db"))".contains("pw") == false)
        #expect(OutpostServerConfiguration.Database(argument: "/tmp/x.sqlite") == .sqlite(path: "/tmp/x.sqlite"))
    }

    @Test func adminKeyIsGeneratedOnceUnlessGiven() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = OutpostServerConfiguration(dataDirectory: directory)
        let first = try configuration.loadAdminKey()
        #expect(first.count == 48)
        #expect(try configuration.loadAdminKey() == first)
        #expect(try OutpostServerConfiguration(dataDirectory: directory, adminKey: "given").loadAdminKey() == "given")
    }
}

/// A tiny lock-protected Int for the test above.
final class PortBox: Sendable {
    private let value = Mutex(0)
    func set(_ v: Int) { value.withLock { $0 = v } }
    func get() -> Int { value.withLock { $0 } }
}
