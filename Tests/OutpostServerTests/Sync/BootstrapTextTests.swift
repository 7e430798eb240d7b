import Foundation
import OutpostCore
import OutpostCoreTesting
import OutpostServer
import OutpostServerTesting
import Testing

/// Bootstraps of sessions that see whole collections send the stored documents' texts as they are
/// (`ServerStorage.documentTexts`); every other bootstrap reads the documents. Both must send the same
/// instructions.
@Suite struct BootstrapTextTests {
    static let user = AuthenticatedUser(appId: "text-app", userId: "6413800c6852d9220b2e2bb1")

    /// Counts how a bootstrap read the documents.
    final class CountingStorage: ForwardingStorage, @unchecked Sendable {  // counters behind `lock`
        private let lock = NSLock()
        private var texts = 0
        private var documents = 0

        var reads: (texts: Int, documents: Int) { lock.withLock { (texts, documents) } }
        func reset() { lock.withLock { texts = 0; documents = 0 } }

        override func documentTexts(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocumentText] {
            lock.withLock { texts += 1 }
            return try await base.documentTexts(appId: appId, collection: collection, after: after, limit: limit)
        }

        override func documents(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocument] {
            lock.withLock { documents += 1 }
            return try await base.documents(appId: appId, collection: collection, after: after, limit: limit)
        }
    }

