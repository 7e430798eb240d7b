import Foundation
import OutpostCore
import OutpostServer
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

    /// The changeset text written straight into bytes is the text of its `JSONValue` form, byte for byte.
    @Test func changesetStorageTextIsTheJSONValueText() throws {
        let draft = ServerChangesetDraft(
            originFileIdent: 7, originClientVersion: 42, timestamp: Date(timeIntervalSinceReferenceDate: 789_123.456),
            audience: 3, changes: [
                DocumentChange(collection: "Item", primaryKey: .int(1), before: ["_id": .int(1), "é": .string("\u{1}\"")],
                               after: ["_id": .int(1), "n": .double(2), "d": .date(Date(timeIntervalSince1970: -1.5))],
                               changedFields: ["n", "d"]),
                DocumentChange(collection: "Gone", primaryKey: .string("x"), before: nil, after: nil, changedFields: []),
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
        }
    }

    /// A change that comes with its document's text (an event upload's inserts) is stored exactly as the same change
    /// without it; the text is not part of the change's value.
    @Test func changeWithPrewrittenTextIsStoredAsTheSameChange() throws {
        let document: Document = ["_id": .objectId(.generate()), "activity": .string("a \"quoted\" é \u{1}"),
                                  "timestamp": .date(Date(timeIntervalSince1970: 1_700_000_000.123)), "data": .null]
        let withText = DocumentChange(collection: "AuditEvent", primaryKey: document["_id"]!, inserted: document,
                                      text: document.extendedJSONText)
        let plain = DocumentChange(collection: "AuditEvent", primaryKey: document["_id"]!, before: nil, after: document,
                                   changedFields: document.sortedKeys)
        #expect(withText == plain && withText.hashValue == plain.hashValue)
        let time = Date(timeIntervalSinceReferenceDate: 12.5)
        let text = try ServerChangesetDraft(timestamp: time, changes: [withText, withText]).storageText()
        #expect(text == (try ServerChangesetDraft(timestamp: time, changes: [plain, plain]).storageText()))
        let encoded = String(decoding: try JSONEncoder().encode(withText), as: UTF8.self)
        #expect(!encoded.contains("afterText"))
    }

    @Test func primaryKeyTextIsExtendedJSON() throws {
        #expect(PrimaryKeyText.make(.string("abc")) == #""abc""#)
        #expect(PrimaryKeyText.make(.int(42)) == "42")
        #expect(PrimaryKeyText.make(.objectId(try ObjectId(string: "65a1b2c3d4e5f60718293a4b"))) == #"{"$oid":"65a1b2c3d4e5f60718293a4b"}"#)
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(PrimaryKeyText.make(.uuid(uuid)) == #"{"$uuid":"e621e1f8-c36c-495a-93fc-0c247a3e6e5f"}"#)
        #expect(PrimaryKeyText.make(.int(1)) != PrimaryKeyText.make(.string("1")))
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
