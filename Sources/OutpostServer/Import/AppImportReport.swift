/// What an import of an App Services app carried over to the Outpost app file, and what it did not, with why. Nothing
/// of the export is left out without a line here.
public struct AppImportReport: Sendable, Hashable, CustomStringConvertible {
    /// One setting and what became of it.
    public struct Entry: Sendable, Hashable {
        /// Where the setting is in the export (`auth/providers.json: oauth2-google`).
        public var setting: String
        /// What it became (carried) or why it was left out (not carried).
        public var note: String
    }

    public private(set) var carried: [Entry] = []
    public private(set) var notCarried: [Entry] = []

    mutating func carry(_ setting: String, _ note: String) {
        carried.append(Entry(setting: setting, note: note))
    }

    mutating func leaveOut(_ setting: String, _ why: String) {
        notCarried.append(Entry(setting: setting, note: why))
    }

    /// The report as printed by `outpost-server import-app`: carried settings, then the others with their reasons.
    public var description: String {
        var lines = ["Carried over (\(carried.count)):"]
        lines += carried.map { "  ✓ \($0.setting) → \($0.note)" }
        lines.append("Not carried over (\(notCarried.count)):")
        lines += notCarried.isEmpty ? ["  (nothing)"] : notCarried.map { "  ✗ \($0.setting): \($0.note)" }
        return lines.joined(separator: "\n")
    }
}
