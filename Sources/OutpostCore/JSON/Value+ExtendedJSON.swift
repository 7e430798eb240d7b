import Foundation

/// Outpost's JSON form of ``Value`` and ``Document``: MongoDB Extended JSON v2 in relaxed mode, the form the
/// sync protocol, the server's storage and the Data API all use.
///
/// | Value | JSON |
/// |---|---|
/// | null, bool, string | themselves |
/// | int | an integer literal (`3`) |
/// | double, float | a number with a fraction (`3.5`); integral values, NaN and infinities as `{"$numberDouble": "3.0"}` |
/// | data | `{"$binary": {"base64": "…", "subType": "00"}}` |
/// | date | `{"$date": {"$numberLong": "<milliseconds since 1970>"}}` |
/// | objectId | `{"$oid": "<24 hex>"}` |
/// | decimal128 | `{"$numberDecimal": "<text>"}` |
/// | uuid | `{"$uuid": "<canonical text>"}` |
/// | array | an array |
/// | document | an object (keys may not start with `$`) |
/// | link | `{"$ref": "<class>", "$id": <primary key>}` |
///
/// Reading also accepts the canonical forms `{"$numberInt"}`, `{"$numberLong"}`, `{"$date": "<ISO 8601>"}`
/// and `{"$binary"}` with sub type `04` for UUIDs.
extension Value {
    /// The Extended JSON form of the value.
    package var extendedJSON: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .float(let v): return Self.doubleJSON(Double(v))
        case .double(let v): return Self.doubleJSON(v)
        case .string(let v): return .string(v)
        case .data(let v):
            return .object(["$binary": .object(["base64": .string(v.base64EncodedString()), "subType": .string("00")])])
        case .date(let v):
            let ms = v.millisecondsSince1970
            return .object(["$date": .object(["$numberLong": .string(String(ms))])])
        case .objectId(let v): return .object(["$oid": .string(v.stringValue)])
        case .decimal128(let v): return .object(["$numberDecimal": .string(v.stringValue)])
        case .uuid(let v): return .object(["$uuid": .string(v.uuidString.lowercased())])
        case .array(let items): return .array(items.map(\.extendedJSON))
        case .document(let doc): return doc.extendedJSON
        case .link(let className, let primaryKey):
            return .object(["$ref": .string(className), "$id": primaryKey.extendedJSON])
        }
    }

    /// Appends the Extended JSON text of the value: the same bytes as `extendedJSON.write(to:)`, without building
    /// the JSON tree (documents are written this way to storage and into sync messages).
    package func writeExtendedJSON(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .int(let v): JSONValue.writeInt(v, to: &out)
        case .string(let v): JSONValue.writeString(v, to: &out)
        case .objectId(let v):
            out.append(contentsOf: #"{"$oid":""#.utf8)
            v.appendHex(to: &out)
            out.append(contentsOf: #""}"#.utf8)
        case .date(let v):
            out.append(contentsOf: #"{"$date":{"$numberLong":""#.utf8)
            JSONValue.writeInt(v.millisecondsSince1970, to: &out)
            out.append(contentsOf: #""}}"#.utf8)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                item.writeExtendedJSON(to: &out)
            }
            out.append(0x5D)
        case .document(let doc): doc.writeExtendedJSON(to: &out)
        case .link(let className, let primaryKey):
            var object = JSONObjectWriter(&out)
            object.key("$id", &out)
            primaryKey.writeExtendedJSON(to: &out)
            object.string("$ref", className, &out)
            object.end(&out)
        case .float, .double, .data, .decimal128, .uuid:
            extendedJSON.write(to: &out)
        }
    }

    /// The compact Extended JSON text of the value (the same as `extendedJSON.text`, without the tree).
    package var extendedJSONText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        writeExtendedJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func doubleJSON(_ v: Double) -> JSONValue {
        if v.isNaN { return .object(["$numberDouble": .string("NaN")]) }
        if v.isInfinite { return .object(["$numberDouble": .string(v < 0 ? "-Infinity" : "Infinity")]) }
        // An integral double would read back as an integer through `Codable` coders, so it keeps its type tag.
        if v == v.rounded() { return .object(["$numberDouble": .string(String(v))]) }
        return .double(v)
    }

    /// Reads a value from its Extended JSON form.
    ///
    /// - Parameter path: where the value sits, used in error messages (for example `fields.owner`).
    /// - Throws: ``ValueError`` with code ``ValueError/Code/invalidExtendedJSON`` naming the path and the problem.
    package init(extendedJSON json: JSONValue, path: String = "$") throws(ValueError) {
        switch json {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .array(let items):
            var values: [Value] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                values.append(try Value(extendedJSON: item, path: "\(path)[\(i)]"))
            }
            self = .array(values)
        case .object(let fields):
            if let special = try Self.special(fields, path: path) {
                self = special
            } else {
                self = .document(try Document(extendedJSONFields: fields, path: path))
            }
        }
    }

    private static func special(_ fields: [String: JSONValue], path: String) throws(ValueError) -> Value? {
        guard let key = fields.keys.first(where: { $0.hasPrefix("$") }) else { return nil }
        func string(_ v: JSONValue?, _ what: String) throws(ValueError) -> String {
            guard case .string(let s)? = v else { throw invalid(path, "\(what) must hold a string") }
            return s
        }
        switch key {
        case "$oid":
            let text = try string(fields["$oid"], "$oid")
            do { return .objectId(try ObjectId(string: text)) } catch {
                throw invalid(path, "$oid '\(text)' is not 24 hexadecimal characters")
            }
        case "$numberDecimal":
            let text = try string(fields["$numberDecimal"], "$numberDecimal")
            do { return .decimal128(try Decimal128(string: text)) } catch {
                throw invalid(path, "$numberDecimal '\(text)' is not a decimal number")
            }
        case "$numberInt", "$numberLong":
            let text = try string(fields[key], key)
            guard let v = Int64(text) else { throw invalid(path, "\(key) '\(text)' is not an integer") }
            return .int(v)
        case "$numberDouble":
            let text = try string(fields["$numberDouble"], "$numberDouble")
            switch text {
            case "NaN": return .double(.nan)
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            default:
                guard let v = Double(text) else { throw invalid(path, "$numberDouble '\(text)' is not a number") }
                return .double(v)
            }
        case "$uuid":
            let text = try string(fields["$uuid"], "$uuid")
            guard let v = UUID(uuidString: text) else { throw invalid(path, "$uuid '\(text)' is not a UUID") }
            return .uuid(v)
        case "$date":
            return .date(try date(fields["$date"], path: path))
        case "$binary":
            guard case .object(let bin)? = fields["$binary"], case .string(let b64)? = bin["base64"],
                let data = Data(base64Encoded: b64)
            else { throw invalid(path, "$binary must be {\"base64\": <base64 text>, \"subType\": <hex>}") }
            if case .string("04")? = bin["subType"], data.count == 16 {
                let b = [UInt8](data)
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                         b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            }
            return .data(data)
        case "$ref", "$id":
            guard case .string(let className)? = fields["$ref"], let id = fields["$id"] else {
                throw invalid(path, "a link must be {\"$ref\": <class name>, \"$id\": <primary key>}")
            }
            return .link(className: className, primaryKey: try Value(extendedJSON: id, path: path + ".$id"))
        default:
            throw invalid(path, "unknown Extended JSON key '\(key)'")
        }
    }

    private static func date(_ json: JSONValue?, path: String) throws(ValueError) -> Date {
        switch json {
        case .object(let inner)?:
            guard case .string(let text)? = inner["$numberLong"], let ms = Int64(text) else {
                throw invalid(path, "$date must be {\"$numberLong\": \"<milliseconds>\"} or ISO 8601 text")
            }
            return Date(timeIntervalSince1970: Double(ms) / 1000)
        case .int(let ms)?:
            return Date(timeIntervalSince1970: Double(ms) / 1000)
        case .string(let text)?:
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let d = formatter.date(from: text) { return d }
            formatter.formatOptions = [.withInternetDateTime]
            if let d = formatter.date(from: text) { return d }
            throw invalid(path, "$date '\(text)' is not ISO 8601 text")
        default:
            throw invalid(path, "$date must be {\"$numberLong\": \"<milliseconds>\"} or ISO 8601 text")
        }
    }

    static func invalid(_ path: String, _ problem: String) -> ValueError {
        ValueError(code: .invalidExtendedJSON, message: "Invalid Extended JSON at \(path): \(problem)", text: path)
    }
}

