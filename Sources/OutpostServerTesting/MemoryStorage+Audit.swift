import Foundation
import OutpostCore
import OutpostServer

/// The audit index of a ``MemoryStorage``: the same answers as the drivers' tables, from plain collections.
struct MemoryAuditState {
    /// Indexed events by id, each with its batch.
    var events: [String: (entry: AuditIndexEntry, batch: Int64)] = [:]
    var batches: [AuditBatchRecord] = []
    var head = AuditChain.Head.empty

    /// Applies a committed transaction's audit writes, as the drivers do at commit.
    mutating func apply(batch draft: AuditBatchDraft?, removals: [AuditRemoval]) {
        if let draft {
            var inserted = 0
            for entry in draft.entries where events[entry.eventId] == nil {
                events[entry.eventId] = (entry, head.sequence + 1)
                inserted += 1
            }
            let (record, newHead) = AuditChain.link(draft, after: head, inserted: inserted)
            batches.append(record)
            head = newHead
        }
        guard !removals.isEmpty else { return }
        var deleted = 0
        for removal in removals where events.removeValue(forKey: removal.record.entry.eventId) != nil { deleted += 1 }
        for (sequence, group) in Dictionary(grouping: removals, by: \.record.batch) {
            guard let index = batches.firstIndex(where: { $0.sequence == sequence }) else { continue }
            batches[index] = AuditChain.removing(group, from: batches[index])
        }
        head.events = max(0, head.events - Int64(deleted))
    }
}

extension MemoryStorage {
    public func auditEvents(appId: String, matching search: AuditSearch, limit: Int) async throws -> [AuditEventRecord] {
        read(appId) { app in
            let matches = app.audit.events.values.filter { indexed in
                search.matches(indexed.entry) && (search.after.map { AuditSearch.sortsAfter(indexed.entry, $0) } ?? true)
            }
            return matches.sorted { AuditSearch.precedes($0.entry, $1.entry) }.prefix(max(0, limit)).map { indexed in
                let id = (try? ObjectId(string: indexed.entry.eventId)).map(Value.objectId)
                let document = id.flatMap { app.documents["AuditEvent"]?[$0] }
                return AuditEventRecord(entry: indexed.entry, batch: indexed.batch, text: document?.extendedJSONText)
            }
        }
    }

    public func auditEventCount(appId: String, matching search: AuditSearch) async throws -> Int {
        read(appId) { app in app.audit.events.values.filter { search.matches($0.entry) }.count }
    }

    public func auditBatches(appId: String, after sequence: Int64, limit: Int) async throws -> [AuditBatchRecord] {
        read(appId) { app in Array(app.audit.batches.filter { $0.sequence > sequence }.prefix(max(0, limit))) }
    }

    public func auditEventTexts(appId: String, eventIds: [String]) async throws -> [String: String] {
        read(appId) { app in
            var texts: [String: String] = [:]
            for id in eventIds {
                guard let oid = try? ObjectId(string: id), let document = app.documents["AuditEvent"]?[.objectId(oid)]
                else { continue }
                texts[id] = document.extendedJSONText
            }
            return texts
        }
    }

    public func auditEventsIngestedPerHour(appId: String, since date: Date) async throws -> [Int64: Int] {
        read(appId) { app in
            var counts: [Int64: Int] = [:]
            let start = date.timeIntervalSince1970
            for batch in app.audit.batches where batch.ingestedAt.timeIntervalSince1970 >= start {
                counts[Int64((batch.ingestedAt.timeIntervalSince1970 / 3600).rounded(.down)), default: 0] += batch.eventCount
            }
            return counts
        }
    }
}
