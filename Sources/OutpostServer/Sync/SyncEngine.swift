import Foundation
import Logging
import OutpostCore
import Synchronization

/// The sync server: serves sync connections for every app whose settings it can find, integrates uploads into
/// the storage's history, and pushes new server versions to every session of the app — including versions
/// committed by other server processes sharing the same database.
///
/// Call ``run()`` (for example as a service) so that changes from other processes reach this process's sessions.
public final class SyncEngine: SyncConnectionHandler {
    /// The seed page's client message for error 231.
    public static let compensatingWriteMessage =
        "Client attempted a write that is outside of permissions or query filters; it has been reverted"

    let storage: any ServerStorage
    let hub: SyncHub
    let logger: Logger
    let metrics = SyncMetrics()
    /// Downloads shared by sessions with equal views.
    let downloads = DownloadCache()
    let maxSessionsPerConnection = 256
    /// Bytes of message text one connection may have queued for its sessions before the server stops reading it
    /// (``InboundBudget``).
    let inboundLimit: Int
    /// The default of `inboundLimit`: two messages of the largest size. Outpost-only.
    public static let defaultInboundLimit = 2 * SyncProtocolLimits.maxMessageBytes
    /// Each app's development-mode schema as this process last read or wrote it. The stored schema only grows,
    /// so fields found here are recorded in storage too.
    private let knownSchemas = Mutex<[String: [String: [String: String]]]>([:])
    /// Serialises the recording of each app's schema (``checkSchema(settings:written:)``).
    private let schemaLock = AppTransactionLock()
    private let settingsProvider: @Sendable (String) async -> SyncAppSettings?
    /// The open connections' close functions, by app and user id, then by a number of their own.
    private let openConnections = Mutex<(next: Int, byUser: [UserKey: [Int: @Sendable (UInt16, String) async -> Void]])>(
        (0, [:]))

    private struct UserKey: Hashable {
        var appId: String
        var userId: String
    }

    /// - Parameters:
    ///   - storage: where documents and history live.
    ///   - inboundLimit: bytes of message text one connection may have waiting for its sessions; past it the
    ///     server reads no more of the connection until they catch up (Outpost-only).
    ///   - settings: the sync settings of an app by id (nil for an unknown app).
    public init(storage: any ServerStorage, logger: Logger = Logger(label: "outpost.sync"),
                inboundLimit: Int = SyncEngine.defaultInboundLimit,
                settings: @escaping @Sendable (String) async -> SyncAppSettings?) {
        self.storage = storage
        self.inboundLimit = inboundLimit
        self.hub = SyncHub(storage: storage)
        self.logger = logger
        self.settingsProvider = settings
    }

    public func serve(_ connection: SyncConnection) async {
        var logger = logger
        logger[metadataKey: "peer"] = "\(connection.remoteAddress)"
        logger[metadataKey: "user"] = "\(connection.user.userId)"
        metrics.connectionOpened()
        defer { metrics.connectionClosed() }
        let key = UserKey(appId: connection.user.appId, userId: connection.user.userId)
        let number = openConnections.withLock { state in
            state.next += 1
            state.byUser[key, default: [:]][state.next] = connection.close
            return state.next
        }
        defer {
            openConnections.withLock { state in
                state.byUser[key]?[number] = nil
                if state.byUser[key]?.isEmpty == true { state.byUser[key] = nil }
            }
        }
        await SyncConnectionLoop(engine: self, connection: connection, logger: logger).run()
    }

    /// The users of an app with open sync connections, and how many each has, by user id. Outpost-only.
    public func connectedUsers(appId: String) -> [(userId: String, connections: Int)] {
        openConnections.withLock { state in
            state.byUser.filter { $0.key.appId == appId }.map { (userId: $0.key.userId, connections: $0.value.count) }
        }.sorted { $0.userId < $1.userId }
    }

    /// Closes every open sync connection of a user (WebSocket close code 1008, policy violation, with `reason`),
    /// for example once an admin disabled or deleted them: their next connection is refused at its token.
    /// Returns how many were closed. Outpost-only.
    @discardableResult
    public func closeConnections(appId: String, userId: String, reason: String) async -> Int {
        let closes = openConnections.withLock { Array(($0.byUser[UserKey(appId: appId, userId: userId)] ?? [:]).values) }
        for close in closes { await close(1008, reason) }
        return closes.count
    }

