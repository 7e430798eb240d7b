import OutpostCore

/// Reads one JSON object of a configuration file, naming the JSON path of every problem.
struct ConfigurationReader {
    let fields: [String: JSONValue]
    /// The path of this object (`$` for the root).
    let path: String

    init(_ json: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let fields) = json else {
            throw ConfigurationError(.wrongType, path: path, "expected an object, found \(Self.kind(of: json))")
        }
        self.fields = fields
        self.path = path
    }

    func path(of key: String) -> String {
        path == "$" ? key : "\(path).\(key)"
    }

    /// Throws for a key not in `allowed`.
    func rejectUnknownFields(_ allowed: Set<String>) throws(ConfigurationError) {
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            let expected = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw ConfigurationError(.unknownField, path: path(of: unknown), "unknown field; expected one of \(expected)")
        }
    }

    func value(_ key: String) -> JSONValue? {
        if case .null? = fields[key] { return nil }
        return fields[key]
    }

    func required(_ key: String) throws(ConfigurationError) -> JSONValue {
        guard let value = value(key) else {
            throw ConfigurationError(.missingField, path: path(of: key), "required field is missing")
        }
        return value
    }

    func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let s) = value else { throw wrongType(key, "a string", value) }
        return s
    }

    func requiredString(_ key: String) throws(ConfigurationError) -> String {
        let value = try required(key)
        guard case .string(let s) = value else { throw wrongType(key, "a string", value) }
        guard !s.isEmpty else { throw ConfigurationError(.invalidValue, path: path(of: key), "must not be empty") }
        return s
    }

    func bool(_ key: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let value = value(key) else { return defaultValue }
        guard case .bool(let b) = value else { throw wrongType(key, "true or false", value) }
        return b
    }

    func positiveInt(_ key: String, default defaultValue: Int) throws(ConfigurationError) -> Int {
        guard let value = value(key) else { return defaultValue }
        guard case .int(let i) = value else { throw wrongType(key, "an integer", value) }
        guard i > 0, i <= Int64(Int32.max) else {
            throw ConfigurationError(.invalidValue, path: path(of: key), "must be a positive integer, found \(i)")
        }
        return Int(i)
    }

    /// An integer from 0 (often "off") up to `Int32.max`.
    func nonNegativeInt(_ key: String, default defaultValue: Int) throws(ConfigurationError) -> Int {
        guard let value = value(key) else { return defaultValue }
        guard case .int(let i) = value else { throw wrongType(key, "an integer", value) }
        guard i >= 0, i <= Int64(Int32.max) else {
            throw ConfigurationError(.invalidValue, path: path(of: key), "must be 0 or a positive integer, found \(i)")
        }
        return Int(i)
    }

    func stringArray(_ key: String) throws(ConfigurationError) -> [String] {
        guard let value = value(key) else { return [] }
        return try Self.stringArray(value, path: path(of: key))
    }

    func object(_ key: String) throws(ConfigurationError) -> ConfigurationReader? {
        guard let value = value(key) else { return nil }
        return try ConfigurationReader(value, path: path(of: key))
    }

    func wrongType(_ key: String, _ expected: String, _ found: JSONValue) -> ConfigurationError {
        ConfigurationError(.wrongType, path: path(of: key), "expected \(expected), found \(Self.kind(of: found))")
    }

    static func stringArray(_ value: JSONValue, path: String) throws(ConfigurationError) -> [String] {
        guard case .array(let items) = value else {
            throw ConfigurationError(.wrongType, path: path, "expected an array of strings, found \(kind(of: value))")
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item, !s.isEmpty else {
                throw ConfigurationError(.wrongType, path: "\(path)[\(i)]", "expected a field name, found \(kind(of: item))")
            }
            out.append(s)
        }
        return out
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .int(let i): "the number \(i)"
        case .double(let d): "the number \(d)"
        case .string(let s): "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
