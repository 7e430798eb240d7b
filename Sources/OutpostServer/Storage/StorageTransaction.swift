import Foundation
import OutpostCore

/// The operations available inside ``DocumentStorage/transaction(appId:_:)``.
///
/// ``putDocument(collection:_:text:)`` and ``insertNew(collection:_:)`` are hooks with defaults, public for the
/// same reason as ``DocumentStorage``'s: a transaction type outside this module must be able to implement them.
public protocol StorageTransaction: Sendable {
    /// The app's highest server version as seen by this transaction.
    func latestServerVersion() async throws -> Int64

    /// The documents with these primary keys that exist, keyed by primary key.
    func documents(collection: String, primaryKeys: [Value]) async throws -> [Value: Document]

    /// Inserts or replaces a document (its primary key is its `_id` field).
    func putDocument(collection: String, _ document: Document) async throws

    /// Inserts or replaces a document whose Extended JSON text the caller has already written; `text` must equal
    /// `document.extendedJSONText`, and a driver may store it as it is. (A hook with a default, which writes the
    /// document again; sync uploads use it.)
    func putDocument(collection: String, _ document: Document, text: String) async throws

    /// Inserts those of `inserts` whose primary key is not stored yet (nor written earlier in this transaction), and
    /// returns their indices in `inserts`. Each insert comes with its primary key's text
    /// (``PrimaryKeyText/make(_:)``) and its document's Extended JSON text, already written. (A hook with a default,
    /// which looks the documents up and puts the new ones one by one; event uploads use it.)
    func insertNew(collection: String, _ inserts: PrewrittenInserts) async throws -> [Int]

    /// Deletes a document; returns whether it existed.
    @discardableResult func deleteDocument(collection: String, primaryKey: Value) async throws -> Bool

    /// Appends a changeset to the history with the next server version, which it returns.
    func appendChangeset(_ changeset: ServerChangesetDraft) async throws -> Int64

    /// The highest client version integrated from a client file (0 when none).
    func integratedClientVersion(fileIdent: Int64) async throws -> Int64
    func setIntegratedClientVersion(fileIdent: Int64, _ version: Int64) async throws

    /// Records the audit index rows of events this transaction inserts, and links them into the app's audit chain as
    /// one batch when it commits (``AuditStorage``; Outpost-only). A transaction records at most one batch.
    func recordAuditBatch(_ batch: AuditBatchDraft) async throws

    /// Removes the audit index rows of these events (retention) and keeps each one's digest in its chain batch when
    /// the transaction commits (``AuditChain/removing(_:from:)``; Outpost-only). The caller deletes the documents.
    func removeAuditEvents(_ removals: [AuditRemoval]) async throws
}

extension StorageTransaction {
    public func putDocument(collection: String, _ document: Document, text: String) async throws {
        try await putDocument(collection: collection, document)
    }

    public func insertNew(collection: String, _ inserts: PrewrittenInserts) async throws -> [Int] {
        let existing = try await documents(collection: collection, primaryKeys: inserts.primaryKeys)
        var inserted: [Int] = []
        for i in inserts.documents.indices where existing[inserts.primaryKeys[i]] == nil {
            try await putDocument(collection: collection, inserts.documents[i], text: inserts.texts[i])
            inserted.append(i)
        }
        return inserted
    }
}
