import Foundation
import Outpost

/// An object with a property that is not `@Persisted`, to show that querying it traps.
final class QBNote: Object {
    @Persisted var text: String
    var scratch = ""
}

enum QBLevel: Int, PersistableEnum {
    case low = 1, medium = 2, high = 3
}

/// An object with an enum stored as an integer, for ordering on raw values.
final class QBTask: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var level: QBLevel = .low
    @Persisted var optionalLevel: QBLevel?
    @Persisted var mood: QBMood = .calm
}

/// An enum stored as a string: it orders by its raw values' bytes.
enum QBMood: String, PersistableEnum {
    case angry, calm, happy
}
