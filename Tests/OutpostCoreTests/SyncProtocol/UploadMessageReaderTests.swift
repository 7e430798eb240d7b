import Foundation
import OutpostCore
import OutpostCoreTesting
import Testing

/// The server's fast `upload` reader gives exactly the general decoder's message for everything it accepts, and
/// declines (nil) everything else, which then still gets the general decoder's error.
@Suite struct UploadMessageReaderTests {
    static let pk = Value.objectId("641382026852d9220b2e2bbf")

    static let everyValue: Document = [
        "null": .null, "yes": .bool(true), "no": .bool(false), "int": .int(-42), "min": .int(Int64.min),
        "max": .int(Int64.max), "float": .float(1.5), "double": .double(2.25), "tiny": .double(.leastNonzeroMagnitude),
        "huge": .double(-1.7e308), "integral": .double(3), "negZero": .double(-0.0), "nan": .double(.nan),
        "inf": .double(.infinity), "negInf": .double(-.infinity),
        "string": .string("q\"b\\n\n\t\r\u{0001}\u{001F} é ☃ 😀 e\u{301} /"), "data": .data(Data([0, 1, 254, 255])),
        "emptyData": .data(Data()), "date": .date(Date(timeIntervalSince1970: 1_700_000_000.123)),
        "before1970": .date(Date(timeIntervalSince1970: -1.5)), "oid": .objectId("0123456789abcdef01234567"),
        "decimal": .decimal128(try! Decimal128(string: "-12.5e3")), "uuid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        "array": .array([.int(1), .string("two"), .array([]), .document(["k": .null]), .array([.array([.bool(true)])])]),
        "doc": .document(["z": .int(1), "a": .document([:]), "M": .string("upper"), "deep": .document(["x": .array([.null])])]),
        "link": .link(className: "Dog", primaryKey: pk), "strLink": .link(className: "Cat", primaryKey: .string("tom")),
        "links": .array([.link(className: "Dog", primaryKey: .int(3))]), "": .string("empty key"), "é☃": .string("unicode key"),
    ]

    static let allInstructions: [SyncInstruction] = [
        .create(className: "Item", primaryKey: pk, fields: everyValue),
        .create(className: "Item", primaryKey: .string("s"), fields: [:]),
        .set(className: "Item", primaryKey: pk, field: "n", value: .int(1)),
        .set(className: "Item", primaryKey: .int(-3), field: "d", value: .document(everyValue)),
        .erase(className: "Item", primaryKey: .string("s")),
        .erase(className: "Item", primaryKey: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
        .listInsert(className: "Item", primaryKey: pk, field: "l", index: 2, value: .string("x")),
        .listSet(className: "Item", primaryKey: pk, field: "l", index: 0, value: .null),
        .listErase(className: "Item", primaryKey: pk, field: "l", index: Int(Int32.max)),
        .listMove(className: "Item", primaryKey: pk, field: "l", from: 3, to: 0),
        .clear(className: "Item", primaryKey: .int(7), field: "l"),
        .setAdd(className: "Item", primaryKey: pk, field: "s", value: .date(Date(timeIntervalSince1970: 12))),
        .setRemove(className: "Item", primaryKey: pk, field: "s", value: .int(2)),
        .mapSet(className: "Item", primaryKey: pk, field: "m", key: "k \"q\" é", value: .double(0.5)),
        .mapSet(className: "Item", primaryKey: pk, field: "m", key: "", value: .array([.link(className: "A", primaryKey: .null)])),
        .mapErase(className: "Item", primaryKey: pk, field: "m", key: "k"),
    ]

    static let upload = ClientMessage.upload(session: 3, changesets: [
        UploadChangeset(clientVersion: 1, lastServerVersion: 9, timestamp: -5, instructions: allInstructions),
        UploadChangeset(clientVersion: 2, lastServerVersion: 0, timestamp: 1_700_000_000_000, instructions: []),
    ])

    /// Checks one text: the fast reader accepts it (or declines it, as `fast` says), and what it accepts is the
    /// general decoder's message. Returns the general decoder's outcome.
    @discardableResult
    static func check(_ text: String, fast: Bool, sourceLocation: SourceLocation = #_sourceLocation) -> Result<ClientMessage, SyncProtocolError> {
        let read = UploadMessageReader.message(text)
        let general = Result { () throws(SyncProtocolError) in try ClientMessage(text: text) }
        #expect((read != nil) == fast, "fast reader \(read == nil ? "declined" : "accepted") \(text.prefix(300))",
                sourceLocation: sourceLocation)
        if let read { expectSame(read, general, text: text, sourceLocation: sourceLocation) }
        return general
    }

