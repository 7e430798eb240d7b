import Foundation
import Outpost
import OutpostTesting
import Testing

/// Any managed object can be observed, embedded objects included (Realm declares `observe` on `ObjectBase`).
@Suite struct EmbeddedObjectObserveTests {
    @Test func anEmbeddedObjectReportsItsChangesAndDeletion() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [Owner.self, Dog.self, Address.self]))
        let owner = Owner()
        owner.id = 1
        owner.address = Address(value: ["city": "Lyon"])
        try realm.write { realm.add(owner) }
        let address = try #require(owner.address)
        var seen: [String] = []
        let token = address.observe(keyPaths: [\Address.city]) { (change: ObjectChange<Address>) in
            switch change {
            case .change(let object, let properties):
                seen.append("\(object.city): " + properties.map(\.name).joined(separator: ","))
            case .deleted: seen.append("deleted")
            case .error(let error): seen.append("\(error)")
            }
        }
        defer { token.invalidate() }
        try realm.write { address.street = "Rue A" }  // not a watched key path
        try realm.write { address.city = "Paris" }
        #expect(spinRunLoop { seen.count == 1 })
        try realm.write { owner.address = nil }  // an embedded object goes with its parent's link
        #expect(spinRunLoop { seen.count == 2 })
        #expect(seen == ["Paris: city", "deleted"])
    }
}
