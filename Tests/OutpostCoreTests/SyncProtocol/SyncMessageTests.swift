import Foundation
import OutpostCore
import Testing

@Suite struct SyncMessageTests {
    static let pk = Value.objectId("641382026852d9220b2e2bbf")

    static let clientMessages: [ClientMessage] = [
        .bind(session: 1, mode: .flexible, partition: nil, fileIdent: nil, salt: nil, cursor: .start, subscriptions: nil),
        .bind(session: 2, mode: .partition, partition: .null, fileIdent: 7, salt: 99,
              cursor: DownloadCursor(serverVersion: 5, clientVersion: 3), subscriptions: nil),
        .bind(session: 3, mode: .flexible, partition: nil, fileIdent: 1, salt: 2, cursor: .start,
              subscriptions: SubscriptionQuery(version: 2, queries: ["Item": "complexity <= 4"])),
        .query(session: 1, subscriptions: SubscriptionQuery(version: 1, queries: ["Item": "complexity <= 4", "Dog": "TRUEPREDICATE"])),
        .upload(session: 1, changesets: [UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 1_700_000_000_000, instructions: [
            .create(className: "Item", primaryKey: pk, fields: ["ownerId": .string("u1"), "complexity": .int(3)]),
            .set(className: "Item", primaryKey: pk, field: "itemName", value: .string("Learn")),
            .listInsert(className: "Item", primaryKey: pk, field: "tags", index: 0, value: .string("a")),
            .listSet(className: "Item", primaryKey: pk, field: "tags", index: 0, value: .string("b")),
            .listMove(className: "Item", primaryKey: pk, field: "tags", from: 0, to: 1),
            .listErase(className: "Item", primaryKey: pk, field: "tags", index: 0),
            .clear(className: "Item", primaryKey: pk, field: "tags"),
            .setAdd(className: "Item", primaryKey: pk, field: "set", value: .int(1)),
            .setRemove(className: "Item", primaryKey: pk, field: "set", value: .int(1)),
            .mapSet(className: "Item", primaryKey: pk, field: "map", key: "k", value: .double(1.5)),
            .mapErase(className: "Item", primaryKey: pk, field: "map", key: "k"),
            .erase(className: "Item", primaryKey: pk),
        ])]),
        .mark(session: 1, requestId: 9),
        .unbind(session: 1),
        .ping(timestamp: 123),
    ]

    @Test func clientMessagesRoundTrip() throws {
        for message in Self.clientMessages {
            #expect(try ClientMessage(text: message.text) == message)
        }
    }

    @Test func serverMessagesRoundTrip() throws {
        let messages: [ServerMessage] = [
            .ident(session: 1, fileIdent: 4, salt: 77),
            .download(DownloadMessage(
                session: 1, cursor: DownloadCursor(serverVersion: 9, clientVersion: 2), latestServerVersion: 10,
                uploadAck: 2, queryVersion: 1, batch: .lastInBatch, changesets: [
                    DownloadChangeset(serverVersion: 9, originFileIdent: 4, originClientVersion: 2, timestamp: 5, instructions: [
                        .upsert(className: "Item", primaryKey: Self.pk, fields: ["complexity": .int(3)]),
                        .erase(className: "Item", primaryKey: .string("x")),
                    ]),
                ])),
            .mark(session: 1, requestId: 3, serverVersion: 10),
            .unbound(session: 1),
            .pong(timestamp: 5),
            .error(SyncErrorInfo(session: 1, code: .compensatingWrite, message: "m", tryAgain: true, action: .warning,
                                 rejectedUpdates: [RejectedUpdate(table: "Item", primaryKey: Self.pk, reason: "r")],
                                 compensatingWriteServerVersion: 11, rejectedClientVersion: 2)),
            .queryError(session: 1, version: 2, code: .badQuery, message: "bad"),
            .log(session: 0, level: "info", message: "hello"),
        ]
        for message in messages {
            #expect(try ServerMessage(text: message.text) == message)
        }
    }

    @Test(arguments: [
        ("", 103, "Bad syntax: the message is not valid JSON"),
        ("{\"type\": \"bind\"", 103, "Bad syntax: the message is not valid JSON"),
        ("[1,2]", 103, "Bad syntax at message: expected an object"),
        ("{\"type\": \"teleport\"}", 102, "Unknown message type 'teleport'"),
        ("{\"session\": 1}", 103, "Bad syntax at message.type: missing field"),
        ("{\"type\": \"mark\", \"session\": \"1\", \"requestId\": 1}", 103, "Bad syntax at message.session: expected an integer"),
        ("{\"type\": \"mark\", \"session\": -1, \"requestId\": 1}", 103, "Bad syntax at message.session: expected a version ≥ 0, found -1"),
        ("{\"type\": \"bind\", \"session\": 1, \"mode\": \"psychic\"}", 103,
         "Bad syntax at message.mode: unknown sync mode 'psychic' (expected 'flexible' or 'partition')"),
        ("{\"type\": \"bind\", \"session\": 1, \"mode\": \"flexible\", \"protocolVersion\": 99}", 105,
         "Wrong protocol version 99; this server speaks version 3"),
        ("{\"type\": \"bind\", \"session\": 1, \"mode\": \"flexible\", \"protocolVersion\": 1}", 105,
         "Wrong protocol version 1; this server speaks version 3"),
        // Version 2 clients write every create's `pk`; a version 2 server would refuse the creates of version 3.
        ("{\"type\": \"bind\", \"session\": 1, \"mode\": \"flexible\", \"protocolVersion\": 2}", 105,
         "Wrong protocol version 2; this server speaks version 3"),
        ("{\"type\": \"upload\", \"session\": 1, \"changesets\": [{\"clientVersion\": 1, \"lastServerVersion\": 0, \"timestamp\": 0, \"instructions\": [{\"op\": \"nuke\", \"class\": \"A\", \"pk\": 1}]}]}",
         103, "Bad syntax at message.changesets[0].instructions[0].op: unknown instruction op 'nuke'"),
        ("{\"type\": \"upload\", \"session\": 1, \"changesets\": [{\"clientVersion\": 0, \"lastServerVersion\": 0, \"timestamp\": 0, \"instructions\": []}]}",
         103, "Bad syntax at message.changesets[0].clientVersion: client versions start at 1"),
        ("{\"type\": \"upload\", \"session\": 1, \"changesets\": [{\"clientVersion\": 1, \"lastServerVersion\": 0, \"timestamp\": 0, \"instructions\": [{\"op\": \"set\", \"class\": \"A\", \"pk\": {\"$oid\": \"zz\"}, \"field\": \"f\", \"value\": 1}]}]}",
         103, "Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].pk: $oid 'zz' is not 24 hexadecimal characters"),
        ("{\"type\": \"upload\", \"session\": 1, \"changesets\": [{\"clientVersion\": 1, \"lastServerVersion\": 0, \"timestamp\": 0, \"instructions\": [{\"op\": \"set\", \"class\": \"\", \"pk\": 1, \"field\": \"f\", \"value\": 1}]}]}",
         103, "Bad syntax at message.changesets[0].instructions[0].class: '' is not a valid name"),
        ("{\"type\": \"query\", \"session\": 1, \"subscriptions\": {\"version\": 1, \"queries\": {\"Item\": 4}}}", 103,
         "Bad syntax at message.subscriptions.queries.Item: expected a string"),
    ])
    func badMessagesGetTypedErrors(text: String, code: Int, message: String) {
        #expect {
            _ = try ClientMessage(text: text)
        } throws: { error in
            guard let e = error as? SyncProtocolError else { return false }
            return e.code.rawValue == code && e.message == message
        }
    }

    @Test func oversizedMessageIsRefusedBeforeParsing() {
        let text = String(repeating: " ", count: SyncProtocolLimits.maxMessageBytes + 1)
        #expect(throws: SyncProtocolError.self) { try ClientMessage(text: text) }
        do {
            _ = try ClientMessage(text: text)
        } catch {
            #expect(error.code == .limitsExceeded)
        }
    }
}
