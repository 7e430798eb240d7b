import Foundation

extension Value {
    /// Appends the value's compact Extended JSON — the same text as `extendedJSON.text` — as UTF-8 bytes, without
    /// building the ``JSONValue`` tree first for the common kinds (strings, numbers, dates, object ids, arrays and
    /// documents). The server writes every stored document and history change this way.
    package func writeExtendedJSON(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .int(let v): JSONValue.writeInt(v, to: &out)
        case .string(let v): JSONValue.writeString(v, to: &out)
        case .date(let v):
            out.append(contentsOf: #"{"$date":{"$numberLong":""#.utf8)
            JSONValue.writeInt(Int64((v.timeIntervalSince1970 * 1000).rounded(.down)), to: &out)
            out.append(contentsOf: #""}}"#.utf8)
        case .objectId(let v):
            out.append(contentsOf: #"{"$oid":""#.utf8)
            out.append(contentsOf: v.stringValue.utf8)
            out.append(contentsOf: #""}"#.utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.writeExtendedJSON(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .document(let document): document.writeExtendedJSON(to: &out)
        default: extendedJSON.write(to: &out)
        }
    }
}

extension Document {
    /// Appends the document's compact Extended JSON with sorted keys — the same text as ``extendedJSONText`` — as
    /// UTF-8 bytes.
    package func writeExtendedJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, key) in fields.keys.sorted().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            fields[key]!.writeExtendedJSON(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
