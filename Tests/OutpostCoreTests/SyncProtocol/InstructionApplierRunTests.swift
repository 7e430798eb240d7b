import OutpostCore
import OutpostCoreTesting
import Testing

/// Applying a whole object's instructions at once (in place, runs of set operations through an index of the
/// members) gives what applying them one at a time gives, and large collections are built in linear time.
@Suite struct InstructionApplierRunTests {
    let pk = Value.int(1)

    /// Random mixes of list, set, map and field operations on a few fields (some holding the wrong kind of value,
    /// a set holding equal items twice, NaN members), applied at once and one by one.
    @Test(arguments: 0..<40) func wholeInstructionListsApplyAsOneByOne(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let values: [Value] = [.int(1), .int(2), .int(3), .string("a"), .string("b"), .double(.nan), .null, .int(2)]
        let start: Document = [
            "_id": pk, "s": .array([.int(1), .string("a")]), "l": .array([.int(7)]),
            "dup": .array([.int(2), .int(2)]), "wrong": .int(5), "m": .document(["k": .int(1)]),
        ]
        let fields = ["s", "l", "dup", "wrong", "m", "new"]
        var instructions: [SyncInstruction] = []
        for _ in 0..<Int.random(in: 1...60, using: &random) {
            let field = fields.randomElement(using: &random)!
            let value = values.randomElement(using: &random)!
            let index = Int.random(in: 0...4, using: &random)
            switch Int.random(in: 0..<12, using: &random) {
            case 0...3: instructions.append(.setAdd(className: "A", primaryKey: pk, field: field, value: value))
            case 4...5: instructions.append(.setRemove(className: "A", primaryKey: pk, field: field, value: value))
            case 6: instructions.append(.listInsert(className: "A", primaryKey: pk, field: field, index: index, value: value))
            case 7: instructions.append(.listErase(className: "A", primaryKey: pk, field: field, index: index))
            case 8: instructions.append(.listMove(className: "A", primaryKey: pk, field: field, from: index, to: 4 - index))
            case 9: instructions.append(.mapSet(className: "A", primaryKey: pk, field: field, key: "k\(index)", value: value))
            case 10: instructions.append(.clear(className: "A", primaryKey: pk, field: field))
            default: instructions.append(.set(className: "A", primaryKey: pk, field: field, value: value))
            }
        }
        var oneByOne: Document? = start
        for instruction in instructions { oneByOne = InstructionApplier.apply([instruction], to: oneByOne).document }
        let atOnce = InstructionApplier.apply(instructions, to: start)
        // NaN is never equal to itself, so documents holding it are compared through their text.
        #expect(atOnce.document?.extendedJSONText == oneByOne?.extendedJSONText, "seed \(seed): \(instructions)")
        #expect(atOnce.changedFields == InstructionApplier.changedFields(from: start, to: oneByOne), "seed \(seed)")
    }

    /// A transaction that fills a list and a set with 50,000 items each, and then removes half of the set. Applied
    /// one instruction at a time copying the collection, this took minutes; each item now costs a constant.
    @Test func largeListsAndSetsAreBuiltInPlace() {
        let count = 50_000
        var instructions: [SyncInstruction] = []
        instructions.reserveCapacity(count * 3)
        for i in 0..<count {
            instructions.append(.listInsert(className: "A", primaryKey: pk, field: "l", index: i, value: .int(Int64(i))))
        }
        for i in 0..<count { instructions.append(.setAdd(className: "A", primaryKey: pk, field: "s", value: .int(Int64(i)))) }
        for i in stride(from: 0, to: count, by: 2) {
            instructions.append(.setRemove(className: "A", primaryKey: pk, field: "s", value: .int(Int64(i))))
        }
        let outcome = InstructionApplier.apply(instructions, to: ["_id": pk])
        #expect(outcome.document?["l"] == .array((0..<count).map { .int(Int64($0)) }))
        #expect(outcome.document?["s"] == .array(stride(from: 1, to: count, by: 2).map { .int(Int64($0)) }))
        #expect(outcome.changedFields == ["l", "s"])
    }

    /// A removed member added again goes to the end, as one-by-one application puts it.
    @Test func aMemberRemovedAndAddedAgainMovesToTheEnd() {
        let instructions: [SyncInstruction] = [
            .setAdd(className: "A", primaryKey: pk, field: "s", value: .int(1)),
            .setAdd(className: "A", primaryKey: pk, field: "s", value: .int(2)),
            .setRemove(className: "A", primaryKey: pk, field: "s", value: .int(1)),
            .setAdd(className: "A", primaryKey: pk, field: "s", value: .int(1)),
            .setAdd(className: "A", primaryKey: pk, field: "s", value: .int(2)),
        ]
        #expect(InstructionApplier.apply(instructions, to: ["_id": pk]).document?["s"] == .array([.int(2), .int(1)]))
    }
}
