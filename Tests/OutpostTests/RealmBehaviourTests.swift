import Foundation
import Outpost
import OutpostTesting
import Testing

/// Behaviours Realm's own tests rely on, each in the form those tests use.
@Suite struct RealmBehaviourTests {
    /// Two `Realm(configuration:)` calls on one thread are one instance: one write transaction.
    @Test func twoRealmsShareTheWrite() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let config = dir.configuration(objectTypes: ThreadingFixture.types)
        let a = try Realm(configuration: config)
        let b = try Realm(configuration: config)
        a.beginWrite()
        #expect(b.isInWriteTransaction)
        b.add(TSPerson(id: 1, name: "x"))
        #expect(a.objects(TSPerson.self).count == 1)
        try a.commitWrite()
    }
    /// A thread's Realm in a write transaction stays open with nothing holding it, as Realm's thread cache keeps it:
    /// `try Realm().beginWrite()` … `try Realm().commitWrite()` is one transaction; afterwards the instance is
    /// released again and another thread writes.
    @Test func aRealmKeptByNobodyStaysInItsWrite() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let config = dir.configuration(objectTypes: ThreadingFixture.types)
        try Realm(configuration: config).beginWrite()
        #expect(try Realm(configuration: config).isInWriteTransaction)
        try Realm(configuration: config).add(TSPerson(id: 1, name: "x"))
        try Realm(configuration: config).commitWrite()
        #expect(try Realm(configuration: config).isInWriteTransaction == false)
        try Realm(configuration: config).beginWrite()
        try Realm(configuration: config).add(TSPerson(id: 2, name: "y"))
        try Realm(configuration: config).cancelWrite()
        #expect(try Realm(configuration: config).objects(TSPerson.self).count == 1)
        let written = DispatchSemaphore(value: 0)
        Thread {
            let other = try! Realm(configuration: config)
            try! other.write { other.add(TSPerson(id: 3, name: "z")) }
            written.signal()
        }.start()
        written.wait()
        try Realm(configuration: config).refresh()
        #expect(try Realm(configuration: config).objects(TSPerson.self).count == 2)
    }

    /// `add(_:update: .modified)` over an existing object updates the embedded objects it has in place, as Realm
    /// does: its embedded object and its list's (by position) stay valid with the new values, the new objects become
    /// them, and list elements beyond the new list's end go; `.all` replaces them.
    @Test func updatingAnObjectUpdatesItsEmbeddedObjectsInPlace() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [EUParent.self, EUChild.self]))
        let first = EUParent(id: 1, child: EUChild(1, EUChild(2)), children: [EUChild(3), EUChild(4)])
        try realm.write { realm.add(first) }
        let child = try #require(first.child), grandchild = try #require(child.grandchild)
        let element = first.children[0], dropped = first.children[1]
        let second = EUParent(id: 1, child: EUChild(11, EUChild(12)), children: [EUChild(13)])
        try realm.write { realm.add(second, update: .modified) }
        #expect(!child.isInvalidated && child.value == 11)
        #expect(!grandchild.isInvalidated && grandchild.value == 12)
        #expect(second.child?.isSameObject(as: child) == true)
        #expect(!element.isInvalidated && element.value == 13)
        #expect(dropped.isInvalidated)
        #expect(Array(first.children.map(\.value)) == [13])
        // A longer list keeps its first elements and appends the rest; a missing grandchild is deleted.
        let third = EUParent(id: 1, child: EUChild(21), children: [EUChild(23), EUChild(24)])
        try realm.write { realm.add(third, update: .modified) }
        #expect(child.value == 21 && grandchild.isInvalidated && child.grandchild == nil)
        #expect(!element.isInvalidated && Array(first.children.map(\.value)) == [23, 24])
        // `.all` replaces them: the old ones are deleted, the new ones are the object's now.
        let fourth = EUParent(id: 1, child: EUChild(31), children: [EUChild(33)])
        try realm.write { realm.add(fourth, update: .all) }
        #expect(child.isInvalidated && element.isInvalidated)
        #expect(first.child?.value == 31 && fourth.child?.isSameObject(as: first.child!) == true)
        #expect(Array(first.children.map(\.value)) == [33])
        #expect(realm.objects(EUParent.self).count == 1)
    }

    /// The collections an object held before `add` are its managed collections afterwards, as in Realm: the same
    /// instances, now reading and writing the file.
    @Test func addedObjectsKeepTheirCollections() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [ACHolder.self]))
        let holder = ACHolder()
        let list = holder.numbers, set = holder.names, map = holder.scores
        list.append(1)
        set.insert("a")
        map["x"] = 1
        #expect(list.realm == nil && list === holder.numbers)
        try realm.write { realm.add(holder) }
        #expect(list.realm != nil && set.realm != nil && map.realm != nil)
        #expect(list === holder.numbers && set === holder.names && map === holder.scores)
        try realm.write {
            list.append(2)
            set.insert("b")
            map["y"] = 2
        }
        let stored = try #require(realm.objects(ACHolder.self).first)
        // A managed object's collection is made once (Realm's identity); a frozen one's is not kept.
        #expect(stored.numbers === stored.numbers && stored.scores === stored.scores)
        #expect(Array(stored.numbers) == [1, 2])
        #expect(Set(stored.names) == ["a", "b"])
        #expect(stored.scores["y"] == 2 && stored.scores.count == 2)
        try realm.write { realm.delete(holder) }
        #expect(list.isInvalidated)
    }

    /// `distinct(by:)` through a link leaves out the objects whose link is not set, as realm-core does (it does not
    /// group them under null).
    @Test func distinctThroughALinkLeavesOutBrokenChains() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [EUParent.self, EUChild.self]))
        try realm.write {
            for (id, value) in [(1, 1), (2, 1), (3, 2)] {
                realm.create(EUParent.self, value: ["id": id, "child": ["value": value]])
            }
            realm.create(EUParent.self, value: ["id": 4])
        }
        let parents = realm.objects(EUParent.self).sorted(byKeyPath: "id")
        #expect(parents.distinct(by: ["child.value"]).map(\.id) == [1, 3])
        #expect(parents.distinct(by: ["id"]).count == 4)
    }

    /// Key-value reads answer as Realm's: an enum property its raw value, an `AnyRealmValue` property what it holds
    /// (nil for `.none`).
    @Test func keyValueReadsAnswerAsRealm() throws {
        let holder = MixedRow()
        holder.any = .int(1)
        #expect(holder["any"] as? Int == 1)
        holder.any = .string("s")
        #expect(holder.value(forKey: "any") as? String == "s")
        holder.any = .none
        #expect(holder["any"] == nil)
        let conversions = KVConversions()
        conversions.optMood = .happy
        #expect(conversions["optMood"] as? String == Mood.happy.rawValue)
    }

    /// Key-value writes convert as Realm does: decimal text and a `Float` into a decimal, and an optional enum given
    /// a raw value no case has reads nil (unmanaged and managed).
    @Test func keyValueWritesConvertAsRealm() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [KVConversions.self]))
        let unmanaged = KVConversions()
        unmanaged["optMood"] = "no such mood"
        #expect(unmanaged.optMood == nil)
        unmanaged["decimal"] = "4.4"
        #expect(unmanaged.decimal == Decimal128(value: "4.4"))
        unmanaged["decimal"] = Decimal(string: "6.25")!
        #expect(unmanaged.decimal == Decimal128(value: "6.25"))
        unmanaged["decimal"] = "4.4"
        try realm.write { realm.add(unmanaged) }
        try realm.write {
            unmanaged["decimal"] = 2.2 as Float
            unmanaged["optMood"] = Mood.happy
        }
        #expect(unmanaged.decimal == Decimal128(value: 2.2 as Float))
        #expect(unmanaged.optMood == .happy)
        try realm.write {
            unmanaged["decimal"] = "5.5"
            unmanaged["optMood"] = "no such mood"
        }
        #expect(unmanaged.decimal == Decimal128(value: "5.5"))
        #expect(unmanaged.optMood == nil)
    }

    /// `create(_:value:)` from a managed object copies its embedded objects, at any depth and in lists (the
    /// originals stay with their parent), in the same Realm and into another.
    @Test func createFromAManagedObjectCopiesItsEmbeddedObjects() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let types: [ObjectBase.Type] = [CopyParent.self, CopyChild.self]
        let realm = try Realm(configuration: dir.configuration(objectTypes: types))
        let (parent, copy) = try realm.write {
            let parent = realm.create(CopyParent.self, value: [
                "child": ["value": 5, "inner": ["value": 6], "children": [[7], [8]]] as [String: Any],
                "list": [[9], [10]]])
            return (parent, realm.create(CopyParent.self, value: parent))
        }
        #expect(copy.child?.value == 5 && copy.child?.inner?.value == 6)
        #expect(copy.child.map { $0.children.map(\.value) } == [7, 8])
        #expect(copy.list.map(\.value) == [9, 10])
        #expect(parent.child?.value == 5 && parent.list.count == 2)
        #expect(realm.objects(CopyParent.self).count == 2)

        let other = try Realm(configuration: dir.configuration("other.realm", objectTypes: types))
        let moved = try other.write { other.create(CopyParent.self, value: parent) }
        #expect(moved.child?.inner?.value == 6 && moved.list.map(\.value) == [9, 10])
    }

    /// `write(withoutNotifying:)` also skips a `Realm.observe` block whose token it is given.
    @Test func withoutNotifyingSkipsRealmObserver() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        var calls = 0
        let token = realm.observe { _, _ in calls += 1 }
        try realm.write(withoutNotifying: [token]) { realm.add(TSPerson(id: 1, name: "x")) }
        #expect(calls == 0)
        try realm.write { realm.add(TSPerson(id: 2, name: "y")) }
        #expect(calls == 1)
        token.invalidate()
    }
    /// A loop over a managed list walks the elements it had when it began (Realm: a snapshot in a write).
    @Test func iteratingAListWhileAppendingEnds() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        let p = TSPerson(id: 1, name: "x")
        try realm.write {
            realm.add(p)
            p.dogs.append(TSDog())
            p.dogs.append(TSDog())
            var n = 0
            for d in p.dogs { p.dogs.append(d); n += 1; if n > 10 { break } }
            #expect(n == 2)
        }
    }
    @Test func averageOfProperty() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        try realm.write { for a in [1, 2] { let d = TSDog(); d.age = a; realm.add(d) } }
        let avg: Double? = realm.objects(TSDog.self).average(ofProperty: "age")
        #expect(avg == 1.5)
        let avgInt: Int? = realm.objects(TSDog.self).average(ofProperty: "age")
        #expect(avgInt == 1)
    }
    /// `invalidate()` invalidates lists and results read before it (`isInvalidated`, as Realm reports); results
    /// made afterwards are valid, and older ones still read (at the latest version; Realm traps).
    @Test func invalidateResults() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        try realm.write { realm.add(TSPerson(id: 1, name: "x")) }
        let results = realm.objects(TSPerson.self)
        let list = realm.objects(TSPerson.self).first!.dogs
        #expect(!results.isInvalidated)
        realm.invalidate()
        #expect(list.isInvalidated)
        #expect(results.isInvalidated)
        #expect(!realm.objects(TSPerson.self).isInvalidated)
        #expect(results.count == 1)
    }

    /// Sorting or deduplicating on a property that does not exist traps at the call, with Realm's text.
    @Test func aSortOnAMissingPropertyTrapsAtOnce() async throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        let path = dir.file().path
        for (operation, expected) in [
            ("sort", "Cannot sort on key path 'noSuchCol': property 'TSPerson.noSuchCol' does not exist"),
            ("descriptors", "Cannot sort on key path 'noSuchCol': property 'TSPerson.noSuchCol' does not exist"),
            ("nested", "Cannot sort on key path 'dogs.noSuchCol': property 'TSDog.noSuchCol' does not exist"),
            ("distinct", "Cannot distinct on key path 'noSuchCol': property 'TSPerson.noSuchCol' does not exist"),
        ] {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                [path = path as String, operation = operation as String] in
                let realm = try Realm(configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: path), objectTypes: ThreadingFixture.types))
                let people = realm.objects(TSPerson.self)
                switch operation {
                case "sort": _ = people.sorted(byKeyPath: "noSuchCol")
                case "descriptors": _ = people.sorted(by: [SortDescriptor(keyPath: "noSuchCol")])
                case "nested": _ = people.sorted(byKeyPath: "dogs.noSuchCol")
                default: _ = people.distinct(by: ["noSuchCol"])
                }
            }
            let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(text.contains(expected), "\(operation): \(text)")
        }
        // A set has no positions: `index(of:)` traps with Realm's text.
        let setResult = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let set = MutableSet<Int>()
            set.insert(1)
            _ = set.index(of: 1)
        }
        let setText = String(decoding: setResult?.standardErrorContent ?? [], as: UTF8.self)
        #expect(setText.contains("index(of:) is not available on MutableSet"), "\(setText)")
        // A map refuses a value of another type through key-value coding, naming the value, the key and the type.
        let mapResult = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Map<String, Int>().setValue("seven", forKey: "k")
        }
        let mapText = String(decoding: mapResult?.standardErrorContent ?? [], as: UTF8.self)
        #expect(mapText.contains("Invalid value 'seven' of type 'String' for key 'k' of a map of 'Int'"), "\(mapText)")
        // Thawing an unmanaged object traps with Realm's text.
        let thawResult = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = TSPerson().thaw()
        }
        let thawText = String(decoding: thawResult?.standardErrorContent ?? [], as: UTF8.self)
        #expect(thawText.contains("Unmanaged objects cannot be thawed."), "\(thawText)")
        // A property that exists sorts as before.
        let realm = try await Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        #expect(realm.objects(TSPerson.self).sorted(byKeyPath: "name").count == 0)
    }

    /// Unmanaged objects linking in a cycle are freed once added and no longer used (Realm's
    /// `testAddObjectCycle`): the links let go of the unmanaged objects when they become managed.
    @Test func addedObjectsLinkingInACycleAreFreed() throws {
        let dir = TemporaryDirectory(); defer { dir.remove() }
        weak var weakFirst: CycleNode?
        weak var weakSecond: CycleNode?
        do {
            let first = CycleNode()
            let second = CycleNode()
            first.next = second
            second.next = first
            first.all.append(second)
            weakFirst = first
            weakSecond = second
            let realm = try Realm(configuration: dir.configuration(objectTypes: [CycleNode.self]))
            try realm.write { realm.add(first) }
            #expect(first.realm != nil && second.realm != nil)
            #expect(first.next?.next?.isSameObject(as: first) == true)
        }
        #expect(weakFirst == nil)
        #expect(weakSecond == nil)
    }
}

final class KVConversions: Object {
    @Persisted var decimal: Decimal128
    @Persisted var optMood: Mood?
}

final class CopyParent: Object {
    @Persisted var child: CopyChild?
    @Persisted var list: List<CopyChild>
}

final class CopyChild: EmbeddedObject {
    @Persisted var value: Int
    @Persisted var inner: CopyChild?
    @Persisted var children: List<CopyChild>
}

final class EUParent: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var child: EUChild?
    @Persisted var children: List<EUChild>

    convenience init(id: Int, child: EUChild, children: [EUChild]) {
        self.init()
        self.id = id
        self.child = child
        self.children.append(objectsIn: children)
    }
}

final class EUChild: EmbeddedObject {
    @Persisted var value: Int
    @Persisted var grandchild: EUChild?

    convenience init(_ value: Int, _ grandchild: EUChild? = nil) {
        self.init()
        self.value = value
        self.grandchild = grandchild
    }
}

final class ACHolder: Object {
    @Persisted var numbers: List<Int>
    @Persisted var names: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}

final class CycleNode: Object {
    @Persisted var next: CycleNode?
    @Persisted var all: List<CycleNode>
}
