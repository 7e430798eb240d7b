import Foundation
import Outpost
import OutpostTesting
import Testing

/// `add` of plain-scalar objects (`Item`, `Person`, `Dog`) buffers rows and writes them as multi-row
/// INSERTs; nothing may observe the difference.
@Suite struct BufferedInsertTests {
    private func item(_ i: Int, id: ObjectId = .generate()) -> Item {
        let item = Item()
        item._id = id
        item.ownerId = "owner-\(i % 3)"
        item.itemName = "item \(i)"
        item.complexity = i
        return item
    }

    @Test func duplicatePrimaryKeyInsideABatchIsReportedInRealmsWords() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let duplicate = ObjectId.generate()
        do {
            try realm.write {
                for i in 0..<200 {
                    realm.add(item(i, id: i == 10 || i == 150 ? duplicate : .generate()))
                }
            }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
            #expect(error.message == "Attempting to create an object of type 'Item' with an existing primary key value '\(duplicate)'.")
        }
        #expect(realm.objects(Item.self).isEmpty)
    }

    @Test func duplicateOfACommittedObjectAndErrorOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let existing = ObjectId.generate()
        try realm.write { realm.add(item(0, id: existing)) }
        do {
            try realm.write {
                realm.add(item(1, id: existing))
                // A later invalid operation must not hide the earlier duplicate.
                realm.add(Dog(), update: .modified)
            }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.message.contains("existing primary key value '\(existing)'"))
        }
        #expect(realm.objects(Item.self).count == 1)
    }

    @Test func queriesReadsAndWritesInsideTheWriteSeeBufferedRows() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        var kept: [Item] = []
        try realm.write {
            for i in 0..<100 {
                let it = item(i)
                realm.add(it)
                if i % 10 == 0 { kept.append(it) }
            }
            #expect(realm.objects(Item.self).count == 100)
            #expect(realm.objects(Item.self).filter("complexity >= 90").count == 10)
            #expect(realm.object(ofType: Item.self, forPrimaryKey: kept[3]._id)?.itemName == "item 30")
            #expect(realm.objects(Item.self).map(\.complexity) == Array(0..<100))
            kept[1].complexity = 1000
            #expect(realm.objects(Item.self).filter("complexity == 1000").count == 1)
            realm.delete(kept[2])
            #expect(realm.objects(Item.self).count == 99)
            for i in 100..<130 { realm.add(item(i)) }
            realm.add(kept[0])  // already managed: no-op
        }
        #expect(realm.objects(Item.self).count == 129)
        #expect(kept[1].complexity == 1000)
        #expect(kept[2].isInvalidated)
        #expect(realm.objects(Item.self).sorted(byKeyPath: "complexity").last?.complexity == 1000)
        #expect(kept[0].realm != nil && !kept[0].isInvalidated)
    }

    @Test func cancelledWriteDiscardsBufferedRows() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write { for i in 0..<5 { realm.add(item(i)) } }
        realm.beginWrite()
        var added: [Item] = []
        for i in 0..<70 {
            let it = item(i)
            realm.add(it)
            added.append(it)
        }
        realm.cancelWrite()
        #expect(realm.objects(Item.self).count == 5)
        #expect(added[0].isInvalidated && added[69].isInvalidated)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try realm.write {
                for i in 0..<10 { realm.add(item(i)) }
                throw Failure()
            }
        }
        try realm.write { for i in 0..<70 { realm.add(item(i)) } }
        #expect(realm.objects(Item.self).count == 75)
    }

    @Test func interleavedClassesAndReusedRowids() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        try realm.write {
            for i in 0..<100 {
                realm.add(item(i))
                let person = Person()
                person.name = "p\(i)"
                person.employeeId = i
                realm.add(person)
                let dog = Dog()
                dog.name = "d\(i)"
                dog.age = i
                realm.add(dog)
            }
        }
        #expect(realm.objects(Item.self).count == 100)
        #expect(realm.objects(Person.self).count == 100)
        #expect(realm.objects(Dog.self).filter("age >= 50").count == 50)

        // Deleting the last row then adding: the old object stays deleted, the new one is live.
        let last = realm.objects(Dog.self).sorted(byKeyPath: "age").last!
        let replacement = Dog()
        replacement.name = "new"
        try realm.write {
            realm.delete(last)
            realm.add(replacement)
            #expect(replacement.name == "new")
        }
        #expect(last.isInvalidated)
        #expect(!replacement.isInvalidated && replacement.name == "new")
        #expect(realm.objects(Dog.self).filter("name == 'new'").count == 1)
    }

    /// The same through the general insert path (a class with collections and links): the new object used to get
    /// the deleted object's row, so it was born invalidated ("Can't delete an object that has been deleted").
    @Test func reusedRowidThroughTheGeneralInsertPath() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let first = Owner()
        first.id = 1
        first.scores.append(1)
        let last = Owner()
        last.id = 2
        try realm.write {
            realm.add(first)
            realm.add(last)
        }
        let replacement = Owner()
        replacement.id = 3
        replacement.scores.append(3)
        try realm.write {
            realm.delete(last)
            realm.add(replacement)
            #expect(!replacement.isInvalidated)
            #expect(Array(replacement.scores) == [3])
            realm.delete(replacement)
        }
        #expect(last.isInvalidated && replacement.isInvalidated)
        #expect(realm.objects(Owner.self).map(\.id) == [1])

        let again = Owner()
        again.id = 4
        try realm.write { realm.add(again) }
        #expect(last.isInvalidated, "the deleted object does not come back as the one that reused its rowid")
        #expect(again.id == 4 && realm.objects(Owner.self).map(\.id).sorted() == [1, 4])
    }

    /// Another instance (another thread, or the sync session applying a download) deletes the last object and
    /// adds one that reuses its rowid: an accessor of the deleted object here is invalidated, it does not turn into
    /// the new object.
    @Test func accessorOfAnObjectDeletedElsewhereDoesNotBecomeTheObjectThatReusedItsRowid() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let configuration = dir.configuration()
        let realm = try Realm(configuration: configuration)
        let first = Owner()
        first.id = 1
        let last = Owner()
        last.id = 2
        last.name = "last"
        try realm.write {
            realm.add(first)
            realm.add(last)
        }
        #expect(last.name == "last")
        let queue = DispatchQueue(label: "other")
        try queue.sync {
            let other = try Realm(configuration: configuration, queue: queue)
            try other.write {
                other.delete(other.object(ofType: Owner.self, forPrimaryKey: 2)!)
                let replacement = Owner()
                replacement.id = 3
                replacement.name = "replacement"
                other.add(replacement)
            }
        }
        realm.refresh()
        #expect(last.isInvalidated)
        #expect(realm.objects(Owner.self).map(\.id).sorted() == [1, 3])
        #expect(realm.object(ofType: Owner.self, forPrimaryKey: 3)?.name == "replacement")
    }

    @Test func otherInstancesSeeCommittedRows() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration())
        let other = try Realm(configuration: dir.configuration())
        #expect(other.objects(Item.self).isEmpty)
        try realm.write { for i in 0..<150 { realm.add(item(i)) } }
        other.refresh()
        #expect(other.objects(Item.self).count == 150)
        #expect(other.objects(Item.self).filter("complexity == 149").first?.itemName == "item 149")
    }
}
