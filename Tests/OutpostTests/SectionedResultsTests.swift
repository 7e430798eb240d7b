import Foundation
import Outpost
import OutpostTesting
import Testing

#if canImport(AppKit)
import AppKit  // `IndexPath(item:section:)` on macOS (Outpost gives it on Linux)
#endif

// Models for the sectioned results tests (class names unique in the test target).
final class SectionedWord: Object {
    @Persisted var text: String
    @Persisted var rank: Int
    @Persisted(originProperty: "words") var shelves: LinkingObjects<SectionedShelf>

    convenience init(_ text: String) {
        self.init()
        self.text = text
    }
}

extension SectionedWord {
    /// A computed section key: sectioning by it sorts by `text`, the property it reads (as in Realm).
    var firstLetter: String? { text.first.map { String($0) } }
}

final class SectionedShelf: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var words: List<SectionedWord>
    @Persisted var labels: List<String>
    @Persisted var labelSet: MutableSet<String>
    @Persisted var numbers: List<Int>
}

/// A sectioned change as plain values: what the collection handed over holds (its keys, or a section's texts), and
/// the index paths.
enum SectionedSeen: Equatable, Sendable {
    case initial([String])
    case update([String], deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)

    init<C>(_ change: SectionedResultsChange<C>, _ contents: (C) -> [String]) {
        switch change {
        case .initial(let collection):
            self = .initial(contents(collection))
        case .update(let collection, let deletions, let insertions, let modifications, let inserted, let deleted):
            self = .update(contents(collection), deletions: deletions, insertions: insertions,
                           modifications: modifications, sectionsToInsert: inserted, sectionsToDelete: deleted)
        }
    }

    /// The keys of sectioned words.
    static func keys(_ sections: SectionedResults<String?, SectionedWord>) -> [String] {
        sections.allKeys.map { $0 ?? "nil" }
    }

    /// The texts of a section, or none once it is gone.
    static func texts(_ section: ResultsSection<String?, SectionedWord>) -> [String] {
        section.isInvalidated ? [] : section.map(\.text)
    }
}

/// Records the changes delivered to an observer on this thread's run loop.
final class SectionedRecorder {
    var seen: [SectionedSeen] = []
    var token: NotificationToken?

    var updates: [SectionedSeen] { seen.filter { if case .update = $0 { true } else { false } } }

    static func observing(_ sections: SectionedResults<String?, SectionedWord>, keyPaths: [String]? = nil)
        -> SectionedRecorder
    {
        let recorder = SectionedRecorder()
        recorder.token = sections.observe(keyPaths: keyPaths) { [unowned recorder] change in
            recorder.seen.append(SectionedSeen(change, SectionedSeen.keys))
        }
        return recorder
    }

    static func observing(_ section: ResultsSection<String?, SectionedWord>, keyPaths: [String]? = nil)
        -> SectionedRecorder
    {
        let recorder = SectionedRecorder()
        recorder.token = section.observe(keyPaths: keyPaths) { [unowned recorder] change in
            recorder.seen.append(SectionedSeen(change, SectionedSeen.texts))
        }
        return recorder
    }

    func waitForInitial() -> Bool { spinRunLoop { !seen.isEmpty } }

    /// Waits until `n` updates arrived (and a little longer, to catch extra ones).
    func waitForUpdates(_ n: Int) -> Bool {
        let ok = spinRunLoop { updates.count >= n }
        spinRunLoop(timeout: 0.05) { false }
        return ok && updates.count == n
    }
}

