import Foundation
import Outpost
import OutpostTesting
import Testing

final class ProjectionAddress: EmbeddedObject {
    @Persisted var city: String
    @Persisted var country: String
}

final class ProjectionPet: Object {
    @Persisted var name: String
}

final class ProjectionPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var nickname: String
    @Persisted var birthday: Date
    @Persisted var address: ProjectionAddress?
    @Persisted var friends: List<ProjectionPerson>
    @Persisted var pets: MutableSet<ProjectionPet>
    @Persisted var mood: AnyRealmValue
}

/// A projected `AnyRealmValue`.
final class ProjectedMood: Projection<ProjectionPerson> {
    @Projected(\ProjectionPerson.mood) var mood
}

/// Realm's kinds of projected property: passthrough, a value computed from one, a key path through a link, and
/// collections of objects mapped to a property of their elements. `nickname` is not projected.
final class ProjectedPerson: Projection<ProjectionPerson> {
    @Projected(\ProjectionPerson.firstName) var firstName
    @Projected(\ProjectionPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\ProjectionPerson.birthday.timeIntervalSince1970) var birthdayAsEpochtime
    @Projected(\ProjectionPerson.address?.city) var homeCity
    @Projected(\ProjectionPerson.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
    @Projected(\ProjectionPerson.pets.projectTo.name) var petNames: ProjectedCollection<String>
}

extension ProjectedPerson {
    /// A computed property of the projection: sectioning by it sorts by `firstName`.
    var initial: String { String(firstName.prefix(1)) }
}

/// Two projected properties from one root property.
final class ProjectedPersonName: Projection<ProjectionPerson> {
    @Projected(\ProjectionPerson.firstName) var name
    @Projected(\ProjectionPerson.firstName.count) var nameLength
}

/// John Snow (id 1, of Winterfell, with Ghost) and Daenerys Targaryen (id 2), each the other's friend.
struct ProjectionFixture {
    let directory = TemporaryDirectory()
    let configuration: Realm.Configuration
    let realm: Realm

    init() throws {
        configuration = directory.configuration(
            objectTypes: [ProjectionPerson.self, ProjectionAddress.self, ProjectionPet.self])
        realm = try Realm(configuration: configuration)
        try realm.write {
            let john = realm.create(ProjectionPerson.self, value: [
                "id": 1, "firstName": "John", "lastName": "Snow", "birthday": Date(timeIntervalSince1970: 10),
                "address": ["city": "Winterfell", "country": "North"],
            ])
            let dany = realm.create(ProjectionPerson.self, value: [
                "id": 2, "firstName": "Daenerys", "lastName": "Targaryen", "birthday": Date(timeIntervalSince1970: 0),
            ])
            john.friends.append(dany)
            dany.friends.append(john)
            john.pets.insert(realm.create(ProjectionPet.self, value: ["name": "Ghost"]))
        }
    }

    var john: ProjectionPerson { realm.object(ofType: ProjectionPerson.self, forPrimaryKey: 1)! }
    var dany: ProjectionPerson { realm.object(ofType: ProjectionPerson.self, forPrimaryKey: 2)! }

    func remove() { directory.remove() }

    /// Runs `body` on a new thread and waits for it.
    static func onNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        done.wait()
    }
}

/// What a projection observer saw, as text: `"name: old -> new"` per property of each change, or `"deleted"`.
final class ProjectionChangeLog {
    var entries: [[String]] = []

    func record<P>(_ change: ObjectChange<P>) {
        switch change {
        case .change(_, let properties):
            entries.append(properties.map { "\($0.name): \(Self.text($0.oldValue)) -> \(Self.text($0.newValue))" })
        case .deleted:
            entries.append(["deleted"])
        case .error(let error):
            entries.append(["error: \(error)"])
        }
    }

    static func text(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let string = value as? String { return string }
        if let strings = value as? ProjectedCollection<String> { return "[" + strings.joined(separator: ", ") + "]" }
        return "\(value)"
    }

    /// Lets observers run for a while, for asserting that nothing came.
    func settle() { spinRunLoop(timeout: 0.2) { false } }
}

