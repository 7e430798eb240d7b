extension UploadMessageReader {
    /// The fields of one instruction object as they are read, in whatever order they come; ``instruction`` puts
    /// together the instruction its `op` names, checked as ``SyncInstruction/init(json:path:)`` checks it.
    ///
    /// Fields the op does not use are ignored, as the general reader ignores them, but they must still read
    /// cleanly (otherwise the whole message falls back to the general reader).
    struct InstructionParts {
        /// The instruction kinds, by their `op` names.
        enum Op {
            case create, erase, set, listInsert, listSet, listErase, listMove, clear, setAdd, setRemove, mapSet, mapErase

            static let names: [(StaticString, Op)] = [
                ("create", .create), ("set", .set), ("erase", .erase), ("listInsert", .listInsert),
                ("listSet", .listSet), ("listErase", .listErase), ("listMove", .listMove), ("clear", .clear),
                ("setAdd", .setAdd), ("setRemove", .setRemove), ("mapSet", .mapSet), ("mapErase", .mapErase),
            ]
        }

        private var op: Op?
        private var className: String?
        private var primaryKey: Value?
        private var fields: Document?
        private var field: String?
        private var value: Value?
        private var index: Int64?
        private var from: Int64?
        private var to: Int64?
        private var key: String?
        /// The `fields` bytes as text when they are the document's stored form (``CanonicalDocumentText``).
        private(set) var fieldsText: String?

        /// Reads the value of the key whose characters are `name` (a range of the message's bytes) into its slot;
        /// false for an unknown or repeated key or an unreadable value. Keys are compared as bytes: making a
        /// `String` of each was a tenth of the server's reading time.
        mutating func read(_ name: Range<Int>, from reader: inout UploadMessageReader) -> Bool {
            if reader.key(name, is: "class") { return UploadMessageReader.fill(&className, reader.className()) }
            if reader.key(name, is: "fields") {
                guard fields == nil, let (document, text) = reader.documentWithText(depth: 0) else { return false }
                fields = document
                fieldsText = text
                return true
            }
            if reader.key(name, is: "op") { return UploadMessageReader.fill(&op, reader.op()) }
            if reader.key(name, is: "pk") { return UploadMessageReader.fill(&primaryKey, reader.value(depth: 0)) }
            if reader.key(name, is: "field") { return UploadMessageReader.fill(&field, reader.string()) }
            if reader.key(name, is: "value") { return UploadMessageReader.fill(&value, reader.value(depth: 0)) }
            if reader.key(name, is: "index") { return UploadMessageReader.fill(&index, reader.integer()) }
            if reader.key(name, is: "from") { return UploadMessageReader.fill(&from, reader.integer()) }
            if reader.key(name, is: "to") { return UploadMessageReader.fill(&to, reader.integer()) }
            if reader.key(name, is: "key") { return UploadMessageReader.fill(&key, reader.string()) }
            return false
        }

        /// The instruction, or nil when a field it needs is missing or out of range.
        var instruction: SyncInstruction? {
            // Protocol 3: a create without `pk` is addressed by its fields' `_id`.
            // The class name was checked as it was read (``UploadMessageReader/className()``).
            guard let op, let c = className, let pk = primaryKey ?? (op == .create ? fields?["_id"] : nil) else { return nil }
            switch op {
            case .create:
                guard let fields else { return nil }
                return .create(className: c, primaryKey: pk, fields: fields)
            case .erase: return .erase(className: c, primaryKey: pk)
            default: break
            }
            guard let f = field, JSONFields.isValidName(f) else { return nil }
            switch op {
            case .create, .erase: return nil
            case .set:
                guard let value else { return nil }
                return .set(className: c, primaryKey: pk, field: f, value: value)
            case .listInsert:
                guard let i = Self.index(index), let value else { return nil }
                return .listInsert(className: c, primaryKey: pk, field: f, index: i, value: value)
            case .listSet:
                guard let i = Self.index(index), let value else { return nil }
                return .listSet(className: c, primaryKey: pk, field: f, index: i, value: value)
            case .listErase:
                guard let i = Self.index(index) else { return nil }
                return .listErase(className: c, primaryKey: pk, field: f, index: i)
            case .listMove:
                guard let a = Self.index(from), let b = Self.index(to) else { return nil }
                return .listMove(className: c, primaryKey: pk, field: f, from: a, to: b)
            case .clear: return .clear(className: c, primaryKey: pk, field: f)
            case .setAdd:
                guard let value else { return nil }
                return .setAdd(className: c, primaryKey: pk, field: f, value: value)
            case .setRemove:
                guard let value else { return nil }
                return .setRemove(className: c, primaryKey: pk, field: f, value: value)
            case .mapSet:
                guard let key, let value else { return nil }
                return .mapSet(className: c, primaryKey: pk, field: f, key: key, value: value)
            case .mapErase:
                guard let key else { return nil }
                return .mapErase(className: c, primaryKey: pk, field: f, key: key)
            }
        }

        /// A list index as ``JSONFields/index(_:)`` accepts it.
        private static func index(_ v: Int64?) -> Int? {
            guard let v, v >= 0, v <= Int64(Int32.max) else { return nil }
            return Int(v)
        }
    }
}