/// `sectioned(...)`: Realm's sectioned results, read, frozen and observed, with Realm's own test scenarios.
@Suite(.timeLimit(.minutes(1))) struct SectionedResultsTests {
    let dir = TemporaryDirectory()

    var configuration: Realm.Configuration {
        dir.configuration(objectTypes: [SectionedWord.self, SectionedShelf.self])
    }

    /// Realm's fixture: four words whose first letters make three sections, a, b and c.
    func seeded() throws -> Realm {
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for text in ["banana", "box", "apple", "chalk"] { realm.add(SectionedWord(text)) }
        }
        return realm
    }

    // MARK: Sections

    @Test func aKeyPathSortsAndSections() throws {
        let words = try seeded().objects(SectionedWord.self)
        let ascending = words.sectioned(by: \.firstLetter, ascending: true)
        #expect(ascending.count == 3)
        #expect(ascending.allKeys == ["a", "b", "c"])
        #expect(ascending.map(\.key) == ["a", "b", "c"])
        #expect(ascending.map(\.count) == [1, 2, 1])
        #expect(ascending[1].map(\.text) == ["banana", "box"])
        let descending = words.sectioned(by: \.firstLetter, ascending: false)
        #expect(descending.allKeys == ["c", "b", "a"])
        #expect(descending[1].map(\.text) == ["box", "banana"])
    }

    @Test func sortDescriptorsAndKeyBlocks() throws {
        let words = try seeded().objects(SectionedWord.self)
        let byKeyPath = words.sectioned(by: \.firstLetter,
                                        sortDescriptors: [SortDescriptor(keyPath: "text", ascending: false)])
        #expect(byKeyPath.allKeys == ["c", "b", "a"])
        let byBlock = words.sectioned(by: { String($0.text.prefix(1)) },
                                      sortDescriptors: [SortDescriptor(keyPath: "text")])
        #expect(byBlock.allKeys == ["a", "b", "c"])
        #expect(byBlock[1].map(\.text) == ["banana", "box"])
    }

    /// Keys that come back later in the sort join the section where they first appeared (Realm's grouping).
    @Test func aKeyThatComesBackJoinsItsFirstSection() throws {
        let words = try seeded().objects(SectionedWord.self)
        // Sorted by text: apple (5 letters), banana (6), box (3), chalk (5).
        let byLength = words.sectioned(sortDescriptors: [SortDescriptor(keyPath: "text")]) { $0.text.count }
        #expect(byLength.allKeys == [5, 6, 3])
        #expect(byLength[0].map(\.text) == ["apple", "chalk"])
        #expect(byLength[IndexPath(item: 1, section: 0)].text == "chalk")
    }

    @Test func indexPathsAndSectionKeys() throws {
        let sections = try seeded().objects(SectionedWord.self).sectioned(by: \.firstLetter)
        #expect(sections[IndexPath(item: 0, section: 0)].text == "apple")
        #expect(sections[IndexPath(item: 1, section: 1)].text == "box")
        #expect(sections[2][0].text == "chalk")
        #expect(sections[2].key == "c" && sections[2].id == "c")
        let path = IndexPath(item: 1, section: 2)
        #expect(path.section == 2 && path.item == 1)
    }

    @Test func collectionsOfValuesSectionByKeyBlocks() throws {
        let realm = try seeded()
        let shelf = SectionedShelf()
        shelf.id = 1
        shelf.labels.append(objectsIn: ["banana", "box", "apple", "chalk"])
        shelf.labelSet.insert(objectsIn: ["banana", "box", "apple", "chalk"])
        shelf.numbers.append(objectsIn: [4, 1, 3, 2, 5])
        try realm.write { realm.add(shelf) }

        let labels = shelf.labels.sectioned(by: { String($0.prefix(1)) }, ascending: true)
        #expect(labels.allKeys == ["a", "b", "c"])
        #expect(Array(labels[1]) == ["banana", "box"])
        let descending = shelf.labels.sectioned(by: { String($0.prefix(1)) }, ascending: false)
        #expect(descending.allKeys == ["c", "b", "a"])
        #expect(Array(descending[1]) == ["box", "banana"])
        let set = shelf.labelSet.sectioned(by: { String($0.prefix(1)) })
        #expect(set.allKeys == ["a", "b", "c"] && set.map(\.count) == [1, 2, 1])
        // Sorted 1…5, the parity alternates: each key keeps the one section where it first appeared.
        let parity = shelf.numbers.sectioned(by: { $0 % 2 == 0 }, ascending: true)
        #expect(parity.allKeys == [false, true])
        #expect(Array(parity[0]) == [1, 3, 5] && Array(parity[1]) == [2, 4])
    }

    @Test func listsLinkingObjectsAndAnyRealmCollectionSection() throws {
        let realm = try seeded()
        let words = realm.objects(SectionedWord.self)
        let apple = try #require(words.filter("text == 'apple'").first)
        try realm.write {
            let kitchen = realm.create(SectionedShelf.self, value: ["id": 1, "name": "kitchen"])
            kitchen.words.append(objectsIn: words)
            let attic = realm.create(SectionedShelf.self, value: ["id": 2, "name": "attic"])
            attic.words.append(apple)
        }
        let kitchen = try #require(realm.object(ofType: SectionedShelf.self, forPrimaryKey: 1))
        #expect(kitchen.words.sectioned(by: \.firstLetter).allKeys == ["a", "b", "c"])
        let any = AnyRealmCollection(kitchen.words)
        #expect(any.sectioned(by: \.firstLetter, ascending: false).allKeys == ["c", "b", "a"])
        #expect(apple.shelves.sectioned(by: \.name).allKeys == ["attic", "kitchen"])
    }

    @Test func iterationEqualityAndDescription() throws {
        let words = try seeded().objects(SectionedWord.self)
        let sections = words.sectioned(by: \.firstLetter)
        var keys: [String?] = []
        var texts: [String] = []
        for section in sections {
            keys.append(section.key)
            for word in section { texts.append(word.text) }
        }
        #expect(keys == ["a", "b", "c"])
        #expect(texts == ["apple", "banana", "box", "chalk"])

        let copy = sections
        #expect(sections == copy)
        #expect(sections != words.sectioned(by: \.firstLetter))  // Realm's: another call, other sectioned results
        #expect(sections[0] == copy[0] && sections[0] != sections[1])

        let text = sections.description
        #expect(text.hasPrefix("SectionedResults<SectionedWord> <0x"))
        #expect(text.contains("\t[a] ResultsSection<SectionedWord> <0x"))
        #expect(text.contains("text = apple;"))
    }

    /// Sections are live: they follow commits, and a section whose key has no elements left is invalidated.
    @Test func sectionsFollowTheRealm() throws {
        let realm = try seeded()
        let sections = realm.objects(SectionedWord.self).sectioned(by: \.firstLetter)
        let a = sections[0]
        try realm.write {
            realm.add(SectionedWord("dog"))
            realm.add(SectionedWord("avocado"))
        }
        #expect(sections.allKeys == ["a", "b", "c", "d"])
        #expect(a.map(\.text) == ["apple", "avocado"])
        try realm.write { realm.delete(realm.objects(SectionedWord.self).filter("text BEGINSWITH 'a'")) }
        #expect(a.isInvalidated)
        #expect(sections.allKeys == ["b", "c", "d"])
    }

    // MARK: Frozen

    @Test func frozenSectionsKeepTheirVersion() throws {
        let realm = try seeded()
        let words = realm.objects(SectionedWord.self)
        let live = words.sectioned(by: \.firstLetter)
        let frozen = live.freeze()
        let frozenA = live[0].freeze()
        try realm.write {
            realm.add(SectionedWord("dog"))
            realm.add(SectionedWord("avocado"))
        }
        #expect(frozen.isFrozen && !live.isFrozen && frozenA.isFrozen)
        #expect(frozen.allKeys == ["a", "b", "c"])
        #expect(frozenA.key == "a" && frozenA.map(\.text) == ["apple"])
        #expect(live.allKeys == ["a", "b", "c", "d"])

        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.allKeys == ["a", "b", "c", "d"])
        let thawedA = try #require(frozenA.thaw())
        #expect(thawedA.map(\.text) == ["apple", "avocado"])

        let fromFrozen = words.freeze().sectioned(by: \.firstLetter, ascending: false)
        #expect(fromFrozen.isFrozen && fromFrozen.allKeys == ["d", "c", "b", "a"])
    }

    // MARK: Notifications

    /// Realm's `testObserveOnQueue` scenario, on this thread: a section goes, one comes, an element changes section
    /// place, then one is modified in place.
    @Test func changesAreMappedOntoTheSections() throws {
        let realm = try seeded()
        let words = realm.objects(SectionedWord.self)
        let recorder = SectionedRecorder.observing(words.sectioned(by: \.firstLetter), keyPaths: ["text"])
        #expect(recorder.waitForInitial())
        #expect(recorder.seen == [.initial(["a", "b", "c"])])

        try realm.write {
            let sorted = words.sorted(byKeyPath: "text")
            realm.delete([sorted[1], sorted[0]])  // banana, apple: section a goes
            sorted[0].text = "bog"  // box: first of b now, so deleted at (1, 1) and inserted at (0, 0)
            realm.add(SectionedWord("zebra"))  // section z comes
        }
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates.last == .update(
            ["b", "c", "z"], deletions: [IndexPath(item: 0, section: 1), IndexPath(item: 1, section: 1)],
            insertions: [IndexPath(item: 0, section: 0), IndexPath(item: 0, section: 2)], modifications: [],
            sectionsToInsert: [2], sectionsToDelete: [0]))

        try realm.write {
            let sorted = words.sorted(byKeyPath: "text")
            sorted[0].text = "bogg"  // stays in place
            sorted[1].rank = 1  // not watched
        }
        #expect(recorder.waitForUpdates(2))
        #expect(recorder.updates.last == .update(
            ["b", "c", "z"], deletions: [], insertions: [], modifications: [IndexPath(item: 0, section: 0)],
            sectionsToInsert: [], sectionsToDelete: []))
    }

    /// Realm's `testObservationOnSection` scenario: each section hears only of its own key.
    @Test func aSectionReportsItsOwnChanges() throws {
        let realm = try seeded()
        let words = realm.objects(SectionedWord.self)
        let sections = words.sectioned(by: \.firstLetter)
        let a = SectionedRecorder.observing(sections[0], keyPaths: ["text"])
        let b = SectionedRecorder.observing(sections[1], keyPaths: ["text"])
        #expect(a.waitForInitial() && b.waitForInitial())
        #expect(a.seen == [.initial(["apple"])] && b.seen == [.initial(["banana", "box"])])

        try realm.write {
            let sorted = words.sorted(byKeyPath: "text")
            realm.delete([sorted[1], sorted[0]])  // banana, apple
        }
        #expect(a.waitForUpdates(1) && b.waitForUpdates(1))
        #expect(a.updates.last == .update([], deletions: [], insertions: [], modifications: [],
                                          sectionsToInsert: [], sectionsToDelete: [0]))
        #expect(b.updates.last == .update(["box"], deletions: [IndexPath(item: 0, section: 1)], insertions: [],
                                          modifications: [], sectionsToInsert: [], sectionsToDelete: []))

        try realm.write {
            words.sorted(byKeyPath: "text")[0].text = "bog"  // box
            realm.add(SectionedWord("bag"))
        }
        #expect(b.waitForUpdates(2) && a.waitForUpdates(1))  // nothing for a, which has no elements
        #expect(b.updates.last == .update(
            ["bag", "bog"], deletions: [IndexPath(item: 0, section: 0)],
            insertions: [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)], modifications: [],
            sectionsToInsert: [], sectionsToDelete: []))

        try realm.write { realm.add(SectionedWord("app")) }  // a comes back, first
        #expect(a.waitForUpdates(2) && b.waitForUpdates(2))  // b moved to section 1, unchanged
        #expect(a.updates.last == .update(["app"], deletions: [], insertions: [IndexPath(item: 0, section: 0)],
                                          modifications: [], sectionsToInsert: [0], sectionsToDelete: []))
    }

    /// Realm's `testObserveWithKeyPathFilter`: an element that changes section is reported even when the property
    /// that moved it is not watched.
    @Test func aChangeOfSectionIsReportedWhateverTheKeyPaths() throws {
        let realm = try seeded()
        let words = realm.objects(SectionedWord.self)
        let apple = try #require(words.filter("text == 'apple'").first)
        let recorder = SectionedRecorder.observing(words.sectioned(by: \.firstLetter), keyPaths: ["rank"])
        #expect(recorder.waitForInitial())
        try realm.write { apple.text = "baa" }  // still first in the sort, but now in section b
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates.last == .update(
            ["b", "c"], deletions: [], insertions: [IndexPath(item: 0, section: 0)], modifications: [],
            sectionsToInsert: [], sectionsToDelete: [0]))
        try realm.write { apple.text = "bab" }  // same section, same place, not watched: nothing to report
        #expect(recorder.waitForUpdates(1))
        try realm.write { apple.rank = 3 }
        #expect(recorder.waitForUpdates(2))
        #expect(recorder.updates.last == .update(
            ["b", "c"], deletions: [], insertions: [], modifications: [IndexPath(item: 0, section: 0)],
            sectionsToInsert: [], sectionsToDelete: []))
    }

    /// As for `Results`, a commit hidden from the observer is not in its next change.
    @Test func writeWithoutNotifyingIsLeftOutOfTheNextChange() throws {
        let realm = try seeded()
        let recorder = SectionedRecorder.observing(realm.objects(SectionedWord.self).sectioned(by: \.firstLetter))
        #expect(recorder.waitForInitial())
        let token = try #require(recorder.token)
        try realm.write(withoutNotifying: [token]) { realm.add(SectionedWord("avocado")) }
        #expect(recorder.waitForUpdates(0))
        try realm.write { realm.add(SectionedWord("dog")) }
        #expect(recorder.waitForUpdates(1))
        #expect(recorder.updates.last == .update(
            ["a", "b", "c", "d"], deletions: [], insertions: [IndexPath(item: 0, section: 3)], modifications: [],
            sectionsToInsert: [3], sectionsToDelete: []))
    }

    @Test func observedOnAQueue() throws {
        let realm = try seeded()
        let sections = realm.objects(SectionedWord.self).sectioned(by: \.firstLetter)
        let queue = DispatchQueue(label: "outpost.tests.sectioned-observer")
        let log = LockedLog<SectionedSeen>()
        let token = sections.observe(keyPaths: [\.text], on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            log.append(SectionedSeen(change, SectionedSeen.keys))
        }
        defer { token.invalidate() }
        #expect(log.wait { $0.count == 1 })
        #expect(log.values == [.initial(["a", "b", "c"])])
        try realm.write { realm.add(SectionedWord("dog")) }
        #expect(log.wait { $0.count == 2 })
        #expect(log.values.last == .update(
            ["a", "b", "c", "d"], deletions: [], insertions: [IndexPath(item: 0, section: 3)], modifications: [],
            sectionsToInsert: [3], sectionsToDelete: []))
    }

    @MainActor @Test func observedOnTheMainActor() async throws {
        let configuration = self.configuration
        let realm = try await Realm(configuration: configuration)
        try realm.write {
            for text in ["banana", "box", "apple", "chalk"] { realm.add(SectionedWord(text)) }
        }
        let seen = Deliveries<SectionedSeen>()
        let token = await realm.objects(SectionedWord.self).sectioned(by: \.firstLetter).observe(on: MainActor.shared) {
            _, change in
            MainActor.preconditionIsolated()
            seen.yield(SectionedSeen(change, SectionedSeen.keys))
        }
        #expect(await seen.next() == .initial(["a", "b", "c"]))
        try await ActorObserveTests.write(configuration) { realm in realm.add(SectionedWord("dog")) }
        #expect(await seen.next() == .update(
            ["a", "b", "c", "d"], deletions: [], insertions: [IndexPath(item: 0, section: 3)], modifications: [],
            sectionsToInsert: [3], sectionsToDelete: []))
        token.invalidate()
    }

    // MARK: Misuse

    @Test func theSectionKeyPathMustLeadTheSort() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = TemporaryDirectory()
            let configuration = dir.configuration(objectTypes: [SectionedWord.self, SectionedShelf.self])
            let realm = try Realm(configuration: configuration)
            _ = realm.objects(SectionedWord.self).sectioned(by: \.firstLetter, sortDescriptors: ["rank"])
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("The section key path must match the primary sort descriptor."))
        }
    }
}
