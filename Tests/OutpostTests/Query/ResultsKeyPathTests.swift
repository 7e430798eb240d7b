import Foundation
import Outpost
import OutpostTesting
import Testing

@Suite struct ResultsKeyPathTests {
    @Test func sortedAndDistinctByKeyPath() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let owners = fixture.realm.objects(Owner.self)
        #expect(owners.sorted(by: \.age).map(\.id) == [2, 1, 3])
        #expect(owners.sorted(by: \.age, ascending: false).map(\.id) == [3, 1, 2])
        #expect(owners.sorted(by: \.nickname).map(\.id) == [2, 1, 3])
        #expect(owners.sorted(by: [SortDescriptor(keyPath: \Owner.flag, ascending: false),
                                   SortDescriptor(keyPath: \Owner.age)]).map(\.id) == [1, 3, 2])
        #expect(SortDescriptor(keyPath: \Owner.address?.city).keyPath == "address.city")
        // Descending, the owner without an address comes first (realm-core puts broken links first descending).
        #expect(owners.sorted(by: [SortDescriptor(keyPath: \Owner.address?.city, ascending: false)]).map(\.id).prefix(2)
            == [3, 2])
        #expect(owners.distinct(by: [\Owner.flag]).count == 2)
        #expect(owners.distinct(by: [\Owner.flag, \Owner.mood]).count == 3)
        #expect(owners.where { $0.age > 25 }.sorted(by: \.name, ascending: false).map(\.id) == [3, 1])
    }

    @Test func aggregatesByKeyPath() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let owners = fixture.realm.objects(Owner.self)
        #expect(owners.min(of: \.age) == 20)
        #expect(owners.max(of: \.age) == 45)
        #expect(owners.sum(of: \.age) == 95)
        #expect(owners.average(of: \.age) == 31)  // 95 / 3, truncated to an Int
        #expect(owners.average(of: \.ratio) == 0)
        #expect(owners.max(of: \.weight) == 70)
        #expect(owners.sum(of: \.balance) == Decimal128(0))
        let dogs = fixture.realm.objects(Dog.self)
        #expect(dogs.average(of: \.age) == 3)
        #expect(dogs.where { $0.age > 100 }.min(of: \.age) == nil)
        #expect(dogs.where { $0.age > 100 }.sum(of: \.age) == 0)
    }

    @Test func observeResultsByKeyPath() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let realm = fixture.realm
        var modifications: [[Int]] = []
        var initial = false
        let token = realm.objects(Owner.self).sorted(by: \.id).observe(keyPaths: [\Owner.age]) { change in
            switch change {
            case .initial: initial = true
            case .update(_, _, _, let modified): modifications.append(modified)
            case .error: break
            }
        }
        defer { token.invalidate() }
        #expect(spinRunLoop { initial })
        try realm.write { realm.objects(Owner.self).where { $0.id == 2 }.first!.name = "Robert" }
        try realm.write { realm.objects(Owner.self).where { $0.id == 3 }.first!.age = 46 }
        #expect(spinRunLoop { !modifications.isEmpty })
        #expect(modifications == [[2]])
    }

    @Test func observeObjectByKeyPath() throws {
        let fixture = try QueryFixture()
        defer { fixture.remove() }
        let realm = fixture.realm
        let ann = try #require(realm.objects(Owner.self).where { $0.id == 1 }.first)
        var changed: [String] = []
        let token = ann.observe(keyPaths: [\Owner.age]) { (change: ObjectChange<Owner>) in
            if case .change(_, let properties) = change { changed += properties.map(\.name) }
        }
        defer { token.invalidate() }
        try realm.write { ann.name = "Anna" }
        try realm.write { ann.age = 31 }
        #expect(spinRunLoop { !changed.isEmpty })
        #expect(changed == ["age"])
    }
}
