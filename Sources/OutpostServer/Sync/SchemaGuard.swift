import OutpostCore

/// Keeps uploads within the app's schema. In development mode the schema grows from what clients upload (new
/// collections and fields are recorded); otherwise an upload that adds a collection or a field the configured
/// schema does not have is refused with error 225 and the original's message shape.
struct SchemaGuard {
    let settings: SyncAppSettings

    /// The fields each instruction writes, per collection, with the type of the value written.
    static func writtenFields(_ changesets: [UploadChangeset]) -> [String: [String: Value]] {
        var out: [String: [String: Value]] = [:]
        for changeset in changesets {
            let instructions = changeset.instructions
            var i = 0
            // A run of instructions of one class (most of an upload) is noted into that class's fields taken out
            // once: a lookup of the class per run, not per instruction, and its `_id` looked up once.
            while i < instructions.count {
                let className = instructions[i].className
                var fields = out.removeValue(forKey: className) ?? [:]
                var knowsId = fields["_id"] != nil
                while i < instructions.count, instructions[i].className == className {
                    note(instructions[i], in: &fields, knowsId: &knowsId)
                    i += 1
                }
                out[className] = fields
            }
        }
        return out
    }

    /// Written fields of several uploads together, as ``writtenFields(_:)`` of all their changesets would give.
    static func merge(_ parts: [[String: [String: Value]]]) -> [String: [String: Value]] {
        guard var out = parts.first else { return [:] }
        for part in parts.dropFirst() {
            for (collection, fields) in part {
                out[collection, default: [:]].merge(fields) { old, new in old == .null ? new : old }
            }
        }
        return out
    }

    private static func note(_ instruction: SyncInstruction, in fields: inout [String: Value], knowsId: inout Bool) {
        switch instruction {
        case .create(_, let pk, let doc):
            if !knowsId {
                if fields["_id"] == nil { fields["_id"] = pk }
                knowsId = true
            }
            // One lookup per field: after an upload's first object, its class's fields are all known.
            for (k, v) in doc.fields where isUnknown(fields[k]) {
                fields[k] = v
            }
        case .set(_, _, let f, let v), .mapSet(_, _, let f, _, let v):
            if isUnknown(fields[f]) { fields[f] = v }
        case .listInsert(_, _, let f, _, let v), .listSet(_, _, let f, _, let v), .setAdd(_, _, let f, let v):
            if fields[f] == nil { fields[f] = .array([v]) }
        default:
            if let f = instruction.field, fields[f] == nil { fields[f] = .null }
        }
    }

    /// No value of the field seen yet, or only null (a pattern, not `==`: it copies no value).
    @inline(__always)
    private static func isUnknown(_ seen: Value?) -> Bool {
        switch seen {
        case nil, .null?: true
        default: false
        }
    }

    /// Refuses an upload that names a class or a field by an invalid name (error 212, ``ObjectNames``): empty,
    /// starting with `$`, holding a control character or (fields) `.`, or longer than 255 bytes. The message reader
    /// refuses control characters in names already; the rest is checked here, once per upload, class and field.
    static func checkNames(_ written: [String: [String: Value]]) -> SyncProtocolError? {
        for (collection, fields) in written {
            if let problem = ObjectNames.problem(withClassName: collection) {
                return SyncProtocolError(.badChangeset,
                    "failed to validate upload changesets: class name \(Value.string(collection).extendedJSONText) is not a valid name: it \(problem)")
            }
            for field in fields.keys {
                if let problem = ObjectNames.problem(withFieldName: field) {
                    return SyncProtocolError(.badChangeset,
                        "failed to validate upload changesets: field name \(Value.string(field).extendedJSONText) in class \(Value.string(collection).extendedJSONText) is not a valid name: it \(problem)")
                }
            }
        }
        return nil
    }

    /// Checks the upload against the configured schema (development mode off). Returns the 225 error, if any.
    func check(_ written: [String: [String: Value]]) -> SyncProtocolError? {
        guard !settings.developmentMode else { return nil }
        let suffix = "schema changes from clients are restricted when developer mode is disabled"
        for collection in written.keys.sorted() {
            guard let known = settings.schema[collection] else {
                return SyncProtocolError(.invalidSchemaChange,
                    "Invalid schema change (UPLOAD): non-breaking schema change: adding schema for Realm table \"\(collection)\", \(suffix)")
            }
            for (field, value) in written[collection]!.sorted(by: { $0.key < $1.key }) where known[field] == nil {
                return SyncProtocolError(.invalidSchemaChange,
                    "Invalid schema change (UPLOAD): non-breaking schema change: adding \"\(Self.typeName(value))\" column at field \"\(field)\" in schema \"\(collection)\", \(suffix)")
            }
        }
        return nil
    }

    /// Adds what an upload writes to a recorded (development-mode) schema; returns nil when nothing is new.
    static func merge(_ written: [String: [String: Value]], into recorded: [String: [String: String]]) -> [String: [String: String]]? {
        var schema = recorded
        var grew = false
        for (collection, fields) in written {
            var known = schema[collection] ?? [:]
            for (field, value) in fields where known[field] == nil || (known[field] == "Mixed" && value != .null) {
                known[field] = typeName(value)
                grew = true
            }
            schema[collection] = known
        }
        return grew ? schema : nil
    }

    /// Realm's name for the column type a value needs.
    static func typeName(_ value: Value) -> String {
        switch value {
        case .null: "Mixed"
        case .bool: "Bool"
        case .int: "Int"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .data: "Binary"
        case .date: "Timestamp"
        case .objectId: "ObjectId"
        case .decimal128: "Decimal128"
        case .uuid: "UUID"
        case .array: "List"
        case .document: "Object"
        case .link: "Link"
        }
    }
}
