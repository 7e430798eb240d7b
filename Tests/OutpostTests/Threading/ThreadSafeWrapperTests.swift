import Foundation
import Outpost
import OutpostTesting
import Testing

/// `@ThreadSafe`: a managed value read on any thread resolves there; nil once deleted.
@Suite struct ThreadSafeWrapperTests {
    let dir = TemporaryDirectory()

    @Test func aWrappedObjectAndResultsAreReadOnOtherThreads() throws {
        defer { dir.remove() }
        let realm = try Realm(configuration: dir.configuration(objectTypes: [CQDog.self, CQOwner.self]))
        try realm.write {
            realm.create(CQDog.self, value: ["name": "rex", "age": 3])
            realm.create(CQDog.self, value: ["name": "ace", "age": 9])
        }
        @ThreadSafe var dog = realm.objects(CQDog.self).filter("name == 'rex'").first
        @ThreadSafe var old = realm.objects(CQDog.self).filter("age > 5")
        let read = DispatchQueue(label: "other").sync { (dog?.name, old?.map(\.name)) }
        #expect(read.0 == "rex")
        #expect(read.1 == ["ace"])
        // Read again (each read resolves anew), then after the object is gone.
        #expect(DispatchQueue(label: "again").sync { dog?.age } == 3)
        try realm.write { realm.delete(realm.objects(CQDog.self).filter("name == 'rex'")) }
        #expect(DispatchQueue(label: "deleted").sync { dog == nil })
        dog = nil
        #expect(dog == nil)
    }

    @Test func wrappingAnUnmanagedObjectTrapsWithRealmsText() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            @ThreadSafe var dog = CQDog("loose", age: 1) as CQDog?
            _ = dog
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self)
                .contains("Only managed objects may be wrapped as thread safe."))
        }
    }
}
