/// Reads an `upload` message straight from its bytes into ``ClientMessage/upload(session:changesets:)``, without
/// a ``JSONValue`` tree for the whole message (building that tree and then the instructions from it was about a
/// tenth of the server's ingest time).
///
/// It accepts only what ``ClientMessage/init(text:)`` accepts, and gives the same message. Anything else — another
/// message type, an unknown or repeated key, a value of the wrong kind, an Extended JSON form it does not read
/// itself, a name or version out of range — makes it return nil, and the caller reads the text the general way,
/// which names what is wrong.
package struct UploadMessageReader: JSONTokenReader {
    package var reader: JSONReader
    /// The class name read last, and where its characters are: the next instruction's class is most often the same,
    /// and is then neither made into a `String` nor checked again.
    private var lastClassName: (characters: Range<Int>, name: String)?

    /// The message, or nil when the text is not an upload message in the usual shape or not valid.
    package static func message(_ text: String) -> ClientMessage? {
        guard text.utf8.count <= SyncProtocolLimits.maxMessageBytes else { return nil }
        var message = UploadMessageReader(reader: JSONReader(bytes: Array(text.utf8)))
        return message.upload()
    }

    private mutating func upload() -> ClientMessage? {
        guard take("{") else { return nil }
        var isUpload = false
        var session: Int64?
        var changesets: [UploadChangeset]?
        repeat {
            guard let key = string(), take(":") else { return nil }
            switch key {
            case "type":
                guard !isUpload, string() == "upload" else { return nil }
                isUpload = true
            case "session":
                guard session == nil, let v = integer(), v >= 0 else { return nil }
                session = v
            case "changesets":
                guard changesets == nil, let items = array(limit: SyncProtocolLimits.maxChangesetsPerUpload, { $0.changeset() }) else { return nil }
                changesets = items
            default: return nil
            }
        } while take(",")
        guard take("}"), atEnd, isUpload, let session, let changesets else { return nil }
        return .upload(session: session, changesets: changesets)
    }

    private mutating func changeset() -> UploadChangeset? {
        guard take("{") else { return nil }
        var clientVersion: Int64?
        var lastServerVersion: Int64?
        var timestamp: Int64?
        var instructions: [SyncInstruction]?
        var createTexts: [String?] = []
        repeat {
            guard let key = string(), take(":") else { return nil }
            switch key {
            case "clientVersion":
                guard clientVersion == nil, let v = integer(), v > 0 else { return nil }
                clientVersion = v
            case "lastServerVersion":
                guard lastServerVersion == nil, let v = integer(), v >= 0 else { return nil }
                lastServerVersion = v
            case "timestamp":
                guard timestamp == nil, let v = integer() else { return nil }
                timestamp = v
            case "instructions":
                guard instructions == nil, let items = array({ $0.instruction() }) else { return nil }
                instructions = items.map(\.instruction)
                if items.contains(where: { $0.createText != nil }) { createTexts = items.map(\.createText) }
            default: return nil
            }
        } while take(",")
        guard take("}"), let clientVersion, let lastServerVersion, let timestamp, let instructions else { return nil }
        var changeset = UploadChangeset(clientVersion: clientVersion, lastServerVersion: lastServerVersion,
                                        timestamp: timestamp, instructions: instructions)
        changeset.createTexts = createTexts
        return changeset
    }

    /// One instruction, with its `fields` text when it is a create whose fields came in their stored form.
    private mutating func instruction() -> (instruction: SyncInstruction, createText: String?)? {
        guard take("{") else { return nil }
        var parts = InstructionParts()
        repeat {
            guard let key = reader.plainString(), take(":"), parts.read(key, from: &self) else { return nil }
        } while take(",")
        guard take("}"), let instruction = parts.instruction else { return nil }
        guard case .create = instruction else { return (instruction, nil) }
        return (instruction, parts.fieldsText)
    }

    /// Whether the key whose characters are `name` is `literal` (compared in place: no copy of the reader per key).
    func key(_ name: Range<Int>, is literal: StaticString) -> Bool { reader.bytes(name, are: literal) }

    /// A class name: a string literal without escapes that ``JSONFields/isValidName(_:)`` accepts.
    mutating func className() -> String? {
        guard let characters = reader.plainString() else { return nil }
        if let last = lastClassName, reader.bytes(last.characters, equal: characters) { return last.name }
        let name = reader.bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[characters]), as: UTF8.self) }
        guard JSONFields.isValidName(name) else { return nil }
        lastClassName = (characters, name)
        return name
    }

    /// An instruction's `op`: a string literal without escapes naming one.
    mutating func op() -> InstructionParts.Op? {
        guard let characters = reader.plainString() else { return nil }
        return InstructionParts.Op.names.first { reader.bytes(characters, are: $0.0) }?.1
    }

    // MARK: Tokens (``JSONReader``'s)

    var atEnd: Bool { mutating get { reader.atEnd } }
    mutating func peek() -> UInt8? { reader.peek() }
    mutating func string() -> String? { reader.string() }
    mutating func integer() -> Int64? { reader.integer() }
    mutating func take(_ byte: Unicode.Scalar) -> Bool { reader.take(byte) }
    mutating func value(depth: Int) -> Value? { reader.extendedJSONValue(depth: depth) }
    mutating func documentWithText(depth: Int) -> (document: Document, text: String?)? {
        reader.extendedJSONDocumentWithText(depth: depth)
    }
}
