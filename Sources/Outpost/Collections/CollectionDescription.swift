import Foundation
import OutpostCore

/// Realm's `description` of objects and collections: a collection prints its first 100 elements, each on a line of
/// its own (`\t[0] …`), an object its properties (`\tname = value;`), nested objects and collections indented a tab
/// further, at most 5 levels deep.
enum CollectionDescription {
    static let maxElements = 100
    static let maxDepth = 5

    /// `List<Dog> <0x…> (\n\t[0] Dog {…},\n…\n)`.
    static func describe(
        _ name: String, typeName: String, address: AnyObject?, count: Int, elements: some Sequence<Any>, depth: Int
    ) -> String {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        var lines: [String] = []
        for (index, element) in elements.enumerated() {
            guard index < maxElements else { break }
            lines.append("\t[\(index)] " + indented(describe(element, depth: depth - 1)))
        }
        return header(name, typeName, address) + body(lines, skipped: max(0, count - maxElements))
    }

    /// `Map<string, Dog> <0x…> (\n[key]: Dog {…},\n…\n)`.
    static func describeMap(
        _ name: String, keyTypeName: String, typeName: String, address: AnyObject?, count: Int,
        entries: some Sequence<(String, Any)>, depth: Int
    ) -> String {
        guard depth > 0 else { return "<Maximum depth exceeded>" }
        var lines: [String] = []
        for (index, (key, value)) in entries.enumerated() {
            guard index < maxElements else { break }
            lines.append(indented("[\(key)]: " + describe(value, depth: depth - 1)))
        }
        return header(name, "\(keyTypeName), \(typeName)", address) + body(lines, skipped: max(0, count - maxElements))
    }

    /// One value as Realm prints it inside an object or a collection.
    static func describe(_ value: Any?, depth: Int) -> String {
        guard let value, !(value is NSNull) else { return "(null)" }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {  // an optional element, as `Any`
            return mirror.children.first.map { describe($0.value, depth: depth) } ?? "(null)"
        }
        switch value {
        case let object as ObjectBase: return object._description(depth: depth)
        case let collection as _DescribedCollection: return collection._description(depth: depth)
        case let flag as Bool: return flag ? "1" : "0"
        case let data as Data: return describe(data)
        case let date as Date: return dateFormatter.string(from: date)
        case let mixed as AnyRealmValue: return describe(mixed, depth: depth)
        default: return "\(value)"
        }
    }

    /// The name Realm gives an element type: the class of objects, else the value type's (`int`, `string`, …).
    static func typeName<E: _StorableValue>(_ type: E.Type) -> String {
        let info = E._typeInfo
        if let objectType = info.objectType { return objectType.className() }
        return typeName(info.type)
    }

    static func typeName(_ type: PropertyType) -> String {
        switch type {
        case .objectId: "object id"
        case .linkingObjects: "linking objects"
        default: type.rawValue
        }
    }

    private static func describe(_ value: AnyRealmValue, depth: Int) -> String {
        switch value {
        case .none: "(null)"
        case .int(let v): "\(v)"
        case .bool(let v): v ? "1" : "0"
        case .float(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): v
        case .data(let v): describe(v)
        case .date(let v): dateFormatter.string(from: v)
        case .object(let v): v._description(depth: depth)
        case .objectId(let v): v.stringValue
        case .decimal128(let v): v.stringValue
        case .uuid(let v): v.uuidString
        case .list(let items): "[" + items.map { describe($0, depth: depth) }.joined(separator: ", ") + "]"
        case .dictionary(let map):
            "{" + map.entries.map { "\($0.key): \(describe($0.value, depth: depth))" }.joined(separator: ", ") + "}"
        }
    }

    /// The first 24 bytes in hex, four to a group, and the length: `<01020304 05 — 5 total bytes>`.
    private static func describe(_ data: Data) -> String {
        let shown = data.prefix(24)
        var groups: [String] = []
        var group = ""
        for (index, byte) in shown.enumerated() {
            group += String(byte, radix: 16).leftPadded(to: 2)
            if index % 4 == 3 {
                groups.append(group)
                group = ""
            }
        }
        if !group.isEmpty { groups.append(group) }
        return "<\(groups.joined(separator: " ")) — \(data.count) total bytes>"
    }

    private static func header(_ name: String, _ typeName: String, _ address: AnyObject?) -> String {
        let pointer = address.map { UInt(bitPattern: ObjectIdentifier($0).hashValue) } ?? 0
        return "\(name)<\(typeName)> <0x\(String(pointer, radix: 16))> (\n"
    }

    private static func body(_ lines: [String], skipped: Int) -> String {
        lines.joined(separator: ",\n") + (skipped > 0 ? "\n\t... \(skipped) objects skipped." : "") + "\n)"
    }

    private static func indented(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\n\t")
    }

    nonisolated(unsafe) private static let dateFormatter: DateFormatter = {  // formatting only, which is thread-safe
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss ZZZ"
        return formatter
    }()
}

/// A collection that prints itself as Realm does, to a given depth.
protocol _DescribedCollection {
    func _description(depth: Int) -> String
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension List: _DescribedCollection {}
extension MutableSet: _DescribedCollection {}
extension Map: _DescribedCollection {}
extension LinkingObjects: _DescribedCollection {}
extension Results: _DescribedCollection {}
