import Foundation
import Outpost

// Versions of the same Realm class across schema migrations: different Swift classes that share a
// class name. Every test uses its own class names, so tests running in parallel do not interfere.

// MARK: Rename

final class RenameV1: Object {
    override class func className() -> String { "MigRename" }
    @Persisted var name: String
    @Persisted var yearsSinceBirth: Int
}

final class RenameV2: Object {
    override class func className() -> String { "MigRename" }
    @Persisted var name: String
    @Persisted var age: Int
}

// MARK: Type change

final class TypeV1: Object {
    override class func className() -> String { "MigType" }
    @Persisted var name: String
    @Persisted var age: Int
}

final class TypeV2: Object {
    override class func className() -> String { "MigType" }
    @Persisted var name: String
    @Persisted var age: String
}

// MARK: Removed and added properties

final class ShapeV1: Object {
    override class func className() -> String { "MigShape" }
    @Persisted var name: String
    @Persisted var nickname: String
    @Persisted var age: Int
}

final class ShapeV2: Object {
    override class func className() -> String { "MigShape" }
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var score: Int
    @Persisted var note: String?
}

// MARK: Additive changes without a version bump

final class AddV1: Object {
    override class func className() -> String { "MigAdd" }
    @Persisted var name: String
}

final class AddV2: Object {
    override class func className() -> String { "MigAdd" }
    @Persisted var name: String
    @Persisted var count: Int
    @Persisted var note: String?
    @Persisted var tags: List<String>
    @Persisted var when: Date
}

final class AddExtra: Object {
    override class func className() -> String { "MigAddExtra" }
    @Persisted var title: String
}

// MARK: deleteRealmIfMigrationNeeded, read-only, versions

final class ResetV1: Object {
    override class func className() -> String { "MigReset" }
    @Persisted var value: Int
}

final class ResetV2: Object {
    override class func className() -> String { "MigReset" }
    @Persisted var value: String
}

// MARK: deleteData

final class KeepV1: Object {
    override class func className() -> String { "MigKeep" }
    @Persisted var name: String
}

final class KeepV2: Object {
    override class func className() -> String { "MigKeep" }
    @Persisted var name: String
    @Persisted var rank: Int
}

final class GoneV1: Object {
    override class func className() -> String { "MigGone" }
    @Persisted var name: String
}

// MARK: create and delete

final class CrowdV1: Object {
    override class func className() -> String { "MigCrowd" }
    @Persisted var name: String
    @Persisted var age: Int
}

final class CrowdV2: Object {
    override class func className() -> String { "MigCrowd" }
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var adult: Bool
}

// MARK: enumerate with old and new values, links

final class WalkDogV1: Object {
    override class func className() -> String { "MigWalkDog" }
    @Persisted var name: String
    @Persisted var age: Int
}

final class WalkOwnerV1: Object {
    override class func className() -> String { "MigWalkOwner" }
    @Persisted var firstName: String
    @Persisted var lastName: String
    @Persisted var dog: WalkDogV1?
    @Persisted var dogs: List<WalkDogV1>
    @Persisted var scores: List<Int>
    @Persisted var born: Date?
    @Persisted var token: ObjectId
}

final class WalkDogV2: Object {
    override class func className() -> String { "MigWalkDog" }
    @Persisted var name: String
    @Persisted var age: String
}

final class WalkOwnerV2: Object {
    override class func className() -> String { "MigWalkOwner" }
    @Persisted var fullName: String
    @Persisted var dog: WalkDogV2?
    @Persisted var dogs: List<WalkDogV2>
    @Persisted var scores: List<Int>
    @Persisted var born: Date?
    @Persisted var token: ObjectId
}

// MARK: Failures

final class FailV1: Object {
    override class func className() -> String { "MigFail" }
    @Persisted var name: String
    @Persisted var age: Int
}

final class FailV2: Object {
    override class func className() -> String { "MigFail" }
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var nickname: String
}

// MARK: Primary keys

final class KeyV1: Object {
    override class func className() -> String { "MigKey" }
    @Persisted var code: Int
    @Persisted var name: String
}

final class KeyV2: Object {
    override class func className() -> String { "MigKey" }
    @Persisted(primaryKey: true) var code: Int
    @Persisted var name: String
}

// MARK: Optional to required

final class RequiredV1: Object {
    override class func className() -> String { "MigRequired" }
    @Persisted var nick: String?
    @Persisted var level: Int?
}

final class RequiredV2: Object {
    override class func className() -> String { "MigRequired" }
    @Persisted var nick: String
    @Persisted var level: Int
}

// MARK: Collections and AnyRealmValue through dynamic objects

final class BagTagV1: Object {
    override class func className() -> String { "MigBagTag" }
    @Persisted var label: String
}

final class BagV1: Object {
    override class func className() -> String { "MigBag" }
    @Persisted var tags: List<String>
    @Persisted var prices: Map<String, Double>
    @Persisted var anything: AnyRealmValue
    @Persisted var level: Int
}

final class BagV2: Object {
    override class func className() -> String { "MigBag" }
    @Persisted var tags: List<String>
    @Persisted var prices: Map<String, Double>
    @Persisted var anything: AnyRealmValue
    @Persisted var level: String
    @Persisted var labels: MutableSet<String>
}
