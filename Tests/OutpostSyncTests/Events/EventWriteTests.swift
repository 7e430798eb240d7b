import Foundation
import Testing
@testable import Outpost

@Suite(.timeLimit(.minutes(3))) struct EventWriteTests {
    private func person(_ id: Int, _ name: String, _ age: Int) -> String {
        #"{"_id":\#(id),"age":\#(age),"flag":false,"name":"\#(name)"}"#
    }

    @Test func writeEventsPerTransactionWithChangedFieldsOnly() async throws {
        let realm = try await Realm(configuration: try localEventConfiguration(types: [EvPerson.self]))
        let events = try #require(realm.events)
        let scope = events.beginScope(activity: "writes")
        try realm.write { realm.add(EvPerson(1, "Fred", 30)) }
        let fred = try #require(realm.object(ofType: EvPerson.self, forPrimaryKey: 1))
        try realm.write {
            fred.age = 31
            fred.flag = false  // same value: touched, not reported
        }
        try realm.write {}  // an empty transaction gives no event
        try realm.write { realm.delete(fred) }
        try await scope.commit()
        let stored = try storedEvents(realm)
        #expect(stored.map(\.event) == ["write", "read", "write", "write"])
        #expect(stored.map(\.activity) == Array(repeating: "writes", count: 4))
        #expect(try storedData(realm) == [
            #"{"EvPerson":{"insertions":[\#(person(1, "Fred", 30))]}}"#,
            #"{"type":"EvPerson","value":[\#(person(1, "Fred", 30))]}"#,
            #"{"EvPerson":{"modifications":[{"newValue":{"age":31},"oldValue":\#(person(1, "Fred", 30))}]}}"#,
            #"{"EvPerson":{"deletions":[\#(person(1, "Fred", 31))]}}"#,
        ])
        #expect(stored.allSatisfy { $0.timestamp.timeIntervalSinceNow < 1 && $0.timestamp.timeIntervalSinceNow > -60 })
    }

    @Test func nettingWithinOneTransaction() async throws {
        let realm = try await Realm(configuration: try localEventConfiguration(types: [EvPerson.self]))
        try realm.write {
            realm.add(EvPerson(1, "A", 1))
            realm.add(EvPerson(2, "B", 2))
        }
        let scope = realm.events!.beginScope(activity: "mixed")
        try realm.write {
            let a = realm.object(ofType: EvPerson.self, forPrimaryKey: 1)!
            a.age = 100
            realm.delete(a)  // modify + delete → deletion with the values from before the transaction
            let c = EvPerson(3, "C", 3)
            realm.add(c)
            c.age = 33  // insert + modify → insertion with the final values
            let d = EvPerson(4, "D", 4)
            realm.add(d)
            realm.delete(d)  // insert + delete → nothing
            realm.object(ofType: EvPerson.self, forPrimaryKey: 2)!.name = "B2"
        }
        try realm.write {
            let e = EvPerson(5, "E", 5)
            realm.add(e)
            realm.delete(e)  // a transaction that nets to nothing stores no event
        }
        try await scope.commit()
        let writes = try storedEvents(realm).filter { $0.event == "write" }.map(\.data)
        #expect(writes == [
            #"{"EvPerson":{"deletions":[\#(person(1, "A", 1))],"insertions":[\#(person(3, "C", 33))],"#
                + #""modifications":[{"newValue":{"name":"B2"},"oldValue":\#(person(2, "B", 2))}]}}"#,
        ])
    }

    @Test func everyPropertyTypeSerializes() async throws {
        let realm = try await Realm(configuration: try localEventConfiguration(types: [EvPerson.self, EvAllTypes.self, EvEmbedded.self]))
        let uuid = UUID(uuidString: "00000000-0000-0000-0000-0000000000AB")!
        let oid = try ObjectId(string: "000000000000000000000001")
        try realm.write { realm.add(EvPerson(7, "P", 1)) }
        let scope = realm.events!.beginScope(activity: "types")
        try realm.write {
            let object = EvAllTypes()
            object._id = 2
            object.bool = true
            object.int = 1
            object.float = 1.1
            object.double = 2.2
            object.string = "abc"
            object.data = Data([1, 2, 3])
            object.date = Date(timeIntervalSince1970: 123.4567)
            object.decimal = Decimal128(15)
            object.objectId = oid
            object.uuid = uuid
            object.intList.append(objectsIn: [1, 2, 3])
            object.stringSet.insert("s")
            object.intMap["a"] = 1
            object.link = realm.object(ofType: EvPerson.self, forPrimaryKey: 7)
            object.linkList.append(realm.object(ofType: EvPerson.self, forPrimaryKey: 7)!)
            object.embedded = EvEmbedded(4)
            object.embeddedList.append(EvEmbedded(5))
            realm.add(object)
        }
        try await scope.commit()
        let data = try storedEvents(realm).filter { $0.event == "write" }.map(\.data)
        let expected = #"{"EvAllTypes":{"insertions":[{"_id":2,"bool":true,"date":"1970-01-01T00:02:03.456Z","#
            + #""decimal":"15","double":2.2,"embedded":{"value":4},"embeddedList":[{"value":5}],"#
            + #""float":1.100000023841858,"int":1,"intList":[1,2,3],"intMap":{"a":1},"link":7,"#
            + #""linkList":[7],"objectId":"000000000000000000000001","optionalData":null,"optionalString":null,"#
            + #""string":"abc","stringSet":["s"],"uuid":"00000000-0000-0000-0000-0000000000ab"}]}}"#
        #expect(data == [expected])
    }

    @Test func invalidCustomJSONFailsOnlyThatScope() async throws {
        let realm = try await Realm(configuration: try localEventConfiguration(types: [Person.self]))
        let events = realm.events!
        let good = events.beginScope(activity: "good")
        try realm.write { realm.add(Person(name: "A", employeeId: 2)) }
        try await good.commit()
        let bad = events.beginScope(activity: "bad")
        try realm.write { realm.add(Person(name: "B", employeeId: 0)) }
        _ = realm.objects(Person.self).first
        await #expect {
            try await bad.commit()
        } throws: { error in
            "\(error)".contains("json.exception.parse_error") && "\(error)".contains("Person")
        }
        let after = events.beginScope(activity: "after")
        try realm.write { realm.add(Person(name: "C", employeeId: 3)) }
        try await after.commit()
        let stored = try storedEvents(realm)
        #expect(stored.map(\.activity) == ["good", "after"])
        #expect(stored.map(\.data) == [#"{"Person":{"insertions":[{"int":2}]}}"#, #"{"Person":{"insertions":[{"int":3}]}}"#])
    }
}
