extension QueryEvaluator {
    /// The values an operand stands for: one for a scalar, the elements for a list or a to-many key path.
    func values(of operand: QueryOperand, in document: Document) throws(QueryError) -> [Value] {
        switch operand {
        case .keyPath(let keyPath):
            return try flattened(resolve(keyPath.components[...], from: [.document(document)]))
        case .value(.array(let elements)):
            return elements
        case .value(let value):
            return [value]
        case .argument(let index):
            throw QueryError(.unknownArgument, "argument $\(index) is not bound")
        case .list(let elements):
            var values: [Value] = []
            for element in elements { values += try self.values(of: element, in: document) }
            return values
        case .geo:
            throw QueryError(.invalidArgument, "a geospatial shape can only be on the right of GEOWITHIN")
        case .subquery(let subquery):
            var count: Int64 = 0
            let elements = try flattened(resolve(subquery.collection.components[...], from: [.document(document)]))
            for element in elements {
                // As in realm-core, the subquery's other key paths are the element's (an object's), not the root's.
                var scope = object(element) ?? document
                scope[subquery.variable] = element
                if try matches(subquery.predicate, scope) { count += 1 }
            }
            return [.int(count)]
        }
    }

    private func flattened(_ values: [Value]) -> [Value] {
        values.flatMap { value -> [Value] in
            if case .array(let elements) = value { return elements }
            return [value]
        }
    }

    /// Applies key path components to each value in turn; arrays met before a property step are
    /// stepped through element by element (to-many).
    private func resolve(
        _ components: ArraySlice<QueryKeyPath.Component>, from start: [Value]
    ) throws(QueryError) -> [Value] {
        var current = start
        var index = components.startIndex
        while index < components.endIndex {
            let component = components[index]
            var next: [Value] = []
            switch component {
            case .property(let name):
                for value in current { next += try property(name, of: value) }
            case .mapKey(let key):
                for value in current { next += try mapEntry(key, of: value) }
            case .keys, .values:
                for value in current { next += try mapKeysOrValues(of: value, keys: component == .keys) }
            case .index(let position):
                // A nested list's element; nothing where there is none (as for a value that is not a list).
                for case .array(let elements) in current where elements.indices.contains(position) {
                    next.append(elements[position])
                }
            case .all:
                for value in current {
                    switch value {
                    case .array(let elements): next += elements
                    case .document(let document): next += document.sortedKeys.map { document.fields[$0]! }
                    default: break
                    }
                }
            case .argumentSubscript(let index):
                throw QueryError(.unknownArgument, "argument $\(index) is not bound")
            case .aggregate(.count), .aggregate(.size):
                for value in current { next.append(try count(of: value)) }
            case .aggregate(let aggregate):
                let rest = components[(index + 1)...]
                for value in current {
                    var elements: [Value] = []
                    for element in try self.elements(of: value, for: aggregate.rawValue) {
                        elements += rest.isEmpty ? [element] : flattened(try resolve(rest, from: [element]))
                    }
                    next.append(try Self.aggregate(aggregate, of: elements))
                }
                return next
            }
            current = next
            index += 1
        }
        return current
    }

    private func object(_ value: Value) -> Document? {
        switch value {
        case .document(let document): document
        case .link(let className, let primaryKey): resolveLink(className, primaryKey)
        default: nil
        }
    }

    private func property(_ name: String, of value: Value) throws(QueryError) -> [Value] {
        switch value {
        case .null: return [.null]
        case .array(let elements):
            var out: [Value] = []
            for element in elements { out += try property(name, of: element) }
            return out
        case .document, .link: return [object(value)?[name] ?? .null]
        default: throw QueryError(.invalidKeyPath, "cannot read '\(name)' of a \(value.typeName)")
        }
    }

    private func mapEntry(_ key: String, of value: Value) throws(QueryError) -> [Value] {
        switch value {
        case .null: return [.null]
        case .document(let document): return [document[key] ?? .null]
        case .array(let elements):
            var out: [Value] = []
            for element in elements { out += try mapEntry(key, of: element) }
            return out
        default: throw QueryError(.invalidKeyPath, "cannot read [\"\(key)\"] of a \(value.typeName)")
        }
    }

    private func mapKeysOrValues(of value: Value, keys: Bool) throws(QueryError) -> [Value] {
        switch value {
        case .null: return [.array([])]
        case .document(let document):
            return [.array(document.sortedKeys.map { keys ? .string($0) : document.fields[$0]! })]
        case .array(let elements):
            var out: [Value] = []
            for element in elements { out += try mapKeysOrValues(of: element, keys: keys) }
            return out
        default:
            throw QueryError(.invalidKeyPath, "\(keys ? "@keys" : "@values") cannot be applied to a \(value.typeName)")
        }
    }

    private func count(of value: Value) throws(QueryError) -> Value {
        switch value {
        case .null: .int(0)
        case .array(let elements): .int(Int64(elements.count))
        case .document(let document): .int(Int64(document.fields.count))
        case .string(let string): .int(Int64(string.utf8.count))
        case .data(let data): .int(Int64(data.count))
        default: throw QueryError(.invalidKeyPath, "@count cannot be applied to a \(value.typeName)")
        }
    }

    private func elements(of value: Value, for name: String) throws(QueryError) -> [Value] {
        switch value {
        case .null: []
        case .array(let elements): elements
        case .document(let document): document.sortedKeys.map { document.fields[$0]! }
        default: throw QueryError(.invalidKeyPath, "\(name) cannot be applied to a \(value.typeName)")
        }
    }
}
