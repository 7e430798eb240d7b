import Foundation
import OutpostCore
import OutpostCoreTesting
import OutpostServer
import OutpostServerTesting
import Testing

@Suite struct ServerStorageSupportTests {
    /// The hand-written changeset text reads back through the `Codable` decoder as the same changeset.
    @Test func changesetStorageTextReadsBackAsTheSameChangeset() throws {
        let before: Document = ["_id": .int(1), "name": .string("a \"quoted\" name"), "when": .date(Date(timeIntervalSince1970: 1.5))]
        var after = before
        after["name"] = .string("b")
        after["list"] = .array([.double(0.1), .null, .decimal128(try Decimal128(string: "1.25")), .uuid(UUID())])
        let draft = ServerChangesetDraft(
            originFileIdent: 7, originClientVersion: 42, timestamp: Date(timeIntervalSinceReferenceDate: 789_123.456),
            audience: 3, changes: [
                DocumentChange(collection: "Item", primaryKey: .int(1), before: before, after: after, changedFields: ["name", "list"]),
                DocumentChange(collection: "Other", primaryKey: .objectId(.generate()), before: nil, after: ["_id": .int(2)],
                               changedFields: []),
                DocumentChange(collection: "Gone", primaryKey: .string("x"), before: ["_id": .string("x")], after: nil,
                               changedFields: []),
            ])
        let decoded = try StorageCoding.decode(ServerChangesetDraft.self, from: try draft.storageText(), what: "changeset")
        #expect(decoded == draft)
        var plain = draft
        plain.audience = nil
        #expect(try StorageCoding.decode(ServerChangesetDraft.self, from: try plain.storageText(), what: "changeset") == plain)
    }

    /// A changeset's salt (in download cursors) is the same read back from storage as in memory — also for a time
    /// with sub-microsecond digits, as `Date()` gives — and differs for another changeset at the same version.
    @Test func aChangesetsSaltSurvivesStorage() throws {
        let draft = ServerChangesetDraft(originFileIdent: 4, originClientVersion: 9, timestamp: Date(), changes: [
            DocumentChange(collection: "Item", primaryKey: .int(1), before: nil, after: ["_id": .int(1)], changedFields: ["_id"]),
        ])
        let stored = try StorageCoding.decode(ServerChangesetDraft.self, from: try draft.storageText(), what: "changeset")
        let salt = ServerChangeset(serverVersion: 12, draft: draft).salt
        #expect(ServerChangeset(serverVersion: 12, draft: stored).salt == salt)
        #expect(salt >= 0 && salt < 1 << 52)
        var other = draft
        other.originClientVersion = 10
        #expect(ServerChangeset(serverVersion: 12, draft: other).salt != salt)
        #expect(ServerChangeset(serverVersion: 13, draft: draft).salt != salt)
        other = draft
        other.timestamp = draft.timestamp.addingTimeInterval(0.001)
        #expect(ServerChangeset(serverVersion: 12, draft: other).salt != salt)
    }

