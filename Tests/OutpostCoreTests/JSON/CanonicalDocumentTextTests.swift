import Foundation
import OutpostCore
import OutpostCoreTesting
import Testing

/// A document read with ``JSONReader/extendedJSONDocumentWithText(depth:)`` keeps its bytes as text only when they
/// are exactly its ``Document/extendedJSONText`` (the server then stores them as they came), and reads the same
/// document as ``JSONReader/extendedJSONDocument(depth:)`` either way.
@Suite struct CanonicalDocumentTextTests {
    static func read(_ text: String) -> (document: Document, text: String?)? {
        var reader = JSONReader(bytes: Array(text.utf8))
        guard let read = reader.extendedJSONDocumentWithText(depth: 0), reader.atEnd else { return nil }
        return read
    }

    static func readPlain(_ text: String) -> Document? {
        var reader = JSONReader(bytes: Array(text.utf8))
        guard let document = reader.extendedJSONDocument(depth: 0), reader.atEnd else { return nil }
        return document
    }

    /// A random document of the value types whose stored form is checked (null, booleans, integers, strings,
    /// object ids, dates), with keys that need no escape.
    static func randomDocument(_ generator: inout SplitMix64) -> Document {
        var fields: [String: Value] = [:]
        let keys = ["_id", "a", "B", "b", "name", "n", "n2", "when", "ok", "none", "Z", "z_1", "0", "~"]
        for key in keys where generator.next() % 2 == 0 {
            let r = generator.next()
            switch r % 9 {
            case 0: fields[key] = .null
            case 1: fields[key] = .bool(r & 16 == 0)
            case 2: fields[key] = .int(Int64(bitPattern: generator.next()))
            case 3: fields[key] = .int(Int64(generator.next() % 2_000) - 1_000)
            case 4: fields[key] = .int([Int64.min, Int64.max, 0, -1, 10][Int(generator.next() % 5)])
            case 5:
                let pieces = ["plain", "q\"", "b\\s", "\n\r\t", "\u{0001}\u{001F}", "é", "☃", "😀", "e\u{301}", "/", " ", ""]
                fields[key] = .string((0..<Int(generator.next() % 4)).map { _ in pieces[Int(generator.next() % 12)] }.joined())
            case 6: fields[key] = .objectId(try! ObjectId(bytes: (0..<12).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
            case 7:
                let ms = Int64(generator.next() % 4_000_000_000_000) - 1_000_000_000_000
                fields[key] = .date(Date(timeIntervalSince1970: Double(ms) / 1000))
            default: fields[key] = .string("k\(r % 1000)")
            }
        }
        return Document(fields)
    }

    @Test func storedFormsKeepTheirBytesAsText() throws {
        var generator = SplitMix64(seed: 0xca0_71ca1)
        for round in 0..<1_000 {
            let document = Self.randomDocument(&generator)
            let text = document.extendedJSONText
            let read = try #require(Self.read(text), "round \(round): \(text)")
            #expect(read.document == document, "round \(round)")
            #expect(read.text == text, "round \(round): \(text)")
        }
        #expect(Self.read("{}")?.text == "{}")
    }

    /// Other ways of writing the same documents: the document is read, its text is not kept.
    @Test(arguments: [
        #"{ "a":1}"#, #"{"a":1 }"#, #"{"a": 1}"#, #"{"a":1, "b":2}"#, "{\"a\":true,\n\"b\":false}",
        #"{"b":1,"a":2}"#, #"{"a":"\/"}"#, #"{"a":"\u0041"}"#, #"{"a":"\u00E9"}"#, #"{"a":"\u001F"}"#,
        #"{"a":"\u000a"}"#, #"{"\u0061":1}"#,
        #"{"a":-0}"#, #"{"a":1.0}"#, #"{"a":1e2}"#, #"{"a":{"$numberLong":"5"}}"#, #"{"a":{"$numberInt":"5"}}"#,
        #"{"a":{"$oid":"0123456789ABCDEF01234567"}}"#, #"{"a":{ "$oid":"0123456789abcdef01234567"}}"#,
        #"{"a":{"$oid":"0123456789abcdef01234567" }}"#,
        #"{"a":{"$date":{"$numberLong":"0012"}}}"#, #"{"a":{"$date":{"$numberLong":"+12"}}}"#,
        #"{"a":{"$date":{"$numberLong": "12"}}}"#, #"{"a":{"$date":{"$numberLong":"12"} }}"#,
        #"{"a":{"$date":12}}"#, #"{"a":{"$date":"1970-01-01T00:00:00Z"}}"#,
        #"{"a":null,"b":true,"c":"é","d":1,"e":{"$numberLong":"2"}}"#,
    ])
    func otherFormsReadTheSameDocumentWithoutText(text: String) {
        let plain = Self.readPlain(text)
        let read = Self.read(text)
        #expect(read?.document == plain)
        #expect(read?.text == nil, "kept \(text)")
        if let plain { #expect(plain.extendedJSONText != text) }
    }

    /// Stored forms this check does not look into (non-ASCII keys, doubles, nested documents and arrays, the other
    /// value types): the document is read, and its text written again by the server.
    @Test(arguments: [
        #"{"é":1}"#, #"{"a":2.5}"#, #"{"a":[1]}"#, #"{"a":{"b":1}}"#, #"{"a":{}}"#,
        #"{"a":{"$uuid":"e621e1f8-c36c-495a-93fc-0c247a3e6e5f"}}"#, #"{"a":{"$numberDecimal":"1"}}"#,
        #"{"a":{"$binary":{"base64":"AA==","subType":"00"}}}"#, #"{"_id":1,"z":{"$id":1,"$ref":"Dog"}}"#,
    ])
    func formsNotLookedIntoKeepNoText(text: String) {
        let read = Self.read(text)
        #expect(read?.document == Self.readPlain(text))
        #expect(read?.text == nil, "kept \(text)")
    }

    /// What the plain reader refuses, this one refuses too.
    @Test(arguments: [#"{"a":1,"a":1}"#, #"{"$a":1}"#, #"{"a":1,"$b":2}"#, #"{"a":1"#, #"{"a"}"#, "[]"])
    func refusesWhatThePlainReaderRefuses(text: String) {
        #expect(Self.readPlain(text) == nil)
        #expect(Self.read(text) == nil)
    }

    /// The upload reader keeps a create's fields text for the server, and only a create's; the text takes no part in
    /// the changeset's value, and changing the instructions drops it.
    @Test func uploadCreatesCarryTheirFieldsTextOutsideTheChangesetsValue() throws {
        let pk = Value.objectId("641382026852d9220b2e2bbf")
        let fields: Document = ["_id": pk, "name": .string("a \"b\" é"), "n": .int(-7), "when": .date(Date(timeIntervalSince1970: 1.5))]
        let changeset = UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: [
            .create(className: "Item", primaryKey: pk, fields: fields),
            .set(className: "Item", primaryKey: pk, field: "name", value: .string("x")),
            .create(className: "Item", primaryKey: .int(2), fields: ["_id": .int(2), "d": .double(0.5)]),
        ])
        let text = ClientMessage.upload(session: 1, changesets: [changeset]).text
        guard case .upload(_, let read)? = UploadMessageReader.message(text) else {
            Issue.record("not read")
            return
        }
        #expect(read == [changeset])
        #expect(read[0].createTexts == [fields.extendedJSONText, nil, nil])
        #expect(read[0].hashValue == changeset.hashValue)

        var changed = read[0]
        changed.instructions.removeLast()
        #expect(changed.createTexts.isEmpty)
        // A message whose creates are all written another way carries no texts at all.
        let spaced = text.replacingOccurrences(of: #""fields":{"#, with: #""fields":{ "#)
        guard case .upload(_, let other)? = UploadMessageReader.message(spaced) else {
            Issue.record("not read")
            return
        }
        #expect(other == [changeset])
        #expect(other[0].createTexts.isEmpty)
    }
}
