import Foundation
import OutpostCore

/// The live, lazily evaluated objects matching a query. Re-evaluated when the Realm changes.
public struct Results<Element: RealmCollectionValue>: CustomStringConvertible {
    let instance: RealmInstance
    let table: TableInfo
    let query: ResultsQuery
    /// Where the rows come from: every object of `table`, or one object's list, set or map.
    let source: ResultsSource
    /// The element type of a collection of values (`List<Int>.sorted()`); nil for objects. Such results hold
    /// elements' positions (keys of a map) in place of rowids, and `table` is the collection's owner's.
    let valueType: PropertyType?
    /// The row owning a collection source, when known: once it is deleted (and its rowid perhaps reused by another
    /// object) the results are empty.
    let owner: ManagedRow?
    let cache = ResultsCache()
    /// The Realm's `invalidationEpoch` when the results were made: `Realm.invalidate()` marks older ones invalidated.
    let epoch: Int

    init(realm: RealmInstance, table: TableInfo, query: ResultsQuery = ResultsQuery(), source: ResultsSource = .table,
         owner: ManagedRow? = nil) {
        self.instance = realm
        self.table = table
        self.query = query
        self.source = source
        self.owner = owner
        epoch = realm.invalidationEpoch
        valueType = source.ownerProperty(in: realm).flatMap { $0.property.type == .object ? nil : $0.property.type }
    }

    /// The same source with another query.
    func with(_ query: ResultsQuery) -> Results {
        Results(realm: instance, table: table, query: query, source: source, owner: owner)
    }

    /// The Realm of the objects.
    /// The Realm the results belong to.
    public var realm: Realm? { Realm(instance: instance) }

    /// The rowids in order (re-evaluated when the Realm has changed).
    var rowids: [Int64] {
        instance.verifyAccess()
        return instance.synchronized {
            instance.verifyReadable()
            if cache.version == instance.snapshotVersion && cache.writeCounter == instance.writeCounter { return cache.rowids }
            cache.rowids = (try? evaluate()) ?? []
            cache.version = instance.snapshotVersion
            cache.writeCounter = instance.writeCounter
            return cache.rowids
        }
    }

    func evaluate() throws -> [Int64] {
        try instance.synchronized { try unsynchronizedEvaluate() }
    }

    private func unsynchronizedEvaluate() throws -> [Int64] {
        if table.isMissing { return [] }
        if let owner, owner.isInvalidated {
            if valueType != nil { cache.values = ResultsCache.Values(elements: []) }
            return []
        }
        if valueType != nil { cache.values = valueSnapshot() }
        let (sql, parameters) = try query.sql(table: table, realm: instance, source: source, values: valueType)
        let stmt = try instance.connection.cached(sql)
        stmt.reset()
        stmt.bind(parameters)
        defer { stmt.reset() }
        var out: [Int64] = []
        if valueType != nil, let keys = cache.values?.mapKeys {
            // A map's values: their keys, as positions in the snapshot.
            while try stmt.step() {
                if case .text(let key) = stmt.value(at: 0), let position = keys[key] { out.append(Int64(position)) }
            }
            return out
        }
        while try stmt.step() { out.append(stmt.int64(at: 0)) }
        return out
    }

