import Foundation

/// Splits query text into tokens. Positions are 0-based `Character` offsets.
///
/// Typed literals are lexed whole and checked here: `oid(…)`, `uuid(…)`, `decimal128(…)`,
/// `B64"…"`, `T<sec>:<nanos>`, `YYYY-MM-DD@HH:MM:SS[:nanos]`, `inf`/`infinity`/`nan` (signed).
struct QueryLexer {
    let query: String
    let chars: [Character]
    var index = 0
    var tokens: [QueryToken] = []

    private init(_ query: String) {
        self.query = query
        self.chars = Array(query)
    }

    static func tokenize(_ query: String) throws(QueryError) -> [QueryToken] {
        var lexer = QueryLexer(query)
        while true {
            lexer.skipWhitespace()
            guard lexer.index < lexer.chars.count else {
                lexer.tokens.append(QueryToken(.end, position: lexer.chars.count, text: ""))
                return lexer.tokens
            }
            lexer.tokens.append(try lexer.next())
        }
    }

    // MARK: - Dispatch

    private mutating func next() throws(QueryError) -> QueryToken {
        let start = index
        let c = chars[index]
        switch c {
        case "\"", "'":
            return try string(quote: c)
        case "(", ")", "{", "}", "[", "]", ",":
            index += 1
            return token(.symbol(String(c)), from: start)
        case "*" where tokens.last?.kind == .symbol("["):
            // `[*]`: every element of a nested mixed collection.
            index += 1
            return token(.symbol("*"), from: start)
        case ".":
            if peek(1)?.isQueryDigit == true && !previousEndsKeyPath { return try number() }
            index += 1
            return token(.symbol("."), from: start)
        case "@":
            return try collectionOperator()
        case "%":
            // `%@`, and the number specifiers Realm's predicate formats accept (`%d`, `%ld`, `%f`, …): each takes the
            // next argument, as it is (`%K` is replaced before parsing, by ``QueryFormat``).
            guard let length = QueryFormat.argumentSpecifierLength(chars, at: index) else {
                throw error(.syntax, "unexpected character", from: start, length: 1)
            }
            index += length
            return token(.positionalArgument, from: start)
        case "$" where peek(1)?.isQueryDigit == true:
            return try argument()
        case "-", "+":
            if let special = signedSpecialNumber() { return special }
            if peek(1)?.isQueryDigit == true || (peek(1) == "." && peek(2)?.isQueryDigit == true) {
                return try number()
            }
            throw error(.syntax, "unexpected character", from: start, length: 1)
        case _ where c.isQueryDigit:
            if let date = try dateLiteral() { return date }
            return try number()
        case "=", "<", ">", "!", "&", "|":
            return try comparisonOrLogicalOperator()
        case _ where c.isQueryIdentifierStart:
            if c == "T", let timestamp = try timestampLiteral() { return timestamp }
            return try word()
        default:
            throw error(.syntax, "unexpected character", from: start, length: 1)
        }
    }

    // MARK: - Helpers

    func peek(_ offset: Int) -> Character? {
        index + offset < chars.count ? chars[index + offset] : nil
    }

    func text(from start: Int) -> String { String(chars[start..<index]) }

    func token(_ kind: QueryToken.Kind, from start: Int) -> QueryToken {
        QueryToken(kind, position: start, text: text(from: start))
    }

    func error(_ kind: QueryError.Kind, _ message: String, from start: Int, length: Int) -> QueryError {
        let end = min(chars.count, start + max(length, 0))
        return QueryError(kind, message, query: query, position: start, token: String(chars[start..<end]))
    }

    private mutating func skipWhitespace() {
        while index < chars.count, chars[index].isWhitespace { index += 1 }
    }

    /// True when a `.` here continues a key path (`items.5` is never a number).
    private var previousEndsKeyPath: Bool {
        switch tokens.last?.kind {
        case .identifier, .collectionOperator: true
        case .symbol(let s): s == "]"
        default: false
        }
    }

    mutating func scanDigits() -> Int {
        let start = index
        while index < chars.count, chars[index].isQueryDigit { index += 1 }
        return index - start
    }

    mutating func scanWord() {
        while index < chars.count, chars[index].isQueryIdentifierPart { index += 1 }
    }

    // MARK: - Operators

    private mutating func comparisonOrLogicalOperator() throws(QueryError) -> QueryToken {
        let start = index
        let spellings: [(String, String)] = [
            ("==", "=="), ("=<", "<="), ("=>", ">="), ("<=", "<="), (">=", ">="), ("<>", "!="), ("!=", "!="),
            ("&&", "&&"), ("||", "||"), ("=", "=="), ("<", "<"), (">", ">"), ("!", "!"),
        ]
        for (spelling, normalised) in spellings where matches(spelling) {
            index += spelling.count
            let isComparison = normalised != "&&" && normalised != "||" && normalised != "!"
            if isComparison, let following = peek(0), "=<>".contains(following) {
                while let more = peek(0), "=<>!".contains(more) { index += 1 }
                throw error(.syntax, "unknown operator", from: start, length: index - start)
            }
            return token(.symbol(normalised), from: start)
        }
        throw error(.syntax, "unknown operator", from: start, length: 1)
    }

    func matches(_ literal: String) -> Bool {
        var offset = 0
        for c in literal {
            guard peek(offset) == c else { return false }
            offset += 1
        }
        return true
    }

    private mutating func collectionOperator() throws(QueryError) -> QueryToken {
        let start = index
        index += 1
        scanWord()
        let name = text(from: start)
        let known = ["@count", "@size", "@sum", "@avg", "@min", "@max", "@keys", "@values"]
        guard known.contains(name) else {
            throw error(.syntax, "unknown collection operator", from: start, length: index - start)
        }
        return token(.collectionOperator(name), from: start)
    }

    private mutating func argument() throws(QueryError) -> QueryToken {
        let start = index
        index += 1
        _ = scanDigits()
        guard let number = Int(String(chars[(start + 1)..<index])) else {
            throw error(.invalidLiteral, "argument index out of range", from: start, length: index - start)
        }
        return token(.argument(number), from: start)
    }
}

extension Character {
    var isQueryDigit: Bool { isASCII && isNumber }
    var isQueryIdentifierStart: Bool { isLetter || self == "_" || self == "$" }
    var isQueryIdentifierPart: Bool { isLetter || isNumber || self == "_" || self == "$" }
}
