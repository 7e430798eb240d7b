import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// A Data API write may not leave a document larger than a sync download can carry
/// (``SyncProtocolLimits/maxDocumentBytes``, as for sync uploads): growing one with `$push` past it would have made
/// it impossible to send to any client. The limit is set small here; the writes go to a real SQLite storage.
@Suite struct DataAPIDocumentSizeTests {
    static func withService(_ body: (DataAPIService, AuthenticatedUser) async throws -> Void) async throws {
        try await TemporaryDirectory.with("data-size") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            try await storage.prepare()
            let settings = try SyncAppSettings(app: .development(appId: "size-app"))
            var service = DataAPIService(storage: storage, appId: "size-app", rules: settings.rules, engine: nil)
            service.maxDocumentBytes = 1_000
            do {
                try await body(service, AuthenticatedUser(appId: "size-app", userId: "u1"))
            } catch {
                try? await storage.close()
                throw error
            }
            try await storage.close()
        }
    }

    static func body(_ text: String) -> [String: JSONValue] {
        guard case .object(let fields)? = JSONValue.parse(text) else { fatalError("bad test JSON: \(text)") }
        return fields
    }

    static func expectTooLarge(_ run: () async throws -> JSONValue, id: String) async {
        do {
            _ = try await run()
            Issue.record("expected documentTooLarge")
        } catch let error as APIError {
            #expect(error.status == .badRequest)
            #expect(error.errorCode == "DocumentTooLarge")
            #expect(error.code == "documentTooLarge")
            #expect(error.message.hasPrefix("document with _id \(id) in collection \"Item\" would be "), "\(error.message)")
            #expect(error.message.hasSuffix("bytes, more than the limit of 1000 bytes"), "\(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func writesOverTheLimitAreRefusedAndLeaveNothing() async throws {
        try await Self.withService { service, user in
            let big = String(repeating: "x", count: 1_200)
            let chunk = String(repeating: "y", count: 300)
            // One insert over the limit.
            await Self.expectTooLarge({
                try await service.perform(action: "insertOne", collection: "Item",
                                          body: Self.body(#"{"document": {"_id": 1, "text": "\#(big)"}}"#), user: user)
            }, id: "1")
            // One document of several over the limit: none is inserted.
            await Self.expectTooLarge({
                try await service.perform(action: "insertMany", collection: "Item", body: Self.body(
                    #"{"documents": [{"_id": 2}, {"_id": 3, "text": "\#(big)"}, {"_id": 4}]}"#), user: user)
            }, id: "3")
            let count = try await service.perform(action: "count", collection: "Item", body: [:], user: user)
            #expect(count == .object(["count": .int(0)]))

            // A document grown by $push: the push that would take it over the limit is refused, the document stays.
            _ = try await service.perform(action: "insertOne", collection: "Item",
                                          body: Self.body(#"{"document": {"_id": 5, "items": []}}"#), user: user)
            for _ in 0..<3 {
                _ = try await service.perform(action: "updateOne", collection: "Item", body: Self.body(
                    #"{"filter": {"_id": 5}, "update": {"$push": {"items": "\#(chunk)"}}}"#), user: user)
            }
            await Self.expectTooLarge({
                try await service.perform(action: "updateOne", collection: "Item", body: Self.body(
                    #"{"filter": {"_id": 5}, "update": {"$push": {"items": "\#(chunk)"}}}"#), user: user)
            }, id: "5")
            // An upsert that would create a document over the limit.
            await Self.expectTooLarge({
                try await service.perform(action: "updateOne", collection: "Item", body: Self.body(
                    #"{"filter": {"_id": 6}, "update": {"$set": {"text": "\#(big)"}}, "upsert": true}"#), user: user)
            }, id: "6")
            let found = try await service.perform(action: "find", collection: "Item", body: [:], user: user)
            guard case .object(let result) = found, case .array(let documents)? = result["documents"] else {
                Issue.record("unexpected find result \(found)")
                return
            }
            #expect(documents.count == 1)
            guard case .object(let document)? = documents.first, case .array(let items)? = document["items"] else {
                Issue.record("unexpected document \(documents)")
                return
            }
            #expect(items.count == 3)
        }
    }
}
