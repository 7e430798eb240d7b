import Foundation

/// What a map's entries have in common, for generic code over them (Realm's protocol).
public protocol _RealmMapValue {
    /// The type of the entry's key.
    associatedtype Key: _MapKey
    /// The type of the entry's value.
    associatedtype Value: RealmCollectionValue
}

/// One key-value entry of a ``Map``: what iterating a map yields (a tuple cannot be a generic argument).
/// `map.asKeyValueSequence()` yields `(key:, value:)` tuples instead.
///
/// Two entries are equal when their keys and their values are (Realm compares only the values while hashing the
/// key, which breaks `Hashable`'s rule that equal values hash alike; docs/differences-from-realm.md).
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: _RealmMapValue, Hashable {
    /// The entry's key.
    public var key: Key
    /// The entry's value.
    public var value: Value

    public static func == (lhs: SingleMapEntry, rhs: SingleMapEntry) -> Bool {
        lhs.key == rhs.key && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }
}

/// The position of an entry in a ``Map``'s iteration order (Realm's type).
public struct MapIndex {
    /// The entry's position.
    public var offset: UInt

    public init(offset: UInt) {
        self.offset = offset
    }
}

/// Iterates a ``Map``'s entries as ``SingleMapEntry`` values, over the entries the map held when iteration began
/// (Realm's type name).
public struct RLMMapIterator<Element: _RealmMapValue>: IteratorProtocol {
    private var entries: IndexingIterator<[Element]>

    init(_ entries: [Element]) {
        self.entries = entries.makeIterator()
    }

    public mutating func next() -> Element? { entries.next() }
}

/// Iterates a ``Map``'s entries as `(key:, value:)` tuples (``Map/asKeyValueSequence()``; Realm's type name).
public struct RLMKeyValueIterator<Key: _MapKey, Value: RealmCollectionValue>: IteratorProtocol {
    private var entries: IndexingIterator<[SingleMapEntry<Key, Value>]>

    init(_ entries: [SingleMapEntry<Key, Value>]) {
        self.entries = entries.makeIterator()
    }

    public mutating func next() -> (key: Key, value: Value)? {
        entries.next().map { (key: $0.key, value: $0.value) }
    }
}

extension Map {
    /// A map as a sequence of `(key:, value:)` tuples, for `for (key, value) in map.asKeyValueSequence()`.
    public struct KeyValueSequence: Sequence {
        private let map: Map<Key, Value>

        fileprivate init(_ map: Map<Key, Value>) {
            self.map = map
        }

        public func makeIterator() -> RLMKeyValueIterator<Key, Value> {
            RLMKeyValueIterator(map.entries)
        }
    }

    /// The map's entries as `(key:, value:)` tuples.
    public func asKeyValueSequence() -> KeyValueSequence { KeyValueSequence(self) }
}
