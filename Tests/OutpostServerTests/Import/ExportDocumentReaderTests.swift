import Foundation
import OutpostCore
import OutpostServerTesting
import Testing

@testable import OutpostServer

/// Reading mongoexport and mongodump files: each format, the types kept, resuming at an offset, bad input.
@Suite struct ExportDocumentReaderTests {
    private func withFile<T>(_ name: String, _ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let dir = try TemporaryDirectory("export-reader")
        defer { dir.remove() }
        let path = dir.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try body(path)
    }

    private func readAll(_ path: String, offset: Int64 = 0) throws -> [ExportDocumentReader.Item] {
        var reader = try ExportDocumentReader(path: path, offset: offset)
        var items: [ExportDocumentReader.Item] = []
        while let item = try reader.next() { items.append(item) }
        return items
    }

    /// Canonical and relaxed Extended JSON, as mongoexport writes them, keep their BSON types.
    static let lines = """
        {"_id":{"$oid":"65a000000000000000000001"},"n":{"$numberInt":"7"},"l":{"$numberLong":"7"},"d":{"$numberDouble":"7.0"},"price":{"$numberDecimal":"1.50"},"at":{"$date":{"$numberLong":"1704067200000"}},"u":{"$binary":{"base64":"AAECAwQFBgcICQoLDA0ODw==","subType":"04"}},"b":{"$binary":{"base64":"AQI=","subType":"00"}}}

        {"_id":{"$oid":"65a000000000000000000002"},"n":7,"x":7.5,"at":{"$date":"2024-01-01T00:00:00Z"},"tags":["a","b"],"inner":{"k":true,"none":null}}\r
        {"_id":"third","name":"é 🙂"}
        """

    @Test func jsonLinesKeepTypesAndSkipBlankLines() throws {
        let items = try withFile("Item.json", Array(Self.lines.utf8)) { try readAll($0) }
        #expect(items.map(\.location) == ["line 1", "line 3", "line 4"])
        let first = try items[0].document()
        #expect(first["n"] == .int(7) && first["l"] == .int(7) && first["d"] == .double(7))
        let price = try Decimal128(string: "1.50")
        #expect(first["price"] == .decimal128(price))
        #expect(first["at"] == .date(Date(timeIntervalSince1970: 1_704_067_200)))
        #expect(first["u"] == .uuid(UUID(uuidString: "00010203-0405-0607-0809-0A0B0C0D0E0F")!))
        #expect(first["b"] == .data(Data([1, 2])))
        let second = try items[1].document()
        #expect(second["x"] == .double(7.5) && second["at"] == .date(Date(timeIntervalSince1970: 1_704_067_200)))
        #expect(second["inner"] == .document(Document(["k": .bool(true), "none": .null])))
        #expect(try items[2].document()["name"] == .string("é 🙂"))
    }

    @Test func aResumedReadStartsAfterTheLastDocumentSent() throws {
        try withFile("Item.json", Array(Self.lines.utf8)) { path in
            let all = try readAll(path)
            let rest = try readAll(path, offset: all[0].endOffset)
            #expect(rest.map(\.text) == all.dropFirst().map(\.text))
        }
    }

    @Test func aJSONArraySpreadOverLines() throws {
        let text = """
            [
              {"_id": 1, "text": "a } in a string, and a \\" quote"},
              {"_id": 2, "nested": {"list": [1, {"deep": [2]}]}}
            ]
            """
        try withFile("Item.json", Array(text.utf8)) { path in
            let items = try readAll(path)
            #expect(items.map(\.location) == ["line 2", "line 3"])
            #expect(try items[0].document()["text"] == .string("a } in a string, and a \" quote"))
            let rest = try readAll(path, offset: items[0].endOffset)
            #expect(try rest.map { try $0.document()["_id"] } == [.int(2)])
        }
    }

