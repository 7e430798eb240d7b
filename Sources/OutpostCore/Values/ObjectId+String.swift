extension ObjectId: CustomStringConvertible, ExpressibleByStringLiteral {
    /// Parses 24 hexadecimal characters (either case), as Realm's `ObjectId(string:)`.
    ///
    /// - Throws: ``ValueError`` with code ``ValueError/Code/invalidObjectIdString`` whose message
    ///   names the text and what was wrong with it.
    public init(string: String) throws {
        // Parsed in place from the string's UTF-8, two digits per byte (uploads and downloads parse one or two per
        // object); a string without contiguous UTF-8 (bridged on Apple platforms) is copied first.
        let parsed = string.utf8.withContiguousStorageIfAvailable(Self.parseHex) ?? Self.parseHex(Array(string.utf8))
        guard let parsed else { throw Self.parseError(string) }
        self = parsed
    }

    /// The id of 24 hexadecimal digits (either case); nil for any other text.
    package static func parseHex(_ utf8: some RandomAccessCollection<UInt8>) -> ObjectId? {
        guard utf8.count == 24 else { return nil }
        var valid = true
        let id = ObjectId { raw in
            var i = utf8.startIndex
            for byte in 0..<12 {
                let high = hexValue(utf8[i]), low = hexValue(utf8[utf8.index(after: i)])
                valid = valid && high < 16 && low < 16
                raw[byte] = high &<< 4 | low & 0xF
                i = utf8.index(i, offsetBy: 2)
            }
        }
        return valid ? id : nil
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

    /// A hexadecimal digit's value (either case), or 16 or more for any other byte, without branching on ranges.
    @inline(__always)
    private static func hexValue(_ unit: UInt8) -> UInt8 {
        let digit = unit &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (unit | 0x20) &- UInt8(ascii: "a")  // 'A'…'F' folded onto 'a'…'f'
        return letter < 6 ? letter &+ 10 : 0xFF
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
