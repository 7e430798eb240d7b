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
    public static func apply(_ instructions: [SyncInstruction], to document: Document?) -> Outcome {
        if document == nil, let created = newObject(instructions) {
            return Outcome(document: created, changedFields: Set(created.fields.keys))
        }
        var doc = document
        for instruction in instructions {
            doc = apply(instruction, to: doc)
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
        switch instruction {
        case .create(_, let pk, let fields):
            var doc = document ?? Document(["_id": pk])
            for (key, value) in fields.fields where key != "_id" { doc[key] = value }
            return doc
        case .erase:
            return nil
        default:
            break
        }
        guard var doc = document, let field = instruction.field, field != "_id" else { return document }
        let current = doc[field]
        switch instruction {
        case .set(_, _, _, let value):
            doc[field] = value
        case .listInsert(_, _, _, let index, let value):
            var list = array(current)
            list.insert(value, at: min(index, list.count))
            doc[field] = .array(list)
        case .listSet(_, _, _, let index, let value):
            var list = array(current)
            if index < list.count { list[index] = value }
            doc[field] = .array(list)
        case .listErase(_, _, _, let index):
            var list = array(current)
            if index < list.count { list.remove(at: index) }
            doc[field] = .array(list)
        case .listMove(_, _, _, let from, let to):
            var list = array(current)
            if !list.isEmpty {
                let item = list.remove(at: min(from, list.count - 1))
                list.insert(item, at: min(to, list.count))
            }
            doc[field] = .array(list)
        case .clear:
            if case .document = current { doc[field] = .document([:]) } else { doc[field] = .array([]) }
        case .setAdd(_, _, _, let value):
            var set = array(current)
            if !set.contains(value) { set.append(value) }
            doc[field] = .array(set)
        case .setRemove(_, _, _, let value):
            doc[field] = .array(array(current).filter { $0 != value })
        case .mapSet(_, _, _, let key, let value):
            var map = dictionary(current)
            map[key] = value
            doc[field] = .document(map)
        case .mapErase(_, _, _, let key):
            var map = dictionary(current)
            map[key] = nil
            doc[field] = .document(map)
        case .create, .erase:
            break
        }
        return doc
    }

    private static func array(_ value: Value?) -> [Value] {
        if case .array(let items)? = value { return items }
        return []
    }

    private static func dictionary(_ value: Value?) -> Document {
        if case .document(let doc)? = value { return doc }
        return [:]
    }
}
