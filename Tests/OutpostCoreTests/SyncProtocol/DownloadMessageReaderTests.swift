import Foundation
import OutpostCore
import OutpostCoreTesting
import Testing

/// The client's fast `download` reader gives exactly the general decoder's message for everything it accepts, and
/// declines (nil) everything else, which `ServerMessage.decode` then reads the general way (same message or error).
@Suite struct DownloadMessageReaderTests {
    typealias Upload = UploadMessageReaderTests

    static func download(_ instructions: [DownloadInstruction], batch: DownloadBatchState = .lastInBatch) -> ServerMessage {
        .download(DownloadMessage(
            session: 3, cursor: DownloadCursor(serverVersion: 12, clientVersion: 4), latestServerVersion: 15,
            uploadAck: 4, queryVersion: 2, batch: batch, changesets: [
                DownloadChangeset(serverVersion: 11, originFileIdent: 2, originClientVersion: 7, timestamp: -5,
                                  instructions: instructions),
                DownloadChangeset(serverVersion: 12, originFileIdent: 0, originClientVersion: 0,
                                  timestamp: 1_700_000_000_000, instructions: []),
            ]))
    }

    /// Checks one text: the fast reader accepts it (or declines it, as `fast` says), what it accepts is the general
    /// decoder's message, and `decode` always gives the general decoder's outcome. Returns that outcome.
    @discardableResult
    static func check(_ text: String, fast: Bool, sourceLocation: SourceLocation = #_sourceLocation)
        -> Result<ServerMessage, SyncProtocolError>
    {
        let read = DownloadMessageReader.message(text)
        let general = Result { () throws(SyncProtocolError) in try ServerMessage(text: text) }
        let decoded = Result { () throws(SyncProtocolError) in try ServerMessage.decode(text) }
        #expect((read != nil) == fast, "fast reader \(read == nil ? "declined" : "accepted") \(text.prefix(300))",
                sourceLocation: sourceLocation)
        switch (general, decoded) {
        case (.success(let g), .success(let d)):
            #expect(g.text == d.text, sourceLocation: sourceLocation)
            if let read { #expect(read.text == g.text, sourceLocation: sourceLocation) }
            // NaN is not equal to itself; every other value must compare equal.
            if !g.text.contains("NaN") {
                #expect(g == d, sourceLocation: sourceLocation)
                if let read { #expect(read == g, sourceLocation: sourceLocation) }
            }
        case (.failure(let g), .failure(let d)):
            // Which of several bad values the general decoder names first depends on dictionary order.
            #expect(g.code == d.code, sourceLocation: sourceLocation)
            if read != nil {
                Issue.record("fast reader accepted what the general decoder refuses (\(g.message)): \(text.prefix(300))",
                             sourceLocation: sourceLocation)
            }
        default:
            Issue.record("decode and the general decoder disagree on \(text.prefix(300))", sourceLocation: sourceLocation)
        }
        return general
    }

    @Test func readsEveryValueKind() throws {
        let message = Self.download([
            .upsert(className: "Item", primaryKey: Upload.pk, fields: Upload.everyValue),
            .upsert(className: "Item", primaryKey: .string("s"), fields: [:]),
            .erase(className: "Item", primaryKey: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
            .erase(className: "Item", primaryKey: .int(-3)),
        ])
        // (`check` compares the messages; the document holds a NaN, which is not equal to itself.)
        #expect(try Self.check(message.text, fast: true).get().text == message.text)
        for (key, value) in Upload.everyValue.fields {
            Self.check(Self.download([.upsert(className: "A", primaryKey: value, fields: [key: value])]).text, fast: true)
        }
        for batch in [DownloadBatchState.moreToCome, .lastInBatch, .steadyState] {
            Self.check(ServerMessage.download(DownloadMessage(session: 0, cursor: .start, latestServerVersion: 0, uploadAck: 0,
                                                              queryVersion: 0, batch: batch, changesets: [])).text, fast: true)
        }
    }

    /// A cursor's salt is read both ways, written in key order by both writers, and absent when it is nil; a salt
    /// that is not a non-negative integer is refused (103) with its path.
    @Test func cursorSaltsReadAndWriteTheSameBothWays() throws {
        let salted = DownloadCursor(serverVersion: 12, clientVersion: 4, salt: 4_503_599_627_370_495)
        let message = ServerMessage.download(DownloadMessage(session: 1, cursor: salted, latestServerVersion: 12, uploadAck: 4,
                                                             queryVersion: 0, batch: .steadyState, changesets: []))
        let read = try Self.check(message.text, fast: true).get()
        guard case .download(let download) = read else {
            Issue.record("not a download: \(read)")
            return
        }
        #expect(download.cursor == salted)
        #expect(message.text.contains(#""cursor":{"clientVersion":4,"salt":4503599627370495,"serverVersion":12}"#))
        var bytes: [UInt8] = []
        salted.writeJSON(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == salted.json.text)
        #expect(!DownloadCursor(serverVersion: 1, clientVersion: 0).json.text.contains("salt"))
        let refused = Self.check(#"{"type":"download","session":1,"cursor":{"serverVersion":1,"clientVersion":0,"salt":"x"},"latestServerVersion":1,"uploadAck":0,"queryVersion":0,"batch":"steady","changesets":[]}"#,
                                 fast: false)
        guard case .failure(let error) = refused else {
            Issue.record("a string salt was accepted")
            return
        }
        #expect(error.code == .badSyntax)
        #expect(error.message.contains("message.cursor.salt"))
        let bind = ClientMessage.bind(session: 1, mode: .flexible, partition: nil, fileIdent: 3, salt: 9, cursor: salted,
                                      subscriptions: nil)
        #expect(try ClientMessage(text: bind.text) == bind)
    }

    @Test func readsWhitespaceAndAnyKeyOrder() {
        let text = Self.download([.upsert(className: "Item", primaryKey: Upload.pk, fields: Upload.everyValue)]).text
        Self.check(Upload.spaced(text, " "), fast: true)
        Self.check(" \n" + Upload.spaced(text, "\n\t \r") + "\t", fast: true)
        Self.check(#"{"changesets":[{"instructions":[{"fields":{"a":1},"pk":2,"class":"C","op":"upsert"}],"timestamp":1,"originClientVersion":0,"originFileIdent":0,"serverVersion":3}],"batch":"more","queryVersion":1,"uploadAck":0,"latestServerVersion":3,"cursor":{"clientVersion":0,"serverVersion":3},"session":1,"type":"download"}"#,
                   fast: true)
    }

    @Test func declinesWhatItDoesNotReadAndDecodeStillReads() throws {
        let envelope = #"{"type":"download","session":1,"cursor":{"serverVersion":1,"clientVersion":0},"latestServerVersion":1,"uploadAck":0,"queryVersion":0,"batch":"last","changesets":[{"serverVersion":1,"originFileIdent":0,"originClientVersion":0,"timestamp":0,"instructions":[INSTRUCTION]}]}"#
        func wrap(_ instruction: String) -> String { envelope.replacingOccurrences(of: "INSTRUCTION", with: instruction) }
        let accepted = [
            // Other message types.
            #"{"type":"pong","timestamp":5}"#, #"{"type":"mark","session":1,"requestId":3,"serverVersion":10}"#,
            #"{"type":"ident","session":1,"fileIdent":4,"salt":77}"#,
            // Extra or repeated keys (the general decoder ignores or overwrites them).
            envelope.replacingOccurrences(of: "INSTRUCTION", with: "").replacingOccurrences(of: #""session":1"#, with: #""session":1,"extra":[1]"#),
            envelope.replacingOccurrences(of: "INSTRUCTION", with: "").replacingOccurrences(of: #""session":1"#, with: #""session":1,"session":2"#),
            envelope.replacingOccurrences(of: "INSTRUCTION", with: "").replacingOccurrences(of: #""clientVersion":0}"#, with: #""clientVersion":0,"x":1}"#),
            wrap(#"{"op":"erase","class":"A","pk":1,"note":"x"}"#),
            wrap(#"{"op":"upsert","class":"A","pk":1,"fields":{"a":1,"a":2}}"#),
            // Extended JSON forms read only by the general reader; fields an erase does not use.
            wrap(#"{"op":"upsert","class":"A","pk":1,"fields":{"d":{"$date":"2023-11-14T22:13:20Z"}}}"#),
            wrap(#"{"op":"erase","class":"A","pk":1,"fields":{"$x":1}}"#),
            wrap(#"{"op":"upsert","class":"A","pk":1,"fields":{"f":\#(String(repeating: "[", count: 70) + String(repeating: "]", count: 70))}}"#),
        ]
        for text in accepted {
            #expect(throws: Never.self) { try Self.check(text, fast: false).get() }
        }
        let refused = [
            "", "[]", #"{"type":"download"}"#, envelope.replacingOccurrences(of: "INSTRUCTION", with: "") + " x",
            wrap(#"{"op":"nuke","class":"A","pk":1}"#), wrap(#"{"op":"upsert","class":"A","pk":1}"#),
            wrap(#"{"op":"upsert","class":"","pk":1,"fields":{}}"#), wrap(#"{"op":"upsert","class":"A\n","pk":1,"fields":{}}"#),
            wrap(#"{"op":"upsert","class":"A","pk":{"$oid":"zz"},"fields":{}}"#),
            wrap(#"{"op":"upsert","class":"A","pk":1,"fields":{"$x":1}}"#),
            envelope.replacingOccurrences(of: "INSTRUCTION", with: "").replacingOccurrences(of: #""last""#, with: #""someday""#),
            envelope.replacingOccurrences(of: "INSTRUCTION", with: "").replacingOccurrences(of: #""uploadAck":0"#, with: #""uploadAck":-1"#),
            envelope.replacingOccurrences(of: "INSTRUCTION", with: "").replacingOccurrences(of: #""timestamp":0"#, with: #""timestamp":0.5"#),
            envelope.replacingOccurrences(of: "INSTRUCTION", with: "").replacingOccurrences(of: #","queryVersion":0"#, with: ""),
        ]
        for text in refused {
            #expect(throws: SyncProtocolError.self) { try Self.check(text, fast: false).get() }
        }
    }

    /// The envelope reader skips the changesets unread: the same message as the full reader with no changesets, and
    /// whether there were any — also when strings in them hold brackets, quotes and backslashes; nil for a text that
    /// ends inside them or is no download message.
    @Test func envelopesSkipTheChangesets() throws {
        var random = SplitMix64(seed: 0xE17E)
        for _ in 0..<200 {
            let instructions: [DownloadInstruction] = (0..<random.below(4)).map { _ in
                var fields: [String: Value] = [:]
                for _ in 0..<random.below(4) {
                    fields[["a", "]", "x\"y", "\\", "{["][random.below(5)]] = Upload.randomValue(&random, depth: 1)
                }
                return .upsert(className: "Item", primaryKey: .string(["}", "\"]", "\\\"", "a"][random.below(4)]),
                               fields: Document(fields))
            }
            let message = Self.download(instructions, batch: .moreToCome)
            let text = random.below(2) == 0 ? message.text : Upload.spaced(message.text, " \n")
            let (envelope, hasChangesets) = try #require(DownloadMessageReader.envelope(text))
            #expect(hasChangesets)
            guard case .download(let download) = message else { return }
            var unread = download
            unread.changesets = []
            #expect(envelope == .download(unread))
        }
        let none = ServerMessage.download(DownloadMessage(
            session: 1, cursor: DownloadCursor(serverVersion: 1, clientVersion: 0), latestServerVersion: 1, uploadAck: 0,
            queryVersion: 1, batch: .moreToCome, changesets: []))
        #expect(DownloadMessageReader.envelope(none.text)?.hasChangesets == false)
        let text = Self.download([.erase(className: "Item", primaryKey: .string("]]]"))]).text
        let cut = text.index(text.firstIndex(of: "[")!, offsetBy: 40)
        #expect(DownloadMessageReader.envelope(String(text[..<cut])) == nil)
        #expect(DownloadMessageReader.envelope(#"{"type":"pong","timestamp":5}"#) == nil)
        #expect(DownloadMessageReader.envelope(text.replacingOccurrences(of: #""changesets":["#, with: #""changesets":{"#)) == nil)
    }

    /// Random downloads read the same both ways, and so does every text made by damaging them a little.
    @Test func randomAndDamagedDownloadsAgree() {
        var random = SplitMix64(seed: 0xD0_5EED)
        var accepted = 0
        for _ in 0..<300 {
            let instructions: [DownloadInstruction] = (0..<random.below(5)).map { _ in
                let pk = Upload.randomValue(&random, depth: 2)
                guard random.below(4) != 0 else { return .erase(className: "Item", primaryKey: pk) }
                var fields: [String: Value] = [:]
                for _ in 0..<random.below(5) {
                    fields[["a", "b", "_id", "x\"y", "☃"][random.below(5)]] = Upload.randomValue(&random, depth: 0)
                }
                return .upsert(className: "Item", primaryKey: pk, fields: Document(fields))
            }
            let message = Self.download(instructions, batch: random.below(2) == 0 ? .moreToCome : .lastInBatch)
            let text = random.below(2) == 0 ? message.text : Upload.spaced(message.text, " \n")
            Self.check(text, fast: true)
            let damaged = Upload.damaged(text, &random)
            if DownloadMessageReader.message(damaged) != nil { accepted += 1 }
            Self.check(damaged, fast: DownloadMessageReader.message(damaged) != nil)
        }
        #expect(accepted > 0)
    }

    /// `Document(extendedJSONText:)` reads the forms Outpost writes straight from the bytes: same documents as the
    /// general reader, same errors for bad text.
    @Test func documentTextReadsTheSameBothWays() throws {
        var random = SplitMix64(seed: 0xD0C)
        for _ in 0..<300 {
            var fields: [String: Value] = [:]
            for _ in 0..<random.below(6) { fields[["a", "b", "_id", "x\"y", "☃"][random.below(5)]] = Upload.randomValue(&random, depth: 0) }
            let text = Document(fields).extendedJSONText
            let read = try Document(extendedJSONText: text)
            let general = try Document(extendedJSON: JSONValue.parse(text)!)
            #expect(read.extendedJSONText == general.extendedJSONText)
            if !text.contains("NaN") { #expect(read == general) }
        }
        #expect(try Document(extendedJSONText: #"{"d":{"$date":"2023-11-14T22:13:20Z"}}"#)["d"]
                == .date(Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(throws: ValueError.self) { try Document(extendedJSONText: #"{"a":1"#) }
        #expect(throws: ValueError.self) { try Document(extendedJSONText: #"{"$oid":"641382026852d9220b2e2bbf"}"#) }
        #expect(throws: ValueError.self) { try Document(extendedJSONText: #"{"a":1} x"#) }
    }
}
