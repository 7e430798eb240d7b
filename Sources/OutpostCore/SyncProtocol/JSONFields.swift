/// Reads the fields of one JSON object of a protocol message, turning every problem into a
/// ``SyncProtocolError`` with code 103 (bad syntax) that names the field's path.
package struct JSONFields {
    let fields: [String: JSONValue]
    let path: String

    init(_ json: JSONValue, path: String) throws(SyncProtocolError) {
        guard case .object(let fields) = json else {
            throw SyncProtocolError(.badSyntax, "Bad syntax at \(path): expected an object")
        }
        self.fields = fields
        self.path = path
    }

    func error(_ problem: String, key: String) -> SyncProtocolError {
        SyncProtocolError(.badSyntax, "Bad syntax at \(path).\(key): \(problem)")
    }

    func has(_ key: String) -> Bool {
        if let v = fields[key], v != .null { return true }
        return false
    }

    func raw(_ key: String) throws(SyncProtocolError) -> JSONValue {
        guard let v = fields[key] else { throw error("missing field", key: key) }
        return v
    }

    func string(_ key: String) throws(SyncProtocolError) -> String {
        guard case .string(let s) = try raw(key) else { throw error("expected a string", key: key) }
        return s
    }

    /// A class or field name: non-empty text without control characters.
    func name(_ key: String) throws(SyncProtocolError) -> String {
        let s = try string(key)
        guard Self.isValidName(s) else { throw error("'\(s.prefix(64))' is not a valid name", key: key) }
        return s
    }

    /// True for non-empty text of at most 256 bytes without control characters.
    package static func isValidName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 256 && !s.utf8.contains(where: { $0 < 0x20 })
    }

    func int(_ key: String) throws(SyncProtocolError) -> Int64 {
        guard case .int(let v) = try raw(key) else { throw error("expected an integer", key: key) }
        return v
    }

    func optionalInt(_ key: String) throws(SyncProtocolError) -> Int64? {
        has(key) ? try int(key) : nil
    }

    /// A non-negative integer that fits an `Int`.
    func index(_ key: String) throws(SyncProtocolError) -> Int {
        let v = try int(key)
        guard v >= 0, v <= Int64(Int32.max) else { throw error("expected a non-negative index, found \(v)", key: key) }
        return Int(v)
    }

    /// A non-negative version number.
    func version(_ key: String) throws(SyncProtocolError) -> Int64 {
        let v = try int(key)
        guard v >= 0 else { throw error("expected a version ≥ 0, found \(v)", key: key) }
        return v
    }

    func bool(_ key: String) throws(SyncProtocolError) -> Bool {
        guard case .bool(let b) = try raw(key) else { throw error("expected true or false", key: key) }
        return b
    }

    func array(_ key: String) throws(SyncProtocolError) -> [JSONValue] {
        guard case .array(let a) = try raw(key) else { throw error("expected an array", key: key) }
        return a
    }

    func value(_ key: String) throws(SyncProtocolError) -> Value {
        let json = try raw(key)
        do {
            return try Value(extendedJSON: json, path: "\(path).\(key)")
        } catch {
            throw SyncProtocolError(.badSyntax, "Bad syntax: \(error.message)")
        }
    }

    func document(_ key: String) throws(SyncProtocolError) -> Document {
        let json = try raw(key)
        do {
            return try Document(extendedJSON: json, path: "\(path).\(key)")
        } catch {
            throw SyncProtocolError(.badSyntax, "Bad syntax: \(error.message)")
        }
    }

    /// A JSON object whose values are strings (subscription queries).
    func stringMap(_ key: String) throws(SyncProtocolError) -> [String: String] {
        guard case .object(let o) = try raw(key) else { throw error("expected an object", key: key) }
        var out: [String: String] = [:]
        for (k, v) in o {
            guard case .string(let s) = v else { throw error("expected a string", key: "\(key).\(k)") }
            out[k] = s
        }
        return out
    }
}
