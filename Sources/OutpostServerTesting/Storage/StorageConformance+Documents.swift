import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    static var documentChecks: [Check] {
        [
            .documentStorage("documents: every value type round-trips exactly") { storage in
                let app = appId()
                let documents = [
                    everyValueDocument(id: .objectId(ObjectId.generate())),
                    everyValueDocument(id: .string("every")),
                    everyValueDocument(id: .int(-5)),
                    everyValueDocument(id: .uuid(UUID())),
                    everyValueDocument(id: .string("nul\u{0}key")),
                ]
                let seen = try await storage.transaction(appId: app) { tx in
                    for document in documents { try await tx.putDocument(collection: "Every", document) }
                    return try await tx.documents(collection: "Every", primaryKeys: documents.map { $0["_id"]! })
                }
                for document in documents {
                    let id = document["_id"]!
                    try Expect.equal(seen[id], document, "document read back inside its transaction")
                    let stored = try await storage.document(appId: app, collection: "Every", primaryKey: id)
                    try Expect.equal(stored, document, "stored document")
                    if case .int(let v)? = stored?["int"] { try Expect.equal(v, 42, "int stays int") } else {
                        throw ConformanceFailure(message: "an int came back as \(String(describing: stored?["int"]))")
                    }
                    if case .double(let v)? = stored?["integralDouble"] { try Expect.equal(v, 3.0, "double") } else {
                        throw ConformanceFailure(message: "an integral double came back as \(String(describing: stored?["integralDouble"]))")
                    }
                    if case .double(let v)? = stored?["negativeZero"] {
                        try Expect.that(v == 0 && v.sign == .minus, "-0.0 keeps its sign")
                    }
                }
                // Extended JSON has no float type: a float is stored as a double of the same value.
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Floats", ["_id": .int(1), "f": .float(1.25)])
                }
                try Expect.equal(
                    try await storage.document(appId: app, collection: "Floats", primaryKey: .int(1)),
                    ["_id": .int(1), "f": .double(1.25)], "a float reads back as a double")
                let all = try await storage.documents(appId: app, collection: "Every")
                try Expect.equal(Set(all), Set(documents), "collection listing")
                let inHistory = try await storage.transaction(appId: app) { tx in
                    try await tx.appendChangeset(ServerChangesetDraft(changes: [
                        DocumentChange(collection: "Every", primaryKey: documents[0]["_id"]!, before: documents[1],
                                       after: documents[0], changedFields: ["a", "b"]),
                    ]))
                }
                let changeset = try await storage.changesets(appId: app, after: inHistory - 1, upTo: inHistory, limit: 1)
                try Expect.equal(changeset.first?.draft.changes.first?.after, documents[0], "document inside a changeset")
                try Expect.equal(changeset.first?.draft.changes.first?.before, documents[1], "before inside a changeset")
            },
            .documentStorage(
                "documents: a pre-written text is stored as its document, in the table and in the history"
            ) { storage in
                let app = appId()
                let documents = [everyValueDocument(id: .objectId(ObjectId.generate())), everyValueDocument(id: .int(7))]
                let replaced: Document = {
                    var document = documents[1]
                    document["extra"] = .string("written later")
                    return document
                }()
                let version = try await storage.transaction(appId: app) { tx in
                    for document in documents {
                        try await tx.putDocument(collection: "Texts", document, text: document.extendedJSONText)
                    }
                    // A later put of the same document without a text wins over the earlier text.
                    try await tx.putDocument(collection: "Texts", replaced)
                    return try await tx.appendChangeset(ServerChangesetDraft(changes: documents.map {
                        DocumentChange(collection: "Texts", primaryKey: $0["_id"]!, inserted: $0, text: $0.extendedJSONText)
                    }))
                }
                try Expect.equal(try await storage.document(appId: app, collection: "Texts", primaryKey: documents[0]["_id"]!),
                                 documents[0], "a document stored from its text")
                try Expect.equal(try await storage.document(appId: app, collection: "Texts", primaryKey: .int(7)),
                                 replaced, "a later put without a text")
                let changes = try await storage.changesets(appId: app, after: version - 1, upTo: version, limit: 1)
                    .first?.draft.changes ?? []
                try Expect.equal(changes.map(\.after), documents.map { $0 }, "changes stored from their texts")
                try Expect.equal(changes.map(\.changedFields), documents.map(\.sortedKeys), "their changed fields")
                // A document deleted after a put with a text stays deleted.
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Texts", ["_id": .int(8)], text: Document(["_id": .int(8)]).extendedJSONText)
                    try await tx.deleteDocument(collection: "Texts", primaryKey: .int(8))
                }
                try Expect.equal(try await storage.document(appId: app, collection: "Texts", primaryKey: .int(8)), nil,
                                 "deleted after a put with a text")
            },
            .documentStorage(
                "documents: insertNew inserts only what is not stored or written yet, with its texts"
            ) { storage in
                // Through the driver's transaction, and through the protocol's default (one put per document).
                for useDefault in [false, true] {
                    let app = appId()
                    let ids: [Value] = [.objectId(.generate()), .int(1), .string("two"), .int(3), .uuid(UUID())]
                    let documents = ids.map { id -> Document in
                        var document = everyValueDocument(id: id)
                        document["n"] = .string("new \(id)")
                        return document
                    }
                    let old: Document = ["_id": .int(1), "n": .string("stored before")]
                    let earlier: Document = ["_id": .int(3), "n": .string("written earlier in the transaction")]
                    try await storage.transaction(appId: app) { tx in try await tx.putDocument(collection: "New", old) }
                    let inserts = try PrewrittenInserts(documents)
                    let inserted = try await storage.transaction(appId: app) { tx -> [Int] in
                        let tx: any StorageTransaction = useDefault ? DefaultsOnly(tx) : tx
                        try await tx.putDocument(collection: "New", earlier)
                        let first = try await tx.insertNew(collection: "New", inserts)
                        let again = try await tx.insertNew(collection: "New", inserts)
                        try Expect.equal(again, [], "nothing is inserted twice (default: \(useDefault))")
                        return first
                    }
                    try Expect.equal(inserted, [0, 2, 4], "the new documents' indices (default: \(useDefault))")
                    let stored = try await storage.documents(appId: app, collection: "New")
                    try Expect.equal(Set(stored), Set([old, earlier, documents[0], documents[2], documents[4]]),
                                     "stored documents (default: \(useDefault))")
                }
            },
            .documentStorage("documents: lookup by primary keys of every key type, present and absent") { storage in
                let app = appId()
                let oid = ObjectId.generate()
                let uuid = UUID()
                let keys: [Value] = [.string("a"), .string("1"), .int(1), .int(10), .objectId(oid), .uuid(uuid), .string(hostileName)]
                try await storage.transaction(appId: app) { tx in
                    for (i, key) in keys.enumerated() {
                        try await tx.putDocument(collection: "Mixed", ["_id": key, "i": .int(Int64(i))])
                    }
                }
                let absent: [Value] = [
                    .string("zzz"), .int(2), .objectId(ObjectId.generate()), .uuid(UUID()), .double(1.5), .string("A"),
                ]
                let wanted = keys + absent + [.int(1)]
                let found = try await storage.transaction(appId: app) { tx in
                    try await tx.documents(collection: "Mixed", primaryKeys: wanted)
                }
                try Expect.equal(Set(found.keys), Set(keys), "found keys")
                for (i, key) in keys.enumerated() {
                    try Expect.equal(found[key], ["_id": key, "i": .int(Int64(i))], "document \(key)")
                    try Expect.equal(
                        try await storage.document(appId: app, collection: "Mixed", primaryKey: key), found[key],
                        "document(primaryKey:) \(key)")
                }
                try Expect.equal(
                    try await storage.document(appId: app, collection: "Mixed", primaryKey: .int(2)), nil, "absent key")
                try Expect.equal(
                    try await storage.document(appId: app, collection: "Other", primaryKey: .int(1)), nil,
                    "key of another collection")
                let none = try await storage.transaction(appId: app) { tx in
                    try await tx.documents(collection: "Mixed", primaryKeys: [])
                }
                try Expect.equal(none, [:], "no keys asked")
            },
            .documentStorage("documents: listing in primary-key order; collections listing") { storage in
                let app = appId()
                try Expect.equal(try await storage.collections(appId: app), [], "collections of a new app")
                try Expect.equal(try await storage.documents(appId: app, collection: "Item"), [], "empty collection")
                try await storage.transaction(appId: app) { tx in
                    for n: Int64 in [10, 2, 1, 33, -4] { try await tx.putDocument(collection: "Item", ["_id": .int(n)]) }
                    for s in ["b", "a", "B", "é"] { try await tx.putDocument(collection: "Tag", ["_id": .string(s)]) }
                    try await tx.putDocument(collection: "Zed", ["_id": .int(1)])
                    try await tx.putDocument(collection: hostileName, ["_id": .int(1)])
                }
                try Expect.equal(
                    try await storage.documents(appId: app, collection: "Item").map { $0["_id"]! },
                    [.int(-4), .int(1), .int(2), .int(10), .int(33)], "int keys in order")
                try Expect.equal(
                    try await storage.documents(appId: app, collection: "Tag").map { $0["_id"]! },
                    [.string("B"), .string("a"), .string("b"), .string("é")], "string keys in order")
                try Expect.equal(
                    try await storage.collections(appId: app), [hostileName, "Item", "Tag", "Zed"].sorted(),
                    "collections")
                _ = try await storage.transaction(appId: app) { tx in
                    try await tx.deleteDocument(collection: "Zed", primaryKey: .int(1))
                }
                try Expect.equal(
                    try await storage.collections(appId: app), [hostileName, "Item", "Tag"].sorted(),
                    "a collection without documents is not listed")
            },
            .documentStorage("documents: a collection reads page by page in stored-key order") { storage in
                let app = appId()
                var documents: [Document] = []
                for n: Int64 in [-40, -3, 0, 7, 12, 100, 1_000_000] { documents.append(["_id": .int(n), "n": .int(n)]) }
                for s in ["b", "a", "B", "é", "\u{1}", "😀", "a\"b"] { documents.append(["_id": .string(s), "s": .string(s)]) }
                for _ in 0..<6 { documents.append(["_id": .objectId(ObjectId.generate()), "o": .bool(true)]) }
                for _ in 0..<4 { documents.append(["_id": .uuid(UUID()), "u": .null]) }
                let toPut = documents
                try await storage.transaction(appId: app) { tx in
                    for document in toPut.reversed() { try await tx.putDocument(collection: "Paged", document) }
                    try await tx.putDocument(collection: "Other", ["_id": .int(1)])
                }
                try await storage.transaction(appId: appId()) { tx in
                    try await tx.putDocument(collection: "Paged", ["_id": .int(5)])  // another app's
                }
                let expected = documents.map { (key: PrimaryKeyText.make($0["_id"]!), document: $0) }
                    .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                var read: [StoredDocument] = []
                var sizes: [Int] = []
                var after: String?
                while true {
                    let page = try await storage.documents(appId: app, collection: "Paged", after: after, limit: 7)
                    sizes.append(page.count)
                    read += page
                    guard page.count == 7, let last = page.last else { break }
                    after = last.key
                }
                try Expect.equal(sizes, [7, 7, 7, 3], "page sizes")
                try Expect.equal(read.map(\.key), expected.map(\.key), "keys in byte order, each once")
                try Expect.equal(read.map(\.document), expected.map(\.document), "the documents")
                // The same pages as text: the same keys, each text the stored document's Extended JSON.
                var texts: [StoredDocumentText] = []
                after = nil
                while true {
                    let page = try await storage.documentTexts(appId: app, collection: "Paged", after: after, limit: 7)
                    texts += page
                    guard page.count == 7, let last = page.last else { break }
                    after = last.key
                }
                try Expect.equal(texts.map(\.key), expected.map(\.key), "text pages: the same keys")
                try Expect.equal(try texts.map { try Document(extendedJSONText: $0.text) }, expected.map(\.document),
                                 "text pages: the documents")
                for (after, limit, collection, what) in [(nil, 0, "Paged", "limit 0"), (nil, -1, "Paged", "a negative limit"),
                                                         (expected.last!.key, 7, "Paged", "after the last key"),
                                                         (nil, 7, "Missing", "an empty collection")] as [(String?, Int, String, String)] {
                    try Expect.equal(
                        try await storage.documentTexts(appId: app, collection: collection, after: after, limit: limit).count,
                        0, "text pages: \(what) reads nothing")
                }
                let all = try await storage.documents(appId: app, collection: "Paged", after: nil, limit: 1_000)
                try Expect.equal(all.map(\.key), expected.map(\.key), "one page for all")
                let middle = expected[10].key
                try Expect.equal(
                    try await storage.documents(appId: app, collection: "Paged", after: middle, limit: 3).map(\.key),
                    expected[11..<14].map(\.key), "after a key: the keys after it")
                // A page reads what is committed when it is read.
                _ = try await storage.transaction(appId: app) { tx in
                    try await tx.deleteDocument(collection: "Paged", primaryKey: expected[11].document["_id"]!)
                }
                try Expect.equal(
                    try await storage.documents(appId: app, collection: "Paged", after: middle, limit: 3).map(\.key),
                    expected[12..<15].map(\.key), "a deleted document is not read")
                try Expect.equal(try await storage.documents(appId: app, collection: "Paged", after: nil, limit: 0).count, 0,
                                 "limit 0")
                try Expect.equal(try await storage.documents(appId: app, collection: "Paged", after: nil, limit: -1).count, 0,
                                 "a negative limit reads nothing")
                try Expect.equal(
                    try await storage.documents(appId: app, collection: "Paged", after: expected.last!.key, limit: 7).count,
                    0, "after the last key")
                try Expect.equal(try await storage.documents(appId: app, collection: "Missing", after: nil, limit: 7).count, 0,
                                 "an empty collection")
            },
            .documentStorage("documents: put replaces, delete reports existence") { storage in
                let app = appId()
                try await storage.transaction(appId: app) { tx in
                    try await tx.putDocument(collection: "Item", ["_id": .int(1), "v": .int(1), "old": .bool(true)])
                    try await tx.putDocument(collection: "Item", ["_id": .int(2)])
                }
                let results = try await storage.transaction(appId: app) { tx -> [Bool] in
                    try await tx.putDocument(collection: "Item", ["_id": .int(1), "v": .int(2)])
                    let a = try await tx.deleteDocument(collection: "Item", primaryKey: .int(2))
                    let b = try await tx.deleteDocument(collection: "Item", primaryKey: .int(2))
                    let c = try await tx.deleteDocument(collection: "Item", primaryKey: .int(3))
                    try await tx.putDocument(collection: "Item", ["_id": .int(4)])
                    let d = try await tx.deleteDocument(collection: "Item", primaryKey: .int(4))
                    try await tx.putDocument(collection: "Item", ["_id": .int(5), "back": .bool(true)])
                    try await tx.deleteDocument(collection: "Item", primaryKey: .int(5))
                    try await tx.putDocument(collection: "Item", ["_id": .int(5), "back": .bool(true)])
                    let seen = try await tx.documents(collection: "Item", primaryKeys: [.int(1), .int(2), .int(4), .int(5)])
                    return [a, b, c, d, seen.count == 2, seen[.int(1)]?["old"] == nil]
                }
                try Expect.equal(results, [true, false, false, true, true, true], "delete results and reads in the transaction")
                try Expect.equal(
                    try await storage.documents(appId: app, collection: "Item"),
                    [["_id": .int(1), "v": .int(2)], ["_id": .int(5), "back": .bool(true)]], "committed documents")
            },
            .documentStorage(
                "documents: a document without _id throws .invalidDocument and commits nothing"
            ) { storage in
                let app = appId()
                try await Expect.throwsStorageError(.invalidDocument, "document without _id") {
                    try await storage.transaction(appId: app) { tx in
                        try await tx.putDocument(collection: "Item", ["_id": .int(1)])
                        try await tx.putDocument(collection: "Item", ["name": .string("no id")])
                    }
                }
                try Expect.equal(try await storage.documents(appId: app, collection: "Item"), [], "nothing committed")
            },
        ]
    }
}

