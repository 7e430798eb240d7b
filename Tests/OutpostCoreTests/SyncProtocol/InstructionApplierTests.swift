import OutpostCore
import Testing

@Suite struct InstructionApplierTests {
    let pk = Value.int(1)

    @Test func createSetAndErase() {
        let created = InstructionApplier.apply([.create(className: "A", primaryKey: pk, fields: ["x": .int(1)])], to: nil)
        #expect(created.document == ["_id": pk, "x": .int(1)])
        #expect(created.changedFields == ["_id", "x"])
        let updated = InstructionApplier.apply([.set(className: "A", primaryKey: pk, field: "x", value: .int(2))], to: created.document)
        #expect(updated.document?["x"] == .int(2))
        #expect(updated.changedFields == ["x"])
        let erased = InstructionApplier.apply([.erase(className: "A", primaryKey: pk)], to: updated.document)
        #expect(erased.document == nil)
    }

    /// A lone create of a new object (the fast path) gives what the general path gives: the primary key wins over
    /// an `_id` among the fields, and every field counts as changed.
    @Test func aLoneCreateMatchesTheGeneralPath() {
        for fields: Document in [["x": .int(1)], ["_id": pk, "x": .int(1)], ["_id": .int(9), "x": .int(1)], [:]] {
            let create = SyncInstruction.create(className: "A", primaryKey: pk, fields: fields)
            let alone = InstructionApplier.apply([create], to: nil)
            // With a second instruction (a `set` of `_id`, which changes nothing) the general loop runs.
            let general = InstructionApplier.apply([create, .set(className: "A", primaryKey: pk, field: "_id", value: .int(5))], to: nil)
            #expect(alone == general, "\(fields)")
            #expect(alone.document?["_id"] == pk)
            #expect(alone.changedFields == Set(alone.document?.fields.keys ?? [:].keys))
        }
    }

    /// `applySorted` (the server's integration) gives `apply`'s document and its changed fields in name order, on
    /// the lone-create path and the general one.
    @Test func applySortedMatchesApply() {
        let existing: Document = ["_id": pk, "b": .int(1), "a": .int(2), "c": .int(3)]
        let cases: [([SyncInstruction], Document?)] = [
            ([.create(className: "A", primaryKey: pk, fields: ["z": .int(1), "b": .int(2), "m": .int(3)])], nil),
            ([.create(className: "A", primaryKey: pk, fields: ["_id": .int(9), "y": .int(1)])], nil),
            ([.create(className: "A", primaryKey: pk, fields: [:])], nil),
            ([.create(className: "A", primaryKey: pk, fields: ["a": .int(5)])], existing),
            ([.set(className: "A", primaryKey: pk, field: "c", value: .int(0)),
              .set(className: "A", primaryKey: pk, field: "a", value: .int(0))], existing),
            ([.erase(className: "A", primaryKey: pk)], existing),
            ([.set(className: "A", primaryKey: pk, field: "x", value: .int(2))], nil),
        ]
        for (instructions, document) in cases {
            let outcome = InstructionApplier.apply(instructions, to: document)
            let sorted = InstructionApplier.applySorted(instructions, to: document)
            #expect(sorted.document == outcome.document, "\(instructions)")
            #expect(sorted.changedFields == outcome.changedFields.sorted(), "\(instructions)")
        }
    }

    @Test func deleteWins() {
        let outcome = InstructionApplier.apply([.set(className: "A", primaryKey: pk, field: "x", value: .int(2))], to: nil)
        #expect(outcome.document == nil)
        #expect(outcome.changedFields.isEmpty)
    }

    @Test func primaryKeyCannotBeChanged() {
        let doc: Document = ["_id": pk]
        let outcome = InstructionApplier.apply([.set(className: "A", primaryKey: pk, field: "_id", value: .int(9))], to: doc)
        #expect(outcome.document == doc)
    }

    @Test func listOperationsClampAndIgnoreOutOfRange() {
        var doc: Document? = ["_id": pk, "l": .array([.int(1), .int(2)])]
        doc = InstructionApplier.apply([
            .listInsert(className: "A", primaryKey: pk, field: "l", index: 99, value: .int(3)),
            .listSet(className: "A", primaryKey: pk, field: "l", index: 50, value: .int(0)),
            .listErase(className: "A", primaryKey: pk, field: "l", index: 50),
            .listMove(className: "A", primaryKey: pk, field: "l", from: 0, to: 99),
        ], to: doc).document
        #expect(doc?["l"] == .array([.int(2), .int(3), .int(1)]))
    }

    @Test func setsAndMaps() {
        var doc: Document? = ["_id": pk]
        doc = InstructionApplier.apply([
            .setAdd(className: "A", primaryKey: pk, field: "s", value: .int(1)),
            .setAdd(className: "A", primaryKey: pk, field: "s", value: .int(1)),
            .setAdd(className: "A", primaryKey: pk, field: "s", value: .int(2)),
            .setRemove(className: "A", primaryKey: pk, field: "s", value: .int(1)),
            .mapSet(className: "A", primaryKey: pk, field: "m", key: "a", value: .int(1)),
            .mapSet(className: "A", primaryKey: pk, field: "m", key: "b", value: .int(2)),
            .mapErase(className: "A", primaryKey: pk, field: "m", key: "a"),
        ], to: doc).document
        #expect(doc?["s"] == .array([.int(2)]))
        #expect(doc?["m"] == .document(["b": .int(2)]))
        doc = InstructionApplier.apply([.clear(className: "A", primaryKey: pk, field: "m"),
                                        .clear(className: "A", primaryKey: pk, field: "s")], to: doc).document
        #expect(doc?["m"] == .document([:]))
        #expect(doc?["s"] == .array([]))
    }

    /// Two clients append to the same list concurrently (each at index 1, the length it saw); the server applies
    /// B's then A's on its current value, so both survive.
    @Test func concurrentAppendsBothSurvive() {
        let start: Document = ["_id": pk, "l": .array([.string("x")])]
        let fromA: [SyncInstruction] = [.listInsert(className: "A", primaryKey: pk, field: "l", index: 1, value: .string("a"))]
        let fromB: [SyncInstruction] = [.listInsert(className: "A", primaryKey: pk, field: "l", index: 1, value: .string("b"))]
        let server = InstructionApplier.apply(fromA, to: InstructionApplier.apply(fromB, to: start).document).document
        #expect(server?["l"] == .array([.string("x"), .string("a"), .string("b")]))
    }
}
