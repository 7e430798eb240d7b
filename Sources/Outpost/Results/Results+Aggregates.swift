import Foundation
import OutpostCore

extension Results {
    // MARK: Aggregates of a property of the objects

    private func aggregate(_ fn: String, _ property: String) -> SQLiteValue {
        instance.verifyAccess()
        return instance.synchronized { unsynchronizedAggregate(fn, property) }
    }

    private func unsynchronizedAggregate(_ fn: String, _ property: String) -> SQLiteValue {
        guard valueType == nil, let (_, p) = table.property(named: property), p.collection == .none else {
            fatalError("Invalid property name '\(property)' for aggregate on '\(table.className)'")
        }
        switch p.type {
        case .int, .float, .double, .date, .decimal128: break
        default: fatalError("Cannot \(fn) property '\(property)': operation not supported for '\(p.typeDescription)' properties.")
        }
        guard let (sql, params) = try? query.sql(table: table, realm: instance, source: source) else { return .null }
        // Joined, not `rowid IN`: an object a list holds twice counts twice, as in Realm.
        let expr = "t.\(SQL.quote(p.columnName))"
        let rows = "FROM (\(sql)) s JOIN \(table.sqlName) t ON t.rowid = s.rid"
        if p.type == .decimal128 {
            // Decimal arithmetic in Swift, not as doubles.
            guard let rows = try? instance.connection.cached("SELECT \(expr) \(rows)").rows(params) else { return .null }
            let values = rows.compactMap { row -> Decimal128? in if case .text(let t) = row[0] { try? Decimal128(string: t) } else { nil } }
            return Self.decimalAggregate(fn, values).map { .text($0.stringValue) } ?? .null
        }
        return (try? instance.connection.scalar("SELECT \(fn)(\(expr)) \(rows)", params)) ?? .null
    }

    static func decimalAggregate(_ fn: String, _ values: [Decimal128]) -> Decimal128? {
        switch fn {
        case "min": values.min()
        case "max": values.max()
        case "sum", "total": values.reduce(Decimal128(0), +)
        default: values.isEmpty ? nil : values.reduce(Decimal128(0), +) / Decimal128(values.count)
        }
    }

    private func value<T: _HasPersistedType>(_ raw: SQLiteValue, _ property: String, as: T.Type) -> T? {
        guard let (_, p) = table.property(named: property) else { return nil }
        var scalar = ValueCoding.scalar(raw, type: p.type)
        if case .real(let d) = raw, p.type == .int { scalar = .double(d) }
        return T._loadStored(scalar)
    }

    /// The values of an `AnyRealmValue` property of the objects, nulls left out; nil for a property of another type.
    /// (Stored as tagged JSON, they are aggregated in Swift: numbers of any type together, as Realm does.)
    private func mixedValues(_ property: String) -> [_StoredValue]? {
        guard valueType == nil, let (_, p) = table.property(named: property), p.collection == .none, p.type == .mixed
        else { return nil }
        instance.verifyAccess()
        return instance.synchronized {
            guard let (sql, params) = try? query.sql(table: table, realm: instance, source: source),
                let rows = try? instance.connection.cached(
                    "SELECT t.\(SQL.quote(property)) FROM (\(sql)) s JOIN \(table.sqlName) t ON t.rowid = s.rid").rows(params)
            else { return [] }
            return rows.compactMap { row -> _StoredValue? in
                guard case .text(let text) = row[0], let json = JSONValue.parse(text) else { return nil }
                let value = ValueCoding.mixed(json) { (_: String, _: Int64) in nil }
                return value.isNull ? nil : value
            }
        }
    }

