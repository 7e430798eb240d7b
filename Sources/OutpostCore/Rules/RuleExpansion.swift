/// A parsed `%%` expansion: a value the server fills in when it evaluates a rule.
///
/// | Text | Value |
/// |---|---|
/// | `%%true`, `%%false` | the boolean |
/// | `%%user` | `{"id": …, "data": {…}, "custom_data": {…}}` |
/// | `%%user.id` | the user's id as a string |
/// | `%%user.data[.<path>]` | the user's profile data (or a field of it) |
/// | `%%user.custom_data[.<path>]` | the user's custom data (or a field of it) |
/// | `%%partition` | the Partition-Based Sync partition value |
/// | `%%values.<path>`, `%%environment.<path>` | app values and the environment |
/// | `%%root[.<path>]`, `%%prevRoot[.<path>]` | the document (and its previous version); not Sync-compatible |
enum RuleExpansion: Hashable, Sendable {
    case constant(Bool)
    case user
    case userId
    case userData([String])
    case customData([String])
    case partition
    case values([String])
    case environment([String])
    case root([String])
    case prevRoot([String])

    /// The expansion's text as written in the rule.
    var text: String {
        func dotted(_ base: String, _ path: [String]) -> String {
            path.isEmpty ? base : base + "." + path.joined(separator: ".")
        }
        switch self {
        case .constant(let value): return value ? "%%true" : "%%false"
        case .user: return "%%user"
        case .userId: return "%%user.id"
        case .userData(let path): return dotted("%%user.data", path)
        case .customData(let path): return dotted("%%user.custom_data", path)
        case .partition: return "%%partition"
        case .values(let path): return dotted("%%values", path)
        case .environment(let path): return dotted("%%environment", path)
        case .root(let path): return dotted("%%root", path)
        case .prevRoot(let path): return dotted("%%prevRoot", path)
        }
    }

    /// False for `%%root` and `%%prevRoot`, which depend on a particular document.
    var isSyncCompatible: Bool {
        switch self {
        case .root, .prevRoot: false
        default: true
        }
    }

    /// Parses the text of an expansion (it starts with `%%`).
    ///
    /// - Throws: ``RuleError/Code/unknownExpansion`` for an expansion Outpost does not know,
    ///   ``RuleError/Code/unsupported`` for `%%request`.
    static func parse(_ text: String, path: String) throws(RuleError) -> RuleExpansion {
        guard let expansion = parse(text) else {
            let name = text.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? text
            if name == "%%request" {
                throw RuleError(code: .unsupported, path: path, problem: "expansion \(RuleError.quoted(text)) is not "
                    + "supported: rules cannot read the request")
            }
            throw RuleError(code: .unknownExpansion, path: path, problem: "unknown expansion \(RuleError.quoted(text))")
        }
        return expansion
    }

    /// Parses the text of an expansion; nil when it is not one Outpost knows.
    static func parse(_ text: String) -> RuleExpansion? {
        guard text.hasPrefix("%%") else { return nil }
        let parts = text.dropFirst(2).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else { return nil }
        let rest = Array(parts.dropFirst())
        switch parts[0] {
        case "true" where rest.isEmpty: return .constant(true)
        case "false" where rest.isEmpty: return .constant(false)
        case "partition" where rest.isEmpty: return .partition
        case "root": return .root(rest)
        case "prevRoot": return .prevRoot(rest)
        case "values" where !rest.isEmpty: return .values(rest)
        case "environment" where !rest.isEmpty: return .environment(rest)
        case "user":
            guard let field = rest.first else { return .user }
            let subpath = Array(rest.dropFirst())
            switch field {
            case "id" where subpath.isEmpty: return .userId
            case "data": return .userData(subpath)
            case "custom_data": return .customData(subpath)
            default: return nil
            }
        default: return nil
        }
    }
}
