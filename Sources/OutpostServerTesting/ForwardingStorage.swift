import Foundation
import OutpostCore
import OutpostServer

/// A ``ServerStorage`` that forwards every call to another one. Tests subclass it and override the calls they want
/// to watch, hold or fail. `open` (and so public) because those subclasses live in the test targets, other modules
/// than this one; it is test support, not an API for applications.
///
/// It forwards each requirement of the four protocols except ``DocumentStorage/documentCount(appId:collection:)``,
/// which runs the protocol's default: it counts through this storage's own paged reads.
open class ForwardingStorage: ServerStorage, @unchecked Sendable {  // subclasses guard their own state
    public let base: any ServerStorage

    public init(_ base: any ServerStorage) { self.base = base }

    open func prepare() async throws { try await base.prepare() }
    open func close() async throws { try await base.close() }

    // MARK: AccountStorage

    open func insertUser(_ user: StoredUser) async throws { try await base.insertUser(user) }
    open func user(appId: String, id: String) async throws -> StoredUser? { try await base.user(appId: appId, id: id) }
    open func user(appId: String, provider: String, identity: String) async throws -> StoredUser? {
        try await base.user(appId: appId, provider: provider, identity: identity)
    }
    open func updateUser(_ user: StoredUser) async throws { try await base.updateUser(user) }
    open func deleteUser(appId: String, id: String) async throws -> Bool { try await base.deleteUser(appId: appId, id: id) }
    open func users(appId: String) async throws -> [StoredUser] { try await base.users(appId: appId) }
    open func insertSession(_ session: StoredSession) async throws { try await base.insertSession(session) }
    open func session(appId: String, id: String) async throws -> StoredSession? { try await base.session(appId: appId, id: id) }
    open func deleteSession(appId: String, id: String) async throws -> Bool { try await base.deleteSession(appId: appId, id: id) }
    open func deleteExpiredSessions(appId: String, before date: Date) async throws -> Int {
        try await base.deleteExpiredSessions(appId: appId, before: date)
    }
    open func insertAPIKey(_ key: StoredAPIKey) async throws { try await base.insertAPIKey(key) }
    open func apiKeys(appId: String, userId: String) async throws -> [StoredAPIKey] {
        try await base.apiKeys(appId: appId, userId: userId)
    }
    open func apiKey(appId: String, id: String) async throws -> StoredAPIKey? { try await base.apiKey(appId: appId, id: id) }
    open func deleteAPIKey(appId: String, id: String) async throws -> Bool { try await base.deleteAPIKey(appId: appId, id: id) }
    open func updateAPIKey(_ key: StoredAPIKey) async throws -> Bool { try await base.updateAPIKey(key) }

    // MARK: DocumentStorage

    open func transaction<T: Sendable>(appId: String, _ body: @Sendable (any StorageTransaction) async throws -> T) async throws -> T {
        try await base.transaction(appId: appId, body)
    }
    open func queuedTransaction<T: Sendable>(
        appId: String, _ body: @Sendable (any StorageTransaction) async throws -> T
    ) async throws -> PendingTransaction<T> {
        try await base.queuedTransaction(appId: appId, body)
    }
    open func latestServerVersion(appId: String) async throws -> Int64 { try await base.latestServerVersion(appId: appId) }
    open func changesets(appId: String, after: Int64, upTo: Int64, limit: Int) async throws -> [ServerChangeset] {
        try await base.changesets(appId: appId, after: after, upTo: upTo, limit: limit)
    }
    open func changeNotifications() async throws -> AsyncStream<ChangeNotification> { try await base.changeNotifications() }
    open func document(appId: String, collection: String, primaryKey: Value) async throws -> Document? {
        try await base.document(appId: appId, collection: collection, primaryKey: primaryKey)
    }
    open func documents(appId: String, collection: String) async throws -> [Document] {
        try await base.documents(appId: appId, collection: collection)
    }
    open func documents(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocument] {
        try await base.documents(appId: appId, collection: collection, after: after, limit: limit)
    }
    open func documentTexts(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocumentText] {
        try await base.documentTexts(appId: appId, collection: collection, after: after, limit: limit)
    }
    open func documents(
        appId: String, collection: String, matching query: DocumentQuery, after: String?, limit: Int
    ) async throws -> [StoredDocument] {
        try await base.documents(appId: appId, collection: collection, matching: query, after: after, limit: limit)
    }
    open func createFieldIndexes(_ fields: Set<String>) async throws { try await base.createFieldIndexes(fields) }
    open func collections(appId: String) async throws -> [String] { try await base.collections(appId: appId) }
    open func allocateClientFile(appId: String, userId: String) async throws -> ClientFile {
        try await base.allocateClientFile(appId: appId, userId: userId)
    }
    open func clientFile(appId: String, ident: Int64) async throws -> ClientFile? {
        try await base.clientFile(appId: appId, ident: ident)
    }
    open func setting(appId: String, key: String) async throws -> Value? { try await base.setting(appId: appId, key: key) }
    open func setSetting(appId: String, key: String, value: Value) async throws {
        try await base.setSetting(appId: appId, key: key, value: value)
    }
    open func updateSetting(
        appId: String, key: String, _ update: @escaping @Sendable (Value?) throws -> Value?
    ) async throws -> Value? {
        try await base.updateSetting(appId: appId, key: key, update)
    }

    // MARK: AppLogStorage

    open func appendLog(_ record: LogRecord) async throws { try await base.appendLog(record) }
    open func logs(appId: String, kind: String?, since: Date?, until: Date?, limit: Int) async throws -> [LogRecord] {
        try await base.logs(appId: appId, kind: kind, since: since, until: until, limit: limit)
    }
    open func deleteLogs(appId: String, before date: Date) async throws -> Int {
        try await base.deleteLogs(appId: appId, before: date)
    }

    // MARK: AuditStorage

    open func auditEvents(appId: String, matching search: AuditSearch, limit: Int) async throws -> [AuditEventRecord] {
        try await base.auditEvents(appId: appId, matching: search, limit: limit)
    }
    open func auditEventCount(appId: String, matching search: AuditSearch) async throws -> Int {
        try await base.auditEventCount(appId: appId, matching: search)
    }
    open func auditBatches(appId: String, after sequence: Int64, limit: Int) async throws -> [AuditBatchRecord] {
        try await base.auditBatches(appId: appId, after: sequence, limit: limit)
    }
    open func auditEventTexts(appId: String, eventIds: [String]) async throws -> [String: String] {
        try await base.auditEventTexts(appId: appId, eventIds: eventIds)
    }
    open func auditEventsIngestedPerHour(appId: String, since date: Date) async throws -> [Int64: Int] {
        try await base.auditEventsIngestedPerHour(appId: appId, since: date)
    }
}
