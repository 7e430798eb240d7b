import Foundation
import Outpost

// A tour of the local database with the seed page's `Item` model: open, write, query (string and
// type-safe), observe, update, and see a bad write rejected as a whole.
//
//     swift run outpost-demo [path]

final class Item: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var ownerId: String
    @Persisted var itemName: String
    @Persisted var complexity: Int
}

let path = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1]
    : NSTemporaryDirectory() + "outpost-demo-\(getpid()).realm"
let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Item.self])
let realm = try Realm(configuration: configuration)
print("Opened \(path)")

let simple = realm.objects(Item.self).where { $0.complexity <= 4 }
let token = simple.observe { change in
    switch change {
    case .initial(let items): print("observe: \(items.count) simple item(s) at first")
    case .update(let items, let deletions, let insertions, let modifications):
        print("observe: now \(items.count) simple item(s); deleted \(deletions), inserted \(insertions), modified \(modifications)")
    case .error(let error): print("observe: \(error)")
    }
}
RunLoop.current.run(until: Date().addingTimeInterval(0.05))

let learn = Item()
learn.ownerId = "demo-user"
learn.itemName = "Learn Realm CRUD stuff"
learn.complexity = 3
let fix = Item()
fix.ownerId = "demo-user"
fix.itemName = "Fix the bug with the failing method"
fix.complexity = 7
try realm.write {
    realm.add(learn)
    realm.add(fix)
}
RunLoop.current.run(until: Date().addingTimeInterval(0.05))

print("all items: \(realm.objects(Item.self).count)")
print("complexity <= 4 (type-safe): \(simple.map(\.itemName))")
print("itemName CONTAINS[c] 'bug' (string): \(realm.objects(Item.self).filter("itemName CONTAINS[c] %@", "BUG").map(\.itemName))")

try realm.write { fix.complexity = 2 }
RunLoop.current.run(until: Date().addingTimeInterval(0.05))
print("after lowering the bug's complexity: \(simple.count) simple item(s)")

do {
    try realm.write {
        let duplicate = Item()
        duplicate._id = learn._id
        realm.add(duplicate)
    }
} catch let error as Realm.Error {
    print("rejected write (nothing stored): \(error.message)")
}
print("still \(realm.objects(Item.self).count) items")
token.invalidate()
try? FileManager.default.removeItem(atPath: path)
