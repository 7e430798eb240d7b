import OutpostCore
import Synchronization

/// What a transaction reads from the database's committed state: the driver's side of a
/// ``BufferedTransaction``.
package protocol TransactionReader: Sendable {
    /// The app's highest committed server version (0 when its history is empty).
    func latestServerVersion() async throws -> Int64
    /// The committed documents of a collection with these `pk_key` texts, keyed by `pk_key`.
    func documents(collection: String, keys: [String]) async throws -> [String: Document]
    /// The committed integrated client version of a client file (0 when none).
    func integratedClientVersion(fileIdent: Int64) async throws -> Int64
}

/// A document's address inside one app.
package struct DocumentAddress: Hashable, Sendable {
    package var collection: String
    package var key: String

    package init(collection: String, key: String) {
        self.collection = collection
        self.key = key
    }

    /// Index order: by collection, then key.
    @inline(__always)
    package static func precedes(_ a: DocumentAddress, _ b: DocumentAddress) -> Bool {
        a.collection == b.collection ? a.key < b.key : a.collection < b.collection
    }
}

/// Everything a transaction wrote, in its final state, ready to be applied in one database transaction.
package struct TransactionWrites: Sendable {
    /// The app's server version when the transaction first looked at its history; nil when it never did.
    package var baseVersion: Int64?
    /// Documents to store or delete, by address, with the texts that came already written.
    package var documents = WrittenDocuments()
    /// Appended changesets, with their assigned versions, in order.
    package var changesets: [ServerChangeset] = []
    /// Integrated client versions by client file ident.
    package var progress: [Int64: Int64] = [:]
    /// The audit batch of an event ingest, linked into the app's chain at commit.
    package var auditBatch: AuditBatchDraft?
    /// Events whose audit index rows retention removes.
    package var auditRemovals: [AuditRemoval] = []

    package init() {}

    package var isEmpty: Bool {
        documents.isEmpty && changesets.isEmpty && progress.isEmpty && auditBatch == nil && auditRemovals.isEmpty
    }

    /// The indexes in `documents.entries` of the documents to store, in address order (index order, which SQLite
    /// and PostgreSQL insert fastest). Documents written in that order already are not sorted again.
    package var putOrder: [Int] {
        var stored: [Int] = []
        stored.reserveCapacity(documents.count)
        var inOrder = true
        let entries = documents.entries
        for i in entries.indices where entries[i].document != nil {
            if inOrder, let last = stored.last, !DocumentAddress.precedes(entries[last].address, entries[i].address) {
                inOrder = false
            }
            stored.append(i)
        }
        if !inOrder {
            stored.sort { DocumentAddress.precedes(entries[$0].address, entries[$1].address) }
        }
        return stored
    }

    /// The Extended JSON text of the stored document at `entry`, an index from ``putOrder``.
    package func putText(_ entry: Int) -> String {
        documents.entries[entry].text ?? documents.entries[entry].document!.extendedJSONText
    }

    /// Documents to store, as (collection, pk_key, Extended JSON text) columns, in ``putOrder``.
    package var puts: (collections: [String], keys: [String], bodies: [String]) {
        let order = putOrder
        var out: ([String], [String], [String]) = ([], [], [])
        out.0.reserveCapacity(order.count)
        out.1.reserveCapacity(order.count)
        out.2.reserveCapacity(order.count)
        for i in order {
            out.0.append(documents.entries[i].address.collection)
            out.1.append(documents.entries[i].address.key)
            out.2.append(putText(i))
        }
        return out
    }

    /// Documents to delete, as (collection, pk_key) columns.
    package var deletes: (collections: [String], keys: [String]) {
        var out: ([String], [String]) = ([], [])
        for entry in documents.entries where entry.document == nil {
            out.0.append(entry.address.collection)
            out.1.append(entry.address.key)
        }
        return out
    }
}

