import Foundation

/// Values and documents in Extended JSON, read as ``Value/init(extendedJSON:path:)`` and
/// ``Document/init(extendedJSON:path:)`` read them. The forms Outpost writes are read here; the other forms the
/// general reader also accepts (`$date` as ISO 8601 text, an object with extra keys beside a `$` key, …) make
/// these return nil. Shared by the readers that go straight from bytes to typed messages (`UploadMessageReader`,
/// `DownloadMessageReader`).
extension JSONReader {
    /// Deeper nesting than this falls back to the general reader.
    private static let maxDepth = 64

    /// One value, or nil.
    package mutating func extendedJSONValue(depth: Int) -> Value? {
        guard depth < Self.maxDepth, let c = peek() else { return nil }
        switch c {
        case UInt8(ascii: "["):
            index += 1
            var items: [Value] = []
            if take("]") { return .array(items) }
            repeat {
                guard let item = extendedJSONValue(depth: depth + 1) else { return nil }
                items.append(item)
            } while take(",")
            return take("]") ? .array(items) : nil
        case UInt8(ascii: "{"):
            index += 1
            if take("}") { return .document(Document()) }
            guard let key = string(), take(":") else { return nil }
            if key.utf8.first == UInt8(ascii: "$") { return special(key, depth: depth) }
            return documentFields(first: key, depth: depth).map { .document(Document($0)) }
        default:
            switch parseValue() {
            case .null?: return .null
            case .bool(let v)?: return .bool(v)
            case .int(let v)?: return .int(v)
            case .double(let v)?: return .double(v)
            case .string(let v)?: return .string(v)
            default: return nil
            }
        }
    }

    /// A document: an object none of whose keys starts with `$`.
    package mutating func extendedJSONDocument(depth: Int) -> Document? {
        guard depth < Self.maxDepth, take("{") else { return nil }
        if take("}") { return Document() }
        guard let key = string(), take(":"), key.utf8.first != UInt8(ascii: "$") else { return nil }
        return documentFields(first: key, depth: depth).map { Document($0) }
    }

    /// A document as ``extendedJSONDocument(depth:)`` reads it, with its bytes as text when they are exactly its
    /// ``Document/extendedJSONText`` (``CanonicalDocumentText``), so that the server can store them as they came.
    package mutating func extendedJSONDocumentWithText(depth: Int) -> (document: Document, text: String?)? {
        guard depth < Self.maxDepth, peek() != nil else { return nil }
        let start = index
        guard take("{") else { return nil }
        if take("}") { return (Document(), index - start == 2 ? "{}" : nil) }
        // Made at its size here: `reserveCapacity` on an empty dictionary looked up generic metadata each time.
        var fields = [String: Value](minimumCapacity: 8)
        var canonical = CanonicalDocumentText()
        repeat {
            guard peek() != nil else { return nil }
            let keyStart = index
            guard let key = string() else { return nil }
            let keyEnd = index
            guard take(":"), key.utf8.first != UInt8(ascii: "$"), peek() != nil else { return nil }
            let valueStart = index
            guard let value = extendedJSONValue(depth: depth + 1), fields.updateValue(value, forKey: key) == nil
            else { return nil }
            canonical.field(key: keyStart..<keyEnd, value: valueStart..<index, parsed: value, in: bytes)
        } while take(",")
        guard take("}") else { return nil }
        return (Document(fields), canonical.text(of: start..<index, in: bytes))
    }

    /// The fields of a document whose first key (`first`) and colon are read; reads through the closing brace.
    /// A repeated key or a key starting with `$` gives nil.
    private mutating func documentFields(first: String, depth: Int) -> [String: Value]? {
        // Made at its size here: `reserveCapacity` on an empty dictionary looked up generic metadata each time.
        var fields = [String: Value](minimumCapacity: 8)
        var key = first
        while true {
            guard let v = extendedJSONValue(depth: depth + 1), fields.updateValue(v, forKey: key) == nil else { return nil }
            guard take(",") else { break }
            guard let next = string(), take(":"), next.utf8.first != UInt8(ascii: "$") else { return nil }
            key = next
        }
        return take("}") ? fields : nil
    }

    /// The value of an object whose first key (`key`, starting with `$`) and colon are read; reads through the
    /// closing brace.
    private mutating func special(_ key: String, depth: Int) -> Value? {
        let value: Value
        switch key {
        case "$oid":
            if let id = objectIdLiteral() {
                value = .objectId(id)
            } else {
                guard let text = string(), let id = try? ObjectId(string: text) else { return nil }
                value = .objectId(id)
            }
        case "$date":
            guard let ms = dateMilliseconds() else { return nil }
            value = .date(Date(timeIntervalSince1970: Double(ms) / 1000))
        case "$numberDecimal":
            guard let text = string(), let d = try? Decimal128(string: text) else { return nil }
            value = .decimal128(d)
        case "$numberInt", "$numberLong":
            if let v = decimalLiteral() {
                value = .int(v)
            } else {
                guard let text = string(), let v = Int64(text) else { return nil }
                value = .int(v)
            }
        case "$numberDouble":
            guard let text = string() else { return nil }
            switch text {
            case "NaN": value = .double(.nan)
            case "Infinity": value = .double(.infinity)
            case "-Infinity": value = .double(-.infinity)
            default:
                guard let v = Double(text) else { return nil }
                value = .double(v)
            }
        case "$uuid":
            guard let text = string(), let v = UUID(uuidString: text) else { return nil }
            value = .uuid(v)
        case "$binary":
            guard let v = binary() else { return nil }
            value = v
        case "$ref":
            guard let className = string(), take(","), string() == "$id", take(":"),
                let id = self.extendedJSONValue(depth: depth + 1)
            else { return nil }
            value = .link(className: className, primaryKey: id)
        case "$id":
            guard let id = self.extendedJSONValue(depth: depth + 1), take(","), string() == "$ref", take(":"),
                let className = string()
            else { return nil }
            value = .link(className: className, primaryKey: id)
        default: return nil
        }
        return take("}") ? value : nil
    }

    /// `{"$numberLong": "<ms>"}` or an integer.
    private mutating func dateMilliseconds() -> Int64? {
        guard take("{") else { return integer() }
        guard string() == "$numberLong", take(":"), let text = string(), take("}") else { return nil }
        return Int64(text)
    }

    /// `{"base64": "…", "subType": "…"}` (sub type optional): data, or a UUID for sub type `04` and 16 bytes.
    private mutating func binary() -> Value? {
        guard take("{") else { return nil }
        var base64: String?
        var subType: String?
        repeat {
            guard let key = string(), take(":"), let text = string() else { return nil }
            switch key {
            case "base64" where base64 == nil: base64 = text
            case "subType" where subType == nil: subType = text
            default: return nil
            }
        } while take(",")
        guard take("}"), let base64, let data = Data(base64Encoded: base64) else { return nil }
        if subType == "04", data.count == 16 {
            let b = [UInt8](data)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                     b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
        return .data(data)
    }
}
