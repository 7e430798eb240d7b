extension ObjectId: CustomStringConvertible, ExpressibleByStringLiteral {
    /// Parses 24 hexadecimal characters (either case), as Realm's `ObjectId(string:)`.
    ///
    /// - Throws: ``ValueError`` with code ``ValueError/Code/invalidObjectIdString`` whose message
    ///   names the text and what was wrong with it.
    public init(string: String) throws {
        var raw = [UInt8]()
        raw.reserveCapacity(12)
        var high: UInt8?
        var valid = string.utf8.count == 24
        if valid {
            for unit in string.utf8 {
                guard let nibble = Self.hexValue(unit) else { valid = false; break }
                if let h = high {
                    raw.append(h << 4 | nibble)
                    high = nil
                } else {
                    high = nibble
                }
            }
        }
        guard valid else { throw Self.parseError(string) }
        try self.init(bytes: raw)
    }

    /// Creates an id from a literal; traps if the literal is not 24 hexadecimal characters.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// The 24-character lowercase hexadecimal form, as Realm prints it.
    public var stringValue: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return withUnsafeBytes { raw in
            String(unsafeUninitializedCapacity: 24) { buffer in
                for (i, byte) in raw.enumerated() {
                    buffer[2 * i] = digits[Int(byte >> 4)]
                    buffer[2 * i + 1] = digits[Int(byte & 0xF)]
                }
                return 24
            }
        }
    }

    /// Appends the 24 lowercase hexadecimal digits of ``stringValue`` as UTF-8 bytes.
    package func appendHex(to out: inout [UInt8]) {
        withUnsafeBytes { raw in
            for byte in raw {
                out.append(Self.hexDigits[Int(byte >> 4)])
                out.append(Self.hexDigits[Int(byte & 0xF)])
            }
        }
    }

    /// Appends the lowercase hex of stored ObjectId bytes (12 of them) without making an `ObjectId`.
    package static func appendHex(of bytes: [UInt8], to out: inout [UInt8]) {
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Same as ``stringValue``.
    public var description: String { stringValue }

    private static func hexValue(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): unit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): unit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func parseError(_ string: String) -> ValueError {
        let prefix = "Invalid ObjectId string \(ValueError.quoted(string)): expected 24 hexadecimal characters"
        let firstInvalid = string.enumerated().first { !($0.element.isASCII && $0.element.isHexDigit) }
        if let (offset, character) = firstInvalid {
            return ValueError(
                code: .invalidObjectIdString,
                message: "\(prefix), found '\(character)' at offset \(offset)",
                text: string,
                position: offset
            )
        }
        return ValueError(
            code: .invalidObjectIdString,
            message: "\(prefix), got \(string.count)",
            text: string
        )
    }
}

extension ObjectId: Codable {
    /// Decodes the 24-character hexadecimal string form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string: string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    /// Encodes the id as its 24-character hexadecimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
