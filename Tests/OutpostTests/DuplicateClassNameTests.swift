import Foundation
import Testing

@testable import Outpost
import OutpostTesting

final class DupNameA: Object {
    override class func className() -> String { "DupName" }
    @Persisted var a: String
}

final class DupNameB: Object {
    override class func className() -> String { "DupName" }
    @Persisted var b: Int
}

final class DupNameHolder: Object {
    @Persisted var target: DupNameB?
}

/// Two classes of one Realm class name (two modules' `Dog`, two versions of a migrated model) in one schema.
@Suite struct DuplicateClassNameTests {
    /// Listed together, they are refused when the Realm opens, naming both classes, and the file gets no table.
    @Test func twoClassesOfOneNameAreRefusedAtOpen() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var configuration = dir.configuration()
        configuration.objectTypes = [DupNameA.self, DupNameB.self]
        do {
            _ = try Realm(configuration: configuration)
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("Object type 'DupName' is defined by more than one class"))
            #expect(error.message.contains("DupNameA") && error.message.contains("DupNameB"))
        }
        configuration.objectTypes = [DupNameA.self]
        let realm = try Realm(configuration: configuration)
        #expect(realm.schema.objectSchema.map(\.className) == ["DupName"])
        #expect(realm.schema["DupName"]?.allProperties.map(\.name) == ["a"])
    }

    /// A linked class is listed with the class linking to it: the same clash, refused.
    @Test func aLinkedClassClashesWithAListedOne() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        var configuration = dir.configuration()
        configuration.objectTypes = [DupNameA.self, DupNameHolder.self]
        #expect(throws: Realm.Error.self) { _ = try Realm(configuration: configuration) }
    }

    /// In the default schema (the classes seen so far, whichever of a name was seen last) the class a link needs
    /// is kept over the other; where nothing decides, the clash is refused.
    @Test func theDefaultSchemaKeepsTheClassALinkNeeds() throws {
        let registry = ObjectSchemaRegistry.shared
        let kept = try registry.schemaClosure(of: [DupNameA.self, DupNameHolder.self], preferLinked: true)
        #expect(Set(kept.map(ObjectIdentifier.init)) == [ObjectIdentifier(DupNameHolder.self), ObjectIdentifier(DupNameB.self)])
        #expect(throws: Realm.Error.self) {
            _ = try registry.schemaClosure(of: [DupNameA.self, DupNameB.self], preferLinked: true)
        }
    }
}
