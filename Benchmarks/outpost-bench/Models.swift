import Foundation
import Outpost

/// The benchmark object: an ObjectId key, two strings, an int and an optional date.
final class BenchPerson: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var email: String
    @Persisted var age: Int
    @Persisted var born: Date?
}

/// Pre-generated input, so generation is not timed.
struct BenchData {
    let ids: [ObjectId]
    let names: [String]
    let emails: [String]
    let ages: [Int]
    let dates: [Date?]

    init(count: Int) {
        var generator = SplitMix(seed: 42)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        ids = (0..<count).map { _ in ObjectId.generate() }
        names = (0..<count).map { i in String(letters[Int(generator.next() % 26)]) + "name\(i)" }
        emails = (0..<count).map { "user\($0)@example.com" }
        ages = (0..<count).map { _ in Int(generator.next() % 100) }
        dates = (0..<count).map { i in i % 3 == 0 ? nil : Date(timeIntervalSince1970: Double(i)) }
    }

    /// The `i`th person, unmanaged.
    func person(_ i: Int) -> BenchPerson {
        let p = BenchPerson()
        p._id = ids[i]
        p.name = names[i]
        p.email = emails[i]
        p.age = ages[i]
        p.born = dates[i]
        return p
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
