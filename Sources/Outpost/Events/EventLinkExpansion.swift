import Foundation
import OutpostCore

/// Which link properties read events show in full (reference §4.3), and the objects they show.
///
/// A property of an object read at version V is expanded when the same scope followed that property of that object
/// at V in a read event *after* the one being written (positions counted after combining and filtering); the whole
/// property expands, other properties stay primary keys. Expanded objects follow the same rule, so links followed
/// from them expand too. An object already being expanded further up is shown as its primary key (no cycles).
struct EventLinkExpansion {
    /// Each followed property → the position of its last access among the combined events.
    private var lastAccess: [EventLinkProperty: Int] = [:]
    /// Each followed property → the objects it linked to, as captured when it was followed.
    private var targets: [EventLinkProperty: [Value: EventLinkTarget]] = [:]

    /// - Parameters:
    ///   - recorded: everything the scope recorded (captured targets may sit on reads that combining dropped).
    ///   - combined: the events that will be written, combined and filtered.
    init(recorded: [RecordedEvent], combined: [RecordedEvent]) {
        for event in combined.indices {
            if case .read(let read) = combined[event].kind, let link = read.link { lastAccess[link.property] = event }
        }
        guard !lastAccess.isEmpty else { return }
        for event in recorded {
            guard case .read(let read) = event.kind, let link = read.link, let captured = link.targets,
                lastAccess[link.property] != nil
            else { continue }
            targets[link.property, default: [:]].merge(captured) { _, new in new }
        }
    }

    /// An object of a read event at position `index` as JSON, with the links followed after it expanded.
    func json(_ object: EventObject, className: String, rowid: Int64, version: Int64, index: Int) throws -> JSONValue {
        try json(object, at: Position(className: className, rowid: rowid, version: version, index: index), path: [])
    }

    private struct Position {
        var className: String
        var rowid: Int64
        var version: Int64
        var index: Int
    }

    private struct ObjectKey: Hashable {
        var className: String
        var rowid: Int64
    }

    private func json(_ object: EventObject, at position: Position, path: Set<ObjectKey>) throws -> JSONValue {
        guard !lastAccess.isEmpty, case .document(let document) = object else {
            return try EventSerializer.json(object)
        }
        var path = path
        path.insert(ObjectKey(className: position.className, rowid: position.rowid))
        var fields: [String: JSONValue] = [:]
        for (name, value) in document.fields {
            let property = EventLinkProperty(version: position.version, className: position.className,
                                             rowid: position.rowid, name: name)
            if let last = lastAccess[property], last > position.index, let linked = targets[property] {
                if let v = try expand(value, linked, position, path) { fields[name] = v }
            } else if let v = EventSerializer.json(value) {
                fields[name] = v
            }
        }
        return .object(fields)
    }

    /// A followed property's value with its links replaced by the objects they link to.
    private func expand(_ value: Value, _ linked: [Value: EventLinkTarget], _ position: Position,
                        _ path: Set<ObjectKey>) throws -> JSONValue? {
        switch value {
        case .link(_, let primaryKey):
            guard let target = linked[value],
                !path.contains(ObjectKey(className: target.className, rowid: target.rowid))
            else { return EventSerializer.json(primaryKey) ?? .null }
            let at = Position(className: target.className, rowid: target.rowid, version: position.version,
                              index: position.index)
            return try json(target.object, at: at, path: path)
        case .array(let items):
            return .array(try items.map { try expand($0, linked, position, path) ?? .null })
        case .document(let map):
            var fields: [String: JSONValue] = [:]
            for (key, item) in map.fields {
                if let v = try expand(item, linked, position, path) { fields[key] = v }
            }
            return .object(fields)
        default:
            return EventSerializer.json(value)
        }
    }
}
