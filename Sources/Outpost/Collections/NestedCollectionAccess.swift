import OutpostCore

/// One step from a value to a collection nested in it: a list position or a dictionary key.
enum MixedPathStep: Hashable, Sendable {
    case index(Int)
    case key(String)
}

/// Collections nested in a mixed value (`AnyRealmValue.list` / `.dictionary`) are live like collection properties:
/// they read and write their place in the owner's property, found by the path from the property's value.
extension _PropertyAccessor {
    /// The accessor of the mixed property's own value, as a collection.
    var mixedRoot: _PropertyAccessor {
        var copy = self
        copy.nested = nested ?? []
        return copy
    }

    /// The accessor of the collection one step below this one.
    func nested(_ step: MixedPathStep) -> _PropertyAccessor {
        var copy = self
        copy.nested = (nested ?? []) + [step]
        return copy
    }

    /// The property's whole value (a list or set property as `.list`, a map as `.dictionary`).
    private func rootValue() -> _StoredValue {
        switch property.collection {
        case .list, .set: .list(row.readCollection(property: propertyIndex))
        case .map: .dictionary(Dictionary(row.readMap(property: propertyIndex), uniquingKeysWith: { first, _ in first }))
        case .none: row.read(property: propertyIndex)
        }
    }

    /// The value at the end of the path; nil once the path leads nowhere (an element removed, a value replaced).
    func nestedValue() -> _StoredValue? {
        guard !row.isInvalidated else { return nil }
        var value = rootValue()
        for step in nested ?? [] {
            switch (step, value) {
            case let (.index(i), .list(items)) where i >= 0 && i < items.count: value = items[i]
            case let (.key(k), .dictionary(entries)):
                guard let next = entries[k] else { return nil }
                value = next
            default: return nil
            }
        }
        return value
    }

    /// The elements of the nested list (none when it is gone).
    var nestedElements: [_StoredValue] {
        if case .list(let items)? = nestedValue() { items } else { [] }
    }

    /// The entries of the nested dictionary in key order (none when it is gone).
    var nestedEntries: [(String, _StoredValue)] {
        if case .dictionary(let entries)? = nestedValue() { entries.sorted { $0.key < $1.key } } else { [] }
    }

    /// Replaces the nested collection and writes the owner's property back, in the current write transaction.
    func writeNested(_ newValue: _StoredValue) {
        row.realm.requireWriteForCollection()
        guard let root = Self.replacing(rootValue(), at: (nested ?? [])[...], with: newValue) else {
            fatalError("This collection is no longer valid: the value holding it was replaced or removed.")
        }
        switch (property.collection, root) {
        case (.list, .list(let items)): row.realm.setProperty(row, propertyIndex, .list(items))
        case (.set, .list(let items)): row.realm.setProperty(row, propertyIndex, .set(items))
        case (.map, .dictionary(let entries)):
            row.realm.setProperty(row, propertyIndex, .map(entries.sorted { $0.key < $1.key }))
        default: row.realm.setProperty(row, propertyIndex, .value(root))
        }
    }

    private static func replacing(_ value: _StoredValue, at path: ArraySlice<MixedPathStep>,
                                  with newValue: _StoredValue) -> _StoredValue?
    {
        guard let step = path.first else { return newValue }
        switch (step, value) {
        case (.index(let i), .list(var items)) where i >= 0 && i < items.count:
            guard let inner = replacing(items[i], at: path.dropFirst(), with: newValue) else { return nil }
            items[i] = inner
            return .list(items)
        case (.key(let k), .dictionary(var entries)):
            guard let current = entries[k], let inner = replacing(current, at: path.dropFirst(), with: newValue) else {
                return nil
            }
            entries[k] = inner
            return .dictionary(entries)
        default:
            return nil
        }
    }
}
