/// The format specifiers of Realm's predicate format strings (`NSPredicate`'s): `%@` and the number specifiers take
/// an argument as a value; `%K` takes one as a key path, spliced into the text before parsing.
public enum QueryFormat {
    /// The length of the value specifier at `index` (`%@`, `%d`, `%i`, `%u`, `%f`, `%g`, `%e` with an optional `h`,
    /// `hh`, `l`, `ll`, `q` or `z` size), or nil when there is none.
    static func argumentSpecifierLength(_ chars: [Character], at index: Int) -> Int? {
        guard index < chars.count, chars[index] == "%", index + 1 < chars.count else { return nil }
        if chars[index + 1] == "@" { return 2 }
        var end = index + 1
        for size in [["h", "h"], ["l", "l"], ["h"], ["l"], ["q"], ["z"]] where end + size.count < chars.count {
            if Array(chars[end..<(end + size.count)]) == size.map(Character.init) {
                end += size.count
                break
            }
        }
        guard end < chars.count, "diufge".contains(chars[end]) else { return nil }
        // A specifier runs into no identifier (`%dx` is not one).
        if end + 1 < chars.count, chars[end + 1].isQueryIdentifierPart { return nil }
        return end + 1 - index
    }

    /// `format` with each `%K` replaced by its argument, a key path given as a `String`, and the arguments left for
    /// the value specifiers. Text inside quotes is left alone.
    ///
    /// - Throws: `QueryError` (`.unknownArgument`) when a `%K` has no argument, (`.invalidArgument`) when its
    ///   argument is not a key path.
    public static func substitutingKeyPaths(_ format: String, _ arguments: [Any]) throws(QueryError) -> (String, [Any]) {
        guard format.contains("%K") else { return (format, arguments) }
        let chars = Array(format)
        var out = ""
        var kept: [Any] = []
        var next = 0
        var quote: Character?
        var index = 0
        while index < chars.count {
            let c = chars[index]
            if let open = quote {
                out.append(c)
                if c == "\\", index + 1 < chars.count {
                    out.append(chars[index + 1])
                    index += 2
                    continue
                }
                if c == open { quote = nil }
                index += 1
                continue
            }
            if c == "'" || c == "\"" {
                quote = c
                out.append(c)
                index += 1
                continue
            }
            if c == "%", index + 1 < chars.count, chars[index + 1] == "K" {
                guard next < arguments.count else {
                    throw QueryError(.unknownArgument, "%K at position \(index) has no argument", query: format, position: index, token: "%K")
                }
                guard let keyPath = arguments[next] as? String, isKeyPath(keyPath) else {
                    throw QueryError(.invalidArgument, "the argument of %K at position \(index) is not a key path: \(arguments[next])",
                                     query: format, position: index, token: "%K")
                }
                out += keyPath
                next += 1
                index += 2
                continue
            }
            if let length = argumentSpecifierLength(chars, at: index) {
                if next < arguments.count { kept.append(arguments[next]) }
                next += 1
                out += String(chars[index..<(index + length)])
                index += length
                continue
            }
            out.append(c)
            index += 1
        }
        kept += arguments.dropFirst(next)
        return (out, kept)
    }

    /// A key path `%K` may splice in: names (with `@`, `#` and `$` for Realm's operators and `#any`), dots and
    /// subscripts of names; nothing that ends the key path or starts another token.
    private static func isKeyPath(_ text: String) -> Bool {
        guard let first = text.first, first != "." else { return false }
        return text.allSatisfy { $0.isQueryIdentifierPart || $0 == "." || $0 == "@" || $0 == "#" || $0 == "$" }
    }
}
