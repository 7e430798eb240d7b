import Foundation
import Testing

@testable import OutpostCore

/// The direct writers (documents, sync messages) produce exactly the bytes of the `JSONValue` tree they replace,
/// and the reader's fast paths read what the writer writes.
@Suite struct DirectJSONWriterTests {
    static let everyValue: Document = [
        "null": .null, "yes": .bool(true), "no": .bool(false), "int": .int(-42), "big": .int(Int64.min),
        "float": .float(1.5), "double": .double(2.25), "integral": .double(3), "nan": .double(.nan),
        "inf": .double(-.infinity), "string": .string("q\"b\\n\n é ☃"), "data": .data(Data([0, 1, 254])),
        "date": .date(Date(timeIntervalSince1970: 1_700_000_000.123)), "before1970": .date(Date(timeIntervalSince1970: -1.5)),
        "oid": .objectId(ObjectId.generate()), "decimal": .decimal128(try! Decimal128(string: "-12.5e3")),
        "uuid": .uuid(UUID()), "array": .array([.int(1), .string("two"), .array([]), .document(["k": .null])]),
        "doc": .document(["z": .int(1), "a": .document([:]), "M": .string("upper")]),
        "link": .link(className: "Dog", primaryKey: .objectId(ObjectId.generate())),
        "": .string("empty key"),
    ]

    @Test func documentsMatchTheJSONTree() throws {
        #expect(Self.everyValue.extendedJSONText == Self.everyValue.extendedJSON.text)
        #expect(try Document(extendedJSONText: Self.everyValue.extendedJSONText).extendedJSONText == Self.everyValue.extendedJSONText)
        for value in Self.everyValue.fields.values {
            var bytes: [UInt8] = []
            value.writeExtendedJSON(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == value.extendedJSON.text)
            #expect(value.extendedJSONText == value.extendedJSON.text)
        }
    }

    @Test func uploadsAndDownloadsMatchTheJSONTree() throws {
        let pk = Value.objectId(ObjectId.generate())
        let instructions: [SyncInstruction] = [
            .create(className: "Item", primaryKey: pk, fields: Self.everyValue),
            .set(className: "Item", primaryKey: pk, field: "n", value: .int(1)),
            .erase(className: "Item", primaryKey: .string("s")),
            .listInsert(className: "Item", primaryKey: pk, field: "l", index: 2, value: .string("x")),
            .listSet(className: "Item", primaryKey: pk, field: "l", index: 0, value: .null),
            .listErase(className: "Item", primaryKey: pk, field: "l", index: 1),
            .listMove(className: "Item", primaryKey: pk, field: "l", from: 3, to: 0),
            .clear(className: "Item", primaryKey: .int(7), field: "l"),
            .setAdd(className: "Item", primaryKey: pk, field: "s", value: .int(1)),
            .setRemove(className: "Item", primaryKey: pk, field: "s", value: .int(2)),
            .mapSet(className: "Item", primaryKey: pk, field: "m", key: "k", value: .double(0.5)),
            .mapErase(className: "Item", primaryKey: pk, field: "m", key: "k"),
        ]
        let upload = ClientMessage.upload(session: 3, changesets: [
            UploadChangeset(clientVersion: 1, lastServerVersion: 9, timestamp: -5, instructions: instructions),
            UploadChangeset(clientVersion: 2, lastServerVersion: 9, timestamp: 0, instructions: []),
        ])
        #expect(upload.text == upload.json.text)
        guard case .upload(_, let changesets) = upload else { return }
        #expect(changesets.map(\.jsonText) == changesets.map(\.json.text))
        // The client's queue sends its stored changeset texts spliced into the message: the same text.
        #expect(ClientMessage.uploadText(session: 3, changesetTexts: changesets.map(\.jsonText)) == upload.text)
        #expect(ClientMessage.uploadText(session: 1, changesetTexts: []) == ClientMessage.upload(session: 1, changesets: []).text)
        // Reading back is lossy only where Extended JSON is (NaN, Float, sub-millisecond dates): re-writing is stable.
        #expect(try ClientMessage(text: upload.text).text == upload.text)

        let download = ServerMessage.download(DownloadMessage(
            session: 1, cursor: DownloadCursor(serverVersion: 12, clientVersion: 4), latestServerVersion: 15, uploadAck: 4,
            queryVersion: 2, batch: .steadyState, changesets: [
                DownloadChangeset(serverVersion: 12, originFileIdent: 3, originClientVersion: 4, timestamp: 1_700_000_000_000,
                                  instructions: [.upsert(className: "Item", primaryKey: pk, fields: Self.everyValue),
                                                 .erase(className: "Item", primaryKey: .int(-1))]),
                DownloadChangeset(serverVersion: 13, originFileIdent: 0, originClientVersion: 0, timestamp: 0, instructions: []),
            ]))
        #expect(download.text == download.json.text)
        #expect(try ServerMessage(text: download.text).text == download.text)
    }

    @Test func readerFastPathsReadNumbersAndStrings() {
        #expect(JSONValue.parse("[0,-0,7,-7,123456789012345678,1234567890123456789,-9223372036854775808,1.5,-2e3,10E-1]") == .array([
            .int(0), .int(0), .int(7), .int(-7), .int(123_456_789_012_345_678), .int(1_234_567_890_123_456_789),
            .int(Int64.min), .double(1.5), .double(-2000), .double(1),
        ]))
        #expect(JSONValue.parse(#"["plain","é☃","a\"b","\u00e9x\n"]"#) == .array([.string("plain"), .string("é☃"), .string("a\"b"), .string("éx\n")]))
        #expect(JSONValue.parse(#"{"a":1,"b":{},"a":2}"#) == .object(["a": .int(2), "b": .object([:])]))
        #expect(JSONValue.parse("[1-2]") == nil)
        #expect(JSONValue.parse("-") == nil)
        #expect(JSONValue.parse(#""unterminated"#) == nil)
        #expect(JSONValue.parse(#""esc\"#) == nil)
    }
}