    @Test func mongodumpBSON() throws {
        var file: [UInt8] = []
        file += BSONWriter.document([
            ("_id", .objectId(try ObjectId(string: "65a000000000000000000001"))), ("i32", .int32(5)), ("i64", .int64(6)),
            ("d", .double(1.5)), ("s", .string("x")), ("t", .bool(true)), ("at", .date(1_704_067_200_000)),
            ("u", .binary(4, Array(0..<16))), ("bin", .binary(0, [9])), ("dec", .decimal(try Decimal128(string: "2.25"))),
            ("arr", .array([.int32(1), .string("two")])), ("doc", .document([("k", .null)])),
        ])
        file += BSONWriter.document([("_id", .string("second"))])
        let items = try withFile("dump.bson", file) { try readAll($0) }
        #expect(items.count == 2 && items[0].location == "document 1 (byte 0)")
        let first = try items[0].document()
        #expect(first["i32"] == .int(5) && first["i64"] == .int(6) && first["d"] == .double(1.5))
        #expect(first["at"] == .date(Date(timeIntervalSince1970: 1_704_067_200)))
        #expect(first["u"] == .uuid(UUID(uuidString: "00010203-0405-0607-0809-0A0B0C0D0E0F")!))
        let decimal = try Decimal128(string: "2.25")
        #expect(first["bin"] == .data(Data([9])) && first["dec"] == .decimal128(decimal))
        #expect(first["arr"] == .array([.int(1), .string("two")]))
        #expect(first["doc"] == .document(Document(["k": .null])))
        #expect(try items[1].document()["_id"] == .string("second") && items.allSatisfy(\.hasId))
    }

    @Test(arguments: [
        ("Item.json", Array("{\"_id\": 1}\n{\"_id\": 2,}\n".utf8), "line 2: is not valid JSON"),
        ("Item.json", Array("{\"_id\": 1}\n[1]\n".utf8), "line 2: is an array, not a document"),
        ("Item.json", Array("[{\"_id\": 1}, {\"_id\": 2".utf8), "the file ends inside a document"),
        ("Item.json", Array("[{\"_id\": 1}, 5]".utf8), "an element of the array is not a document"),
        ("dump.bson", BSONWriter.document([("_id", .int32(1))]).dropLast(3).map { $0 }, "the file ends inside a document"),
        ("dump.bson", BSONWriter.document([("_id", .int32(1)), ("re", .regex)]), "field 're': holds a regular expression"),
    ] as [(String, [UInt8], String)])
    func badInputNamesTheFileAndThePlace(name: String, bytes: [UInt8], message: String) throws {
        try withFile(name, bytes) { path in
            do {
                _ = try readAll(path)
                Issue.record("read bad input")
            } catch let error as AppImportError {
                #expect(error.file == path && error.message.contains(message), "\(error)")
            }
        }
    }
}

/// Just enough of a BSON writer for the tests' `.bson` files.
enum BSONWriter {
    indirect enum Field {
        case double(Double), string(String), document([(String, Field)]), array([Field]), binary(UInt8, [UInt8])
        case objectId(ObjectId), bool(Bool), date(Int64), null, int32(Int32), int64(Int64), decimal(Decimal128), regex
    }

    static func document(_ fields: [(String, Field)]) -> [UInt8] {
        var body: [UInt8] = []
        for (name, field) in fields {
            let (type, bytes) = encode(field)
            body.append(type)
            body += Array(name.utf8) + [0]
            body += bytes
        }
        body.append(0)
        return le(Int32(body.count + 4)) + body
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    static func encode(_ field: Field) -> (UInt8, [UInt8]) {
        switch field {
        case .double(let v): (0x01, le(v.bitPattern))
        case .string(let s): (0x02, le(Int32(s.utf8.count + 1)) + Array(s.utf8) + [0])
        case .document(let fields): (0x03, document(fields))
        case .array(let items): (0x04, document(items.enumerated().map { ("\($0.offset)", $0.element) }))
        case .binary(let subtype, let bytes): (0x05, le(Int32(bytes.count)) + [subtype] + bytes)
        case .objectId(let id): (0x07, Array(id.bytes))
        case .bool(let b): (0x08, [b ? 1 : 0])
        case .date(let ms): (0x09, le(ms))
        case .null: (0x0A, [])
        case .int32(let v): (0x10, le(v))
        case .int64(let v): (0x12, le(v))
        case .decimal(let d): (0x13, le(d.low) + le(d.high))
        case .regex: (0x0B, Array("a.*".utf8) + [0] + Array("i".utf8) + [0])
        }
    }
}
