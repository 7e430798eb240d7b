import Foundation
import OutpostCore

/// Renames a query's properties from the names an app uses to the names they are stored under
/// (`Property.columnName`, set by `propertiesMapping()`): subscription queries are evaluated by the server, which
/// knows only stored names. Locally both names answer (`TableInfo.property(named:)`), so a query kept in stored names
/// still runs on the device.
struct StoredNames {
    let realm: RealmInstance

    func rename(_ predicate: QueryPredicate, className: String) -> QueryPredicate {
        guard mapsAnyName else { return predicate }
        return predicate.mapOperands { operand in rename(operand, className: className, variable: nil) }
    }

    /// Whether any class of the Realm stores a property under another name (the common case skips the walk).
    private var mapsAnyName: Bool {
        realm.tablesByName.values.contains { table in table.schema.allProperties.contains { $0.columnName != $0.name } }
    }

    private func rename(_ operand: QueryOperand, className: String?, variable: String?) -> QueryOperand {
        switch operand {
        case .keyPath(let keyPath):
            return .keyPath(rename(keyPath, className: className, variable: variable))
        case .list(let elements):
            return .list(elements.map { rename($0, className: className, variable: variable) })
        case .subquery(var subquery):
            // Inside a subquery, key paths are the element's, with or without its variable first (as in realm-core).
            let elementClass = className.flatMap { targetClass(of: subquery.collection, from: $0) }
            subquery.collection = rename(subquery.collection, className: className, variable: variable)
            let inner = subquery.variable
            subquery.predicate = subquery.predicate.mapOperands { operand in
                rename(operand, className: elementClass, variable: inner)
            }
            return .subquery(subquery)
        case .value, .argument, .geo:
            return operand
        }
    }

    private func rename(_ keyPath: QueryKeyPath, className: String?, variable: String?) -> QueryKeyPath {
        var current = className
        var components = keyPath.components
        for i in components.indices {
            guard case .property(let name) = components[i] else { continue }  // map keys, indexes, @count… keep the class
            if i == 0, name == variable { continue }
            guard let cls = current, let (_, property) = realm.table(named: cls)?.property(named: name) else {
                current = nil
                continue
            }
            if property.type != .linkingObjects { components[i] = .property(property.columnName) }
            current = property.type == .object || property.type == .linkingObjects ? property.objectClassName : nil
        }
        return QueryKeyPath(components)
    }

    /// The class a key path leads to, if it ends on objects.
    private func targetClass(of keyPath: QueryKeyPath, from className: String) -> String? {
        var current: String? = className
        for component in keyPath.components {
            guard case .property(let name) = component else { continue }
            guard let cls = current, let (_, property) = realm.table(named: cls)?.property(named: name) else { return nil }
            current = property.type == .object || property.type == .linkingObjects ? property.objectClassName : nil
        }
        return current
    }
}
