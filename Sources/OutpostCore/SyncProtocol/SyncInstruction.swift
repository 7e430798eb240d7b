/// One change a client made to one object, as uploaded. Objects are addressed by class name and primary key;
/// fields by their top-level name. Changes inside embedded objects are uploaded as a `set` of the whole
/// top-level field. The semantics of every operation are in `docs/protocol.md`.
public enum SyncInstruction: Hashable, Sendable {
    /// Creates an object with these fields (its `_id` is `primaryKey`). Creating an existing object merges the
    /// fields into it, as Realm's create-or-update does.
    case create(className: String, primaryKey: Value, fields: Document)
    /// Sets a whole field.
    case set(className: String, primaryKey: Value, field: String, value: Value)
    /// Deletes an object. A delete wins over concurrent updates.
    case erase(className: String, primaryKey: Value)
    /// Inserts into a list; an index past the end appends.
    case listInsert(className: String, primaryKey: Value, field: String, index: Int, value: Value)
    /// Replaces a list element; ignored when the index is past the end.
    case listSet(className: String, primaryKey: Value, field: String, index: Int, value: Value)
    /// Removes a list element; ignored when the index is past the end.
    case listErase(className: String, primaryKey: Value, field: String, index: Int)
    /// Moves a list element; indexes past the end are clamped.
    case listMove(className: String, primaryKey: Value, field: String, from: Int, to: Int)
    /// Empties a list, set or map.
    case clear(className: String, primaryKey: Value, field: String)
    /// Adds a value to a set (no effect when present).
    case setAdd(className: String, primaryKey: Value, field: String, value: Value)
    /// Removes a value from a set (no effect when absent).
    case setRemove(className: String, primaryKey: Value, field: String, value: Value)
    /// Sets a map entry.
    case mapSet(className: String, primaryKey: Value, field: String, key: String, value: Value)
    /// Removes a map entry (no effect when absent).
    case mapErase(className: String, primaryKey: Value, field: String, key: String)

    /// The class of the object the instruction changes.
    public var className: String {
        switch self {
        case .create(let c, _, _), .set(let c, _, _, _), .erase(let c, _), .listInsert(let c, _, _, _, _),
            .listSet(let c, _, _, _, _), .listErase(let c, _, _, _), .listMove(let c, _, _, _, _), .clear(let c, _, _),
            .setAdd(let c, _, _, _), .setRemove(let c, _, _, _), .mapSet(let c, _, _, _, _), .mapErase(let c, _, _, _):
            return c
        }
    }

    /// The primary key of the object the instruction changes.
    public var primaryKey: Value {
        switch self {
        case .create(_, let k, _), .set(_, let k, _, _), .erase(_, let k), .listInsert(_, let k, _, _, _),
            .listSet(_, let k, _, _, _), .listErase(_, let k, _, _), .listMove(_, let k, _, _, _), .clear(_, let k, _),
            .setAdd(_, let k, _, _), .setRemove(_, let k, _, _), .mapSet(_, let k, _, _, _), .mapErase(_, let k, _, _):
            return k
        }
    }

    /// The top-level field the instruction changes (nil for `create` and `erase`).
    public var field: String? {
        switch self {
        case .create, .erase: return nil
        case .set(_, _, let f, _), .listInsert(_, _, let f, _, _), .listSet(_, _, let f, _, _),
            .listErase(_, _, let f, _), .listMove(_, _, let f, _, _), .clear(_, _, let f), .setAdd(_, _, let f, _),
            .setRemove(_, _, let f, _), .mapSet(_, _, let f, _, _), .mapErase(_, _, let f, _):
            return f
        }
    }

    /// The operation's name on the wire.
    public var op: String {
        switch self {
        case .create: "create"
        case .set: "set"
        case .erase: "erase"
        case .listInsert: "listInsert"
        case .listSet: "listSet"
        case .listErase: "listErase"
        case .listMove: "listMove"
        case .clear: "clear"
        case .setAdd: "setAdd"
        case .setRemove: "setRemove"
        case .mapSet: "mapSet"
        case .mapErase: "mapErase"
        }
    }
}

/// One change the server sends to a client: an object's fields to create or update, or its removal from the
/// client's view (a delete on the server, or the object leaving the view).
public enum DownloadInstruction: Hashable, Sendable {
    /// Creates the object when missing and sets these fields. When the object enters the client's view the
    /// fields are the whole document.
    case upsert(className: String, primaryKey: Value, fields: Document)
    /// Removes the object from the client.
    case erase(className: String, primaryKey: Value)

    public var className: String {
        switch self {
        case .upsert(let c, _, _), .erase(let c, _): c
        }
    }

    public var primaryKey: Value {
        switch self {
        case .upsert(_, let k, _), .erase(_, let k): k
        }
    }
}
