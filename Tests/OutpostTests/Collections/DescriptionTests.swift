import Foundation
import Outpost
import OutpostTesting
import Testing

/// `description` of objects and collections in Realm's format (Realm's tests compare it with the address masked).
@Suite struct DescriptionTests {
    let dir = TemporaryDirectory()

    /// The text with every `<0x…>` address made `<0x0>`.
    func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #"<0x[0-9a-f]+>"#, with: "<0x0>", options: .regularExpression)
    }

    @Test func objectsAndCollectionsPrintTheirElements() throws {
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: ThreadingFixture.types))
        let person = TSPerson(id: 1, name: "ann")
        let dog = TSDog()
        dog.name = "rex"
        dog.age = 3
        person.dogs.append(dog)
        person.scores["a"] = 1
        try realm.write { realm.add(person) }

        #expect(dog.description == "TSDog {\n\tname = rex;\n\tage = 3;\n}")
        #expect(masked(realm.objects(TSDog.self).description)
            == "Results<TSDog> <0x0> (\n\t[0] TSDog {\n\t\tname = rex;\n\t\tage = 3;\n\t}\n)")
        #expect(masked(person.dogs.description)
            == "List<TSDog> <0x0> (\n\t[0] TSDog {\n\t\tname = rex;\n\t\tage = 3;\n\t}\n)")
        #expect(masked(AnyRealmCollection(person.dogs).description).hasPrefix("AnyRealmCollection<TSDog> <0x0> (\n\t[0] TSDog {"))
        #expect(masked(dog.owners.description).hasPrefix("LinkingObjects<TSPerson> <0x0> (\n\t[0] TSPerson {\n\t\tid = 1;"))
        #expect(masked(person.scores.description) == "Map<string, int> <0x0> (\n[a]: 1\n)")
        #expect(masked(person.tags.description) == "MutableSet<string> <0x0> (\n\n)")
        // An object prints its collections nested, a tab further in.
        #expect(masked(person.description).contains("\tdogs = List<TSDog> <0x0> (\n\t\t[0] TSDog {\n\t\t\tname = rex;"))
        #expect(masked(person.description).contains("\tscores = Map<string, int> <0x0> (\n\t[a]: 1\n\t);"))

        let values = List<Int>()
        values.append(objectsIn: 0..<102)
        let text = masked(values.description)
        #expect(text.hasPrefix("List<int> <0x0> (\n\t[0] 0,\n\t[1] 1,\n"))
        #expect(text.hasSuffix("\t[99] 99\n\t... 2 objects skipped.\n)"))
        let optional = List<String?>()
        optional.append(objectsIn: ["a", nil])
        #expect(masked(optional.description) == "List<string> <0x0> (\n\t[0] a,\n\t[1] (null)\n)")
    }
}
