import Foundation
import OutpostCore

/// Reads the objects an event's `data` names straight from its bytes (``AuditExtractor``): the shapes of a read and a
/// write payload, each object's key field found by comparing key bytes, everything else skipped without being parsed
/// or copied (parsing each payload into a `JSONValue` tree, or making a `String` of every key, cost as much as the
/// rest of an event's ingest).
///
/// Lenient where it does not matter: text it cannot follow names no object; what it skips is not checked.
struct AuditDataReader: JSONTokenReader {
    var reader: JSONReader
    /// The key field of a class's objects.
    let keyField: (String) -> String

    init(_ data: String, keyField: @escaping (String) -> String) {
        reader = JSONReader(bytes: Array(data.utf8))
        self.keyField = keyField
    }

    /// The objects, each once, in the order ``AuditExtractor`` documents; empty for any other text.
    mutating func objects() -> [AuditObjectKey] {
        guard let top = members() else { return [] }
        let keyField = self.keyField
        var found: [AuditObjectKey] = []
        // Most events name one object or a few: a set only once there are more (a query read of thousands).
        var seen: Set<AuditObjectKey>?
        func add(_ className: String, _ key: String?) {
            guard let key else { return }
            let object = AuditObjectKey(className: className, primaryKey: key)
            if found.count < 16 {
                guard !found.contains(object) else { return }
            } else {
                if seen == nil { seen = Set(found) }
                guard seen!.insert(object).inserted else { return }
            }
            found.append(object)
        }
        if top.count == 2, let type = top.first(where: { $0.key == "type" }),
            let value = top.first(where: { $0.key == "value" })
        {
            reader.index = type.start
            if let className = reader.string() {
                let field = Array(keyField(className).utf8)
                reader.index = value.start
                _ = eachElement { reader in add(className, reader.objectKey(field)) }
                return found
            }
        }
        for (className, start) in top.sorted(by: { $0.key < $1.key }) {
            reader.index = start
            guard let sections = members() else { continue }
            let field = Array(keyField(className).utf8)
            for name in ["insertions", "deletions"] {
                guard let section = sections.first(where: { $0.key == name }) else { continue }
                reader.index = section.start
                _ = eachElement { reader in add(className, reader.objectKey(field)) }
            }
            guard let modifications = sections.first(where: { $0.key == "modifications" }) else { continue }
            reader.index = modifications.start
            _ = eachElement { reader in
                let start = reader.reader.index
                var key: String?
                for side in Self.sides where key == nil {
                    reader.reader.index = start
                    guard let value = reader.member(side) else { continue }
                    reader.reader.index = value
                    key = reader.objectKey(field)
                }
                add(className, key)
            }
        }
        return found
    }

    /// A modification's sides, in the order they are asked for its key.
    static let sides = [Array("oldValue".utf8), Array("newValue".utf8)]

    /// The members of the object that comes next, each key with the index where its value starts (values skipped);
    /// nil when no object comes next or it cannot be followed.
    mutating func members() -> [(key: String, start: Int)]? {
        guard reader.take("{") else { return nil }
        var members: [(key: String, start: Int)] = []
        if reader.take("}") { return members }
        repeat {
            guard let key = reader.string(), reader.take(":"), reader.peek() != nil else { return nil }
            let start = reader.index
            guard skipValue() else { return nil }
            members.append((key, start))
        } while reader.take(",")
        return reader.take("}") ? members : nil
    }

    /// Where the value of the member `name` (UTF-8) of the object that comes next starts; the object is read to its
    /// end. Nil when it has no such member, or no object comes next, or it cannot be followed.
    mutating func member(_ name: [UInt8]) -> Int? {
        guard reader.take("{"), !reader.take("}") else { return nil }
        var found: Int?
        repeat {
            guard let matches = keyEquals(name), reader.take(":"), reader.peek() != nil else { return nil }
            if matches, found == nil { found = reader.index }
            guard skipValue() else { return nil }
        } while reader.take(",")
        return reader.take("}") ? found : nil
    }

    /// Reads a key and tells whether it is `name`; nil when no string comes next.
    private mutating func keyEquals(_ name: [UInt8]) -> Bool? {
        if let range = reader.plainString() {
            return range.count == name.count && reader.bytes.withUnsafeBufferPointer { bytes in
                name.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + range.lowerBound, $0.baseAddress!, range.count) == 0 }
            }
        }
        guard let key = reader.string() else { return nil }
        return key.utf8.elementsEqual(name)
    }

    /// Calls `body` at each element of the array that comes next (`body` need not read it all); false when no array
    /// comes next or it cannot be followed.
    mutating func eachElement(_ body: (inout AuditDataReader) -> Void) -> Bool {
        guard reader.take("[") else { return false }
        if reader.take("]") { return true }
        repeat {
            guard reader.peek() != nil else { return false }
            let start = reader.index
            body(&self)
            reader.index = start
            guard skipValue() else { return false }
        } while reader.take(",")
        return reader.take("]")
    }

    /// The key of the object that comes next: its `field`'s value as text, when a string or an integer.
    mutating func objectKey(_ field: [UInt8]) -> String? {
        guard let value = member(field) else { return nil }
        reader.index = value
        if let text = reader.string() { return text }
        guard let first = reader.peek(), first != UInt8(ascii: "["), first != UInt8(ascii: "{"),
            case .int(let number)? = reader.parseValue()
        else { return nil }
        return String(number)
    }

    /// Skips the value that comes next: containers by matching brackets, scalars by reading them.
    mutating func skipValue() -> Bool {
        guard let first = reader.peek() else { return false }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") { return reader.skipContainer() }
        if first == UInt8(ascii: "\"") { return reader.plainString() != nil || reader.string() != nil }
        return reader.parseValue() != nil
    }
}