    /// Forwards the storage's change notifications (from every process) to the sessions until cancelled, and
    /// every `pollInterval` checks the latest versions in storage in case a notification was lost.
    public func run(pollInterval: Duration = .seconds(2)) async throws {
        let notifications = try await storage.changeNotifications()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [hub] in
                for await note in notifications { await hub.announce(note) }
            }
            group.addTask { [hub] in
                while !Task.isCancelled {
                    try await Task.sleep(for: pollInterval)
                    await hub.poll()
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Tells the engine that an app's history grew outside a sync session (Data API, admin API) in this process.
    public func announce(appId: String, serverVersion: Int64) async {
        await hub.announce(ChangeNotification(appId: appId, serverVersion: serverVersion))
    }

    /// The number of sessions currently bound, for the admin API.
    public var activeConnections: Int { metrics.openConnections }

    /// Bytes of client messages read and waiting in their sessions' queues, over all connections; at most
    /// ``inboundLimit`` per connection, plus one message. Outpost-only (the original exposes no such figure).
    public var queuedInboundBytes: Int { metrics.queuedInboundBytes }

    func settings(appId: String) async -> SyncAppSettings? {
        await settingsProvider(appId)
    }

    func log(appId: String, kind: String, level: String, _ message: String, details: Value? = nil) async {
        do {
            try await storage.appendLog(LogRecord(appId: appId, kind: kind, level: level, message: message, details: details))
        } catch {
            logger.error("could not write the server log: \(error)")
        }
    }

    /// Checks fields written per collection (with a sample value each, ``SchemaGuard/writtenFields(_:)``): their
    /// names (``SchemaGuard/checkNames(_:)``), and against the schema (development mode off), or records what they add (development mode on).
    func checkSchema(settings: SyncAppSettings, written: [String: [String: Value]]) async throws {
        if let error = SchemaGuard.checkNames(written) ?? SchemaGuard(settings: settings).check(written) {
            await log(appId: settings.appId, kind: "schema", level: "error", error.message)
            throw error
        }
        guard settings.developmentMode else { return }
        // Nothing new against what this process knows is recorded: no storage read (one per upload before).
        if knowsAll(written, appId: settings.appId) { return }
        // One read-merge-write at a time per app, in this process (the lock) and across processes on one database
        // (`updateSetting`): two sessions adding different fields at once each wrote the schema they had read plus
        // their own fields, and the later write dropped the other's.
        try await schemaLock.withLock(settings.appId) {
            if knowsAll(written, appId: settings.appId) { return }
            let stored: Value?
            do {
                stored = try await storage.updateSetting(appId: settings.appId, key: "schema") { current in
                    SchemaGuard.merge(written, into: Self.schema(from: current)).map(Self.settingValue)
                }
            } catch let error as StorageError where error.underlying is ValueError {
                stored = try await replaceUnreadableSchema(appId: settings.appId, written: written, error: error)
            }
            knownSchemas.withLock { $0[settings.appId] = Self.schema(from: stored) }
        }
    }

    /// A recorded schema that cannot be read back (an earlier version recorded a class named `$…`) is reported once
    /// with the entry it fails at and replaced by what this process knew of it plus this upload: every upload of
    /// the app would otherwise fail with 201 and be retried for ever.
    private func replaceUnreadableSchema(
        appId: String, written: [String: [String: Value]], error: StorageError
    ) async throws -> Value {
        let known = (knownSchemas.withLock { $0[appId] } ?? [:]).filter { ObjectNames.problem(withClassName: $0.key) == nil }
        let replacement = Self.settingValue(SchemaGuard.merge(written, into: known) ?? known)
        let detail = error.underlying.map { "\($0)" } ?? error.message
        await log(appId: appId, kind: "schema", level: "error",
                  "the recorded schema cannot be read (\(detail)); it is replaced by the \(known.count) classes this server knew and this upload's")
        logger.error("the recorded schema of app \(appId) cannot be read (\(detail)); replaced")
        try await storage.setSetting(appId: appId, key: "schema", value: replacement)
        return replacement
    }

    /// The `schema` setting's value for a recorded schema.
    static func settingValue(_ schema: [String: [String: String]]) -> Value {
        .document(Document(schema.mapValues { .document(Document($0.mapValues { .string($0) })) }))
    }

    /// Whether this process knows every field `written` writes to be recorded for the app.
    private func knowsAll(_ written: [String: [String: Value]], appId: String) -> Bool {
        guard let known = knownSchemas.withLock({ $0[appId] }) else { return false }
        return SchemaGuard.merge(written, into: known) == nil
    }

    /// The schema development mode has recorded: collection → field → type name.
    public func recordedSchema(appId: String) async throws -> [String: [String: String]] {
        Self.schema(from: try await storage.setting(appId: appId, key: "schema"))
    }

    /// The recorded schema in the `schema` setting's value.
    static func schema(from value: Value?) -> [String: [String: String]] {
        guard case .document(let collections)? = value else { return [:] }
        var out: [String: [String: String]] = [:]
        for (name, fields) in collections.fields {
            guard case .document(let f) = fields else { continue }
            out[name] = f.fields.compactMapValues { if case .string(let s) = $0 { s } else { nil } }
        }
        return out
    }
}
