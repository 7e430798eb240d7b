import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting
import Testing

@testable import Outpost

/// Issue #5: the event store uploads to the server's `AuditEvent` collection (real server on 127.0.0.1).
@Suite(.timeLimit(.minutes(3)))
struct EventUploadTests {
    /// The `AuditEvent` documents the server holds, keyed by `_id`.
    static func auditEvents(_ storage: any ServerStorage, appId: String) async throws -> [OutpostCore.Document] {
        try await storage.documents(appId: appId, collection: "AuditEvent")
    }

    static func string(_ document: OutpostCore.Document, _ key: String) -> String? {
        if case .string(let s)? = document[key] { s } else { nil }
    }

    /// A local Realm audited with a logged-in user of another (synced) app: the scope's write event and a custom
    /// event reach the server with their fields and metadata, and the store ends empty (its shard files deleted).
    @Test func scopeAndCustomEventsArriveInAuditEventAndTheShardIsDeleted() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = try localEventConfiguration(
                    EventConfiguration(metadata: ["device": "test-device"], syncUser: user), types: [EvPerson.self])
                let realm = try await Realm(configuration: config)
                let events = realm.events!
                let scope = events.beginScope(activity: "add person")
                try realm.write { realm.add(EvPerson(1, "Ann", 30)) }
                try await scope.commit()
                try await events.recordEvent(activity: "custom activity", eventType: "note", data: "free text")

                try await eventuallyAsync(timeout: .seconds(20), "two events on the server") {
                    try await Self.auditEvents(server.storage, appId: server.appId).count == 2
                }
                let documents = try await Self.auditEvents(server.storage, appId: server.appId)
                    .sorted { ($0["_id"].map { "\($0)" } ?? "") < ($1["_id"].map { "\($0)" } ?? "") }
                #expect(documents.map { Self.string($0, "activity") } == ["add person", "custom activity"])
                #expect(documents.map { Self.string($0, "event") } == ["write", "note"])
                #expect(documents.allSatisfy { Self.string($0, "device") == "test-device" })
                #expect(Self.string(documents[0], "data")
                    == #"{"EvPerson":{"insertions":[{"_id":1,"age":30,"flag":false,"name":"Ann"}]}}"#)
                #expect(Self.string(documents[1], "data") == "free text")
                #expect(documents.allSatisfy { if case .date = $0["timestamp"] { true } else { false } })

