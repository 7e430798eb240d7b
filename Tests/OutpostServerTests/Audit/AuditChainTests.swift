import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// `GET /api/admin/v1/audit/verify` and retention (`events.retention_days`), on SQLite and PostgreSQL.
@Suite(.timeLimit(.minutes(5))) struct AuditChainTests {
    static let t0: Int64 = 1_704_164_645_000

    static func documentKey(_ event: UploadEvent) -> String { #"{"$oid":""# + event.id.stringValue + #""}"# }

    /// Three uploads verify; a stored event whose text is changed in the database names its batch, and so does one
    /// that is deleted; a batch row removed is named too.
    @Test(arguments: Driver.enabled)
    func verificationNamesTheFirstBatchThatDoesNotMatch(driver: Driver) async throws {
        try await withAuditServer(driver) { server, storage in
            let user = try await server.newUser()
            let batches = [[UploadEvent(), UploadEvent()], [UploadEvent(), UploadEvent(), UploadEvent()], [UploadEvent()]]
            for batch in batches { try await server.upload(batch, as: user) }
            // An upload of events all stored already is no batch.
            try await server.upload(batches[0], as: user)

            func verify() async throws -> JSONValue {
                let response = try await server.admin("audit/verify")
                #expect(response.status == 200)
                return response.json ?? .null
            }
            let ok = try await verify()
            #expect(ok["ok"] == .bool(true) && ok["batches"] == .int(3) && ok["events"] == .int(6), "\(ok.text)")
            let head = try await storage.auditBatches(appId: server.appId, after: 2, limit: 1).first?.hash
            #expect(ok["head"] == head.map(JSONValue.string))

            let changed = Self.documentKey(batches[1][1])
            try await execute("""
                UPDATE documents SET body = replace(body, '"activity":"view"', '"activity":"VIEW"')
                WHERE collection = 'AuditEvent' AND pk_key = '\(changed)'
                """, on: storage)
            let afterChange = try await verify()
            #expect(afterChange["ok"] == .bool(false))
            #expect(afterChange["first_mismatch"]?["batch"] == .int(2), "\(afterChange.text)")
            #expect(afterChange["first_mismatch"]?["reason"]?.stringValue?.contains("changed") == true)
            #expect(afterChange["first_mismatch"]?["ingested_at"]?.stringValue?.hasSuffix("Z") == true)
            #expect(afterChange["batches"] == .int(2) && afterChange["events"] == .int(5))

            try await execute("""
                UPDATE documents SET body = replace(body, '"activity":"VIEW"', '"activity":"view"')
                WHERE collection = 'AuditEvent' AND pk_key = '\(changed)'
                """, on: storage)
            #expect(try await verify()["ok"] == .bool(true), "restored")

            let deleted = batches[2][0]
            try await execute("DELETE FROM documents WHERE collection = 'AuditEvent' AND pk_key = '\(Self.documentKey(deleted))'",
                              on: storage)
            let afterDelete = try await verify()
            #expect(afterDelete["first_mismatch"]?["batch"] == .int(3), "\(afterDelete.text)")
            #expect(afterDelete["first_mismatch"]?["reason"] == .string("event \(deleted.id.stringValue) is missing"))

            try await execute("DELETE FROM audit_batches WHERE seq = 2", on: storage)
            let afterBatch = try await verify()
            #expect(afterBatch["first_mismatch"]?["batch"] == .int(3))
            #expect(afterBatch["first_mismatch"]?["reason"] == .string("batch 2 is missing"))
        }
    }

    /// Events older than the retention are deleted with their index rows, in pages (523 here), through a history
    /// changeset; newer events stay and the chain still verifies.
    @Test(arguments: Driver.enabled)
    func retentionDeletesOldEventsAndTheirIndexRows(driver: Driver) async throws {
        try await withAuditServer(driver) { server, storage in
            let user = try await server.newUser()
            let now = Date()
            let day: Int64 = 86_400_000
            let nowMs = Int64(now.timeIntervalSince1970 * 1000)
            let old = (0..<520).map { UploadEvent.read("Item", [.int(1)], timestamp: nowMs - 40 * day + Int64($0)) }
            let mixedOld = UploadEvent.write("Item", .int(1), timestamp: nowMs - 31 * day)
            let recent = [UploadEvent.read("Item", [.int(1)], timestamp: nowMs - 29 * day),
                          UploadEvent.write("Item", .int(1), timestamp: nowMs - 1_000)]
            try await server.upload(old, as: user)
            try await server.upload([mixedOld] + recent + [UploadEvent(timestamp: nowMs - 35 * day), UploadEvent(timestamp: nowMs - 50 * day)], as: user)
            let versionBefore = try await storage.latestServerVersion(appId: server.appId)

            let housekeeping = Housekeeping(appId: server.appId, storage: storage, logRetention: nil,
                                            eventRetention: .seconds(30 * 86_400), clock: { now })
            let sweep = try await housekeeping.sweep()
            #expect(sweep.auditEvents == 523)
            #expect(try await server.auditIds("").ids == newestFirst(recent))
            #expect(try await server.auditIds("").json["total"] == .int(2))
            #expect(try await server.auditIds("class=Item&pk=1").ids == newestFirst(recent))
            #expect(try await server.auditIds("class=Item&pk=1").json["total"] == .int(2))
            #expect(try await server.auditIds("user=\(user.id)").json["total"] == .int(2))
            #expect(try await storage.documentCount(appId: server.appId, collection: "AuditEvent") == 2)
            let changesets = try await storage.changesets(appId: server.appId, after: versionBefore, upTo: .max, limit: 10)
            let deletions = changesets.flatMap(\.draft.changes).filter { (change: DocumentChange) -> Bool in
                change.after == nil && change.collection == EventBatch.collection
            }
            #expect(deletions.count == 523, "the deletions reach sync clients")
            #expect(changesets.count == 2, "one changeset per page of 500")
            let verify = try #require(try await server.admin("audit/verify").json)
            #expect(verify["ok"] == .bool(true), "\(verify.text)")
            #expect(verify["events"] == .int(2))
            let batches = try await storage.auditBatches(appId: server.appId, after: 0, limit: 10)
            #expect(batches.first?.isSpent == true, "the first batch's events all went")
            #expect(batches.last?.prunedCount == 3)
            #expect(try await housekeeping.sweep().auditEvents == 0, "nothing left to delete")
        }
    }

    /// The server applies `events.retention_days` from its app file when it starts.
    @Test func theServerAppliesTheRetentionOfItsAppFile() async throws {
        try await TemporaryDirectory.with("retention") { directory in
            let storage = try SQLiteStorage(path: directory.path("server.sqlite"))
            let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
            let old = UploadEvent(timestamp: nowMs - 10 * 86_400_000)
            let recent = UploadEvent(timestamp: nowMs - 60_000)
            var app = AppDefinition.development(appId: "audit-app")
            try await withTestServer(configuration: app, storage: storage) { server in
                try await server.upload([old, recent], as: try await server.newUser())
            }
            app.events.retentionDays = 7
            try await withTestServer(configuration: app, storage: storage) { server in
                try await eventuallyTrue("the old event is deleted at start") {
                    try await storage.auditEventCount(appId: app.appId, matching: AuditSearch()) == 1
                }
                #expect(try await server.auditIds("").ids == [recent.id.stringValue])
            }
            try await storage.close()
        }
    }

    /// `events.retention_days` must be a positive number of days.
    @Test func retentionDaysMustBePositive() throws {
        #expect(try AppDefinition(jsonText: #"{"app_id": "a", "events": {"retention_days": 30}}"#).events.retentionDays == 30)
        #expect(try AppDefinition(jsonText: #"{"app_id": "a"}"#).events.retentionDays == nil)
        for bad in ["0", "-3", "1.5", "\"30\""] {
            #expect {
                try AppDefinition(jsonText: #"{"app_id": "a", "events": {"retention_days": \#(bad)}}"#)
            } throws: { ($0 as? ConfigurationError)?.path == "events.retention_days" }
        }
        #expect {
            try AppDefinition(jsonText: #"{"app_id": "a", "events": {"keep": 1}}"#)
        } throws: { ($0 as? ConfigurationError)?.path == "events.keep" }
        let keys = try AppDefinition(jsonText: #"{"app_id": "a", "events": {"primary_keys": {"Reading": "serial"}}}"#)
        #expect(keys.events.primaryKeys == ["Reading": "serial"])
        #expect(try AppDefinition(json: keys.json) == keys, "written back as read")
    }
}

/// Polls an async condition every 20 ms for up to 20 s.
func eventuallyTrue(_ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("\(what) did not happen within 20 s")
}
