/// Collections encode as their elements (a map as an object of its entries), as Realm's do, and lists, sets and maps
/// decode into unmanaged collections.
extension List: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws { try encodeElements(to: encoder) }
}

extension List: Decodable where Element: Decodable {
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        try Self.decodeElements(from: decoder, into: append)
    }
}

extension MutableSet: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws { try encodeElements(to: encoder) }
}

extension MutableSet: Decodable where Element: Decodable {
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        try Self.decodeElements(from: decoder, into: insert)
    }
}

extension Map: Encodable where Key: Encodable, Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MapCodingKey.self)
        for key in keys { try container.encode(self[key]!, forKey: MapCodingKey(key._outpostKey)) }
    }
}

extension Map: Decodable where Key: Decodable, Value: Decodable {
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: MapCodingKey.self)
        for key in container.allKeys {
            self[Key(_outpostKey: key.stringValue)] = try container.decode(Value.self, forKey: key)
        }
    }
}

extension Results: Encodable where Element: Encodable {
    public func encode(to encoder: any Encoder) throws { try encodeElements(to: encoder) }
}

extension Sequence where Element: Encodable {
    /// The elements as an unkeyed container (an array).
    fileprivate func encodeElements(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension Sequence where Element: Decodable {
    /// Each element of an unkeyed container (an array), handed to `add`.
    fileprivate static func decodeElements(from decoder: any Decoder, into add: (Element) -> Void) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { add(try container.decode(Element.self)) }
    }
}

/// A map's key as a coding key.
struct MapCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