extension Document {
    /// The Extended JSON form of the document: an object with one entry per field.
    package var extendedJSON: JSONValue {
        .object(fields.mapValues(\.extendedJSON))
    }

    /// Appends the Extended JSON text of the document, keys sorted: the same bytes as `extendedJSON.write(to:)`.
    package func writeExtendedJSON(to out: inout [UInt8]) {
        out.append(0x7B)
        var first = true
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            if first { first = false } else { out.append(0x2C) }
            JSONValue.writeString(key, to: &out)
            out.append(0x3A)
            value.writeExtendedJSON(to: &out)
        }
        out.append(0x7D)
    }

    /// Reads a document from a JSON object in Extended JSON form.
    package init(extendedJSON json: JSONValue, path: String = "$") throws(ValueError) {
        guard case .object(let fields) = json else {
            throw Value.invalid(path, "expected an object")
        }
        guard fields.keys.first(where: { $0.hasPrefix("$") }) == nil else {
            throw Value.invalid(path, "expected a document, found an Extended JSON value")
        }
        try self.init(extendedJSONFields: fields, path: path)
    }

    init(extendedJSONFields fields: [String: JSONValue], path: String) throws(ValueError) {
        var out: [String: Value] = [:]
        out.reserveCapacity(fields.count)
        for (key, json) in fields {
            if key.hasPrefix("$") { throw Value.invalid(path, "field name '\(key)' may not start with '$'") }
            out[key] = try Value(extendedJSON: json, path: path == "$" ? key : "\(path).\(key)")
        }
        self.init(out)
    }

    /// Parses Extended JSON text into a document.
    ///
    /// Outpost-only: the original has no such entry point.
    public init(extendedJSONText text: String) throws(ValueError) {
        // The forms Outpost writes are read straight from the bytes; anything else the general way below.
        var reader = JSONReader(bytes: Array(text.utf8))
        if let document = reader.extendedJSONDocument(depth: 0), reader.atEnd {
            self = document
            return
        }
        guard let json = JSONValue.parse(text) else {
            throw Value.invalid("$", "the text is not valid JSON")
        }
        try self.init(extendedJSON: json)
    }

    /// The document as compact Extended JSON text with sorted keys.
    ///
    /// Outpost-only: the original has no such property.
    public var extendedJSONText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        writeExtendedJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension ValueError.Code {
    /// JSON text that is not valid Extended JSON for a value or document.
    public static let invalidExtendedJSON = ValueError.Code(rawValue: "invalidExtendedJSON")
}
