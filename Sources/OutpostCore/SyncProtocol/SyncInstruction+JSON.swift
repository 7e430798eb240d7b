extension SyncInstruction {
    /// The instruction as a JSON object: `{"op": …, "class": …, "pk": …, …}`.
    package var json: JSONValue {
        var o: [String: JSONValue] = ["op": .string(op), "class": .string(className)]
        if !createOmitsPrimaryKey { o["pk"] = primaryKey.extendedJSON }
        switch self {
        case .create(_, _, let fields): o["fields"] = fields.extendedJSON
        case .set(_, _, let f, let v): o["field"] = .string(f); o["value"] = v.extendedJSON
        case .erase: break
        case .listInsert(_, _, let f, let i, let v), .listSet(_, _, let f, let i, let v):
            o["field"] = .string(f); o["index"] = .int(Int64(i)); o["value"] = v.extendedJSON
        case .listErase(_, _, let f, let i): o["field"] = .string(f); o["index"] = .int(Int64(i))
        case .listMove(_, _, let f, let from, let to):
            o["field"] = .string(f); o["from"] = .int(Int64(from)); o["to"] = .int(Int64(to))
        case .clear(_, _, let f): o["field"] = .string(f)
        case .setAdd(_, _, let f, let v), .setRemove(_, _, let f, let v):
            o["field"] = .string(f); o["value"] = v.extendedJSON
        case .mapSet(_, _, let f, let k, let v): o["field"] = .string(f); o["key"] = .string(k); o["value"] = v.extendedJSON
        case .mapErase(_, _, let f, let k): o["field"] = .string(f); o["key"] = .string(k)
        }
        return .object(o)
    }

    /// Whether the instruction is written without its `pk` (protocol 3): a `create` whose fields' `_id` is its
    /// primary key, which readers take from there. A third of a new object's upload was its key written twice.
    package var createOmitsPrimaryKey: Bool {
        if case .create(_, let pk, let fields) = self, let id = fields["_id"] { return id == pk }
        return false
    }

    /// Reads an instruction; `path` names where it sits in the message for error texts.
    package init(json: JSONValue, path: String) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: path)
        let op = try r.string("op")
        let className = try r.name("class")
        if op == "create" {
            // Protocol 3: a create without `pk` is addressed by its fields' `_id`.
            let fields = try r.document("fields")
            let pk: Value
            if (try? r.raw("pk")) == nil, let id = fields["_id"] { pk = id } else { pk = try r.value("pk") }
            self = .create(className: className, primaryKey: pk, fields: fields)
            return
        }
        let pk = try r.value("pk")
        switch op {
        case "set": self = .set(className: className, primaryKey: pk, field: try r.name("field"), value: try r.value("value"))
        case "erase": self = .erase(className: className, primaryKey: pk)
        case "listInsert":
            self = .listInsert(className: className, primaryKey: pk, field: try r.name("field"), index: try r.index("index"),
                               value: try r.value("value"))
        case "listSet":
            self = .listSet(className: className, primaryKey: pk, field: try r.name("field"), index: try r.index("index"),
                            value: try r.value("value"))
        case "listErase":
            self = .listErase(className: className, primaryKey: pk, field: try r.name("field"), index: try r.index("index"))
        case "listMove":
            self = .listMove(className: className, primaryKey: pk, field: try r.name("field"), from: try r.index("from"),
                             to: try r.index("to"))
        case "clear": self = .clear(className: className, primaryKey: pk, field: try r.name("field"))
        case "setAdd": self = .setAdd(className: className, primaryKey: pk, field: try r.name("field"), value: try r.value("value"))
        case "setRemove":
            self = .setRemove(className: className, primaryKey: pk, field: try r.name("field"), value: try r.value("value"))
        case "mapSet":
            self = .mapSet(className: className, primaryKey: pk, field: try r.name("field"), key: try r.string("key"),
                           value: try r.value("value"))
        case "mapErase": self = .mapErase(className: className, primaryKey: pk, field: try r.name("field"), key: try r.string("key"))
        default: throw r.error("unknown instruction op '\(op)'", key: "op")
        }
    }
}

extension DownloadInstruction {
    package var json: JSONValue {
        switch self {
        case .upsert(let c, let k, let fields):
            return .object(["op": .string("upsert"), "class": .string(c), "pk": k.extendedJSON, "fields": fields.extendedJSON])
        case .erase(let c, let k):
            return .object(["op": .string("erase"), "class": .string(c), "pk": k.extendedJSON])
        }
    }

    package init(json: JSONValue, path: String) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: path)
        let op = try r.string("op")
        let className = try r.name("class")
        let pk = try r.value("pk")
        switch op {
        case "upsert": self = .upsert(className: className, primaryKey: pk, fields: try r.document("fields"))
        case "erase": self = .erase(className: className, primaryKey: pk)
        default: throw r.error("unknown download instruction op '\(op)'", key: "op")
        }
    }
}
