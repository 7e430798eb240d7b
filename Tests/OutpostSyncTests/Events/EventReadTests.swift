import Foundation
import Testing
@testable import Outpost

/// An object with every kind of link, for link-following read events.
final class EvLinks: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var person: EvPerson?
    @Persisted var people: List<EvPerson>
    @Persisted var peopleSet: MutableSet<EvPerson>
    @Persisted var peopleByName: Map<String, EvPerson?>
    @Persisted var next: EvLinks?
    @Persisted var any: AnyRealmValue
    @Persisted var embedded: EvEmbedded?

    convenience init(_ id: Int) {
        self.init()
        _id = id
    }
}

/// A class serialized by its own method, which follows a link while it runs.
final class EvBadge: Object, CustomEventRepresentable {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var owner: EvPerson?

    func customEventRepresentation() -> String {
        #"{"owner":"\#(owner?.name ?? "")"}"#
    }
}

/// Holds a badge.
final class EvHolder: Object {
    @Persisted(primaryKey: true) var _id: Int
    @Persisted var badge: EvBadge?
}

/// Read events for following links and collection elements, and link expansion (reference §2, §4.3).
@Suite(.timeLimit(.minutes(3))) struct EventReadTests {
    /// People 1 A, 2 B, 3 C; links 1 { person A, people [B, C], peopleSet [A], peopleByName {B, C}, embedded 5 }.
    private func realmWithLinks() async throws -> Realm {
        let realm = try await Realm(configuration: try localEventConfiguration(
            types: [EvPerson.self, EvLinks.self, EvEmbedded.self, EvBadge.self, EvHolder.self]))
        try realm.write {
            let people = [(1, "A"), (2, "B"), (3, "C")].map { EvPerson($0.0, $0.1, $0.0) }
            for person in people { realm.add(person) }
            let links = EvLinks(1)
            links.person = people[0]
            links.people.append(objectsIn: [people[1], people[2]])
            links.peopleSet.insert(people[0])
            links.peopleByName["B"] = people[1]
            links.peopleByName["C"] = people[2]
            links.embedded = EvEmbedded(5)
            realm.add(links)
        }
        return realm
    }

    private func reads(_ realm: Realm) throws -> [String] {
        try storedEvents(realm).map { "\($0.activity):\($0.data ?? "")" }
    }

    private func person(_ id: Int) -> String {
        #"{"_id":\#(id),"age":\#(id),"flag":false,"name":"\#(["A", "B", "C"][id - 1])"}"#
    }

    /// Links 1 as JSON; pass expanded values for the properties that show in full.
    private func links(person: String = "1", people: String = "[2,3]", peopleSet: String = "[1]",
                       peopleByName: String = #"{"B":2,"C":3}"#, next: String = "null", any: String = "null",
                       id: Int = 1) -> String {
        #"{"_id":\#(id),"any":\#(any),"embedded":{"value":5},"next":\#(next),"people":\#(people),"#
            + #""peopleByName":\#(peopleByName),"peopleSet":\#(peopleSet),"person":\#(person)}"#
    }

    private func read(_ type: String, _ objects: String...) -> String {
        #"{"type":"\#(type)","value":[\#(objects.joined(separator: ","))]}"#
    }

    @Test func followingAListElementExpandsTheWholeListOfTheEarlierParentRead() async throws {
        let realm = try await realmWithLinks()
        let scope = realm.events!.beginScope(activity: "s")
        _ = realm.objects(EvLinks.self).first!.people.first
        try await scope.commit()
        #expect(try reads(realm) == [
            "s:" + read("EvLinks", links(people: "[\(person(2)),\(person(3))]")),
            "s:" + read("EvPerson", person(2)),
        ])
    }

    @Test func followingAToOneLinkExpandsOnlyThatProperty() async throws {
        let realm = try await realmWithLinks()
        let scope = realm.events!.beginScope(activity: "s")
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        #expect(parent.person?.name == "A")
        _ = parent.embedded?.value  // embedded objects are never reads
        try await scope.commit()
        #expect(try reads(realm) == [
            "s:" + read("EvLinks", links(person: person(1))),
            "s:" + read("EvPerson", person(1)),
        ])
    }

    @Test func mapSubscriptAndIterationAndSetIteration() async throws {
        let realm = try await realmWithLinks()
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        let scope = realm.events!.beginScope(activity: "s")
        _ = realm.object(ofType: EvLinks.self, forPrimaryKey: 1)
        #expect(parent.peopleByName["C"]??.name == "C")
        #expect(parent.peopleByName["Z"] == nil)  // no element: no read
        #expect(parent.peopleByName.map(\.key) == ["B", "C"])  // iteration: B, C
        #expect(parent.peopleSet.map(\.name) == ["A"])
        _ = parent.peopleByName.keys  // keys and counts are not element reads
        _ = parent.peopleByName.count
        try await scope.commit()
        let byName = #"{"B":\#(person(2)),"C":\#(person(3))}"#
        #expect(try reads(realm) == [
            "s:" + read("EvLinks", links(peopleSet: "[\(person(1))]", peopleByName: byName)),
            "s:" + read("EvPerson", person(3)),
            "s:" + read("EvPerson", person(2)),
            "s:" + read("EvPerson", person(3)),
            "s:" + read("EvPerson", person(1)),
        ])
    }

    @Test func listIterationReadsEachElementAndOnlyConsecutiveDuplicatesFold() async throws {
        let realm = try await realmWithLinks()
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        let scope = realm.events!.beginScope(activity: "s")
        for _ in parent.people {}  // B, C
        _ = parent.people[1]  // C again, right after C: dropped
        _ = parent.people.last  // and again: dropped
        _ = parent.people[0]  // B: a new event (A, B, A gives 3)
        _ = parent.person
        _ = parent.person  // dropped
        try await scope.commit()
        // The parent was read before the scope: nothing to expand.
        #expect(try reads(realm) == [
            "s:" + read("EvPerson", person(2)),
            "s:" + read("EvPerson", person(3)),
            "s:" + read("EvPerson", person(2)),
            "s:" + read("EvPerson", person(1)),
        ])
    }

    @Test func noExpansionWithoutALaterAccessOfTheSameParentAndProperty() async throws {
        let realm = try await realmWithLinks()
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        let scope = realm.events!.beginScope(activity: "s")
        _ = parent.people  // a collection accessor alone reads nothing
        _ = parent.people.count
        _ = parent.person  // followed before the parent is read: no expansion
        _ = realm.object(ofType: EvLinks.self, forPrimaryKey: 1)
        try await scope.commit()
        #expect(try reads(realm) == [
            "s:" + read("EvPerson", person(1)),
            "s:" + read("EvLinks", links()),
        ])
    }

    @Test func aLinkReadJoiningAQueryLosesItsExpansion() async throws {
        let realm = try await realmWithLinks()
        let scope = realm.events!.beginScope(activity: "s")
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        _ = realm.objects(EvPerson.self).filter("age > 1").first  // query: B, C
        _ = parent.person  // A joins the query (same class and version), so it is not a link access any more
        try await scope.commit()
        #expect(try reads(realm) == [
            "s:" + read("EvLinks", links()),
            "s:" + read("EvPerson", person(1), person(2), person(3)),
        ])
    }

    @Test func followedLinksInsideExpandedObjectsExpandTooWithoutCycles() async throws {
        let realm = try await realmWithLinks()
        try realm.write {
            let first = realm.object(ofType: EvLinks.self, forPrimaryKey: 1)!
            let second = realm.create(EvLinks.self, value: ["_id": 2, "next": first])
            second.person = realm.object(ofType: EvPerson.self, forPrimaryKey: 3)
            first.next = second
        }
        let scope = realm.events!.beginScope(activity: "s")
        let first = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        let second = try #require(first.next)
        _ = second.person
        _ = second.next  // back to the first: shown as its primary key inside itself
        try await scope.commit()
        let secondPlain = #"{"_id":2,"any":null,"embedded":null,"next":1,"people":[],"peopleByName":{},"#
            + #""peopleSet":[],"person":3}"#
        let secondExpanded = secondPlain.replacingOccurrences(of: #""person":3"#, with: #""person":\#(person(3))"#)
        #expect(try reads(realm) == [
            // `next` of the first expands to the second, whose followed `person` expands in turn, and whose `next`
            // (followed too) would be the first again.
            "s:" + read("EvLinks", links(next: secondExpanded)),
            "s:" + read("EvLinks", secondExpanded.replacingOccurrences(
                of: #""next":1"#, with: #""next":\#(links(next: "2"))"#)),
            "s:" + read("EvPerson", person(3)),
            "s:" + read("EvLinks", links(next: "2")),
        ])
    }

    @Test func anyRealmValueHoldingAnObjectIsFollowedToo() async throws {
        let realm = try await realmWithLinks()
        try realm.write {
            realm.object(ofType: EvLinks.self, forPrimaryKey: 1)!.any =
                .object(realm.object(ofType: EvPerson.self, forPrimaryKey: 2)!)
        }
        let scope = realm.events!.beginScope(activity: "s")
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        _ = parent.any
        try await scope.commit()
        #expect(try reads(realm) == [
            "s:" + read("EvLinks", links(any: person(2))),
            "s:" + read("EvPerson", person(2)),
        ])
    }

    @Test func linkTrackingStartsOverInEachScopeAndNestedScopesKeepTheirOwn() async throws {
        let realm = try await realmWithLinks()
        let events = realm.events!
        let outer = events.beginScope(activity: "outer")
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        let inner = events.beginScope(activity: "inner")
        _ = parent.people[1]  // both scopes see it; only the outer one saw the parent read
        try await inner.commit()
        try await outer.commit()
        let later = events.beginScope(activity: "later")
        _ = parent.people[0]  // the parent was read in another scope
        try await later.commit()
        #expect(try reads(realm) == [
            "inner:" + read("EvPerson", person(3)),
            "outer:" + read("EvLinks", links(people: "[\(person(2)),\(person(3))]")),
            "outer:" + read("EvPerson", person(3)),
            "later:" + read("EvPerson", person(2)),
        ])
    }

    @Test func readsOutsideScopesRecordNothing() async throws {
        let realm = try await realmWithLinks()
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        _ = parent.person
        _ = parent.people.first
        for _ in parent.peopleSet {}
        _ = parent.peopleByName["B"]
        for _ in realm.objects(EvPerson.self) {}
        try await realm.events!.beginScope(activity: "empty").commit()
        #expect(try storedEvents(realm).isEmpty)
    }

    @Test func objectsCreatedInTheOpenTransactionAndDeletedTargets() async throws {
        let realm = try await realmWithLinks()
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        let scope = realm.events!.beginScope(activity: "s")
        try realm.write {
            let d = EvPerson(4, "D", 4)
            realm.add(d)
            parent.people.append(d)
            _ = parent.people[2]  // did not exist at the version read: dropped
            _ = parent.people[0]  // B: recorded
        }
        _ = realm.object(ofType: EvLinks.self, forPrimaryKey: 1)
        _ = parent.person  // A, captured now
        try realm.write { realm.delete(realm.object(ofType: EvPerson.self, forPrimaryKey: 1)!) }
        #expect(parent.person == nil)  // a null link is no read
        try await scope.commit()
        let stored = try storedEvents(realm)
        #expect(stored.map(\.event) == ["read", "write", "read", "read", "write"])
        let data = stored.map { $0.data ?? "" }
        #expect(data[0] == read("EvPerson", person(2)))
        #expect(data[2] == read("EvLinks", links(person: person(1), people: "[2,3,4]")))
        #expect(data[3] == read("EvPerson", person(1)))
        #expect(data[4].contains(#""EvPerson":{"deletions":[\#(person(1))]}"#))
    }

    @Test func resultsIterationIsOneQueryReadAndCountReadsOnlyWithDistinct() async throws {
        let realm = try await realmWithLinks()
        let scope = realm.events!.beginScope(activity: "s")
        #expect(realm.objects(EvPerson.self).map(\.name) == ["A", "B", "C"])  // a snapshot: one query read
        _ = realm.object(ofType: EvLinks.self, forPrimaryKey: 1)
        #expect(realm.objects(EvPerson.self).filter("age > 1").count == 2)  // counting a query reads nothing
        _ = realm.object(ofType: EvLinks.self, forPrimaryKey: 1)  // (dropped: same as the previous read)
        #expect(realm.objects(EvPerson.self).distinct(by: ["flag"]).count == 1)  // evaluated: a query read of A
        for _ in realm.objects(EvPerson.self).filter("age > 5") {}  // no match: nothing
        try await scope.commit()
        #expect(try reads(realm) == [
            "s:" + read("EvPerson", person(1), person(2), person(3)),
            "s:" + read("EvLinks", links()),
            "s:" + read("EvPerson", person(1)),
        ])
    }

    /// Iterating makes its objects from the rows the query read captured (read once), but not once the Realm
    /// wrote: a change made during the iteration shows in the objects produced after it.
    @Test func iterationReusesTheCapturedRowsUntilTheRealmWrites() async throws {
        let realm = try await Realm(configuration: try localEventConfiguration(types: [EvPerson.self]))
        try realm.write { for i in 0..<600 { realm.add(EvPerson(i, "p\(i)", i)) } }
        let scope = realm.events!.beginScope(activity: "s")
        var ages: [Int] = []
        for p in realm.objects(EvPerson.self).filter("age >= 0") {
            ages.append(p.name == "p\(p._id)" ? p.age : -1)
        }
        #expect(ages == Array(0..<600))
        try realm.write {
            var seen: [Int] = []
            for p in realm.objects(EvPerson.self).filter("age >= 0") {
                if p._id == 10 { realm.object(ofType: EvPerson.self, forPrimaryKey: 500)!.age = -1 }
                seen.append(p.age)
            }
            #expect(seen.count == 600 && seen[499] == 499 && seen[500] == -1 && seen[501] == 501)
        }
        try await scope.commit()
        let data = try storedData(realm)
        #expect(data.first?.hasPrefix(#"{"type":"EvPerson","value":[{"_id":0,"age":0,"flag":false,"name":"p0"}"#) == true)
        #expect(data.first?.contains(#"{"_id":599,"age":599,"flag":false,"name":"p599"}]}"#) == true)
        #expect(data.last?.contains(#""modifications":[{"newValue":{"age":-1},"oldValue":{"_id":500,"age":500"#) == true)
    }

    @Test func customRepresentationsExpandAsThemselvesAndTheirOwnReadsAreNotRecorded() async throws {
        let realm = try await realmWithLinks()
        try realm.write {
            let badge = realm.create(EvBadge.self, value: ["_id": 7])
            badge.owner = realm.object(ofType: EvPerson.self, forPrimaryKey: 1)
            realm.create(EvHolder.self, value: ["_id": 1, "badge": badge])
        }
        let scope = realm.events!.beginScope(activity: "s")
        let holder = try #require(realm.object(ofType: EvHolder.self, forPrimaryKey: 1))
        #expect(holder.badge?._id == 7)
        try await scope.commit()
        #expect(try reads(realm) == [
            #"s:{"type":"EvHolder","value":[{"_id":1,"badge":{"owner":"A"}}]}"#,
            #"s:{"type":"EvBadge","value":[{"owner":"A"}]}"#,
        ])
    }

    @Test func writeEventsKeepLinksAsPrimaryKeysAfterTheyWereFollowed() async throws {
        let realm = try await realmWithLinks()
        let scope = realm.events!.beginScope(activity: "s")
        let parent = try #require(realm.object(ofType: EvLinks.self, forPrimaryKey: 1))
        _ = parent.people.first
        try realm.write { parent.person = nil }
        try await scope.commit()
        let data = try storedData(realm)
        #expect(data.count == 3)
        #expect(data[2] == #"{"EvLinks":{"modifications":[{"newValue":{"person":null},"oldValue":\#(links())}]}}"#)
    }
}