    /// The minimum value of a property (nil when empty).
    public func min<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if let values = mixedValues(property) { return ValueAggregate.min(values, as: T.self) }
        return value(aggregate("min", property), property, as: T.self)
    }
    /// The maximum value of a property (nil when empty).
    public func max<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: MinMaxType {
        if let values = mixedValues(property) { return ValueAggregate.max(values, as: T.self) }
        return value(aggregate("max", property), property, as: T.self)
    }

    /// The sum of a property (zero when empty).
    public func sum<T: _HasPersistedType>(ofProperty property: String) -> T where T.PersistedType: AddableType {
        if let values = mixedValues(property) { return ValueAggregate.sum(values, as: T.self) }
        let raw = aggregate("total", property)
        guard let (_, p) = table.property(named: property) else { return T._storedDefault() }
        if p.type == .decimal128, case .text(let t) = raw {  // `total` of decimals is summed in Swift, as text
            return T._loadStored(.decimal128((try? Decimal128(string: t)) ?? Decimal128(0))) ?? T._storedDefault()
        }
        guard case .real(let d) = raw else { return T._storedDefault() }
        return T._loadStored(p.type == .int ? .int(Int64(d)) : .double(d)) ?? T._loadStored(.double(d)) ?? T._storedDefault()
    }

    /// The average of a property (nil when empty).
    public func average<T: _HasPersistedType>(ofProperty property: String) -> T? where T.PersistedType: AddableType {
        if let values = mixedValues(property) { return ValueAggregate.average(values).flatMap(T._loadStored) }
        let raw = aggregate("avg", property)
        guard let (_, p) = table.property(named: property) else { return nil }
        if p.type == .decimal128, case .text(let t) = raw { return T._loadStored(.decimal128((try? Decimal128(string: t)) ?? Decimal128(0))) }
        guard case .real(let d) = raw else { return nil }
        return T._loadStored(.double(d)) ?? T._loadStored(.int(Int64(d.rounded(.towardZero))))
    }

    // MARK: Aggregates of values

    /// The elements of results of values as stored, nulls left out (Realm's aggregates ignore them).
    var storedValues: [_StoredValue] {
        map { $0._store() }.filter { !$0.isNull }
    }
}

/// The aggregates of a collection of values (`List<Int>`, `Results<Double>`), computed in Swift on the stored values.
enum ValueAggregate {
    static func min(_ values: [_StoredValue]) -> _StoredValue? { extreme(values, smaller: true) }
    static func max(_ values: [_StoredValue]) -> _StoredValue? { extreme(values, smaller: false) }

    private static func extreme(_ values: [_StoredValue], smaller: Bool) -> _StoredValue? {
        var best: _StoredValue?
        // Only values that order (numbers, dates, decimals) take part: a string or a bool is not a minimum.
        for value in values where double(value) != nil || { if case .date = value { true } else { false } }() {
            guard let current = best else { best = value; continue }
            if let order = compare(value, current), smaller ? order < 0 : order > 0 { best = value }
        }
        return best
    }

