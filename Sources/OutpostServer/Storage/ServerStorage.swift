import Foundation
import OutpostCore

/// Where the server keeps everything: the three kinds of records it stores, and the life cycle of the database
/// that holds them.
///
/// - ``AccountStorage``: users, refresh sessions and API keys — what logins read and write.
/// - ``DocumentStorage``: each app's documents, the change history with its increasing server versions, client
///   files, and app settings — what sync, the Data API and the admin API read and write.
/// - ``AppLogStorage``: the server log that the admin API serves.
/// - ``AuditStorage``: the index of each app's `AuditEvent` collection and the hash chain of its event ingests.
///
/// They are separate protocols so that a component can say which part it needs (the sync hub reads history only,
/// the auth log writes log records only) and so that the conformance suite checks each part on its own; a
/// storage driver implements all of them, so this protocol is what the server is given.
///
/// Two drivers implement it — ``SQLiteStorage`` (the embedded default) and ``PostgresStorage`` — and one
/// conformance suite (`StorageConformance` in OutpostServerTesting) runs against both.
///
/// Every method is safe to call from many tasks at once. Writes to documents and history happen only inside
/// ``DocumentStorage/transaction(appId:_:)``, which the drivers serialise per app (across processes, for
/// PostgreSQL): the server is the sequencer, and a transaction sees and assigns server versions one after another.
public protocol ServerStorage: AccountStorage, DocumentStorage, AppLogStorage, AuditStorage {
    /// Creates tables and indexes when they do not exist yet. Called once before any other method.
    func prepare() async throws

    /// Releases connections. No method may be called afterwards.
    func close() async throws
}
