import Foundation

extension QueryLexer {
    // MARK: - Strings

    /// A string in single or double quotes with `\" \' \\ \/ \b \f \n \r \t \0 \uXXXX` escapes.
    mutating func string(quote: Character) throws(QueryError) -> QueryToken {
        let start = index
        index += 1
        var scalars = String.UnicodeScalarView()
        while index < chars.count {
            let c = chars[index]
            if c == quote {
                index += 1
                return token(.string(String(scalars)), from: start)
            }
            guard c == "\\" else {
                scalars.append(contentsOf: c.unicodeScalars)
                index += 1
                continue
            }
            guard let escaped = peek(1) else { break }
            switch escaped {
            case "\"", "'", "/", "\\": scalars.append(contentsOf: escaped.unicodeScalars)
            case "b": scalars.append("\u{8}")
            case "f": scalars.append("\u{C}")
            case "n": scalars.append("\n")
            case "r": scalars.append("\r")
            case "t": scalars.append("\t")
            case "0": scalars.append("\u{0}")
            case "u":
                scalars.append(try unicodeEscape())
                continue
            default:
                throw error(.syntax, "invalid escape sequence", from: index, length: 2)
            }
            index += 2
        }
        throw error(.syntax, "unterminated string", from: start, length: chars.count - start)
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`; advances past it.
    private mutating func unicodeEscape() throws(QueryError) -> Unicode.Scalar {
        let start = index
        guard let high = hex4(at: index + 2) else {
            throw error(.syntax, "invalid escape sequence", from: start, length: 6)
        }
        index += 6
        if (0xD800..<0xDC00).contains(high), peek(0) == "\\", peek(1) == "u", let low = hex4(at: index + 2),
           (0xDC00..<0xE000).contains(low) {
            index += 6
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(high) else {
            throw error(.syntax, "invalid escape sequence", from: start, length: 6)
        }
        return scalar
    }

    private func hex4(at offset: Int) -> UInt32? {
        guard offset + 4 <= chars.count else { return nil }
        return UInt32(String(chars[offset..<(offset + 4)]), radix: 16)
    }

    // MARK: - Numbers

    /// Integers (decimal or `0x` hex, optionally signed) and floats (`1.5`, `.5`, `1e3`, `-2.5e-3`, `1.5f`).
    mutating func number() throws(QueryError) -> QueryToken {
        let start = index
        let negative = chars[index] == "-"
        if chars[index] == "-" || chars[index] == "+" { index += 1 }
        if peek(0) == "0", peek(1) == "x" || peek(1) == "X" {
            index += 2
            let digitsStart = index
            while let c = peek(0), c.isHexDigit { index += 1 }
            try rejectTrailingIdentifier(start)
            guard let magnitude = UInt64(String(chars[digitsStart..<index]), radix: 16),
                  let value = negative ? (magnitude == 1 << 63 ? Int64.min : Int64(exactly: magnitude).map { -$0 })
                                       : Int64(exactly: magnitude)
            else { throw error(.invalidLiteral, "integer out of range", from: start, length: index - start) }
            return token(.integer(value), from: start)
        }
        var isFloat = false
        let integerDigits = scanDigits()
        let dotEndsNumber = integerDigits > 0 && !(peek(1)?.isQueryIdentifierStart ?? false) && peek(1) != "@"
        if peek(0) == ".", peek(1)?.isQueryDigit == true || dotEndsNumber {
            isFloat = true
            index += 1
            _ = scanDigits()
        }
        if let e = peek(0), e == "e" || e == "E",
           peek(1)?.isQueryDigit == true || ((peek(1) == "-" || peek(1) == "+") && peek(2)?.isQueryDigit == true) {
            isFloat = true
            index += 2
            _ = scanDigits()
        }
        let literalEnd = index
        if let f = peek(0), f == "f" || f == "F", !(peek(1)?.isQueryIdentifierPart ?? false) {
            isFloat = true
            index += 1
        }
        try rejectTrailingIdentifier(start)
        let literal = String(chars[start..<literalEnd])
        if isFloat {
            guard let value = Double(literal) else {
                throw error(.syntax, "invalid number", from: start, length: index - start)
            }
            return token(.double(value), from: start)
        }
        guard let value = Int64(literal) else {
            throw error(.invalidLiteral, "integer out of range", from: start, length: index - start)
        }
        return token(.integer(value), from: start)
    }

    private mutating func rejectTrailingIdentifier(_ start: Int) throws(QueryError) {
        guard let c = peek(0), c.isQueryIdentifierPart else { return }
        scanWord()
        throw error(.syntax, "invalid number", from: start, length: index - start)
    }

    /// `-inf`, `+infinity`, `-nan` (case-insensitive), or nil.
    mutating func signedSpecialNumber() -> QueryToken? {
        let start = index
        let negative = chars[index] == "-"
        var end = index + 1
        while end < chars.count, chars[end].isQueryIdentifierPart { end += 1 }
        let word = String(chars[(index + 1)..<end]).lowercased()
        let value: Double
        switch word {
        case "inf", "infinity": value = negative ? -.infinity : .infinity
        case "nan": value = .nan
        default: return nil
        }
        index = end
        return token(.double(value), from: start)
    }

    // MARK: - Words and typed literals

    /// An identifier or keyword, or a typed literal introduced by a word: `oid(…)`, `uuid(…)`,
    /// `decimal128(…)`, `B64"…"`, `inf`, `infinity`, `nan`.
    mutating func word() throws(QueryError) -> QueryToken {
        let start = index
        scanWord()
        let word = text(from: start)
        switch word.lowercased() {
        case "oid" where peek(0) == "(":
            let content = try parenthesisedContent(start)
            guard let id = try? ObjectId(string: content) else {
                throw error(.invalidLiteral, "invalid ObjectId", from: start, length: index - start)
            }
            return token(.literal(.objectId(id)), from: start)
        case "uuid" where peek(0) == "(":
            let content = try parenthesisedContent(start)
            guard content.count == 36, let uuid = UUID(uuidString: content) else {
                throw error(.invalidLiteral, "invalid UUID", from: start, length: index - start)
            }
            return token(.literal(.uuid(uuid)), from: start)
        case "decimal128" where peek(0) == "(":
            let content = try parenthesisedContent(start)
            guard let decimal = try? Decimal128(string: content) else {
                throw error(.invalidLiteral, "invalid decimal128", from: start, length: index - start)
            }
            return token(.literal(.decimal128(decimal)), from: start)
        case "b64" where word == "B64" && peek(0) == "\"":
            index += 1
            let contentStart = index
            while index < chars.count, chars[index] != "\"" { index += 1 }
            guard index < chars.count else {
                throw error(.syntax, "unterminated string", from: start, length: index - start)
            }
            let content = String(chars[contentStart..<index])
            index += 1
            guard let data = Data(base64Encoded: content) else {
                throw error(.invalidLiteral, "invalid base64", from: start, length: index - start)
            }
            return token(.literal(.data(data)), from: start)
        case "inf", "infinity":
            return token(.double(.infinity), from: start)
        case "nan":
            return token(.double(.nan), from: start)
        default:
            return token(.identifier(word), from: start)
        }
    }

    /// The trimmed text between `(` and `)` after a literal's word; advances past the `)`.
    private mutating func parenthesisedContent(_ start: Int) throws(QueryError) -> String {
        index += 1
        let contentStart = index
        while index < chars.count, chars[index] != ")" { index += 1 }
        guard index < chars.count else {
            throw error(.syntax, "unterminated literal", from: start, length: index - start)
        }
        let content = String(chars[contentStart..<index]).trimmingCharacters(in: .whitespaces)
        index += 1
        return content
    }

    // MARK: - Timestamps

    /// `T<seconds>:<nanoseconds>` (each optionally signed), or nil (then it is an identifier).
    mutating func timestampLiteral() throws(QueryError) -> QueryToken? {
        let start = index
        index += 1
        guard let seconds = signedDigits(), peek(0) == ":" else {
            index = start
            return nil
        }
        index += 1
        guard let nanoseconds = signedDigits(), !(peek(0)?.isQueryIdentifierPart ?? false) else {
            index = start
            return nil
        }
        guard let s = Int64(seconds), let n = Int64(nanoseconds), abs(n) < 1_000_000_000,
              !(s > 0 && n < 0), !(s < 0 && n > 0)
        else { throw error(.invalidLiteral, "invalid timestamp", from: start, length: index - start) }
        return token(.literal(.date(QueryTimestamp.date(seconds: s, nanoseconds: n))), from: start)
    }

    private mutating func signedDigits() -> String? {
        let start = index
        if peek(0) == "-" || peek(0) == "+" { index += 1 }
        guard scanDigits() > 0 else { return nil }
        return text(from: start)
    }

    /// `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (or `T` instead of `@`), UTC; nil if the text does not
    /// start like a date (`\d+-\d+-\d+`).
    mutating func dateLiteral() throws(QueryError) -> QueryToken? {
        let start = index
        let separators: [Character] = ["-", "-", "@", ":", ":", ":"]
        var fields: [Int64] = []
        while true {
            let digitsStart = index
            guard scanDigits() > 0, let field = Int64(String(chars[digitsStart..<index])) else { break }
            fields.append(field)
            guard fields.count <= separators.count else { break }
            let separator = separators[fields.count - 1]
            guard let next = peek(0), next == separator || (separator == "@" && next == "T"),
                  peek(1)?.isQueryDigit == true
            else { break }
            index += 1
        }
        guard fields.count >= 3 else {
            index = start
            return nil
        }
        guard fields.count >= 6, !(peek(0)?.isQueryIdentifierPart ?? false), let date = QueryTimestamp.date(
            year: fields[0], month: fields[1], day: fields[2], hour: fields[3], minute: fields[4], second: fields[5],
            nanoseconds: fields.count > 6 ? fields[6] : 0)
        else {
            while let c = peek(0), c.isQueryIdentifierPart || ":@-".contains(c) { index += 1 }
            throw error(.invalidLiteral, "invalid timestamp", from: start, length: index - start)
        }
        return token(.literal(.date(date)), from: start)
    }
}
