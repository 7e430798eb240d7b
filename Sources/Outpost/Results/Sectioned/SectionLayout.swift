import Foundation

/// How sorted results fall into sections at one version of their Realm.
///
/// Each element's key is asked in sort order; a key seen for the first time opens a section after the last one, and
/// an element whose key already has a section joins it. So sections come in the order their keys first appear, and
/// a key block that disagrees with the sort (keys that come back after another key) still gives each key one section,
/// its elements in sort order (Realm's grouping).
struct SectionLayout<Key: Hashable> {
    /// Where an element of the sorted results is: its section, and its place in that section.
    struct Slot: Hashable {
        var section: Int
        var item: Int
    }

    /// The section keys, in order.
    private(set) var keys: [Key] = []
    /// Each section's elements, as positions in the sorted results.
    private(set) var members: [[Int]] = []
    /// Each position's slot.
    private(set) var slots: [Slot] = []
    /// Each key's section.
    private(set) var sectionOfKey: [Key: Int] = [:]
    /// What identifies each element when two versions are diffed (see `Results.observationKeys()`).
    private(set) var identities: [ObservationKey] = []

    init() {}

    /// Asks `keyBlock` for the key of every element of `results`, in order.
    init<Element: RealmCollectionValue>(of results: Results<Element>, keyBlock: (Element) -> Key) {
        identities = results.observationKeys()
        slots.reserveCapacity(identities.count)
        for element in results { place(keyBlock(element)) }
    }

    /// Places the next element, whose key is `key`.
    private mutating func place(_ key: Key) {
        let position = slots.count
        if let section = sectionOfKey[key] {
            slots.append(Slot(section: section, item: members[section].count))
            members[section].append(position)
        } else {
            let section = keys.count
            sectionOfKey[key] = section
            keys.append(key)
            members.append([position])
            slots.append(Slot(section: section, item: 0))
        }
    }

    /// The positions, in the sorted results, of the elements of the section of `key`; nil when it has none.
    func positions(of key: Key) -> [Int]? {
        sectionOfKey[key].map { members[$0] }
    }
}

/// The layout of one `SectionedResults` (shared by its copies and its sections), computed again only when its Realm
/// has moved to another version or written since. Frozen sectioned results may be read from several threads: the
/// lock keeps the cached layout whole.
final class SectionLayoutCache<Key: Hashable> {
    private let lock = NSLock()
    private var cachedLayout: SectionLayout<Key>?
    /// When `cachedLayout` was computed.
    private var stamp: Stamp?

    /// The Realm version and local write a layout was computed at.
    private struct Stamp: Equatable {
        var version: Int
        var writes: Int
    }

    /// The layout of `results` now (the key block runs outside the lock).
    func layout<Element: RealmCollectionValue>(
        of results: Results<Element>, keyBlock: (Element) -> Key
    ) -> SectionLayout<Key> {
        _ = results.rowids  // evaluated at the Realm's current version, checking the thread
        let instance = results.instance
        let now = instance.synchronized { Stamp(version: instance.snapshotVersion, writes: instance.writeCounter) }
        lock.lock()
        let cached = stamp == now ? cachedLayout : nil
        lock.unlock()
        if let cached { return cached }
        let fresh = SectionLayout(of: results, keyBlock: keyBlock)
        lock.lock()
        cachedLayout = fresh
        stamp = now
        lock.unlock()
        return fresh
    }
}
