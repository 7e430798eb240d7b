/// `JSONValue` reads and writes itself through any `Codable` coder, so protocol messages can embed
/// Extended JSON values and documents as ordinary `Codable` fields.
extension JSONValue: Codable {
    package init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var fields: [String: JSONValue] = [:]
            for key in object.allKeys { fields[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(fields)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let v = try? single.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? single.decode(Int64.self) {
            self = .int(v)
        } else if let v = try? single.decode(Double.self) {
            self = .double(v)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let v):
            var c = encoder.singleValueContainer()
            try c.encode(v)
        case .int(let v):
            var c = encoder.singleValueContainer()
            try c.encode(v)
        case .double(let v):
            var c = encoder.singleValueContainer()
            try c.encode(v)
        case .string(let v):
            var c = encoder.singleValueContainer()
            try c.encode(v)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .object(let fields):
            var c = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in fields { try c.encode(value, forKey: AnyKey(key)) }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// Values are `Codable` in their Extended JSON form (see ``Value`` and `Value+ExtendedJSON.swift`).
///
/// Outpost-only: the original's values are not `Codable`.
extension Value: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        self = try Value(extendedJSON: json, path: decoder.codingPath.map(\.stringValue).joined(separator: "."))
    }

    public func encode(to encoder: any Encoder) throws {
        try extendedJSON.encode(to: encoder)
    }
}

/// Documents are `Codable` as Extended JSON objects.
///
/// Outpost-only: the original's documents are not `Codable`.
extension Document: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        let path = decoder.codingPath.map(\.stringValue).joined(separator: ".")
        self = try Document(extendedJSON: json, path: path.isEmpty ? "$" : path)
    }

    public func encode(to encoder: any Encoder) throws {
        try extendedJSON.encode(to: encoder)
    }
}
