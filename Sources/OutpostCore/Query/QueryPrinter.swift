/// Writes canonical query text for a predicate. (Placeholder: being completed.)
public enum QueryPrinter {
    public static func print(_ predicate: QueryPredicate) -> String { "\(predicate.node)" }
    public static func print(_ query: ParsedQuery) -> String { print(query.predicate) }
    /// Escapes a string for use inside double quotes.
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