    /// A new document's change is stored without its key and changed fields (its `_id` and keys), and both readers
    /// take them from `after`; the same change without the mark, and a document whose `_id` is not the key, keep
    /// them.
    @Test func aNewDocumentIsStoredWithoutItsKeyAndChangedFields() throws {
        let after: Document = ["_id": .objectId(.generate()), "n": .int(5), "name": .string("object 5")]
        var marked = DocumentChange(collection: "Item", primaryKey: after["_id"]!, before: nil, after: after,
                                    changedFields: after.sortedKeys)
        marked.isWholeNewDocument = true
        let unmarked = DocumentChange(collection: "Item", primaryKey: .int(7), before: nil, after: ["_id": .int(7)],
                                      changedFields: ["_id"])
        let inserted = DocumentChange(collection: "Item", primaryKey: after["_id"]!, inserted: after, text: after.extendedJSONText)
        let otherKey = DocumentChange(collection: "Item", primaryKey: .int(1), inserted: ["_id": .int(2)], text: #"{"_id":2}"#)
        #expect(inserted.isWholeNewDocument && !otherKey.isWholeNewDocument)
        let draft = ServerChangesetDraft(originFileIdent: 3, originClientVersion: 9, timestamp: Date(timeIntervalSinceReferenceDate: 12),
                                         changes: [marked, unmarked, inserted, otherKey])
        let text = try draft.storageText()
        #expect(text.components(separatedBy: #""primaryKey""#).count - 1 == 2, "\(text)")
        #expect(text.components(separatedBy: #""changedFields""#).count - 1 == 2, "\(text)")
        let direct = try #require(ServerChangesetDraft.read(storageText: text))
        #expect(direct == draft)
        #expect(direct.changes.map(\.isWholeNewDocument) == [true, false, true, false])
        #expect(try StorageCoding.decode(ServerChangesetDraft.self, from: text, what: "changeset") == draft)
        #expect(try direct.storageText() == text, "written again, the same text")
        // Only a new document's change may leave them out.
        for bad in [#"{"changes":[{"before":{"_id":1},"collection":"C"}],"originClientVersion":1,"originFileIdent":0,"timestamp":1}"#,
                    #"{"changes":[{"after":{"n":1},"changedFields":["n"],"collection":"C"}],"originClientVersion":1,"originFileIdent":0,"timestamp":1}"#] {
            #expect(throws: StorageError.self) { try ServerChangesetDraft.fromStorageText(bad) }
        }
    }

    /// Stored changesets are read without `JSONDecoder` (`ServerChangesetDraft.fromStorageText`) as the `Codable`
    /// decoder reads them: 400 seeded random changesets over every value kind, nested documents and arrays,
    /// escapes, integral and fractional doubles and timestamps.
    @Test func storedChangesetsReadDirectlyAsTheCodableDecoderReadsThem() throws {
        var rng = SplitMix64(seed: 20261122)
        func value(_ depth: Int) -> Value {
            switch rng.next() % (depth > 1 ? 11 : 13) {
            case 0: return .null
            case 1: return .bool(rng.next() % 2 == 0)
            case 2: return .int(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 60))
            case 3: return .double(Double(Int64(rng.next() % 2_000_000) - 1_000_000) / [1, 4, 10, 3][Int(rng.next() % 4)])
            case 4: return .string(["", "plain", "quote \" and \\", "\u{1}\u{1f}\n", "é e\u{301} 🙂", "$oid"][Int(rng.next() % 6)])
            case 5: return .date(Date(timeIntervalSince1970: Double(Int64(rng.next() % 4_000_000_000_000) - 1_000_000_000_000) / 1000))
            case 6: return .objectId(.generate())
            case 7: return .uuid(UUID())
            case 8: return .decimal128(Decimal128(Double(rng.next() % 10_000) / 8))
            case 9: return .data(Data((0..<Int(rng.next() % 5)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
            case 10: return .link(className: "Other", primaryKey: .int(Int64(rng.next() % 100)))
            case 11: return .array((0..<Int(rng.next() % 4)).map { _ in value(depth + 1) })
            default: return .document(document(depth + 1))
            }
        }
        func document(_ depth: Int) -> Document {
            var fields: [String: Value] = [:]
            for i in 0..<Int(rng.next() % 6) { fields["f\(i)\(["", "é", "\"q"][Int(rng.next() % 3)])"] = value(depth) }
            return Document(fields)
        }
        var direct = 0
        for round in 0..<400 {
            var changes: [DocumentChange] = []
            for _ in 0..<Int(rng.next() % 4) {
                let before = rng.next() % 3 == 0 ? nil : document(0)
                let after = rng.next() % 3 == 0 ? nil : document(0)
                changes.append(DocumentChange(collection: ["Item", "Audit \"Event\""][Int(rng.next() % 2)],
                                              primaryKey: [.int(Int64(round)), .string("k\(round)"), .objectId(.generate())][Int(rng.next() % 3)],
                                              before: before, after: after,
                                              changedFields: (after ?? before)?.sortedKeys ?? []))
            }
            let seconds = round % 2 == 0 ? Double(rng.next() % 1_000_000) : Double(rng.next() % 1_000_000_000) / 1000
            let draft = ServerChangesetDraft(
                originFileIdent: Int64(rng.next() % 9), originClientVersion: Int64(rng.next() % 999),
                timestamp: Date(timeIntervalSinceReferenceDate: seconds), audience: round % 3 == 0 ? Int64(round) : nil,
                changes: changes)
            let text = try draft.storageText()
            let codable = try StorageCoding.decode(ServerChangesetDraft.self, from: text, what: "changeset")
            let read = try ServerChangesetDraft.fromStorageText(text)
            #expect(read == codable, "round \(round): \(text)")
            // (Not always `draft`: dates keep whole milliseconds in storage, on both paths.)
            if ServerChangesetDraft.read(storageText: text) != nil { direct += 1 }
        }
        #expect(direct == 400, "every written changeset takes the direct reading")

        // A compensation takes the `Codable` path, and reads back the same.
        let compensated = ServerChangesetDraft(
            timestamp: Date(timeIntervalSinceReferenceDate: 5), audience: 4,
            changes: [DocumentChange(collection: "Item", primaryKey: .int(1), before: nil, after: ["_id": .int(1)], changedFields: ["_id"])],
            compensation: Compensation(rejectedClientVersion: 3, rejections: [
                RejectedUpdate(table: "Item", primaryKey: .int(1), reason: "write not allowed")]))
        let compensatedText = try compensated.storageText()
        #expect(ServerChangesetDraft.read(storageText: compensatedText) == nil)
        #expect(try ServerChangesetDraft.fromStorageText(compensatedText) == compensated)
        // Text that is not a changeset is the decoder's error.
        for bad in ["", "{", #"{"changes":[],"originClientVersion":"1","originFileIdent":0,"timestamp":1}"#,
                    #"{"changes":[{"collection":"C"}],"originClientVersion":1,"originFileIdent":0,"timestamp":1}"#] {
            #expect(throws: StorageError.self) { try ServerChangesetDraft.fromStorageText(bad) }
        }
    }

    /// The changeset text written straight into bytes is the text of its `JSONValue` form, byte for byte (also
    /// where consecutive changes share a collection's written name).
    @Test func changesetStorageTextIsTheJSONValueText() throws {
        let draft = ServerChangesetDraft(
            originFileIdent: 7, originClientVersion: 42, timestamp: Date(timeIntervalSinceReferenceDate: 789_123.456),
            audience: 3, changes: [
                DocumentChange(collection: "Item", primaryKey: .int(1), before: ["_id": .int(1), "é": .string("\u{1}\"")],
                               after: ["_id": .int(1), "n": .double(2), "d": .date(Date(timeIntervalSince1970: -1.5))],
                               changedFields: ["n", "d"]),
                DocumentChange(collection: "Gone", primaryKey: .string("x"), before: nil, after: nil, changedFields: []),
                // Runs of the same collection, a return to an earlier one, and a name that needs escaping.
                DocumentChange(collection: "Gone", primaryKey: .string("y"), before: nil, after: nil, changedFields: []),
                DocumentChange(collection: "Item", primaryKey: .int(2), before: nil, after: ["_id": .int(2)],
                               changedFields: ["_id"]),
                DocumentChange(collection: "q\"uote\\d\u{1}", primaryKey: .int(3), before: nil, after: ["_id": .int(3)],
                               changedFields: ["_id"]),
                DocumentChange(collection: "Item", primaryKey: .int(4), before: nil, after: nil, changedFields: []),
            ])
        for audience in [3, nil] as [Int64?] {
            var draft = draft
            draft.audience = audience
            var fields: [String: JSONValue] = [
                "originFileIdent": .int(7), "originClientVersion": .int(42),
                "timestamp": .double(draft.timestamp.timeIntervalSinceReferenceDate),
                "changes": .array(draft.changes.map(\.storageJSON)),
            ]
            if let audience { fields["audience"] = .int(audience) }
            #expect(try draft.storageText() == JSONValue.object(fields).text)
            #expect(try draft.storageBytes() == Array(JSONValue.object(fields).text.utf8))
        }
        // With a compensation the bytes are the `Codable` form's, as the text is.
        var compensated = draft
        compensated.compensation = Compensation(rejectedClientVersion: 1, rejections: [])
        #expect(try compensated.storageBytes() == Array(try compensated.storageText().utf8))
    }

    /// A change that comes with its document's text (an event upload's inserts) is stored exactly as the same change
    /// without it; the text is not part of the change's value.
    @Test func changeWithPrewrittenTextIsStoredAsTheSameChange() throws {
        let document: Document = ["_id": .objectId(.generate()), "activity": .string("a \"quoted\" é \u{1}"),
                                  "timestamp": .date(Date(timeIntervalSince1970: 1_700_000_000.123)), "data": .null]
        let withText = DocumentChange(collection: "AuditEvent", primaryKey: document["_id"]!, inserted: document,
                                      text: document.extendedJSONText)
        var plain = DocumentChange(collection: "AuditEvent", primaryKey: document["_id"]!, before: nil, after: document,
                                   changedFields: document.sortedKeys)
        plain.isWholeNewDocument = true  // as the inserted change is: a new document keyed by its `_id`
        #expect(withText == plain && withText.hashValue == plain.hashValue)
        let time = Date(timeIntervalSinceReferenceDate: 12.5)
        let text = try ServerChangesetDraft(timestamp: time, changes: [withText, withText]).storageText()
        #expect(text == (try ServerChangesetDraft(timestamp: time, changes: [plain, plain]).storageText()))
        let encoded = String(decoding: try JSONEncoder().encode(withText), as: UTF8.self)
        #expect(!encoded.contains("afterText"))
    }

    /// A transaction's documents go to storage in address order whatever order they were written in; documents
    /// written in order stay in it; the last write of an address wins; texts written with a document are kept, and a
    /// later write without a text drops the old one.
    @Test func writtenDocumentsAreStoredInAddressOrder() throws {
        func address(_ collection: String, _ n: Int) -> DocumentAddress {
            DocumentAddress(collection: collection, key: PrimaryKeyText.make(.string(String(format: "k%04d", n))))
        }
        func document(_ n: Int, _ tag: String = "") -> Document {
            ["_id": .string(String(format: "k%04d", n)), "tag": .string(tag)]
        }
        var generator = SplitMix64(seed: 0x0dd_0de5)
        for round in 0..<50 {
            var writes = TransactionWrites()
            var expected: [DocumentAddress: Document?] = [:]
            var texts: [DocumentAddress: String] = [:]
            let ordered = round % 2 == 0
            for step in 0..<200 {
                let collection = ordered ? "A" : ["A", "B", "C"].randomElement(using: &generator)!
                let n = ordered ? step : Int.random(in: 0..<60, using: &generator)
                let at = address(collection, n)
                switch ordered ? 0 : Int.random(in: 0..<4, using: &generator) {
                case 0, 1:
                    let doc = document(n, "\(step)")
                    writes.documents.write(doc, at: at)
                    expected[at] = .some(doc)
                    texts[at] = nil
                case 2:
                    let doc = document(n, "text \(step)")
                    writes.documents.write(doc, at: at, text: doc.extendedJSONText)
                    expected[at] = .some(doc)
                    texts[at] = doc.extendedJSONText
                default:
                    writes.documents.write(nil, at: at)
                    expected[at] = .some(nil)
                    texts[at] = nil
                }
                #expect(writes.documents[at] == expected[at])
            }
            let stored = expected.compactMap { entry in entry.value.map { (entry.key, $0) } }
                .sorted { DocumentAddress.precedes($0.0, $1.0) }
            let puts = writes.puts
            #expect(puts.collections == stored.map(\.0.collection))
            #expect(puts.keys == stored.map(\.0.key))
            #expect(puts.bodies == stored.map { texts[$0.0] ?? $0.1.extendedJSONText })
            let deleted = Set(expected.filter { $0.value == nil }.keys)
            let deletes = writes.deletes
            #expect(Set(zip(deletes.collections, deletes.keys).map { DocumentAddress(collection: $0, key: $1) }) == deleted)
            #expect(writes.documents.count == expected.count)
        }
    }

    /// Storages without a paged read of their own (the in-memory one) page their full listing the same way.
    @Test func thePagedReadOfAStorageWithoutOneIsTheSame() async throws {
        let check = try #require(StorageConformance.checks.first { $0.name.hasPrefix("documents: a collection reads page by page") })
        try await check.run { MemoryStorage() }
    }

    /// Storages without indexes (the in-memory one) filter their pages with the same results.
    @Test(arguments: StorageConformance.queryChecks)
    func queriesOfAStorageWithoutIndexes(_ check: StorageConformance.Check) async throws {
        try await check.run { MemoryStorage() }
    }

    @Test func primaryKeyTextIsExtendedJSON() throws {
        #expect(PrimaryKeyText.make(.string("abc")) == #""abc""#)
        #expect(PrimaryKeyText.make(.int(42)) == "42")
        #expect(PrimaryKeyText.make(.objectId(try ObjectId(string: "65a1b2c3d4e5f60718293a4b"))) == #"{"$oid":"65a1b2c3d4e5f60718293a4b"}"#)
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(PrimaryKeyText.make(.uuid(uuid)) == #"{"$uuid":"e621e1f8-c36c-495a-93fc-0c247a3e6e5f"}"#)
        #expect(PrimaryKeyText.make(.int(1)) != PrimaryKeyText.make(.string("1")))
        // ObjectId keys are written by their own path: the same text as the value's Extended JSON, for every byte.
        var generator = SplitMix64(seed: 0x0b1e_c71d)
        for _ in 0..<200 {
            let id = try ObjectId(bytes: (0..<12).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            #expect(PrimaryKeyText.make(.objectId(id)) == Value.objectId(id).extendedJSONText)
        }
        #expect(PrimaryKeyText.make(.objectId(try ObjectId(bytes: [UInt8](repeating: 0xFF, count: 12))))
                == #"{"$oid":"ffffffffffffffffffffffff"}"#)
    }

    @Test func primaryKeyOrder() {
        let keys: [Value] = [.string("b"), .int(10), .int(-1), .string("B"), .int(9), .null]
        #expect(keys.sorted(by: PrimaryKeyText.areInIncreasingOrder) == [.null, .int(-1), .int(9), .int(10), .string("B"), .string("b")])
    }

    @Test func notificationPayloads() {
        let note = ChangeNotification(appId: "my:app", serverVersion: 12)
        #expect(ChangeBroadcaster.payload(of: note) == "my:app:12")
        #expect(ChangeBroadcaster.parse(payload: "my:app:12") == note)
        #expect(ChangeBroadcaster.parse(payload: "nope") == nil)
        #expect(ChangeBroadcaster.parse(payload: "app:x") == nil)
    }

    @Test func appLockRunsOneBodyPerAppInOrder() async throws {
        let lock = AppTransactionLock()
        let log = LogBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<20 {
                group.addTask {
                    try await lock.withLock(i.isMultiple(of: 2) ? "a" : "b") {
                        let app = i.isMultiple(of: 2) ? "a" : "b"
                        log.enter(app)
                        try await Task.sleep(for: .milliseconds(1))
                        log.leave(app)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(log.maxInside == 1)
    }
}

/// Counts bodies inside the lock per app.
private final class LogBox: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var inside: [String: Int] = [:]
    private var maxSeen = 0
    var maxInside: Int { lock.withLock { maxSeen } }

    func enter(_ app: String) {
        lock.withLock {
            inside[app, default: 0] += 1
            maxSeen = max(maxSeen, inside[app]!)
        }
    }

    func leave(_ app: String) { lock.withLock { inside[app, default: 0] -= 1 } }
}
