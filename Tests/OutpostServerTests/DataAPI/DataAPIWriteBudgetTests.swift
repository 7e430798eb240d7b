import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

/// One Data API write request may write a bounded number of documents and bytes (`data_api.max_documents_per_write`,
/// `data_api.max_write_bytes`): over either limit it is a 400 naming the limit and writes nothing, on both drivers.
@Suite struct DataAPIWriteBudgetTests {
    static func app(maxDocuments: Int? = nil, maxBytes: Int? = nil) -> AppDefinition {
        var app = AppDefinition.development(appId: "budget-app")
        app.rules["Item"] = .object(["roles": .array([ownerReadWriteRole])])
        app.dataAPI.enabled = true
        if let maxDocuments { app.dataAPI.maxDocumentsPerWrite = maxDocuments }
        if let maxBytes { app.dataAPI.maxWriteBytes = maxBytes }
        return app
    }

    static func documents(_ owner: String, _ range: Range<Int>) -> String {
        "[" + range.map { #"{"_id": \#($0), "ownerId": "\#(owner)", "n": \#($0)}"# }.joined(separator: ",") + "]"
    }

    @Test(arguments: Driver.enabled)
    func tooManyDocumentsIsRefusedWhole(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(configuration: Self.app(maxDocuments: 50), storage: storage) { server in
                let user = try await server.newUser()
                try await server.ok("Item", "insertMany", #"{"documents": \#(Self.documents(user.id, 0..<30))}"#, as: user)
                try await server.ok("Item", "insertMany", #"{"documents": \#(Self.documents(user.id, 30..<60))}"#, as: user)
                let version = try await storage.latestServerVersion(appId: server.appId)

                let (insertStatus, insert) = try await server.data(
                    "Item", "insertMany", #"{"documents": \#(Self.documents(user.id, 100..<151))}"#, as: user)
                #expect(insertStatus == 400)
                #expect(insert["code"] == "tooManyDocuments")
                #expect(insert["error"]?.stringValue?.contains("more than the limit of 50 per request (data_api.max_documents_per_write)") == true)

                for (action, body) in [("updateMany", #"{"filter": {}, "update": {"$set": {"x": 1}}}"#),
                                       ("deleteMany", #"{"filter": {}}"#)] {
                    let (status, json) = try await server.data("Item", action, body, as: user)
                    #expect(status == 400, "\(action): \(json.text)")
                    #expect(json["code"] == "tooManyDocuments")
                    #expect(json["error"]?.stringValue?.contains("60 documents") == true, "\(json.text)")
                }
                #expect(try await storage.latestServerVersion(appId: server.appId) == version)
                #expect(try await storage.documents(appId: server.appId, collection: "Item").count == 60)
                // Within the limit, the same requests work.
                try await server.ok("Item", "updateMany", #"{"filter": {"n": {"$lt": 50}}, "update": {"$set": {"x": 1}}}"#, as: user)
                try await server.ok("Item", "deleteMany", #"{"filter": {"n": {"$gte": 10}}}"#, as: user)
                #expect(try await storage.documents(appId: server.appId, collection: "Item").count == 10)
            }
        }
    }

    /// A `$push` to every document that would write more than `max_write_bytes` is refused before the rest is made,
    /// and nothing is written. (The issue's full-size request, 360 MB, runs against a server process in
    /// `BoundedMemoryTests`; here a 1 MiB budget keeps the in-process work small.)
    @Test(arguments: Driver.enabled)
    func aPushThatWouldWriteTooMuchIsRefused(driver: Driver) async throws {
        try await driver.withStorage { storage in
            try await withTestServer(configuration: Self.app(maxBytes: 1_048_576), storage: storage) { server in
                let user = try await server.newUser()
                try await server.ok("Item", "insertMany", #"{"documents": \#(Self.documents(user.id, 0..<200))}"#, as: user)
                let version = try await storage.latestServerVersion(appId: server.appId)
                let strings = (0..<100).map { _ in "\"" + String(repeating: "x", count: 1_000) + "\"" }.joined(separator: ",")
                let body = #"{"filter": {}, "update": {"$push": {"arr": {"$each": [\#(strings)]}}}}"#
                let (status, json) = try await server.data("Item", "updateMany", body, as: user)
                #expect(status == 400, "\(json.text)")
                #expect(json["code"] == "writeTooLarge")
                #expect(json["error"]?.stringValue?.contains("more than 1048576 bytes") == true, "\(json.text)")
                #expect(try await storage.latestServerVersion(appId: server.appId) == version)
                let stored = try await storage.documents(appId: server.appId, collection: "Item")
                #expect(stored.count == 200 && stored.allSatisfy { $0["arr"] == nil })
                // One document may take the same push.
                try await server.ok("Item", "updateOne", #"{"filter": {"_id": 7}, "update": {"$push": {"arr": {"$each": [\#(strings)]}}}}"#, as: user)
            }
        }
    }

    @Test func limitsAreReadFromTheAppFile() throws {
        let app = try AppDefinition(jsonText: """
            {"app_id": "a", "data_api": {"enabled": true, "max_documents_per_write": 7, "max_write_bytes": 1024}}
            """)
        #expect(app.dataAPI.maxDocumentsPerWrite == 7 && app.dataAPI.maxWriteBytes == 1024)
        #expect(try AppDefinition(jsonText: app.jsonText).dataAPI == app.dataAPI)
        #expect(throws: ConfigurationError.self) {
            try AppDefinition(jsonText: #"{"app_id": "a", "data_api": {"max_write_bytes": 0}}"#)
        }
    }
}