    /// The values of the source collection in this version (for results of values).
    private func valueSnapshot() -> ResultsCache.Values {
        guard let (ownerTable, index, property) = source.ownerProperty(in: instance),
            case .collection(_, let rowid, _) = source
        else { return ResultsCache.Values(elements: []) }
        let row = instance.row(ownerTable, rowid)
        guard !row.isInvalidated else { return ResultsCache.Values(elements: []) }
        guard property.collection == .map else { return ResultsCache.Values(elements: row.readCollection(property: index)) }
        let entries = row.readMap(property: index)
        return ResultsCache.Values(
            elements: entries.map(\.1),
            mapKeys: Dictionary(entries.enumerated().map { ($1.0, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    func element(_ rowid: Int64, of values: [_StoredValue]? = nil) -> Element {
        if valueType != nil {
            let elements = values ?? cache.values?.elements ?? []
            let position = Int(rowid)
            guard position >= 0 && position < elements.count else { return Element._defaultValue() }
            return Element._load(elements[position]) ?? Element._defaultValue()
        }
        if instance.readObserver != nil { recordEventRead(rowid) }
        return Self.makeElement(instance.object(table, rowid))
    }

    /// Event library: an object of an unfiltered Results is an object read; the first object produced by an
    /// evaluated query records a read of every match (Realm records query evaluation).
    func recordEventRead(_ rowid: Int64) {
        guard instance.isRecordingEvents, valueType == nil else { return }
        if query.filters.isEmpty && query.suffixes.isEmpty {
            instance.eventRecordRead(table, rowids: [rowid], isQuery: false)
            return
        }
        let evaluated = (cache.version, cache.writeCounter)
        if let recorded = cache.eventRecordedAt, recorded == evaluated { return }
        cache.eventRecordedAt = evaluated
        instance.eventRecordRead(table, rowids: cache.rowids, isQuery: true)
    }

    /// Event library: iterating works on a snapshot of the results, which Realm records as a query read of every
    /// object in it (the reads of the objects produced then join that query).
    /// Returns the rows captured, which the iterator then uses instead of loading them again.
    private func recordEventIteration(_ snapshot: [Int64]) -> EventCapturedRows? {
        guard instance.isRecordingEvents, valueType == nil else { return nil }
        if !query.filters.isEmpty || !query.suffixes.isEmpty {
            let evaluated = (cache.version, cache.writeCounter)
            if let recorded = cache.eventRecordedAt, recorded == evaluated, snapshot == cache.rowids { return nil }
            cache.eventRecordedAt = evaluated
        }
        return instance.eventRecordRead(table, rowids: snapshot, isQuery: true)
    }

    // MARK: Collection access

    public var count: Int {
        let ids = rowids
        // Counting evaluates a query with `distinct` (Realm records that as a query read); other counts read nothing.
        if instance.readObserver != nil, let first = ids.first,
            query.suffixes.contains(where: { if case .distinct = $0 { true } else { false } })
        {
            recordEventRead(first)
        }
        return ids.count
    }
    public var isEmpty: Bool { count == 0 }
    public var first: Element? { rowids.first.map { element($0) } }
    public var last: Element? { rowids.last.map { element($0) } }

    public subscript(position: Int) -> Element {
        let ids = rowids
        precondition(position >= 0 && position < ids.count,
                     "Index \(position) is out of bounds (must be less than \(ids.count)).")
        return element(ids[position])
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The position of an object in the results.
    public func index(of object: Element) -> Int? {
        guard valueType == nil else { return firstIndex(of: object) }  // results of values: by equality
        guard let o = Self.object(in: object), let row = o._row, row.realm === instance else { return nil }
        return rowids.firstIndex(of: row.rowid)
    }

    /// Iterates over a snapshot of the results, loading objects page by page.
    public func makeIterator() -> RLMIterator<Element> {
        let rowids = self.rowids
        // Results of values: the elements the positions index, kept with them (a write during the iteration
        // re-evaluates the shared cache).
        var pages = Pages(results: self, rowids: rowids, values: valueType == nil ? nil : cache.values?.elements ?? [])
        return RLMIterator { pages.next() }
    }

    /// The iteration's state: objects are loaded 256 rows at a time.
    struct Pages {
        let results: Results
        let rowids: [Int64]
        let values: [_StoredValue]?
        var position = 0
        var page: [ObjectBase] = []
        var pageStart = 0
        /// The rows the event library captured when the iteration began (loaded once for both).
        var captured: EventCapturedRows?

        init(results: Results, rowids: [Int64], values: [_StoredValue]? = nil) {
            self.values = values
            self.results = results
            self.rowids = rowids
        }

        mutating func next() -> Element? {
            guard position < rowids.count else { return nil }
            if position == 0 && results.instance.readObserver != nil { captured = results.recordEventIteration(rowids) }
            if results.valueType != nil {
                position += 1
                return results.element(rowids[position - 1], of: values)
            }
            if position >= pageStart + page.count {
                pageStart = position
                let pageRowids = rowids[position..<Swift.min(rowids.count, position + 256)]
                page = captured.flatMap { results.instance.objects(results.table, rowids: pageRowids, captured: $0) }
                    ?? results.instance.objects(results.table, rowids: pageRowids)
            }
            let object = page[position - pageStart]
            position += 1
            return Results.makeElement(object)
        }
    }

    // MARK: Filtering and sorting

    /// Results matching a query in Realm's query language; `%@` (or `%d`, `%f`, …) or `$0` take the arguments as
    /// values, `%K` as a key path.
    /// Malformed text traps with the position and token; use `filter(safe:)` for user input.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do {
            return try filter(checked: predicateFormat, args)
        } catch {
            fatalError("\(error)")
        }
    }

    /// Like `filter(_:_:)`, but returns malformed text as a `QueryError` instead of trapping.
    /// Outpost-only API (Realm has no throwing variant), for query text that comes from users.
    public func filter(checked predicateFormat: String, _ args: [Any]) throws -> Results<Element> {
        let (format, args) = try QueryFormat.substitutingKeyPaths(predicateFormat, args)
        let parsed = try QueryParser.parse(format)
        var q = query
        q.filters.append((parsed.predicate, args))
        q.suffixes += parsed.suffixes
        // Building the SQL reports unknown properties and type mismatches now, without running the query.
        if !table.isMissing { _ = try q.sql(table: table, realm: instance, source: source, values: valueType) }
        return with(q)
    }

    /// Results matching a predicate built by the type-safe query builder or the parser.
    public func filter(_ predicate: QueryPredicate) -> Results<Element> {
        if valueType != nil { fatalError(ResultsSource.valueQueryMessage) }
        var q = query
        q.filters.append((predicate, []))
        return with(q)
    }

    /// Sorted by a key path (`"age"`, `"dog.name"`).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Sorted by several descriptors, the first being the most significant.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        var q = query
        q.suffixes.append(.sort(descriptors.map { ParsedQuery.SortKey(keyPath: $0.queryKeyPath, ascending: $0.ascending) }))
        return validated(q)
    }

    /// `q` as results, after checking its key paths now (Realm traps at the call, not when the results are read).
    private func validated(_ q: ResultsQuery) -> Results<Element> {
        if !table.isMissing {
            do {
                _ = try q.sql(table: table, realm: instance, source: source, values: valueType)
            } catch {
                fatalError(error.message)
            }
        }
        return with(q)
    }

    /// Only the first object for each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        var q = query
        q.suffixes.append(.distinct(keyPaths.map { SortDescriptor(keyPath: $0).queryKeyPath }))
        return validated(q)
    }

    public var description: String { _description(depth: CollectionDescription.maxDepth) }

    func _description(depth: Int) -> String {
        CollectionDescription.describe("Results", typeName: CollectionDescription.typeName(Element.self),
                                       address: instance, count: count, elements: self.lazy.prefix(CollectionDescription.maxElements).map { $0 as Any },
                                       depth: depth)
    }
}

extension RealmInstance {
    /// Objects for a page of rowids, loading their rows with one statement.
    func objects(_ table: TableInfo, rowids: ArraySlice<Int64>) -> [ObjectBase] {
        synchronized { unsynchronizedObjects(table, rowids: rowids) }
    }

    private func unsynchronizedObjects(_ table: TableInfo, rowids: ArraySlice<Int64>) -> [ObjectBase] {
        guard !rowids.isEmpty else { return [] }
        var loadedRowids: [Int64] = []
        var loadedValues: [[SQLiteValue]] = []
        loadedRowids.reserveCapacity(rowids.count)
        loadedValues.reserveCapacity(rowids.count)
        try? loadRows(table, rowids) { rowid, values in
            loadedRowids.append(rowid)
            loadedValues.append(values)
        }
        // SQLite returns the rows in rowid order: when that is the page's order (results in rowid
        // order, every row present), match by position; otherwise by rowid.
        if loadedRowids.elementsEqual(rowids) {
            var objects: [ObjectBase] = []
            objects.reserveCapacity(rowids.count)
            for (i, rowid) in loadedRowids.enumerated() { objects.append(object(table, rowid, values: loadedValues[i])) }
            return objects
        }
        let loaded = Dictionary(zip(loadedRowids, loadedValues), uniquingKeysWith: { first, _ in first })
        return rowids.map { object(table, $0, values: loaded[$0]) }
    }
}
