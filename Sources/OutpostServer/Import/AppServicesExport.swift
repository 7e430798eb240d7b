import Foundation
import OutpostCore

/// An Atlas App Services app as `appservices pull` / `realm-cli pull` / `realm-cli export` wrote it: its JSON files,
/// read once, by path relative to the folder. Knows the four layouts in the wild (docs/import.md):
/// `root_config.json` (App Services CLI), `realm_config.json` (realm-cli v2, 20210101), `config.json` (realm-cli v1,
/// 20200603) and `stitch.json` (Stitch, 20180301).
package struct AppServicesExport: Sendable {
    package enum Layout: String, Sendable {
        /// `root_config.json`: the App Services CLI and the UI's export.
        case current
        /// `realm_config.json`, config version 20210101.
        case realmCLIv2
        /// `config.json` (20200603) or `stitch.json` (20180301): services/, auth_providers/, inline rule schemas.
        case legacy
    }

    package let folder: URL
    package let layout: Layout
    /// The root configuration file's name and contents.
    package let rootFile: String
    package private(set) var root: [String: JSONValue]
    /// Files that needed repair to parse (trailing commas), for the report.
    package private(set) var repairedFiles: [String] = []

    /// Reads the export's root configuration; other files are read on demand with ``object(_:)`` and friends.
    package init(folder: URL) throws(AppImportError) {
        self.folder = folder
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw AppImportError(file: folder.path, "is not a folder (expected an App Services export)")
        }
        let candidates: [(String, Layout)] = [
            ("root_config.json", .current), ("realm_config.json", .realmCLIv2), ("config.json", .legacy),
            ("stitch.json", .legacy),
        ]
        guard let (file, layout) = candidates.first(where: { Self.exists(folder, $0.0) }) else {
            throw AppImportError(file: folder.path,
                "holds no App Services export: none of root_config.json, realm_config.json, config.json or stitch.json "
                    + "is there")
        }
        self.layout = layout
        self.rootFile = file
        self.root = [:]
        self.root = try object(file) ?? [:]
    }

    private static func exists(_ folder: URL, _ path: String) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path)
    }

    /// Whether the export has this file or folder.
    package func has(_ path: String) -> Bool { Self.exists(folder, path) }

    /// The names in a folder of the export, sorted; empty when there is no such folder.
    package func list(_ path: String) -> [String] {
        let url = folder.appendingPathComponent(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return []
        }
        return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Whether `path` is a folder of the export.
    package func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// A JSON file's value; nil when the file is absent. A file that cannot be read or parsed throws, naming it and
    /// the line and column where the JSON goes wrong.
    package mutating func json(_ path: String) throws(AppImportError) -> JSONValue? {
        let url = folder.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AppImportError(file: path, "cannot be read: \(error.localizedDescription)")
        }
        let bytes = Array(data)
        if let value = Self.parse(bytes) { return value }
        // Hand-edited exports carry trailing commas (`{"a": 1,}`), which App Services accepted.
        let repaired = Self.withoutTrailingCommas(bytes)
        if repaired != bytes, let value = Self.parse(repaired) {
            repairedFiles.append(path)
            return value
        }
        throw AppImportError(file: path, "is not valid JSON (\(Self.errorPosition(bytes)))")
    }

    /// A text file (a function's source), or nil when absent.
    package func text(_ path: String) throws(AppImportError) -> String? {
        let url = folder.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return String(decoding: try Data(contentsOf: url), as: UTF8.self)
        } catch {
            throw AppImportError(file: path, "cannot be read: \(error.localizedDescription)")
        }
    }

    /// A JSON file that must hold an object, or nil when absent.
    package mutating func object(_ path: String) throws(AppImportError) -> [String: JSONValue]? {
        guard let value = try json(path) else { return nil }
        guard case .object(let object) = value else {
            throw AppImportError(file: path, "must hold a JSON object, not \(value.kindDescription)")
        }
        return object
    }

    private static func parse(_ bytes: [UInt8]) -> JSONValue? {
        var reader = JSONReader(bytes: bytes)
        guard let value = reader.parseValue() else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? value : nil
    }

    /// Where parsing stops, as `line L, column C`.
    private static func errorPosition(_ bytes: [UInt8]) -> String {
        var reader = JSONReader(bytes: bytes)
        if reader.parseValue() != nil { reader.skipSpace() }
        let offset = min(reader.index, bytes.count)
        let before = bytes[..<offset]
        let line = before.filter { $0 == 0x0A }.count + 1
        let column = offset - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return offset >= bytes.count ? "it ends early, at line \(line)" : "at line \(line), column \(column)"
    }

    /// The text with each comma that directly precedes (whitespace aside) a `}` or `]` removed, outside strings.
    static func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        var pendingComma: Int?
        for byte in bytes {
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22:
                pendingComma = nil
                inString = true
                out.append(byte)
            case 0x2C:
                pendingComma = out.count
                out.append(byte)
            case 0x7D, 0x5D:
                if let comma = pendingComma { out.remove(at: comma) }
                pendingComma = nil
                out.append(byte)
            case 0x20, 0x09, 0x0A, 0x0D:
                out.append(byte)
            default:
                pendingComma = nil
                out.append(byte)
            }
        }
        return out
    }
}

/// An App Services export that cannot be imported: the file (relative to the export) and what is wrong with it.
public struct AppImportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var message: String

    package init(file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}