@Suite struct ProjectionTests {
    @Test func projectedPropertiesReadThroughTheRootObject() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let john = ProjectedPerson(projecting: f.john)
        #expect(john.rootObject.id == 1)
        #expect(john.firstName == "John")
        #expect(john.lastNameCaps == "SNOW")
        #expect(john.birthdayAsEpochtime == 10)
        #expect(john.homeCity == "Winterfell")
        #expect(Array(john.firstFriendsName) == ["Daenerys"])
        #expect(Array(john.petNames) == ["Ghost"])
        #expect(ProjectedPerson(projecting: f.dany).homeCity == nil)
        #expect(john.realm != nil && !john.isInvalidated && !john.isFrozen)
        // The root key paths behind the projection's (Realm's `_name(for:)`).
        #expect(_name(for: \ProjectedPerson.homeCity) == "address.city")
        #expect(_name(for: \ProjectedPerson.lastNameCaps) == "lastName")
        #expect(_name(for: \ProjectedPerson.firstFriendsName) == "friends")
    }

    @Test func projectedCollectionsReadAPropertyOfTheElements() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        try f.realm.write {
            let tyrion = f.realm.create(ProjectionPerson.self, value: ["id": 3, "firstName": "Tyrion"])
            f.john.friends.append(tyrion)
        }
        let names = ProjectedPerson(projecting: f.john).firstFriendsName
        #expect(names.count == 2 && !names.isEmpty)
        #expect(names[0] == "Daenerys" && names[1] == "Tyrion")
        #expect(names.first == "Daenerys" && names.last == "Tyrion")
        #expect(names.index(of: "Tyrion") == 1 && names.index(of: "Nobody") == nil)
        var iterated: [String] = []
        for name in names { iterated.append(name) }
        #expect(iterated == ["Daenerys", "Tyrion"])
        #expect(names.filter { $0.hasPrefix("T") } == ["Tyrion"])
        #expect(names.description == "ProjectedCollection<String> {\n\t[0] Daenerys\n\t[1] Tyrion\n}")
        #expect(names.realm != nil && !names.isInvalidated && !names.isFrozen)
        try f.realm.write { f.realm.delete(f.john) }
        #expect(names.isInvalidated)
    }

    @Test func writesGoThroughTheRootObject() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let john = ProjectedPerson(projecting: f.john)
        try f.realm.write {
            john.firstName = "Jon"
            john.firstFriendsName[0] = "Dany"
        }
        #expect(f.john.firstName == "Jon")
        #expect(john.firstName == "Jon")
        #expect(f.dany.firstName == "Dany")
        #expect(Array(john.firstFriendsName) == ["Dany"])
    }

    @Test func resultsOfProjectionsQueryAndSortTheRootClass() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let people = f.realm.objects(ProjectedPerson.self)
        #expect(people.count == 2)
        let snow = try #require(people.filter("lastName == 'Snow'").first)
        #expect(snow.firstName == "John" && snow.firstFriendsName.first == "Daenerys")
        #expect(people.filter("firstName BEGINSWITH 'D'").count == 1)
        #expect(people.sorted(byKeyPath: "firstName").map(\.firstName) == ["Daenerys", "John"])
        #expect(people.sorted(byKeyPath: "birthday", ascending: false).first?.firstName == "John")
        let byNameDescending = people.sorted(by: \ProjectedPerson.firstName, ascending: false)
        #expect(byNameDescending.map(\.firstName) == ["John", "Daenerys"])
        #expect(people.sorted(by: \ProjectedPerson.lastNameCaps).last?.lastNameCaps == "TARGARYEN")
        var iterated: [String] = []
        for person in people { iterated.append(person.lastNameCaps) }
        #expect(iterated.sorted() == ["SNOW", "TARGARYEN"])
        #expect(people.index(of: snow) == people.firstIndex { $0.lastNameCaps == "SNOW" })
        #expect(people.index(of: ProjectedPerson(projecting: ProjectionPerson())) == nil)
        #expect(people[0] == people.first && people[1] == people.last)
        let frozen = people.freeze()
        #expect(frozen.isFrozen && frozen.first?.isFrozen == true)

        var counts: [Int] = []
        let token = people.observe { change in
            switch change {
            case .initial(let results): counts.append(results.count)
            case .update(let results, _, _, _): counts.append(results.count)
            case .error: break
            }
        }
        defer { token.invalidate() }
        #expect(spinRunLoop { counts == [2] })
        try f.realm.write { f.realm.create(ProjectionPerson.self, value: ["id": 3, "firstName": "Tyrion"]) }
        #expect(spinRunLoop { counts == [2, 3] })
    }

    @Test func projectionsAreEqualWhenTheyProjectTheSameObject() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let john = ProjectedPerson(projecting: f.john)
        let johnFromResults = try #require(f.realm.objects(ProjectedPerson.self).filter("id == 1").first)
        let dany = ProjectedPerson(projecting: f.dany)
        #expect(john == johnFromResults)
        #expect(john.hashValue == johnFromResults.hashValue)
        #expect(john != dany)
        #expect(Set([john, johnFromResults, dany]).count == 2)
        let unmanaged = ProjectionPerson()
        #expect(ProjectedPerson(projecting: unmanaged) == ProjectedPerson(projecting: unmanaged))
        #expect(ProjectedPerson(projecting: unmanaged) != ProjectedPerson(projecting: ProjectionPerson()))
    }

    /// Projections section by a key path as objects do: sorted by the root property it reads (a computed property of
    /// the projection included), a section per key; with descriptors, the first must be that property.
    @Test func projectionsSectionByTheirRootProperty() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let projections = f.realm.objects(ProjectedPerson.self)
        let ascending = projections.sectioned(by: \.initial)
        #expect(ascending.map(\.key) == ["D", "J"])
        #expect(ascending[0].map(\.firstName) == ["Daenerys"])
        #expect(projections.sectioned(by: \.initial, ascending: false).map(\.key) == ["J", "D"])
        let described = projections.sectioned(by: \.firstName, sortDescriptors: [SortDescriptor(keyPath: "firstName")])
        #expect(described.map(\.key) == ["Daenerys", "John"])
        let frozen = projections.freeze().sectioned(by: \.initial)
        #expect(frozen.isFrozen && frozen.count == 2)
    }

    @Test func descriptionListsEachPropertyWithItsRootKeyPath() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let text = ProjectedPerson(projecting: f.john).description
        #expect(text.hasPrefix("ProjectedPerson<ProjectionPerson> <0x"))
        #expect(text.contains("> {\n\t\tfirstName(\\.firstName) = John;\n\tlastNameCaps(\\.lastName) = SNOW;\n"))
        #expect(text.contains("\n\tbirthdayAsEpochtime(\\.birthday) = 10.0;\n"))
        #expect(text.contains("\n\thomeCity(\\.address.city) = Optional(\"Winterfell\");\n"))
        #expect(text.contains("\n\tfirstFriendsName(\\.friends) = ProjectedCollection<String> {\n\t[0] Daenerys\n};\n"))
        #expect(text.hasSuffix("\n\tpetNames(\\.pets) = ProjectedCollection<String> {\n\t[0] Ghost\n};\n}"))
    }

    @Test func observersGetTheProjectedPropertyNames() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let john = ProjectedPerson(projecting: f.john)
        let log = ProjectionChangeLog()
        var observed: [ProjectedPerson] = []
        let token = john.observe { change in
            if case .change(let projection, _) = change { observed.append(projection) }
            log.record(change)
        }
        defer { token.invalidate() }
        try f.realm.write { f.john.lastName = "Stark" }
        #expect(spinRunLoop { log.entries.count == 1 })
        // A commit of this thread: no old values, as for objects.
        #expect(log.entries.last == ["lastNameCaps: nil -> STARK"])
        #expect(observed.allSatisfy { $0 === john })
        // A projected collection reports the elements' mapped property, not their other ones.
        try f.realm.write { f.dany.firstName = "Dany" }
        #expect(spinRunLoop { log.entries.count == 2 })
        #expect(log.entries.last == ["firstFriendsName: nil -> [Dany]"])
        try f.realm.write {
            f.dany.lastName = "Stormborn"
            f.john.nickname = "Lord Snow"
        }
        log.settle()
        #expect(log.entries.count == 2)
        try f.realm.write { f.john.address?.city = "Castle Black" }
        #expect(spinRunLoop { log.entries.count == 3 })
        #expect(log.entries.last == ["homeCity: nil -> Castle Black"])
        try f.realm.write { f.realm.delete(f.john) }
        #expect(spinRunLoop { log.entries.count == 4 })
        #expect(log.entries.last == ["deleted"])
    }

    @Test func observersCanSelectProjectedProperties() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let john = ProjectedPerson(projecting: f.john)
        let byKeyPath = ProjectionChangeLog()
        let byName = ProjectionChangeLog()
        let byRootKeyPath = ProjectionChangeLog()
        let tokens = [
            john.observe(keyPaths: [\ProjectedPerson.homeCity]) { byKeyPath.record($0) },
            john.observe(keyPaths: ["homeCity"]) { byName.record($0) },
            john.observe(keyPaths: ["address.city"]) { byRootKeyPath.record($0) },
        ]
        defer { tokens.forEach { $0.invalidate() } }
        try f.realm.write { f.john.firstName = "Jon" }
        try f.realm.write { f.john.address?.city = "Castle Black" }
        #expect(spinRunLoop { [byKeyPath, byName, byRootKeyPath].allSatisfy { !$0.entries.isEmpty } })
        byKeyPath.settle()
        for log in [byKeyPath, byName, byRootKeyPath] {
            #expect(log.entries == [["homeCity: nil -> Castle Black"]])
        }
    }

    @Test func changesFromAnotherThreadHaveProjectedOldValues() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let john = ProjectedPerson(projecting: f.john)
        let log = ProjectionChangeLog()
        let token = john.observe(keyPaths: [\ProjectedPerson.lastNameCaps, \ProjectedPerson.firstName]) {
            log.record($0)
        }
        defer { token.invalidate() }
        let configuration = f.configuration
        ProjectionFixture.onNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let john = realm.object(ofType: ProjectionPerson.self, forPrimaryKey: 1)!
                john.firstName = "Jon"
                john.lastName = "Stark"
            }
        }
        #expect(spinRunLoop { !log.entries.isEmpty })
        #expect(log.entries == [["firstName: John -> Jon", "lastNameCaps: SNOW -> STARK"]])
    }

    /// The old value of a projected `AnyRealmValue` is the `AnyRealmValue` (the root's change gives what it holds).
    @Test func changesFromAnotherThreadHaveMixedOldValues() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        try f.realm.write { f.john.mood = .int(20) }
        let mood = ProjectedMood(projecting: f.john)
        var changes: [(old: AnyRealmValue?, new: AnyRealmValue?)] = []
        let token = mood.observe { (change: ObjectChange<ProjectedMood>) in
            if case .change(_, let properties) = change {
                changes += properties.map { ($0.oldValue as? AnyRealmValue, $0.newValue as? AnyRealmValue) }
            }
        }
        defer { token.invalidate() }
        let configuration = f.configuration
        ProjectionFixture.onNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.object(ofType: ProjectionPerson.self, forPrimaryKey: 1)!.mood = .string("calm") }
        }
        #expect(spinRunLoop { !changes.isEmpty })
        #expect(changes.count == 1 && changes.first?.old == .int(20) && changes.first?.new == .string("calm"))
    }

    @Test func everyPropertyProjectedFromAChangedPropertyIsReported() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let name = ProjectedPersonName(projecting: f.john)
        #expect(name.name == "John" && name.nameLength == 4)
        let log = ProjectionChangeLog()
        let token = name.observe { log.record($0) }
        defer { token.invalidate() }
        try f.realm.write { f.john.firstName = "Jon" }
        #expect(spinRunLoop { !log.entries.isEmpty })
        #expect(log.entries == [["name: nil -> Jon", "nameLength: nil -> 3"]])
    }

    @Test func projectedCollectionsAreObserved() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let names = ProjectedPerson(projecting: f.john).firstFriendsName
        var seen: [[String]] = []
        let token = names.observe { change in
            switch change {
            case .initial(let names): seen.append(Array(names))
            case .update(let names, _, _, _): seen.append(Array(names))
            case .error: break
            }
        }
        defer { token.invalidate() }
        #expect(spinRunLoop { seen == [["Daenerys"]] })
        try f.realm.write {
            f.john.friends.append(f.realm.create(ProjectionPerson.self, value: ["id": 3, "firstName": "Tyrion"]))
        }
        #expect(spinRunLoop { seen == [["Daenerys"], ["Daenerys", "Tyrion"]] })
    }

    @Test func frozenProjectionsKeepTheirVersion() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let john = ProjectedPerson(projecting: f.john)
        let frozen = john.freeze()
        #expect(frozen.isFrozen && !john.isFrozen)
        #expect(frozen.realm?.isFrozen == true)
        #expect(frozen.firstFriendsName.isFrozen && !john.firstFriendsName.isFrozen)
        #expect(john.firstFriendsName.freeze().isFrozen)
        #expect(frozen == frozen.freeze() && frozen == john.freeze())
        #expect(frozen != john)
        try f.realm.write { john.firstName = "Jon" }
        #expect(frozen.firstName == "John" && john.firstName == "Jon")
        nonisolated(unsafe) let carried = frozen
        ProjectionFixture.onNewThread {
            #expect(carried.firstName == "John")
            #expect(Array(carried.firstFriendsName) == ["Daenerys"])
        }
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.firstName == "Jon" && thawed == john)
        #expect(john.thaw() == john)
    }

    @Test func threadSafeReferencesAndWrappersResolveToProjections() throws {
        let f = try ProjectionFixture()
        defer { f.remove() }
        let reference = ThreadSafeReference(to: ProjectedPerson(projecting: f.john))
        let configuration = f.configuration
        ProjectionFixture.onNewThread {
            let realm = try! Realm(configuration: configuration)
            let john = realm.resolve(reference)
            #expect(john?.firstName == "John")
            #expect(john?.firstFriendsName.first == "Daenerys")
            #expect(john?.realm?.isFrozen == false)
        }
        let wrapper = ThreadSafe(wrappedValue: ProjectedPerson(projecting: f.dany))
        ProjectionFixture.onNewThread {
            #expect(wrapper.wrappedValue?.firstName == "Daenerys")
        }
    }
}
