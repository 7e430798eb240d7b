import Foundation

// Sectioned results print as Realm's do: each section on a line of its own, after its key in brackets
// (`\t[a] ResultsSection<Word> <0x…> (…)`), then the section's elements as a collection's (the first 100).

extension SectionedResults: CustomStringConvertible {
    public var description: String {
        let keys = allKeys
        let lines = keys.prefix(CollectionDescription.maxElements).map { key in
            let section = ResultsSection(parent: self, key: key)
            let text = section._description(depth: CollectionDescription.maxDepth - 1)
            let label = CollectionDescription.describe(key, depth: 1)
            return "\t[\(label)] " + text.replacingOccurrences(of: "\n", with: "\n\t")
        }
        let skipped = Swift.max(0, keys.count - CollectionDescription.maxElements)
        let typeName = CollectionDescription.typeName(SectionElement.self)
        let address = String(UInt(bitPattern: ObjectIdentifier(cache).hashValue), radix: 16)
        return "SectionedResults<\(typeName)> <0x\(address)> (\n" + lines.joined(separator: ",\n")
            + (skipped > 0 ? "\n\t... \(skipped) objects skipped." : "") + "\n)"
    }
}

extension ResultsSection: CustomStringConvertible {
    public var description: String { _description(depth: CollectionDescription.maxDepth) }

    func _description(depth: Int) -> String {
        CollectionDescription.describe("ResultsSection", typeName: CollectionDescription.typeName(T.self),
                                       address: parent.cache, count: count,
                                       elements: self.lazy.prefix(CollectionDescription.maxElements).map { $0 as Any },
                                       depth: depth)
    }
}
