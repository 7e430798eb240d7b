import Foundation
import Outpost
import OutpostTesting
import Testing

@Suite struct CollectionObserveTests {
    private func settle() { spinRunLoop(timeout: 0.1) { false } }

    @Test func listOfObjects() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        try f.realm.write { ann.pets.append(objectsIn: [NPet("a"), NPet("b"), NPet("c")]) }
        var seen: [Seen] = []
        let token = ann.pets.observe { change in seen.append(Seen(change) { $0.count }) }
        defer { token.invalidate() }
        #expect(spinRunLoop { !seen.isEmpty })
        #expect(seen == [.initial(count: 3)])

        try f.realm.write { ann.pets.insert(NPet("z"), at: 0) }
        settle()
        try f.realm.write { ann.pets.remove(at: 2) }  // "b"
        settle()
        try f.realm.write { ann.pets[2].age = 9 }  // "c", in place
        settle()
        try f.realm.write { ann.pets[0] = NPet("y") }  // replaced in place
        settle()
        try f.realm.write { ann.age = 3 }  // another property of the owner: nothing
        settle()
        #expect(Array(seen.dropFirst()) == [
            .update(deletions: [], insertions: [0], modifications: []),
            .update(deletions: [2], insertions: [], modifications: []),
            .update(deletions: [], insertions: [], modifications: [2]),
            .update(deletions: [], insertions: [], modifications: [0]),
        ])
    }

    @Test func listKeyPathsAndOwnerDeletion() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        try f.realm.write { ann.pets.append(objectsIn: [NPet("a"), NPet("b")]) }
        var seen: [Seen] = []
        let pets = ann.pets
        let token = pets.observe(keyPaths: ["name"]) { change in
            switch change {
            case .initial: seen.append(.initial(count: 0))
            case .update(_, let d, let i, let m): seen.append(.update(deletions: d, insertions: i, modifications: m))
            case .error: seen.append(.error)
            }
        }
        defer { token.invalidate() }
        #expect(spinRunLoop { !seen.isEmpty })
        try f.realm.write { pets[0].age = 5 }
        settle()
        try f.realm.write { pets[1].name = "B" }
        settle()
        try f.realm.write { f.realm.delete(ann) }
        settle()
        try f.realm.write { f.realm.add(NPet("later")) }
        settle()
        #expect(Array(seen.dropFirst()) == [
            .update(deletions: [], insertions: [], modifications: [1]),
            .update(deletions: [0, 1], insertions: [], modifications: []),
        ])
        #expect(pets.isInvalidated)
    }

    /// Applies deletions (old indices) then insertions (new indices) to `old`.
    private func apply(_ change: Seen, to old: [Int], new: [Int]) -> [Int] {
        guard case .update(let deletions, let insertions, _) = change else { return old }
        var out = old
        for i in deletions.reversed() { out.remove(at: i) }
        for i in insertions { out.insert(new[i], at: i) }
        return out
    }

    @Test func listOfScalarsWithDuplicates() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        try f.realm.write { ann.scores.append(objectsIn: [1, 2, 1]) }
        var seen: [Seen] = []
        let token = ann.scores.observe { change in seen.append(Seen(change) { $0.count }) }
        defer { token.invalidate() }
        #expect(spinRunLoop { !seen.isEmpty })
        try f.realm.write { ann.scores.append(1) }
        settle()
        #expect(seen.last == .update(deletions: [], insertions: [3], modifications: []))
        try f.realm.write { ann.scores.remove(at: 0) }
        settle()
        #expect(seen.count == 3)
        // A diff of values, not Realm's operation log: any edit script that turns old into new.
        #expect(apply(seen[2], to: [1, 2, 1, 1], new: [2, 1, 1]) == [2, 1, 1])
    }

    @Test func mutableSet() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        try f.realm.write { ann.tags.insert(objectsIn: ["a", "b"]) }
        var seen: [Seen] = []
        let token = ann.tags.observe { change in seen.append(Seen(change) { $0.count }) }
        defer { token.invalidate() }
        #expect(spinRunLoop { !seen.isEmpty })
        #expect(seen == [.initial(count: 2)])
        try f.realm.write { ann.tags.insert("c") }
        settle()
        try f.realm.write { ann.tags.insert("a") }  // already there: nothing changes
        settle()
        try f.realm.write { ann.tags.remove("a") }
        settle()
        #expect(Array(seen.dropFirst()) == [
            .update(deletions: [], insertions: [2], modifications: []),
            .update(deletions: [0], insertions: [], modifications: []),
        ])
    }

    @Test func mapOfValuesAndObjects() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        try f.realm.write {
            ann.prices["a"] = 1
            ann.prices["b"] = 2
            ann.petsByName["rex"] = NPet("Rex")
        }
        var prices: [String] = []
        let t1 = ann.prices.observe { change in
            switch change {
            case .initial(let map): prices.append("initial \(map.count)")
            case .update(_, let d, let i, let m): prices.append("d\(d) i\(i) m\(m)")
            case .error: prices.append("error")
            }
        }
        defer { t1.invalidate() }
        var pets: [String] = []
        let t2 = ann.petsByName.observe { change in
            switch change {
            case .initial(let map): pets.append("initial \(map.count)")
            case .update(_, let d, let i, let m): pets.append("d\(d) i\(i) m\(m)")
            case .error: pets.append("error")
            }
        }
        defer { t2.invalidate() }
        #expect(spinRunLoop { !prices.isEmpty && !pets.isEmpty })
        try f.realm.write {
            ann.prices["a"] = 10
            ann.prices["b"] = nil
            ann.prices["c"] = 3
        }
        settle()
        try f.realm.write { ann.petsByName["rex"]??.age = 3 }
        settle()
        #expect(prices == ["initial 2", "d[\"b\"] i[\"c\"] m[\"a\"]"])
        #expect(pets == ["initial 1", "d[] i[] m[\"rex\"]"])
    }
}