/// A transaction that only forwards the protocol's requirements without defaults, so that its hooks
/// (`putDocument(collection:_:text:)`, `insertNew(collection:_:)`) take the protocol's default implementations.
private struct DefaultsOnly: StorageTransaction {
    let base: any StorageTransaction
    init(_ base: any StorageTransaction) { self.base = base }

    func latestServerVersion() async throws -> Int64 { try await base.latestServerVersion() }
    func documents(collection: String, primaryKeys: [Value]) async throws -> [Value: Document] {
        try await base.documents(collection: collection, primaryKeys: primaryKeys)
    }
    func putDocument(collection: String, _ document: Document) async throws {
        try await base.putDocument(collection: collection, document)
    }
    func deleteDocument(collection: String, primaryKey: Value) async throws -> Bool {
        try await base.deleteDocument(collection: collection, primaryKey: primaryKey)
    }
    func appendChangeset(_ changeset: ServerChangesetDraft) async throws -> Int64 {
        try await base.appendChangeset(changeset)
    }
    func integratedClientVersion(fileIdent: Int64) async throws -> Int64 {
        try await base.integratedClientVersion(fileIdent: fileIdent)
    }
    func setIntegratedClientVersion(fileIdent: Int64, _ version: Int64) async throws {
        try await base.setIntegratedClientVersion(fileIdent: fileIdent, version)
    }
    func recordAuditBatch(_ batch: AuditBatchDraft) async throws { try await base.recordAuditBatch(batch) }
    func removeAuditEvents(_ removals: [AuditRemoval]) async throws { try await base.removeAuditEvents(removals) }
}
