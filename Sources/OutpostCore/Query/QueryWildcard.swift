/// Realm's `LIKE` matching: `*` matches any run of characters (also none), `?` exactly one; the
/// whole string must match.
enum QueryWildcard {
    static func matches(_ text: [Character], pattern: [Character]) -> Bool {
        var t = 0
        var p = 0
        var starPattern: Int?
        var starText = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == "*" {
                starPattern = p
                starText = t
                p += 1
            } else if let star = starPattern {
                p = star + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