/// A ``StorageTransaction`` that reads committed state through a driver's ``TransactionReader`` and keeps its
/// own writes in memory, overlaid on those reads, until the driver applies them in one database transaction.
///
/// This is how a transaction body can be `async` while GRDB's write closures are synchronous: the body never
/// runs inside a GRDB write; its writes are applied at the end in a single `write {}`. Consistency comes from
/// the per-app ``AppTransactionLock`` (and, in PostgreSQL, the advisory lock held from the first statement):
/// no other transaction of the app can commit between the body's reads and the final write.
///
/// Using the transaction after its body returned is a programming error and traps.
package final class BufferedTransaction<Reader: TransactionReader>: StorageTransaction {
    private struct State {
        var writes = TransactionWrites()
        var finished = false
    }

    private let reader: Reader
    private let state = Mutex(State())

    package init(reader: Reader) {
        self.reader = reader
    }

    /// Ends the transaction and hands over its writes; later calls on the transaction trap.
    package func finish() -> TransactionWrites {
        state.withLock { state in
            precondition(!state.finished, "A storage transaction was finished twice")
            state.finished = true
            return state.writes
        }
    }

    /// Ends the transaction without handing over its writes (after its body threw), unless it has ended.
    package func finishIfNeeded() {
        state.withLock { $0.finished = true }
    }

    private func withState<T>(_ body: (inout TransactionWrites) throws -> T) rethrows -> T {
        try state.withLock { state in
            precondition(!state.finished, "A StorageTransaction was used after its transaction(appId:_:) body returned")
            return try body(&state.writes)
        }
    }

    private func baseVersion() async throws -> Int64 {
        if let base = withState({ $0.baseVersion }) { return base }
        let latest = try await reader.latestServerVersion()
        return withState { writes in
            if writes.baseVersion == nil { writes.baseVersion = latest }
            return writes.baseVersion!
        }
    }

    package func latestServerVersion() async throws -> Int64 {
        let base = try await baseVersion()
        return withState { base + Int64($0.changesets.count) }
    }

    package func documents(collection: String, primaryKeys: [Value]) async throws -> [Value: Document] {
        var result: [Value: Document] = [:]
        // The keys not written by this transaction, each with its primary key (in the same order; a key asked for
        // twice is read twice).
        var missingKeys: [String] = [], missingPrimaryKeys: [Value] = []
        missingKeys.reserveCapacity(primaryKeys.count)
        missingPrimaryKeys.reserveCapacity(primaryKeys.count)
        withState { writes in
            // A transaction that reads documents usually writes about as many: its buffer grows once, here.
            writes.documents.reserveCapacity(writes.documents.count + primaryKeys.count)
            for primaryKey in primaryKeys {
                let key = PrimaryKeyText.make(primaryKey)
                if let buffered = writes.documents[DocumentAddress(collection: collection, key: key)] {
                    if let buffered { result[primaryKey] = buffered }
                } else {
                    missingKeys.append(key)
                    missingPrimaryKeys.append(primaryKey)
                }
            }
        }
        guard !missingKeys.isEmpty else { return result }
        let stored = try await reader.documents(collection: collection, keys: missingKeys)
        guard !stored.isEmpty else { return result }
        for (key, primaryKey) in zip(missingKeys, missingPrimaryKeys) {
            if let document = stored[key] { result[primaryKey] = document }
        }
        return result
    }

    package func putDocument(collection: String, _ document: Document) async throws {
        let key = PrimaryKeyText.make(try PrimaryKeyText.primaryKey(of: document))
        withState { writes in
            let address = DocumentAddress(collection: collection, key: key)
            writes.documents.write(document, at: address)
        }
    }

    package func putDocument(collection: String, _ document: Document, text: String) async throws {
        let key = PrimaryKeyText.make(try PrimaryKeyText.primaryKey(of: document))
        withState { writes in
            let address = DocumentAddress(collection: collection, key: key)
            writes.documents.write(document, at: address, text: text)
        }
    }

    package func insertNew(collection: String, _ inserts: PrewrittenInserts) async throws -> [Int] {
        var unknown: [String] = []
        withState { writes in
            for key in inserts.keys where writes.documents[DocumentAddress(collection: collection, key: key)] == nil {
                unknown.append(key)
            }
        }
        // Stored documents (rare: a batch sent again) are skipped, as are documents written earlier in this transaction.
        let stored = unknown.isEmpty ? [:] : try await reader.documents(collection: collection, keys: unknown)
        return withState { writes in
            var inserted: [Int] = []
            inserted.reserveCapacity(inserts.keys.count)
            writes.documents.reserveCapacity(writes.documents.count + inserts.keys.count)
            for (i, key) in inserts.keys.enumerated() where stored[key] == nil {
                let address = DocumentAddress(collection: collection, key: key)
                if let buffered = writes.documents[address], buffered != nil { continue }
                writes.documents.write(inserts.documents[i], at: address, text: inserts.texts[i])
                inserted.append(i)
            }
            return inserted
        }
    }

    @discardableResult
    package func deleteDocument(collection: String, primaryKey: Value) async throws -> Bool {
        let address = DocumentAddress(collection: collection, key: PrimaryKeyText.make(primaryKey))
        let buffered = withState { $0.documents[address] }
        let existed: Bool
        if let buffered {
            existed = buffered != nil
        } else {
            existed = try await !reader.documents(collection: collection, keys: [address.key]).isEmpty
        }
        withState { writes in
            writes.documents.write(nil, at: address)
        }
        return existed
    }

    package func appendChangeset(_ changeset: ServerChangesetDraft) async throws -> Int64 {
        let base = try await baseVersion()
        return withState { writes in
            let version = base + Int64(writes.changesets.count) + 1
            writes.changesets.append(ServerChangeset(serverVersion: version, draft: changeset))
            return version
        }
    }

    package func integratedClientVersion(fileIdent: Int64) async throws -> Int64 {
        if let buffered = withState({ $0.progress[fileIdent] }) { return buffered }
        return try await reader.integratedClientVersion(fileIdent: fileIdent)
    }

    package func setIntegratedClientVersion(fileIdent: Int64, _ version: Int64) async throws {
        withState { $0.progress[fileIdent] = version }
    }

    package func recordAuditBatch(_ batch: AuditBatchDraft) async throws {
        withState { writes in
            precondition(writes.auditBatch == nil, "A storage transaction records at most one audit batch")
            writes.auditBatch = batch
        }
    }

    package func removeAuditEvents(_ removals: [AuditRemoval]) async throws {
        withState { $0.auditRemovals += removals }
    }
}
