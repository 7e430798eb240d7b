/// Applies uploaded instructions to documents: the one definition of what each operation means, used by the
/// server when it integrates a changeset (and by tests of convergence).
///
/// Objects are documents whose `_id` field is the primary key. Instructions on a missing object other than
/// `create` are ignored (a delete wins over concurrent updates). Collection operations on a field that holds no
/// collection of the right kind start from an empty one.
public enum InstructionApplier {
    /// The result of applying instructions to one object.
    public struct Outcome: Hashable, Sendable {
        /// The document afterwards; nil when it does not exist (never existed, or erased).
        public var document: Document?
        /// The top-level fields whose value changed (all fields for a newly created object).
        public var changedFields: Set<String>
    }

    /// Applies `instructions` (all for the same object, in order) to `document`.
    ///
    /// Every instruction changes the document in place, and a run of set additions and removals on one field is
    /// applied with an index of the set's members: a transaction that appends n items to a list or adds n members
    /// to a set costs O(n), not O(n²) (each instruction used to copy the whole collection, and each addition to
    /// look through it).
    public static func apply(_ instructions: [SyncInstruction], to document: Document?) -> Outcome {
        if document == nil, let created = newObject(instructions) {
            return Outcome(document: created, changedFields: Set(created.fields.keys))
        }
        var doc = document
        var i = instructions.startIndex
        while i < instructions.endIndex {
            if let field = setOperationField(instructions[i]), doc != nil, field != "_id" {
                var end = i + 1
                while end < instructions.endIndex, setOperationField(instructions[end]) == field { end += 1 }
                if end - i > 1 {
                    applySetRun(instructions[i..<end], field: field, to: &doc!)
                    i = end
                    continue
                }
            }
            apply(instructions[i], to: &doc)
            i += 1
        }
        return Outcome(document: doc, changedFields: changedFields(from: document, to: doc))
    }

    /// ``apply(_:to:)`` with the changed fields sorted, as the server's integration keeps them. The usual upload of
    /// a new object takes its field names straight from the document, without a set in between.
    package static func applySorted(_ instructions: [SyncInstruction], to document: Document?)
        -> (document: Document?, changedFields: [String])
    {
        if document == nil, let created = newObject(instructions) { return (created, created.sortedKeys) }
        let outcome = apply(instructions, to: document)
        return (outcome.document, outcome.changedFields.sorted())
    }

    /// The usual upload of a new object, a lone `create`: its fields are the document (with the primary key as
    /// `_id`). nil for any other instructions.
    private static func newObject(_ instructions: [SyncInstruction]) -> Document? {
        guard instructions.count == 1, case .create(_, let pk, var fields) = instructions[0] else { return nil }
        if fields["_id"] != pk { fields["_id"] = pk }
        return fields
    }

    /// The top-level fields that differ between two states of an object.
    public static func changedFields(from before: Document?, to after: Document?) -> Set<String> {
        guard let after else { return [] }
        guard let before else { return Set(after.fields.keys) }
        var changed = Set<String>()
        for (key, value) in after.fields where before.fields[key] != value { changed.insert(key) }
        for key in before.fields.keys where after.fields[key] == nil { changed.insert(key) }
        return changed
    }

    static func apply(_ instruction: SyncInstruction, to document: Document?) -> Document? {
        var doc = document
        apply(instruction, to: &doc)
        return doc
    }

    /// Applies one instruction in place. The field a collection operation changes is taken out of the document
    /// while it is changed, so the collection is not shared and is changed without a copy.
    private static func apply(_ instruction: SyncInstruction, to document: inout Document?) {
        switch instruction {
        case .create(_, let pk, let fields):
            if document == nil { document = Document(["_id": pk]) }
            for (key, value) in fields.fields where key != "_id" { document![key] = value }
            return
        case .erase:
            document = nil
            return
        default:
            break
        }
        guard document != nil, let field = instruction.field, field != "_id" else { return }
        switch instruction {
        case .set(_, _, _, let value):
            document![field] = value
        case .listInsert(_, _, _, let index, let value):
            withArray(field, in: &document!) { $0.insert(value, at: min(index, $0.count)) }
        case .listSet(_, _, _, let index, let value):
            withArray(field, in: &document!) { if index < $0.count { $0[index] = value } }
        case .listErase(_, _, _, let index):
            withArray(field, in: &document!) { if index < $0.count { $0.remove(at: index) } }
        case .listMove(_, _, _, let from, let to):
            withArray(field, in: &document!) { list in
                guard !list.isEmpty else { return }
                let item = list.remove(at: min(from, list.count - 1))
                list.insert(item, at: min(to, list.count))
            }
        case .clear:
            if case .document = document![field] { document![field] = .document([:]) } else { document![field] = .array([]) }
        case .setAdd(_, _, _, let value):
            withArray(field, in: &document!) { if !$0.contains(value) { $0.append(value) } }
        case .setRemove(_, _, _, let value):
            withArray(field, in: &document!) { $0.removeAll { $0 == value } }
        case .mapSet(_, _, _, let key, let value):
            withDocument(field, in: &document!) { $0[key] = value }
        case .mapErase(_, _, _, let key):
            withDocument(field, in: &document!) { $0[key] = nil }
        case .create, .erase:
            break
        }
    }

    /// The field of a set addition or removal; nil for any other instruction.
    private static func setOperationField(_ instruction: SyncInstruction) -> String? {
        switch instruction {
        case .setAdd(_, _, let field, _), .setRemove(_, _, let field, _): field
        default: nil
        }
    }

    /// A run of `setAdd` and `setRemove` instructions on one field, with the same outcome as applying them one by
    /// one: members keep their order, an addition of a member is ignored, a removal takes out the member equal to
    /// the value. Removed members are left as holes until the run ends; the members' positions are looked up by
    /// hash. A field holding equal items twice (not a set written by Outpost) takes the one-by-one path.
    private static func applySetRun(_ run: ArraySlice<SyncInstruction>, field: String, to document: inout Document) {
        var items: [Value?] = []
        var position: [Value: Int] = [:]
        if case .array(let list)? = document.fields.removeValue(forKey: field) {
            items = list
            position.reserveCapacity(list.count + run.count)
            for (index, item) in list.enumerated() {
                guard position.updateValue(index, forKey: item) == nil else {
                    document[field] = .array(list)
                    var oneByOne: Document? = document
                    for instruction in run { apply(instruction, to: &oneByOne) }
                    document = oneByOne!
                    return
                }
            }
        }
        for instruction in run {
            switch instruction {
            case .setAdd(_, _, _, let value):
                guard position[value] == nil else { continue }
                position[value] = items.count
                items.append(value)
            case .setRemove(_, _, _, let value):
                if let index = position.removeValue(forKey: value) { items[index] = nil }
            default:
                preconditionFailure("a set run holds set additions and removals only")
            }
        }
        document[field] = .array(items.compactMap { $0 })
    }

    /// Changes the list or set in `field` (an empty one when the field holds none) without copying it.
    private static func withArray(_ field: String, in document: inout Document, _ change: (inout [Value]) -> Void) {
        var list: [Value] = []
        if case .array(let items)? = document.fields.removeValue(forKey: field) { list = items }
        change(&list)
        document.fields[field] = .array(list)
    }

    /// Changes the map or embedded object in `field` (an empty one when the field holds none) without copying it.
    private static func withDocument(_ field: String, in document: inout Document, _ change: (inout Document) -> Void) {
        var map = Document()
        if case .document(let inner)? = document.fields.removeValue(forKey: field) { map = inner }
        change(&map)
        document.fields[field] = .document(map)
    }
}