    /// -1, 0 or 1 for two numbers, dates or decimals; nil when they cannot be compared.
    static func compare(_ a: _StoredValue, _ b: _StoredValue) -> Int? {
        switch (a, b) {
        case (.date(let x), .date(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.decimal128(let x), .decimal128(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.int(let x), .int(let y)): return x < y ? -1 : x > y ? 1 : 0
        default:
            guard let x = double(a), let y = double(b) else { return nil }
            return x < y ? -1 : x > y ? 1 : 0
        }
    }

    /// Whether a value is a number (what sums and averages take), without converting it.
    static func isNumber(_ value: _StoredValue) -> Bool {
        switch value {
        case .int, .float, .double, .decimal128: true
        default: false
        }
    }

    static func double(_ value: _StoredValue) -> Double? {
        switch value {
        case .int(let v): Double(v)
        case .float(let v): Double(v)
        case .double(let v): v
        case .decimal128(let v): Double(v.stringValue)
        default: nil
        }
    }

    /// The sum: exact for integers and decimals, a double otherwise.
    static func sum(_ values: [_StoredValue]) -> _StoredValue {
        let present = values.filter(isNumber)  // numbers only: a mixed collection's others are left out
        if present.allSatisfy({ if case .int = $0 { true } else { false } }) {
            return .int(present.reduce(Int64(0)) { if case .int(let v) = $1 { $0 &+ v } else { $0 } })
        }
        if present.allSatisfy({ if case .decimal128 = $0 { true } else { false } }) {
            return .decimal128(present.reduce(Decimal128(0)) { if case .decimal128(let v) = $1 { $0 + v } else { $0 } })
        }
        if present.allSatisfy({ if case .float = $0 { true } else { false } }) {
            return .float(present.reduce(Float(0)) { if case .float(let v) = $1 { $0 + v } else { $0 } })
        }
        return .double(present.compactMap(double).reduce(0, +))
    }

    /// The smallest, largest and sum of stored values read as `T` (the aggregates by name and key path).
    static func min<T: _HasPersistedType>(_ values: [_StoredValue], as: T.Type) -> T? { min(values).flatMap(T._loadStored) }
    static func max<T: _HasPersistedType>(_ values: [_StoredValue], as: T.Type) -> T? { max(values).flatMap(T._loadStored) }
    static func sum<T: _HasPersistedType>(_ values: [_StoredValue], as: T.Type) -> T {
        T._loadStored(sum(values)) ?? T._storedDefault()
    }

    /// A collection's sum. Mixed values follow Realm: realm-core adds their numbers as a decimal (a list's or a
    /// set's zero too; a map's is the integer 0); an unmanaged collection adds them as Foundation's `@sum`, a double
    /// (the integer 0 when empty).
    static func sum(_ values: [_StoredValue], of element: Any.Type, managed: Bool, keyed: Bool = false) -> _StoredValue {
        guard element == AnyRealmValue.self else { return sum(values) }
        let numbers = values.filter(isNumber)
        if managed && !(keyed && numbers.isEmpty) { return .decimal128(numbers.reduce(Decimal128(0)) { $0 + decimal($1) }) }
        return numbers.isEmpty ? .int(0) : .double(numbers.compactMap(double).reduce(0, +))
    }

    /// A collection's average as `T`; of mixed values a decimal when managed, a double when not (as `sum`).
    static func average<T: _HasPersistedType>(_ values: [_StoredValue], of element: Any.Type, managed: Bool, as: T.Type) -> T? {
        guard element == AnyRealmValue.self else { return average(values, as: T.self) }
        let numbers = values.filter(isNumber)
        guard !numbers.isEmpty else { return nil }
        let total = sum(numbers, of: element, managed: managed)
        let mean: _StoredValue = switch total {
        case .decimal128(let d): .decimal128(d / Decimal128(numbers.count))
        default: .double((double(total) ?? 0) / Double(numbers.count))
        }
        return T._loadStored(mean) ?? double(mean).flatMap { T._loadStored(.double($0)) }  // read as a double too
    }

    private static func decimal(_ value: _StoredValue) -> Decimal128 {
        switch value {
        case .int(let v): Decimal128(v)
        case .decimal128(let v): v
        default: Decimal128(double(value) ?? 0)
        }
    }

    /// The average as `T`: a double (a decimal for decimals), or truncated for an integer type.
    static func average<T: _HasPersistedType>(_ values: [_StoredValue], as: T.Type) -> T? {
        average(values).flatMap { average in
            T._loadStored(average) ?? double(average).flatMap { T._loadStored(.int(Int64($0.rounded(.towardZero)))) }
        }
    }

    /// The average as a double (a decimal for decimals); nil when there are no values.
    static func average(_ values: [_StoredValue]) -> _StoredValue? {
        let present = values.filter(isNumber)
        guard !present.isEmpty else { return nil }
        if case .decimal128(let total) = sum(present) { return .decimal128(total / Decimal128(present.count)) }
        return .double(present.compactMap(double).reduce(0, +) / Double(present.count))
    }
}
