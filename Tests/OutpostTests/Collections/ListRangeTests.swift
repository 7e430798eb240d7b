import Foundation
import Outpost
import OutpostTesting
import Testing

/// `List`'s range and offset edits, on a managed list (one write each) and an unmanaged one, with the same results.
@Suite struct ListRangeTests {
    let dir = TemporaryDirectory()

    /// Runs `edit` on a managed and an unmanaged `[0, 1, 2, 3, 4]` and returns both results.
    func both(_ edit: (List<Int>) -> Void) throws -> (managed: [Int], unmanaged: [Int]) {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [CQDog.self, CQOwner.self]))
        let owner = CQOwner()
        owner.id = Int.random(in: 1...Int.max)
        owner.ints.append(objectsIn: 0..<5)
        try realm.write { realm.add(owner) }
        try realm.write { edit(owner.ints) }
        let loose = List<Int>()
        loose.append(objectsIn: 0..<5)
        edit(loose)
        return (Array(owner.ints), Array(loose))
    }

    func expectBoth(_ edit: (List<Int>) -> Void, _ expected: [Int], sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let (managed, unmanaged) = try both(edit)
        #expect(managed == expected, sourceLocation: sourceLocation)
        #expect(unmanaged == expected, sourceLocation: sourceLocation)
    }

    @Test func rangeEdits() throws {
        defer { dir.remove() }
        try expectBoth({ $0.removeFirst() }, [1, 2, 3, 4])
        try expectBoth({ $0.removeFirst(2) }, [2, 3, 4])
        try expectBoth({ $0.removeLast() }, [0, 1, 2, 3])
        try expectBoth({ $0.removeLast(5) }, [])
        try expectBoth({ $0.insert(contentsOf: [7, 8], at: 1) }, [0, 7, 8, 1, 2, 3, 4])
        try expectBoth({ $0.insert(contentsOf: [9], at: 5) }, [0, 1, 2, 3, 4, 9])
        try expectBoth({ $0.replaceSubrange(1..<3, with: [9]) }, [0, 9, 3, 4])
        try expectBoth({ $0.replaceSubrange(3..., with: [6, 7, 8]) }, [0, 1, 2, 6, 7, 8])
        try expectBoth({ $0.removeSubrange(...1) }, [2, 3, 4])
        try expectBoth({ $0.remove(atOffsets: [0, 2, 4]) }, [1, 3])
    }

    /// SwiftUI's `onMove`: the moved elements keep their order and land before what was at `destination`.
    @Test func moveFromOffsets() throws {
        defer { dir.remove() }
        try expectBoth({ $0.move(fromOffsets: [0], toOffset: 3) }, [1, 2, 0, 3, 4])
        try expectBoth({ $0.move(fromOffsets: [4], toOffset: 0) }, [4, 0, 1, 2, 3])
        try expectBoth({ $0.move(fromOffsets: [0, 1], toOffset: 4) }, [2, 3, 0, 1, 4])
        try expectBoth({ $0.move(fromOffsets: [1, 3], toOffset: 5) }, [0, 2, 4, 1, 3])
        try expectBoth({ $0.move(fromOffsets: [2], toOffset: 2) }, [0, 1, 2, 3, 4])
    }

    @Test func managedEditsOfObjectsNotifyOnce() throws {
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [CQDog.self, CQOwner.self]))
        let owner = CQOwner()
        try realm.write {
            realm.add(owner)
            owner.dogs.append(objectsIn: ["a", "b", "c"].map { CQDog($0, age: 1) })
        }
        try realm.write { owner.dogs.move(fromOffsets: [2], toOffset: 0) }
        #expect(owner.dogs.map(\.name) == ["c", "a", "b"])
        try realm.write { owner.dogs.replaceSubrange(0..<1, with: [CQDog("d", age: 2)]) }
        #expect(owner.dogs.map(\.name) == ["d", "a", "b"])
        #expect(realm.objects(CQDog.self).count == 4)  // the replaced object stays in the Realm, as in Realm
    }

    @Test func removingMoreThanTheListHoldsTrapsWithRealmsText() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2])
            list.removeFirst(3)
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("It is not possible to remove more objects (3) from a list than it already contains (2)."))
        }
    }
}