                let store = realm.instance.eventRecorder!.context.store
                try await eventually(timeout: .seconds(10), "the uploaded shard is deleted") { store.shardFiles.isEmpty }
                // Later events start a new shard and upload too.
                try await events.recordEvent(activity: "later", eventType: nil, data: nil)
                try await eventuallyAsync(timeout: .seconds(20), "three events") {
                    try await Self.auditEvents(server.storage, appId: server.appId).count == 3
                }
            }
        }
    }

    /// Development mode off and a metadata key the server's `AuditEvent` schema lacks: commits still succeed
    /// locally, and the upload fails with Realm's fatal error (domain io.realm.sync, code 6, the exact text) given
    /// to the error handler; the events stay in the store.
    @Test func metadataFieldMissingFromTheServerSchemaIsAFatalErrorForTheHandler() async throws {
        let appConfig = try strictAuditEventApp(appId: "audit-strict")
        try await withTestServer(configuration: appConfig) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let errors = KillTests.LockedValue<[Error]>([])
                var eventConfig = EventConfiguration(metadata: ["invalid metadata field": "value"], syncUser: user)
                eventConfig.errorHandler = { error in errors.withLock { $0.append(error) } }
                let realm = try await Realm(configuration: try localEventConfiguration(eventConfig, types: [EvPerson.self]))
                try await realm.events!.recordEvent(activity: "activity", eventType: "type", data: nil)

                try await eventually(timeout: .seconds(20), "the error handler is called") {
                    !errors.withLock { $0 }.isEmpty
                }
                let error = try #require(errors.withLock { $0 }.first as? SyncError)
                #expect(error.code == .clientInternalError)
                #expect((error as NSError).domain == "io.realm.sync")
                #expect((error as NSError).code == 6)
                #expect(error.isFatal)
                #expect(error.localizedDescription
                    == #"Invalid schema change (UPLOAD): non-breaking schema change: adding "String" column at field "invalid metadata field" in schema "AuditEvent", schema changes from clients are restricted when developer mode is disabled"#)
                #expect(try await Self.auditEvents(server.storage, appId: server.appId).isEmpty)
                let store = realm.instance.eventRecorder!.context.store
                let kept = try store.shardFiles.flatMap { try EventStore.events(inShard: $0) }
                #expect(kept.map(\.activity) == ["activity"], "the refused event stays on the device")
            }
        }
    }

    /// With a tiny shard limit and the server down, 50 scopes fill several shards; when the server is back (same
    /// data directory and port), every event arrives exactly once and every shard file is deleted.
    @Test func scopesRecordedWhileTheServerIsDownArriveExactlyOnceFromSeveralShards() async throws {
        let directory = try KillTests.temporaryDirectory("events-offline")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dataDirectory = directory.appendingPathComponent("server")
        var server = try await OutpostServerProcess.launch(arguments: ["--port", "0", "--data-dir", dataDirectory.path])
        let port = server.port
        let app = App(id: AppDefinition.developmentAppId,
                      configuration: AppConfiguration(baseURL: server.baseURL,
                                                      rootDirectory: directory.appendingPathComponent("client")))
        app.syncManager.logLevel = .warn
        let user = try await app.login(credentials: .anonymous)
        _ = try await server.terminate()

        var eventConfig = EventConfiguration(syncUser: user)
        eventConfig.maxShardSize = 16 * 1024
        eventConfig.errorHandler = { error in Issue.record("unexpected event upload error: \(error)") }
        let realm = try await Realm(configuration: try localEventConfiguration(eventConfig, types: [EvPerson.self]))
        let events = realm.events!
        for n in 0..<50 {
            let scope = events.beginScope(activity: "scope \(n)")
            try realm.write { realm.add(EvPerson(n, String(repeating: "n", count: 300), n)) }
            try await scope.commit()
        }
        let store = realm.instance.eventRecorder!.context.store
        let shards = store.shardFiles
        #expect(shards.count > 2, "the tiny limit made several shards (\(shards.count))")
        #expect(try shards.reduce(0) { $0 + (try EventStore.events(inShard: $1).count) } == 50)

        server = try await KillTests.relaunch(dataDirectory: dataDirectory, port: port)
        store.uploader?.kick()
        try await eventually(timeout: .seconds(90), "every shard is uploaded and deleted") { store.shardFiles.isEmpty }
        _ = try await server.terminate()

        let storage = try SQLiteStorage(path: dataDirectory.appendingPathComponent("outpost.sqlite").path)
        let documents = try await Self.auditEvents(storage, appId: AppDefinition.developmentAppId)
        try await storage.close()
        let activities = documents.compactMap { Self.string($0, "activity") }
        #expect(activities.count == 50)
        #expect(Set(activities) == Set((0..<50).map { "scope \($0)" }), "each scope's event once")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: store.directory.path)) ?? []
        #expect(leftovers.isEmpty, "no shard, journal or lock file is left: \(leftovers)")
    }

    /// Leftover shards of an earlier run (written while no user could upload) are uploaded when a Realm with events
    /// for that user and prefix opens — here a different Realm file — and deleted; another prefix is left alone.
    @Test func leftoverShardsUploadWhenARealmWithEventsForTheUserOpens() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let directory = app.configuration.resolvedRootDirectory.appendingPathComponent("realm-audit")
                    .appendingPathComponent(app.appId).appendingPathComponent(user.id)
                // An earlier run's shards, written straight through a store with no uploader.
                let leftover = EventStore(directory: directory.appendingPathComponent("events"), partitionPrefix: "events",
                                          maxShardSize: 1)
                let other = EventStore(directory: directory.appendingPathComponent("other"), partitionPrefix: "other",
                                       maxShardSize: 1)
                for n in 0..<3 {
                    try leftover.append([StoredEvent(id: .generate(), timestamp: Date(), activity: "old \(n)", event: nil,
                                                     data: nil, metadata: [:])])
                }
                try other.append([StoredEvent(id: .generate(), timestamp: Date(), activity: "other", event: nil,
                                              data: nil, metadata: [:])])
                #expect(leftover.shardFiles.count == 3)

                let realm = try await Realm(configuration: try localEventConfiguration(
                    EventConfiguration(syncUser: user), types: [EvPerson.self]))
                _ = realm.events!
                try await eventuallyAsync(timeout: testPatience, "the leftovers arrive") {
                    try await Self.auditEvents(server.storage, appId: server.appId).count == 3
                }
                let stored = try await Self.auditEvents(server.storage, appId: server.appId)
                #expect(Set(stored.compactMap { Self.string($0, "activity") }) == ["old 0", "old 1", "old 2"])
                try await eventually(timeout: .seconds(10), "the leftover shards are deleted") {
                    leftover.shardFiles.filter { !$0.lastPathComponent.isEmpty }.count <= 1
                }
                #expect(other.shardFiles.count == 1, "another prefix is left alone")
            }
        }
    }

    /// A shard of more events than two batches goes up over two pipelined connections: every event arrives once,
    /// with its fields, and the shard ends empty.
    @Test func aShardOfSeveralBatchesUploadsPipelinedAndCompletely() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let directory = app.configuration.resolvedRootDirectory.appendingPathComponent("realm-audit")
                    .appendingPathComponent(app.appId).appendingPathComponent(user.id).appendingPathComponent("events")
                let leftover = EventStore(directory: directory, partitionPrefix: "events", maxShardSize: 1 << 30)
                let count = EventUploader.batchLimit * 2 + 1_234
                let events = (0..<count).map {
                    StoredEvent(id: .generate(), timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double($0)),
                                activity: "bulk \($0)", event: "write", data: "{\"n\":\($0),\"q\":\"\\\"é\"}",
                                metadata: ["device": "d\($0 % 3)"])
                }
                try leftover.append(events)
                #expect(EventUploadClient.connectionCount == 2)
                #expect(EventUploadClient(user: user).pipelineDepth == 4, "http:// with the default transport")

                let realm = try await Realm(configuration: try localEventConfiguration(
                    EventConfiguration(syncUser: user), types: [EvPerson.self]))
                _ = realm.events!
                try await eventuallyAsync(timeout: .seconds(60), "every event arrives") {
                    try await Self.auditEvents(server.storage, appId: server.appId).count == count
                }
                let stored = try await Self.auditEvents(server.storage, appId: server.appId)
                let byId = Dictionary(uniqueKeysWithValues: stored.map { ($0["_id"]!, $0) })
                for n in [0, EventUploader.batchLimit - 1, EventUploader.batchLimit, count - 1] {
                    let document = try #require(byId[.objectId(events[n].id)])
                    #expect(Self.string(document, "activity") == "bulk \(n)")
                    #expect(Self.string(document, "data") == events[n].data)
                    #expect(Self.string(document, "device") == "d\(n % 3)")
                    #expect(document["timestamp"] == .date(events[n].timestamp))
                }
                // `leftover` still holds its shard's lock (as a live writer would), so the shard stays, emptied.
                try await eventually(timeout: .seconds(10), "the shard is emptied") {
                    leftover.shardFiles.allSatisfy { ((try? EventStore.events(inShard: $0)) ?? [StoredEvent]()).isEmpty }
                }
            }
        }
    }

    /// An app with its own transport keeps getting every request, event uploads included (one at a time).
    @Test func anAppsOwnTransportCarriesTheUpload() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-client-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let transport = CountingTransport()
            let app = App(id: server.appId, configuration: AppConfiguration(
                baseURL: server.baseURL, transport: transport, rootDirectory: root))
            app.syncManager.logLevel = .warn
            let user = try await app.login(credentials: .anonymous)
            #expect(EventUploadClient(user: user).pipelineDepth == 1)
            let realm = try await Realm(configuration: try localEventConfiguration(
                EventConfiguration(syncUser: user), types: [EvPerson.self]))
            try await realm.events!.recordEvent(activity: "through the transport", eventType: nil, data: nil)
            try await eventuallyAsync(timeout: .seconds(20), "the event arrives") {
                try await Self.auditEvents(server.storage, appId: server.appId).count == 1
            }
            #expect(transport.urls.withLock { $0 }.contains { $0.hasSuffix("/events") })
            try await user.logOut()
        }
    }
}

/// A transport that records the URLs it sends to.
final class CountingTransport: RLMNetworkTransport, @unchecked Sendable {
    // @unchecked Sendable: `urls` is a locked box.
    let urls = KillTests.LockedValue<[String]>([])

    override func sendRequestToServer(_ request: RLMRequest, completion: @escaping @Sendable (RLMResponse) -> Void) {
        urls.withLock { $0.append(request.url) }
        super.sendRequestToServer(request, completion: completion)
    }
}

/// An app with development mode off whose `AuditEvent` schema has only the fixed fields (no metadata field).
func strictAuditEventApp(appId: String) throws -> AppDefinition {
    try AppDefinition(jsonText: """
        {
          "app_id": "\(appId)",
          "auth": { "anonymous": { "enabled": true } },
          "sync": { "mode": "flexible", "queryable_fields_names": ["_id"], "development_mode_enabled": false },
          "schema": { "AuditEvent": { "bsonType": "object", "properties": {
            "_id": { "bsonType": "objectId" }, "timestamp": { "bsonType": "date" },
            "activity": { "bsonType": "string" }, "event": { "bsonType": "string" },
            "data": { "bsonType": "string" } } } }
        }
        """)
}
