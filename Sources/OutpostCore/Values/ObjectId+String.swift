extension ObjectId: CustomStringConvertible, ExpressibleByStringLiteral {
    /// Parses 24 hexadecimal characters (either case), as Realm's `ObjectId(string:)`.
    ///
    /// - Throws: ``ValueError`` with code ``ValueError/Code/invalidObjectIdString`` whose message
    ///   names the text and what was wrong with it.
    public init(string: String) throws {
        var valid = string.utf8.count == 24
        if valid {
            // Parsed in place, two digits per byte, without an intermediate array (uploads parse one per object).
            self.init { raw in
                var i = 0, high: UInt8 = 0
                for unit in string.utf8 {
                    guard let nibble = Self.hexValue(unit) else { valid = false; return }
                    if i & 1 == 0 { high = nibble } else { raw[i >> 1] = high << 4 | nibble }
                    i += 1
                }
            }
            if valid { return }
        }
        throw Self.parseError(string)
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
        withUnsafeBytes { raw in
            String(unsafeUninitializedCapacity: 24) { buffer in
                Self.writeHex(raw, to: UnsafeMutableRawBufferPointer(buffer))
                return 24
            }
        }
    }

    /// Appends the 24 lowercase hexadecimal digits of ``stringValue`` as UTF-8 bytes.
    package func appendHex(to out: inout [UInt8]) {
        withUnsafeBytes { Self.appendHex(ofRaw: $0, to: &out) }
    }

    /// Writes the 24 lowercase hexadecimal digits of ``stringValue`` at the start of `buffer` (24 bytes or more).
    package func writeHex(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= 24)
        withUnsafeBytes { Self.writeHex($0, to: buffer) }
    }

    /// Appends the lowercase hex of stored ObjectId bytes (12 of them) without making an `ObjectId`.
    package static func appendHex(of bytes: [UInt8], to out: inout [UInt8]) {
        bytes.withUnsafeBytes { appendHex(ofRaw: $0, to: &out) }
    }

    /// Appends two lowercase hexadecimal digits per byte, growing `out` once.
    private static func appendHex(ofRaw raw: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let start = out.count, count = raw.count * 2
        out.append(contentsOf: repeatElement(0, count: count))
        out.withUnsafeMutableBytes { buffer in
            writeHex(raw, to: UnsafeMutableRawBufferPointer(rebasing: buffer[start..<(start + count)]))
        }
    }

    /// Writes two lowercase hexadecimal digits per byte of `raw` into `buffer` (at least twice as long), computing
    /// each digit instead of reading it from a table.
    @inline(__always)
    private static func writeHex(_ raw: UnsafeRawBufferPointer, to buffer: UnsafeMutableRawBufferPointer) {
        @inline(__always) func digit(_ nibble: UInt8) -> UInt8 { nibble &+ (nibble < 10 ? 0x30 : 0x57) }
        for i in 0..<raw.count {
            let byte = raw[i]
            buffer[2 &* i] = digit(byte >> 4)
            buffer[2 &* i &+ 1] = digit(byte & 0xF)
        }
    }

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
