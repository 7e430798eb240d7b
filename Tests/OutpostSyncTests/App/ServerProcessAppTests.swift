import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// The client against the real `outpost-server` executable, as users run it.
@Suite struct ServerProcessAppTests {
    @Test func logInWriteAndReadAgainstARealServerProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-app-proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await OutpostServerProcess.launch(
            arguments: ["--port", "0", "--data-dir", directory.appendingPathComponent("server").path])
        do {
            let app = App(
                id: "outpost-dev",
                configuration: AppConfiguration(baseURL: server.baseURL, rootDirectory: directory.appendingPathComponent("client")))
            try await app.emailPasswordAuth.registerUser(email: "kim@example.com", password: "password1")
            let user = try await app.login(credentials: .emailPassword(email: "kim@example.com", password: "password1"))
            #expect(app.currentUser === user)
            let tasks = user.mongoClient("mongodb-atlas").database(named: "todo").collection(withName: "Task")
            let id = try await tasks.insertOne(["title": "write tests", "done": false])
            let found = try await tasks.find(filter: ["done": false])
            #expect(found.count == 1 && found.first?["_id"] == id)
            let wrong = await appError { try await app.login(credentials: .emailPassword(email: "kim@example.com", password: "nope")) }
            #expect(wrong?.code == .invalidPassword && wrong?.message == "invalid username/password")
            try await user.logOut()
            #expect(!user.isLoggedIn)
        } catch {
            _ = try? await server.terminate()
            throw error
        }
        #expect(try await server.terminate() == 0)
    }
}
