import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    /// Checks of ``AuditStorage`` and the transaction's audit writes: searches by every condition and their
    /// combinations give exactly what ``AuditSearch/matches(_:)`` accepts, newest first, page by page; index rows
    /// commit with their transaction; batches chain in commit order; removals delete the rows and keep the digests;
    /// apps are isolated and texts kept verbatim.
    public static var auditStorageChecks: [Check] {
        [
            Check("audit: searches by each condition and together, newest first, page by page, with counts") { storage in
                let app = appId()
                let events = auditFixture()
                try await ingest(storage, app, Array(events[..<30]), at: date(1_700_000_000_000))
                try await ingest(storage, app, Array(events[30...]), at: date(1_700_000_360_000))
                try await ingest(storage, appId("other"), [auditEvent(999, user: "alice", objects: [("Item", "1")])],
                                 at: date(1_700_000_000_000))
                let entries = events.map(\.entry)
                for search in auditSearches {
                    let matches = entries.filter(search.matches)
                    let expected = matches.filter { entry in search.after.map { AuditSearch.sortsAfter(entry, $0) } ?? true }
                        .sorted(by: AuditSearch.precedes)
                    var found: [AuditEventRecord] = []
                    var page = search
                    while true {
                        let records = try await storage.auditEvents(appId: app, matching: page, limit: 7)
                        found += records
                        guard records.count == 7, let last = records.last else { break }
                        page.after = AuditSearch.Cursor(last.entry)
                    }
                    try Expect.equal(found.map(\.entry), expected, "the pages of \(search)")
                    try Expect.equal(try await storage.auditEventCount(appId: app, matching: search), matches.count,
                                     "the count of \(search) (whatever its cursor)")
                }
                let all = try await storage.auditEvents(appId: app, matching: AuditSearch(), limit: 1000)
                let texts = Dictionary(uniqueKeysWithValues: events.map { ($0.entry.eventId, $0.document.extendedJSONText) })
                try Expect.that(all.allSatisfy { $0.text == texts[$0.entry.eventId] }, "each record has its stored text")
                try Expect.equal(all.filter { $0.entry.eventId == events[35].entry.eventId }.map(\.batch), [2], "the batch")
                try Expect.equal(try await storage.auditEventTexts(appId: app, eventIds: [events[3].entry.eventId, "nope"]),
                                 [events[3].entry.eventId: events[3].document.extendedJSONText], "texts by id")
            },
            Check("audit: index rows commit with their transaction, and not when its body throws") { storage in
                let app = appId()
                struct Refused: Error {}
                do {
                    try await storage.transaction(appId: app) { tx in
                        try await record(tx, [auditEvent(1, user: "alice")], at: date(1_700_000_000_000))
                        throw Refused()
                    }
                } catch is Refused {}
                try Expect.equal(try await storage.auditEvents(appId: app, matching: AuditSearch(), limit: 10), [],
                                 "nothing indexed")
                try Expect.equal(try await storage.auditBatches(appId: app, after: 0, limit: 10), [], "no batch")
                try Expect.equal(try await storage.auditEventCount(appId: app, matching: AuditSearch()), 0, "count")
                try await ingest(storage, app, [auditEvent(1, user: "alice")], at: date(1_700_000_000_000))
                try Expect.equal(try await storage.auditEventCount(appId: app, matching: AuditSearch()), 1, "count after")
            },
            Check("audit: batches chain in commit order, with the ingest counts per hour") { storage in
                let app = appId()
                let hour: Int64 = 3_600_000
                let base: Int64 = 1_700_000_000_000 / hour * hour
                let batches = [[auditEvent(1), auditEvent(2)], [auditEvent(3)], [auditEvent(4), auditEvent(5), auditEvent(6)]]
                for (i, batch) in batches.enumerated() {
                    try await ingest(storage, app, batch, at: date(base + Int64(i / 2) * hour + 1_234))
                }
                let stored = try await storage.auditBatches(appId: app, after: 0, limit: 10)
                try Expect.equal(stored.map(\.sequence), [1, 2, 3], "sequence numbers")
                var previous = AuditChain.genesis
                for (record, batch) in zip(stored, batches) {
                    let digests = batch.map { AuditChain.digest(of: $0.document.extendedJSONText) }
                    try Expect.equal(record.previousHash, previous, "batch \(record.sequence)'s previous hash")
                    try Expect.equal(record.hash, AuditChain.hash(previous: previous, digests: digests), "its hash")
                    try Expect.equal(record.eventIds, batch.map(\.entry.eventId), "its events in ingest order")
                    try Expect.equal(record.eventCount, batch.count, "its event count")
                    try Expect.equal(record.firstEvent, batch.first!.entry.eventId, "its first event")
                    try Expect.equal(record.lastEvent, batch.last!.entry.eventId, "its last event")
                    previous = record.hash
                }
                try Expect.equal(stored.map { $0.ingestedAt.millisecondsSince1970 }, [base + 1_234, base + 1_234, base + hour + 1_234],
                                 "ingest times to the millisecond")
                try Expect.equal(try await storage.auditBatches(appId: app, after: 1, limit: 1).map(\.sequence), [2], "paged")
                try Expect.equal(try await storage.auditEventsIngestedPerHour(appId: app, since: date(base)),
                                 [base / hour: 3, base / hour + 1: 3], "events per hour")
                try Expect.equal(try await storage.auditEventsIngestedPerHour(appId: app, since: date(base + hour)),
                                 [base / hour + 1: 3], "since an hour")
            },
            Check("audit: removals delete the index rows and keep the digests; a batch whose events all went is spent") { storage in
                let app = appId()
                let first = [auditEvent(1, user: "u1", objects: [("Item", "1")]), auditEvent(2, user: "u1", objects: [("Item", "2")])]
                let second = [auditEvent(3, user: "u1", objects: [("Item", "1")])]
                try await ingest(storage, app, first, at: date(1_700_000_000_000))
                try await ingest(storage, app, second, at: date(1_700_000_000_000))
                let records = try await storage.auditEvents(appId: app, matching: AuditSearch(), limit: 10)
                let ids = [first, second].joined().map(\.entry.eventId)
                let removals = [ids[0], ids[2]].map { id in
                    let record = records.first { $0.entry.eventId == id }!
                    return AuditRemoval(record: record, digest: record.text.map(AuditChain.digest(of:)))
                }
                try await storage.transaction(appId: app) { tx in try await tx.removeAuditEvents(removals) }
                let left = try await storage.auditEvents(appId: app, matching: AuditSearch(), limit: 10)
                try Expect.equal(left.map(\.entry), [first[1].entry], "the event left")
                try Expect.equal(try await storage.auditEventCount(appId: app, matching: AuditSearch()), 1, "the count")
                try Expect.equal(
                    try await storage.auditEventCount(appId: app, matching: AuditSearch(object: AuditObjectKey(className: "Item", primaryKey: "1"))),
                    0, "the object rows")
                try Expect.equal(try await storage.auditEventCount(appId: app, matching: AuditSearch(user: "u1")), 1, "the user rows")
                var batches = try await storage.auditBatches(appId: app, after: 0, limit: 10)
                try Expect.equal(batches[0].prunedDigests, [first[0].entry.eventId: AuditChain.digest(of: first[0].document.extendedJSONText)],
                                 "the removed event's digest is kept")
                try Expect.equal(batches[0].prunedCount, 1, "one pruned")
                try Expect.that(!batches[0].isSpent, "a batch with an event left is not spent")
                try Expect.that(batches[1].isSpent && batches[1].eventIds.isEmpty && batches[1].prunedDigests.isEmpty,
                                "a batch whose events all went is spent")
                try Expect.equal(batches[1].hash, AuditChain.hash(previous: batches[0].hash, digests: [AuditChain.digest(of: second[0].document.extendedJSONText)]),
                                 "and keeps its hash")
                // A batch whose events were changed before they were all removed keeps their digests.
                let changed = AuditRemoval(record: records.first { $0.entry.eventId == first[1].entry.eventId }!,
                                           digest: AuditChain.digest(of: "changed"))
                try await storage.transaction(appId: app) { tx in try await tx.removeAuditEvents([changed]) }
                batches = try await storage.auditBatches(appId: app, after: 0, limit: 10)
                try Expect.that(!batches[0].isSpent && batches[0].prunedCount == 2, "not spent when the digests do not give its hash")
                try Expect.equal(try await storage.auditEventCount(appId: app, matching: AuditSearch()), 0, "none left")
            },
            Check("audit: an event indexed again keeps one row; apps are isolated; texts are kept verbatim") { storage in
                let app = appId()
                let strange = auditEvent(1, user: hostileName, activity: hostileName, type: hostileName,
                                         objects: [(hostileName, hostileName)])
                try await ingest(storage, app, [strange], at: date(1_700_000_000_000))
                // The same event in a second batch (its document deleted out of band, then uploaded again).
                try await storage.transaction(appId: app) { tx in
                    try await record(tx, [strange], at: date(1_700_000_001_000))
                }
                let search = AuditSearch(user: hostileName, activity: hostileName, eventType: hostileName,
                                         object: AuditObjectKey(className: hostileName, primaryKey: hostileName))
                let found = try await storage.auditEvents(appId: app, matching: search, limit: 10)
                try Expect.equal(found.map(\.entry), [strange.entry], "one row, verbatim")
                try Expect.equal(found.map(\.batch), [1], "from its first batch")
                try Expect.equal(try await storage.auditEventCount(appId: app, matching: AuditSearch()), 1, "counted once")
                try Expect.equal(try await storage.auditBatches(appId: app, after: 0, limit: 10).count, 2, "two batches")
                let other = appId("other")
                try Expect.equal(try await storage.auditEvents(appId: other, matching: search, limit: 10), [], "other app")
                try Expect.equal(try await storage.auditBatches(appId: other, after: 0, limit: 10), [], "other app's chain")
                try Expect.equal(try await storage.auditEventCount(appId: other, matching: AuditSearch()), 0, "other app's count")
            },
        ]
    }

    /// An event document and the index entry ingest would make of it.
    struct AuditFixtureEvent: Sendable {
        var document: Document
        var entry: AuditIndexEntry
    }

    /// Event `n`: id and timestamp from `n` (two events per millisecond, so ties are ordered by id).
    static func auditEvent(
        _ n: Int, user: String? = nil, metadata: [String] = [], activity: String = "act", type: String? = "read",
        objects: [(String, String)] = [], timestamp: Int64? = nil
    ) -> AuditFixtureEvent {
        let id = try! ObjectId(string: String(format: "65a1f0c2e4b0a1b2%08x", n))
        let ts = timestamp ?? 1_700_000_000_000 + Int64(n / 2)
        var document: Document = [
            "_id": .objectId(id), "timestamp": .date(date(ts)), "activity": .string(activity),
            "event": type.map(Value.string) ?? .null, "data": .string("{}"),
        ]
        for (i, value) in metadata.enumerated() { document["meta\(i)"] = .string(value) }
        let users = ([user].compactMap { $0 } + metadata).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let entry = AuditIndexEntry(
            eventId: id.stringValue, timestamp: ts, userId: user, activity: activity, eventType: type, users: users,
            objects: objects.map { AuditObjectKey(className: $0.0, primaryKey: $0.1) })
        return AuditFixtureEvent(document: document, entry: entry)
    }

    /// 60 events over three users (one also as metadata), two activities, four types and a few objects.
    static func auditFixture() -> [AuditFixtureEvent] {
        let users = ["alice", "bob", "carol"]
        let types: [String?] = ["read", "write", "note", nil]
        let objects: [[(String, String)]] = [
            [("Item", "1")], [("Item", "2"), ("Item", "1")], [("Other", "65a1f0c2e4b0a1b2c3d4e5f6")], [], [("Item", "10")],
        ]
        return (0..<60).map { n in
            auditEvent(n, user: users[n % 3], metadata: n % 4 == 0 ? ["device-\(n % 8)"] : n % 7 == 0 ? ["bob"] : [],
                       activity: n % 2 == 0 ? "open" : "edit", type: types[n % 4], objects: objects[n % 5])
        }
    }

    static let auditSearches: [AuditSearch] = {
        let t0: Int64 = 1_700_000_000_000
        let item1 = AuditObjectKey(className: "Item", primaryKey: "1")
        return [
            AuditSearch(),
            AuditSearch(user: "alice"), AuditSearch(user: "bob"), AuditSearch(user: "device-4"), AuditSearch(user: "nobody"),
            AuditSearch(activity: "open"), AuditSearch(eventType: "write"), AuditSearch(eventType: "note"),
            AuditSearch(since: t0 + 5, until: t0 + 20), AuditSearch(since: t0 + 10), AuditSearch(until: t0 + 3),
            AuditSearch(object: item1), AuditSearch(object: AuditObjectKey(className: "Item", primaryKey: "10")),
            AuditSearch(object: AuditObjectKey(className: "Other", primaryKey: "65a1f0c2e4b0a1b2c3d4e5f6")),
            AuditSearch(object: AuditObjectKey(className: "Item", primaryKey: "3")),
            AuditSearch(user: "bob", object: item1), AuditSearch(user: "alice", activity: "open", eventType: "read"),
            AuditSearch(activity: "edit", eventType: "write", since: t0 + 2),
            AuditSearch(user: "carol", activity: "edit", eventType: "note", since: t0, until: t0 + 29, object: item1),
            AuditSearch(eventType: "read", object: item1, after: AuditSearch.Cursor(timestamp: t0 + 20, eventId: "65a1f0c2e4b0a1b200000028")),
            AuditSearch(user: "alice", after: AuditSearch.Cursor(timestamp: t0 + 10, eventId: "0")),
        ]
    }()

    /// Records events as ingest does: their documents, and their index rows as one batch, in one transaction.
    static func ingest(_ storage: any ServerStorage, _ app: String, _ events: [AuditFixtureEvent], at time: Date) async throws {
        try await storage.transaction(appId: app) { tx in
            for event in events {
                try await tx.putDocument(collection: "AuditEvent", event.document, text: event.document.extendedJSONText)
            }
            try await record(tx, events, at: time)
        }
    }

    static func record(_ tx: any StorageTransaction, _ events: [AuditFixtureEvent], at time: Date) async throws {
        try await tx.recordAuditBatch(AuditBatchDraft(
            entries: events.map(\.entry), digests: events.map { AuditChain.digest(of: $0.document.extendedJSONText) },
            ingestedAt: time))
    }
}
