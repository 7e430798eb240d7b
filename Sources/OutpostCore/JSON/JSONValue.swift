import Foundation

/// A small JSON model with exact integer/double/bool distinction, and a fast writer and reader.
package enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A short description of the value's kind for error messages ("a string", "an array", …).
    package var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Compact JSON text, object keys sorted.
    package var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    package func write(to out: inout String) {
        var bytes: [UInt8] = []
        write(to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the compact UTF-8 text (bytes, not `String` appends, which dominated the server's ingest time).
    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .int(let v): JSONValue.writeInt(v, to: &out)
        case .double(let v):
            if v.isFinite {
                if v == v.rounded(), abs(v) < 1e15 {
                    if v == 0 && v.sign == .minus { out.append(0x2D) }  // -0.0 keeps its sign
                    JSONValue.writeInt(Int64(v), to: &out)
                    out.append(contentsOf: ".0".utf8)
                } else {
                    out.append(contentsOf: "\(v)".utf8)
                }
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let v): JSONValue.writeString(v, to: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                item.write(to: &out)
            }
            out.append(0x5D)
        case .object(let fields):
            out.append(0x7B)
            for (i, key) in fields.keys.sorted().enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONValue.writeString(key, to: &out)
                out.append(0x3A)
                fields[key]!.write(to: &out)
            }
            out.append(0x7D)
        }
    }

    /// Decimal digits of an integer.
    package static func writeInt(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(0x2D) }
        var n = v.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(truncatingIfNeeded: n % 10) + 0x30)
            n /= 10
        } while n > 0
        out[start...].reverse()
    }

    package static func writeString(_ s: String, to out: inout String) {
        var bytes: [UInt8] = []
        writeString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; the rest (UTF-8) as is.
    package static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { utf8 in
            // Runs without escapes are appended whole (most strings are one run); no array per escape.
            var runStart = 0
            for i in 0..<utf8.count {
                let byte = utf8[i]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                runStart = i + 1
                out.append(0x5C)
                switch byte {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x0A: out.append(0x6E)
                case 0x0D: out.append(0x72)
                case 0x09: out.append(0x74)
                default:
                    let hex: (UInt8) -> UInt8 = { $0 < 10 ? 0x30 + $0 : 0x57 + $0 }  // 0-9, a-f
                    out.append(0x75)
                    out.append(0x30)
                    out.append(0x30)
                    out.append(hex(byte >> 4))
                    out.append(hex(byte & 0xF))
                }
            }
            if runStart < utf8.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        out.append(0x22)
    }

    /// Parses JSON text; nil when it is not valid JSON.
    package static func parse(_ text: String) -> JSONValue? {
        var parser = JSONReader(bytes: Array(text.utf8))
        guard let value = parser.parseValue() else { return nil }
        parser.skipSpace()
        return parser.index == parser.bytes.count ? value : nil
    }
}

/// A small recursive-descent JSON reader that keeps integers and doubles apart.
package struct JSONReader {
    package let bytes: [UInt8]
    package var index = 0

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The deepest nesting of arrays and objects the parser reads (MongoDB's limit for documents is 100); deeper
    /// text is not valid JSON to it, so that no input can exhaust a thread's stack.
    package static let maxNesting = 200

    package mutating func parseValue(depth: Int = 0) -> JSONValue? {
        skipSpace()
        guard index < bytes.count, depth < Self.maxNesting else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "\""): return parseString().map { .string($0) }
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                guard let item = parseValue(depth: depth + 1) else { return nil }
                items.append(item)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                return nil
            }
        case UInt8(ascii: "{"):
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object([:]) }
            // Entries are gathered first so the dictionary is made once at its final size (no regrowth); a
            // repeated key keeps its last value.
            var entries: [(String, JSONValue)] = []
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = parseString() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = parseValue(depth: depth + 1) else { return nil }
                entries.append((key, value))
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(Dictionary(entries, uniquingKeysWith: { _, last in last }))
                }
                return nil
            }
        default: return parseNumber()
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { return nil }
        index += w.count
        return value
    }

    mutating func parseNumber() -> JSONValue? {
        let start = index
        // Fast path: an integer of up to 18 digits is accumulated directly (no text, no overflow possible).
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        var magnitude: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 18 {
            magnitude = magnitude * 10 + Int64(bytes[index] - 0x30)
            digits += 1
            index += 1
        }
        if digits > 0, index == bytes.count || !Self.continuesNumber(bytes[index]) {
            return .int(negative ? -magnitude : magnitude)
        }
        index = start
        var isDouble = false
        while index < bytes.count {
            let c = bytes[index]
            if (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") {
                index += 1
            } else if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                isDouble = true
                index += 1
            } else {
                break
            }
        }
        guard index > start else { return nil }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if !isDouble, let v = Int64(text) { return .int(v) }
        return Double(text).map { .double($0) }
    }

    private static func continuesNumber(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
            || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
    }

    /// A string literal; text without escapes is decoded in one piece, text with escapes is gathered as UTF-8
    /// bytes first (appending each escape to a `String` was a large part of the server's event upload parsing).
    mutating func parseString() -> String? {
        index += 1
        let start = index
        // Scanned and decoded through one buffer pointer: an array slice per string cost a retain and a release.
        let end: Int? = bytes.withUnsafeBufferPointer { buffer in
            var i = start
            while i < buffer.count {
                let c = buffer[i]
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return i }
                i += 1
            }
            return nil
        }
        guard let end else {
            index = bytes.count
            return nil
        }
        index = end
        if bytes[end] == UInt8(ascii: "\\") { return parseEscapedString(from: start) }
        index += 1
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    /// The rest of a string literal that holds escapes, from its first byte at `start`; `index` is at the first
    /// backslash. Runs without escapes are copied whole.
    private mutating func parseEscapedString(from start: Int) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(index - start + 64)
        var i = index
        let text: String? = bytes.withUnsafeBufferPointer { buffer in
            var run = start
            while i < buffer.count {
                let c = buffer[i]
                guard c == UInt8(ascii: "\\") || c == UInt8(ascii: "\"") else {
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[run..<i]))
                i += 1
                if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                guard i < buffer.count else { return nil }
                let e = buffer[i]
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "u"):
                    guard i + 4 <= buffer.count,
                        var code = UInt32(String(decoding: UnsafeBufferPointer(rebasing: buffer[i..<i + 4]), as: UTF8.self), radix: 16)
                    else { return nil }
                    i += 4
                    if code >= 0xD800, code < 0xDC00, i + 6 <= buffer.count, buffer[i] == UInt8(ascii: "\\"),
                        let low = UInt32(String(decoding: UnsafeBufferPointer(rebasing: buffer[i + 2..<i + 6]), as: UTF8.self), radix: 16)
                    {
                        i += 6
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out.append(contentsOf: String(Unicode.Scalar(code) ?? "?").utf8)
                default: out.append(contentsOf: String(Unicode.Scalar(e)).utf8)
                }
                run = i
            }
            return nil
        }
        index = i
        return text
    }
}