    static func expectSame(_ read: ClientMessage, _ general: Result<ClientMessage, SyncProtocolError>, text: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        switch general {
        case .success(let message):
            #expect(read.text == message.text, sourceLocation: sourceLocation)
            // NaN is not equal to itself; every other value must compare equal.
            if !message.text.contains("NaN") { #expect(read == message, sourceLocation: sourceLocation) }
        case .failure(let error):
            Issue.record("fast reader accepted what the general decoder refuses (\(error.message)): \(text.prefix(300))",
                         sourceLocation: sourceLocation)
        }
    }

    @Test func readsEveryInstructionAndValueKind() throws {
        let text = Self.upload.text
        let general = Self.check(text, fast: true)
        #expect(try general.get().text == text)
        for instruction in Self.allInstructions {
            let message = ClientMessage.upload(session: 1, changesets: [
                UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: [instruction])])
            Self.check(message.text, fast: true)
        }
        for (key, value) in Self.everyValue.fields {
            Self.check(Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":\#(value.extendedJSONText)}"#), fast: true)
            Self.check(Self.wrap(#"{"op":"set","class":"A","pk":\#(value.extendedJSONText),"field":"f","value":1}"#), fast: true)
            Self.check(Self.wrap(#"{"op":"create","class":"A","pk":1,"fields":{\#(JSONValue.string(key).text):\#(value.extendedJSONText)}}"#),
                       fast: true)
        }
        Self.check(ClientMessage.upload(session: 0, changesets: []).text, fast: true)
    }

    @Test func readsWhitespaceAndAnyKeyOrder() throws {
        let text = Self.upload.text
        Self.check(Self.spaced(text, " "), fast: true)
        Self.check(Self.spaced(text, "\n\t \r"), fast: true)
        Self.check("  \n" + text + "\n\t ", fast: true)
        Self.check(#"{"type":"upload","changesets":[],"session":4}"#, fast: true)
        Self.check(#"{"session":4,"type":"upload","changesets":[{"timestamp":1,"instructions":[{"pk":{"$oid":"641382026852d9220b2e2bbf"},"value":{"b":[1,{"$numberDouble":"NaN"}],"a":{"$date":{"$numberLong":"-1"}}},"op":"set","field":"f","class":"C"}],"lastServerVersion":2,"clientVersion":3}]}"#,
                   fast: true)
    }

    @Test func readsEscapesAndUnicodeInStrings() throws {
        let strings = [
            #""\u00e9\u00E9""#, #""\ud83d\ude00""#, #""\n\t\r\b\f\"\\\/""#, #""\u0000x""#, #""\ud800 lone""#,
            #""\udc00""#, #""é☃😀""#, #""e\u0301""#, #""\q""#, "\"raw\ttab\"",
        ]
        for s in strings {
            Self.check(Self.wrap(#"{"op":"set","class":"A","pk":\#(s),"field":"f","value":\#(s)}"#), fast: true)
            Self.check(Self.wrap(#"{"op":"mapSet","class":"A","pk":1,"field":"f","key":\#(s),"value":{\#(s):\#(s)}}"#), fast: true)
        }
        Self.check(Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"\u0066","value":{"\u0024oid":"641382026852d9220b2e2bbf"}}"#), fast: true)
        // Instruction keys, ops and class names are read as bytes: with an escape, the general reader reads them.
        Self.check(Self.wrap(#"{"op":"set","class":"\u0041","pk":1,"field":"f","value":1}"#), fast: false)
        Self.check(Self.wrap(#"{"\u006fp":"set","class":"A","pk":1,"field":"f","value":1}"#), fast: false)
        Self.check(Self.wrap(#"{"op":"s\u0065t","class":"A","pk":1,"field":"f","value":1}"#), fast: false)
        // A bad escape is not JSON; names with control characters are refused by both.
        Self.check(Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":"\u00zz"}"#), fast: false)
        Self.check(Self.wrap(#"{"op":"set","class":"A\n","pk":1,"field":"f","value":1}"#), fast: false)
    }

    @Test func readsTheOtherExtendedJSONFormsTheGeneralReaderReads() throws {
        let values = [
            #"{"$numberInt":"7"}"#, #"{"$numberLong":"-9223372036854775808"}"#, #"{"$date":1700000000123}"#,
            #"{"$date":-5}"#, #"{"$numberDouble":"1e3"}"#, #"{"$numberDouble":"-Infinity"}"#,
            #"{"$binary":{"base64":"4iHh+MNsSVqT/AwkejbuXw==","subType":"04"}}"#,
            #"{"$binary":{"subType":"04","base64":"AAE="}}"#, #"{"$binary":{"base64":""}}"#,
            #"{"$uuid":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#, #"{"$id":5,"$ref":"Dog"}"#,
            #"{"$ref":"Dog","$id":{"$ref":"Cat","$id":[1,{"a":{}}]}}"#, #"{"$numberDecimal":"1.5"}"#,
            #"{"$oid":"ABCDEFABCDEFABCDEFABCDEF"}"#, "1e2", "-0", "+1", "0.1", "-2.5E-3", "[]", "{}", "true", "false", "null",
        ]
        for v in values {
            Self.check(Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":\#(v)}"#), fast: true)
        }
    }

    /// ObjectIds and integers in their quoted Extended JSON forms are read straight from the bytes when they are
    /// plain digits; escapes, signs, 19 digits and other spellings go the way of the text and read the same.
    @Test func quotedIdsAndIntegersReadAsTheTextReadsThem() throws {
        let values = [
            #"{"$oid":"0123456789abcdefABCDEF01"}"#, #"{"$oid": "641382026852d9220b2e2bbf" }"#,
            #"{"$oid":"\u0030123456789abcdef01234567"}"#, #"{"$numberLong":"0"}"#, #"{"$numberLong":"-0"}"#,
            #"{"$numberLong":"007"}"#, #"{"$numberLong":"+5"}"#, #"{"$numberLong":"-123456789012345678"}"#,
            #"{"$numberLong":"9223372036854775807"}"#, #"{"$numberLong":"-9223372036854775808"}"#,
            #"{"$numberInt":"\u0031\u0032"}"#, #"{"$numberLong": "42" }"#,
        ]
        for v in values {
            Self.check(Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":\#(v)}"#), fast: true)
            Self.check(Self.wrap(#"{"op":"create","class":"A","pk":\#(v),"fields":{"_id":\#(v),"n":\#(v)}}"#), fast: true)
        }
        // Neither reader reads these.
        for v in [#"{"$oid":"0123456789abcdef0123456"}"#, #"{"$oid":"0123456789abcdef012345678"}"#,
                  #"{"$oid":"0123456789abcdef0123456g"}"#, #"{"$numberLong":""}"#, #"{"$numberLong":"-"}"#,
                  #"{"$numberLong":"9223372036854775808"}"#, #"{"$numberLong":"1.5"}"#, #"{"$numberLong":"12a"}"#] {
            let text = Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":\#(v)}"#)
            #expect(UploadMessageReader.message(text) == nil, "\(v)")
        }
        let read = try #require(UploadMessageReader.message(Self.wrap(
            #"{"op":"set","class":"A","pk":{"$oid":"0123456789abcdefABCDEF01"},"field":"f","value":{"$numberLong":"-120"}}"#)))
        #expect(read == .upload(session: 1, changesets: [UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: [
            .set(className: "A", primaryKey: .objectId("0123456789abcdefabcdef01"), field: "f", value: .int(-120))])]))
    }

    /// Protocol 3: a create whose `pk` is its fields' `_id` is written without `pk`, and both readers take the key
    /// from `_id`; an explicit `pk` (also null) still wins, and a create with neither is refused by both.
    @Test func aCreateWithoutPkIsAddressedByItsId() throws {
        let id = Value.objectId("641382026852d9220b2e2bbf")
        let create = SyncInstruction.create(className: "A", primaryKey: id, fields: ["_id": id, "n": .int(1)])
        #expect(create.createOmitsPrimaryKey)
        var bytes: [UInt8] = []
        create.writeJSON(to: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("\"pk\""), "\(text)")
        #expect(create.json.text == text, "the tree writer leaves it out too")
        let read = try #require(UploadMessageReader.message(Self.wrap(text)))
        #expect(read == .upload(session: 1, changesets: [UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: [create])]))
        Self.check(Self.wrap(text), fast: true)
        // Another key than `_id`, or none in the fields: written, as before.
        for other in [SyncInstruction.create(className: "A", primaryKey: .int(5), fields: ["_id": id]),
                      SyncInstruction.create(className: "A", primaryKey: .int(5), fields: ["n": .int(1)])] {
            #expect(!other.createOmitsPrimaryKey)
            var out: [UInt8] = []
            other.writeJSON(to: &out)
            #expect(String(decoding: out, as: UTF8.self).contains(#""pk":5"#))
            Self.check(Self.wrap(String(decoding: out, as: UTF8.self)), fast: true)
        }
        // An explicit null key stays null; neither key nor `_id` is refused by both readers.
        Self.check(Self.wrap(#"{"op":"create","class":"A","pk":null,"fields":{"_id":7}}"#), fast: true)
        let refused = Self.check(Self.wrap(#"{"op":"create","class":"A","fields":{"n":1}}"#), fast: false)
        if case .failure(let error) = refused { #expect(error.message.contains("pk")) } else { Issue.record("accepted a create without a key") }
        // Other ops still need `pk`.
        Self.check(Self.wrap(#"{"op":"erase","class":"A","fields":{"_id":7}}"#), fast: false)
    }

    /// The class name read last is reused for the next instruction of the same class: every instruction keeps its
    /// own class, also when names share a prefix or differ only in length.
    @Test func eachInstructionKeepsItsOwnClass() {
        let classes = ["Item", "Item", "Items", "Item", "Ite", "é", "é", "Item", "Other", "Other", "Item"]
        let instructions = classes.enumerated().map { i, c in SyncInstruction.erase(className: c, primaryKey: .int(Int64(i))) }
        let text = ClientMessage.upload(session: 1, changesets: [
            UploadChangeset(clientVersion: 1, lastServerVersion: 0, timestamp: 0, instructions: instructions),
            UploadChangeset(clientVersion: 2, lastServerVersion: 0, timestamp: 0, instructions: instructions.reversed()),
        ]).text
        Self.check(text, fast: true)
        guard case .upload(_, let changesets)? = UploadMessageReader.message(text) else {
            Issue.record("declined")
            return
        }
        #expect(changesets[0].instructions.map(\.className) == classes)
        #expect(changesets[1].instructions.map(\.className) == classes.reversed())
        // A class name the general reader refuses is refused each time, not only the first.
        Self.check(Self.wrap(#"{"op":"erase","class":"A","pk":1},{"op":"erase","class":"","pk":2}"#), fast: false)
        Self.check(Self.wrap(#"{"op":"erase","class":"\#(String(repeating: "x", count: 257))","pk":1}"#), fast: false)
        // An unknown op is declined, and the general reader names it.
        let refused = Self.check(Self.wrap(#"{"op":"create2","class":"A","pk":1,"fields":{}}"#), fast: false)
        if case .success = refused { Issue.record("accepted an unknown op") }
    }

    @Test func declinesWhatItDoesNotReadAndTheGeneralDecoderStillAccepts() throws {
        let accepted = [
            // Other message types.
            SyncMessageTests.clientMessages.first!.text, #"{"type":"ping","timestamp":1}"#,
            #"{"type":"mark","session":1,"requestId":2}"#,
            // Extra or repeated keys (the general decoder ignores or overwrites them).
            #"{"type":"upload","session":1,"changesets":[],"extra":1}"#,
            #"{"type":"upload","session":1,"session":2,"changesets":[]}"#,
            #"{"type":"upload","type":"upload","session":1,"changesets":[]}"#,
            Self.wrap(#"{"op":"erase","class":"A","pk":1,"note":"x"}"#),
            Self.wrap(#"{"op":"erase","class":"A","pk":1,"pk":2}"#),
            Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":{"a":1,"a":2}}"#),
            #"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[],"x":null}]}"#,
            // Extended JSON forms read only by the general reader.
            Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":{"$date":"2023-11-14T22:13:20Z"}}"#),
            Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":{"$oid":"641382026852d9220b2e2bbf","x":1}}"#),
            Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":{"$binary":{"base64":"AA==","subType":0}}}"#),
            // Nesting deeper than the fast reader goes.
            Self.wrap(#"{"op":"set","class":"A","pk":1,"field":"f","value":\#(String(repeating: "[", count: 70) + String(repeating: "]", count: 70))}"#),
            // Fields the op does not use, in a form the fast reader does not read.
            Self.wrap(#"{"op":"erase","class":"A","pk":1,"value":{"$date":"2023-11-14T22:13:20Z"}}"#),
            Self.wrap(#"{"op":"erase","class":"A","pk":1,"index":"x"}"#),
        ]
        for text in accepted {
            #expect(throws: Never.self) { try Self.check(text, fast: false).get() }
        }
    }

    @Test(arguments: [
        ("", 103, "Bad syntax: the message is not valid JSON"),
        (#"{"type":"upload","session":1,"changesets":[]} x"#, 103, "Bad syntax: the message is not valid JSON"),
        (#"{"type":"upload","session":1,"changesets":[],}"#, 103, "Bad syntax: the message is not valid JSON"),
        (#"{"type":"upload","session":1,"changesets":[1,]}"#, 103, "Bad syntax: the message is not valid JSON"),
        (#"{"type":"upload","session":-1,"changesets":[]}"#, 103, "Bad syntax at message.session: expected a version ≥ 0, found -1"),
        (#"{"type":"upload","session":1.0,"changesets":[]}"#, 103, "Bad syntax at message.session: expected an integer"),
        (#"{"type":"upload","changesets":[]}"#, 103, "Bad syntax at message.session: missing field"),
        (#"{"type":"upload","session":1,"changesets":{}}"#, 103, "Bad syntax at message.changesets: expected an array"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":0,"lastServerVersion":0,"timestamp":0,"instructions":[]}]}"#,
         103, "Bad syntax at message.changesets[0].clientVersion: client versions start at 1"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"instructions":[]}]}"#,
         103, "Bad syntax at message.changesets[0].timestamp: missing field"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"nuke","class":"A","pk":1}]}]}"#,
         103, "Bad syntax at message.changesets[0].instructions[0].op: unknown instruction op 'nuke'"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"set","class":"A","pk":{"$oid":"zz"},"field":"f","value":1}]}]}"#,
         103, "Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].pk: $oid 'zz' is not 24 hexadecimal characters"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"set","class":"","pk":1,"field":"f","value":1}]}]}"#,
         103, "Bad syntax at message.changesets[0].instructions[0].class: '' is not a valid name"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"listSet","class":"A","pk":1,"field":"f","index":-1,"value":1}]}]}"#,
         103, "Bad syntax at message.changesets[0].instructions[0].index: expected a non-negative index, found -1"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"listMove","class":"A","pk":1,"field":"f","from":0,"to":2147483648}]}]}"#,
         103, "Bad syntax at message.changesets[0].instructions[0].to: expected a non-negative index, found 2147483648"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"set","class":"A","pk":1,"value":1}]}]}"#,
         103, "Bad syntax at message.changesets[0].instructions[0].field: missing field"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"create","class":"A","pk":1,"fields":{"$x":1}}]}]}"#,
         103, "Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].fields: expected a document, found an Extended JSON value"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"create","class":"A","pk":1,"fields":{"a":{"$numberLong":"x"}}}]}]}"#,
         103, "Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].fields.a: $numberLong 'x' is not an integer"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"set","class":"A","pk":1,"field":"f","value":{"a":{"$bogus":1}}}]}]}"#,
         103, "Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].value.a: unknown Extended JSON key '$bogus'"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"set","class":"A","pk":1,"field":"f","value":{"$ref":"A"}}]}]}"#,
         103, #"Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].value: a link must be {"$ref": <class name>, "$id": <primary key>}"#),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"set","class":"A","pk":1,"field":"f","value":{"$uuid":"nope"}}]}]}"#,
         103, "Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].value: $uuid 'nope' is not a UUID"),
        (#"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[{"op":"set","class":"A","pk":1,"field":"f","value":{"$binary":{"base64":"!!"}}}]}]}"#,
         103, #"Bad syntax: Invalid Extended JSON at message.changesets[0].instructions[0].value: $binary must be {"base64": <base64 text>, "subType": <hex>}"#),
        (#"{"type":"teleport","session":1,"changesets":[]}"#, 102, "Unknown message type 'teleport'"),
        (#"{"type":5,"session":1,"changesets":[]}"#, 103, "Bad syntax at message.type: expected a string"),
    ])
    func declinesBadMessagesWhichGetTheGeneralError(text: String, code: Int, message: String) {
        switch Self.check(text, fast: false) {
        case .success: Issue.record("accepted \(text)")
        case .failure(let error):
            #expect(error.code.rawValue == code)
            #expect(error.message == message)
        }
    }

    @Test func declinesTooManyChangesetsAndOversizedMessages() {
        let changeset = #"{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":[]}"#
        let many = #"{"type":"upload","session":1,"changesets":["#
            + Array(repeating: changeset, count: SyncProtocolLimits.maxChangesetsPerUpload + 1).joined(separator: ",") + "]}"
        #expect(throws: SyncProtocolError(.limitsExceeded, "Upload of 10001 changesets exceeds the limit of 10000")) {
            try Self.check(many, fast: false).get()
        }
        let limit = #"{"type":"upload","session":1,"changesets":["#
            + Array(repeating: changeset, count: SyncProtocolLimits.maxChangesetsPerUpload).joined(separator: ",") + "]}"
        Self.check(limit, fast: true)
        let oversized = #"{"type":"upload","session":1,"changesets":[]}"# + String(repeating: " ", count: SyncProtocolLimits.maxMessageBytes)
        #expect(throws: SyncProtocolError.self) { try Self.check(oversized, fast: false).get() }
    }

    /// Random uploads read the same both ways, and so does every text made by damaging them a little: whatever the
    /// fast reader accepts of those, the general decoder accepts as the same message.
    @Test func randomAndDamagedUploadsAgree() {
        var random = SplitMix64(seed: 0x5EED)
        var accepted = 0
        for _ in 0..<300 {
            let message = ClientMessage.upload(session: Int64(random.below(5)), changesets: (0..<random.below(3)).map { i in
                UploadChangeset(clientVersion: Int64(i + 1), lastServerVersion: Int64(random.below(9)),
                                timestamp: Int64(random.below(1_000_000)) - 500,
                                instructions: (0..<random.below(4)).map { _ in Self.randomInstruction(&random) })
            })
            let text = random.below(2) == 0 ? message.text : Self.spaced(message.text, " \n")
            Self.check(text, fast: true)
            let damaged = Self.damaged(text, &random)
            if let read = UploadMessageReader.message(damaged) {
                accepted += 1
                let general = Result { () throws(SyncProtocolError) in try ClientMessage(text: damaged) }
                Self.expectSame(read, general, text: damaged)
            }
        }
        #expect(accepted > 0)
    }

    // MARK: Helpers

    /// Bytes that damage JSON text in interesting ways.
    static let damage = Array(#"{}[],:"\$-0e.a 7"#.utf8)

    /// The text with one to three bytes removed, inserted or replaced (from `damage`).
    static func damaged(_ text: String, _ random: inout SplitMix64) -> String {
        var bytes = Array(text.utf8)
        for _ in 0..<(1 + random.below(3)) {
            let at = random.below(bytes.count)
            switch random.below(3) {
            case 0: bytes.remove(at: at)
            case 1: bytes.insert(damage[random.below(damage.count)], at: at)
            default: bytes[at] = damage[random.below(damage.count)]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An upload message with one changeset holding one instruction (given as JSON text).
    static func wrap(_ instruction: String) -> String {
        #"{"type":"upload","session":1,"changesets":[{"clientVersion":1,"lastServerVersion":0,"timestamp":0,"instructions":["#
            + instruction + "]}]}"
    }

    /// The JSON text with `space` after every `{`, `[`, `,` and `:` outside strings, and before every `}` and `]`.
    static func spaced(_ text: String, _ space: String) -> String {
        var out = ""
        var inString = false
        var escaped = false
        for c in text {
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            if c == "}" || c == "]" { out += space }
            out.append(c)
            if c == "\"" { inString = true }
            if c == "{" || c == "[" || c == "," || c == ":" { out += space }
        }
        return out
    }

    fileprivate static func randomInstruction(_ random: inout SplitMix64) -> SyncInstruction {
        let pk = randomValue(&random, depth: 2)
        let field = ["f", "name", "é", "a b"][random.below(4)]
        switch random.below(12) {
        case 0:
            var fields: [String: Value] = [:]
            for _ in 0..<random.below(5) { fields[["a", "b", "_id", "x\"y", "☃"][random.below(5)]] = randomValue(&random, depth: 0) }
            return .create(className: "Item", primaryKey: pk, fields: Document(fields))
        case 1: return .set(className: "Item", primaryKey: pk, field: field, value: randomValue(&random, depth: 0))
        case 2: return .erase(className: "Item", primaryKey: pk)
        case 3: return .listInsert(className: "Item", primaryKey: pk, field: field, index: random.below(9), value: randomValue(&random, depth: 0))
        case 4: return .listSet(className: "Item", primaryKey: pk, field: field, index: random.below(9), value: randomValue(&random, depth: 0))
        case 5: return .listErase(className: "Item", primaryKey: pk, field: field, index: random.below(9))
        case 6: return .listMove(className: "Item", primaryKey: pk, field: field, from: random.below(9), to: random.below(9))
        case 7: return .clear(className: "Item", primaryKey: pk, field: field)
        case 8: return .setAdd(className: "Item", primaryKey: pk, field: field, value: randomValue(&random, depth: 1))
        case 9: return .setRemove(className: "Item", primaryKey: pk, field: field, value: randomValue(&random, depth: 1))
        case 10: return .mapSet(className: "Item", primaryKey: pk, field: field, key: ["k", "", "\\"][random.below(3)],
                                value: randomValue(&random, depth: 0))
        default: return .mapErase(className: "Item", primaryKey: pk, field: field, key: "k")
        }
    }

    static func randomValue(_ random: inout SplitMix64, depth: Int) -> Value {
        switch random.below(depth >= 3 ? 11 : 14) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> random.below(64))
        case 3: return .double(Double(Int64(random.below(2_000_000)) - 1_000_000) / 64)
        case 4: return .string(["", "plain", "q\"\\", "é☃😀", "\u{7}\n"][random.below(5)])
        case 5: return .data(Data((0..<random.below(20)).map { _ in UInt8(random.below(256)) }))
        case 6: return .date(Date(timeIntervalSince1970: Double(Int64(random.below(4_000_000_000_000)) - 1_000_000_000_000) / 1000))
        case 7: return .objectId(ObjectId.generate())
        case 8: return .decimal128(try! Decimal128(string: ["1", "-2.50", "1E+10", "0.001"][random.below(4)]))
        case 9: return .uuid(UUID())
        case 10: return .double([Double.nan, .infinity, -0.0, 7][random.below(4)])
        case 11: return .array((0..<random.below(4)).map { _ in randomValue(&random, depth: depth + 1) })
        case 12:
            var fields: [String: Value] = [:]
            for _ in 0..<random.below(4) { fields[["a", "b", "c d", ""][random.below(4)]] = randomValue(&random, depth: depth + 1) }
            return .document(Document(fields))
        default: return .link(className: "Dog", primaryKey: randomValue(&random, depth: 3))
        }
    }
}