    /// An app whose role reads every document and field, or one whose read filter depends on the document.
    static func settings(readsEverything: Bool) throws -> SyncAppSettings {
        let filter = readsEverything ? "true" : #"{"n": {"$gte": 0}}"#
        let role = #"{"name": "r", "apply_when": {}, "document_filters": {"read": \#(filter), "write": \#(filter)}, "read": true, "write": true}"#
        return SyncAppSettings(
            appId: "text-app", mode: .flexible, queryableFields: ["*"], developmentMode: true,
            rules: try RuleSet.parse(rulesText: #"{"Thing": {"roles": [\#(role)]}, "Named": {"roles": [\#(role)]}}"#))
    }

    /// Documents of every value kind, with keys that need escaping, in two collections with different key types.
    static func documents(seed: UInt64) -> [(String, Document)] {
        var random = SplitMix64(seed: seed)
        var out: [(String, Document)] = []
        for i in 0..<2_100 {
            var fields: [String: Value] = [
                "_id": .objectId(.generate()), "n": .int(Int64(i)), "s": .string("object \(i) \"é\" \\ 😀\n\u{1}"),
                "b": .bool(i % 2 == 0), "x": .null,
            ]
            switch random.next() % 6 {
            case 0: fields["d"] = .double(Double(i) / 7)
            case 1: fields["t"] = .date(Date(timeIntervalSince1970: Double(i * 1_001) / 1_000))  // whole milliseconds
            case 2: fields["u"] = .uuid(UUID())
            case 3: fields["list"] = .array([.int(1), .string("two"), .double(3.5)])
            case 4: fields["embedded"] = .document(["k": .string("v\(i)"), "m": .int(-Int64(i))])
            default: fields["bytes"] = .data(Data([0, 1, 2, UInt8(i % 256)]))
            }
            out.append(("Thing", Document(fields)))
        }
        for name in ["a", "b\"c", "é", "z z", "10", "9"] {
            out.append(("Named", ["_id": .string(name), "n": .int(1), "s": .string(name)]))
        }
        return out
    }

    @Test(arguments: Driver.enabled)
    func wholeCollectionBootstrapSendsTheSameInstructionsAsReadDocuments(driver: Driver) async throws {
        try await driver.withStorage { base in
            let storage = CountingStorage(base)
            let documents = Self.documents(seed: 7)
            try await withEngine(storage: storage, settings: [try Self.settings(readsEverything: true)]) { engine in
                let writer = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await writer.bindNewFile()
                _ = try await writer.subscribe(version: 1, ["Thing": "TRUEPREDICATE", "Named": "TRUEPREDICATE"])
                for (i, chunk) in stride(from: 0, to: documents.count, by: 500).enumerated() {
                    let instructions = documents[chunk..<min(chunk + 500, documents.count)].map { collection, document in
                        SyncInstruction.create(className: collection, primaryKey: document["_id"]!, fields: document)
                    }
                    try await writer.upload(clientVersion: Int64(i + 1), instructions)
                    _ = try await OwnChangeEchoTests.download(writer, ack: Int64(i + 1))
                }

                let reader = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await reader.bindNewFile()
                storage.reset()
                let whole = try await reader.subscribe(version: 1, ["Thing": "TRUEPREDICATE", "Named": "TRUEPREDICATE"])
                #expect(storage.reads.texts == 4 && storage.reads.documents == 0, "3 pages of Thing, 1 of Named, as text")
                storage.reset()
                let read = try await reader.subscribe(version: 2, ["Thing": "n >= 0", "Named": "n >= 0"])
                #expect(storage.reads.texts == 0 && storage.reads.documents == 4, "the same pages, read")

                #expect(whole.count == documents.count)
                #expect(whole == read, "the same upserts in the same order")
                // What was sent is what is stored, in key order per collection.
                var expected: [DownloadInstruction] = []
                for collection in ["Named", "Thing"] {
                    let stored = try await base.documents(appId: "text-app", collection: collection, after: nil, limit: 10_000)
                    expected += stored.map { .upsert(className: collection, primaryKey: $0.document["_id"]!, fields: $0.document) }
                }
                #expect(whole == expected)
                let uploaded = Dictionary(uniqueKeysWithValues: documents.map { ($0.1["_id"]!, $0.1) })
                for case .upsert(_, let pk, let fields) in whole {
                    // Extended JSON has no separate float; every kind used here reads back exactly.
                    #expect(fields == uploaded[pk], "\(pk)")
                }
                await writer.close()
                await reader.close()
            }
        }
    }

    /// A role whose read filter depends on the document, or a query that compares values: the documents are read
    /// (and filtered), never sent as stored.
    @Test(arguments: Driver.enabled)
    func sessionsThatMayNotSeeEverythingReadTheDocuments(driver: Driver) async throws {
        try await driver.withStorage { base in
            let storage = CountingStorage(base)
            try await withEngine(storage: storage, settings: [try Self.settings(readsEverything: false)]) { engine in
                let client = InMemorySyncConnection(handler: engine, user: Self.user)
                _ = try await client.bindNewFile()
                _ = try await client.subscribe(version: 1, ["Thing": "TRUEPREDICATE"])
                try await client.upload(clientVersion: 1, [
                    .create(className: "Thing", primaryKey: .int(1), fields: ["_id": .int(1), "n": .int(1)]),
                    .create(className: "Thing", primaryKey: .int(2), fields: ["_id": .int(2), "n": .int(-1)]),
                ])
                // The second object breaks the write filter: it is refused.
                _ = try await client.next { if case .download(let d) = $0 { d.uploadAck == 1 } else { false } }
                storage.reset()
                let instructions = try await client.subscribe(version: 2, ["Thing": "TRUEPREDICATE OR FALSEPREDICATE"])
                #expect(storage.reads.texts == 0 && storage.reads.documents == 1)
                #expect(instructions == [.upsert(className: "Thing", primaryKey: .int(1), fields: ["_id": .int(1), "n": .int(1)])])
                await client.close()
            }
        }
    }

    @Test func storedUpsertTextIsTheUpsertsBytes() throws {
        var random = SplitMix64(seed: 11)
        let cases: [(String, Document)] = Array(Self.documents(seed: 3).prefix(200)) + [("Named", ["_id": .int(Int64(random.next() % 1000))])]
        for (collection, document) in cases {
            let pk = document["_id"]!
            var written: [UInt8] = []
            DownloadInstruction.upsert(className: collection, primaryKey: pk, fields: document).writeJSON(to: &written)
            var spliced: [UInt8] = []
            DownloadInstruction.writeUpsert(className: collection, fieldsText: document.extendedJSONText,
                                            primaryKeyText: PrimaryKeyText.make(pk), to: &spliced)
            #expect(spliced == written)
        }
    }
}
