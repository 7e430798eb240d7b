import Foundation
import OutpostCore
import OutpostServer

/// Reading stored history changesets back (what a session does for changes not in the sync hub's memory): the
/// direct reading (`ServerChangesetDraft.fromStorageText`) against Foundation's `JSONDecoder` (the `Codable` path
/// it replaced), on the same texts in the same run. Each changeset holds one created document of six fields.
enum HistoryReadBenchmark {
    static func run(changesets: Int) async throws -> (direct: Double, codable: Double) {
        let texts = try (0..<changesets).map { i -> String in
            let document: Document = [
                "_id": .objectId(.generate()), "ownerId": .string("user-\(i % 7)"), "itemName": .string("item \(i)"),
                "complexity": .int(Int64(i % 9)), "price": .double(Double(i) / 8), "when": .date(Date()),
            ]
            return try ServerChangesetDraft(originFileIdent: 3, originClientVersion: Int64(i), changes: [
                DocumentChange(collection: "Item", primaryKey: document["_id"]!, before: nil, after: document,
                               changedFields: document.sortedKeys),
            ]).storageText()
        }
        var sink = 0
        let codable = try await Stats.seconds {
            for text in texts { sink &+= try StorageCoding.decode(ServerChangesetDraft.self, from: text, what: "changeset").changes.count }
        }
        let direct = try await Stats.seconds {
            for text in texts { sink &+= try ServerChangesetDraft.fromStorageText(text).changes.count }
        }
        precondition(sink == 2 * changesets)
        return (direct, codable)
    }
}
