import OutpostCore

/// The objects a bootstrap holds, of the tables that held objects before it (``RealmInstance/syncSweep(_:keeping:)``).
///
/// A table that was empty is not tracked: everything in it came from the bootstrap (so a first open of a large
/// view builds no keys).
struct BootstrapSweep {
    /// The tables that held objects before the bootstrap, by identity, with the keys of their objects it upserted.
    private(set) var upserted: [ObjectIdentifier: Set<String>]

    init(tables: [TableInfo]) {
        upserted = Dictionary(uniqueKeysWithValues: tables.map { (ObjectIdentifier($0), []) })
    }

    /// Records an object of the bootstrap.
    mutating func note(_ table: TableInfo, _ primaryKey: Value) {
        let id = ObjectIdentifier(table)
        guard upserted[id] != nil else { return }
        upserted[id]!.insert(PendingLocalChanges.key(table.schema.className, primaryKey))
    }

    /// Whether the bootstrap holds the object.
    func holds(_ table: TableInfo, key: String) -> Bool {
        upserted[ObjectIdentifier(table)]?.contains(key) ?? true
    }
}

extension RealmInstance {
    /// The top-level tables with a primary key that hold at least one object.
    func syncTablesHoldingObjects() -> [TableInfo] {
        tablesByName.values.filter { table in
            !table.schema.isEmbedded && !table.isMissing && table.primaryKeyProperty != nil && !isEmptyTable(table)
        }
    }

    /// ``syncSweep(_:keeping:)``, each removed object noted in `report` for the session's trace as removed by
    /// `what` (a query version or a client reset).
    func syncSweep(_ sweep: BootstrapSweep, keeping pending: PendingLocalChanges, what: String,
                   into report: inout SyncDownloadReport) {
        for removed in syncSweep(sweep, keeping: pending) {
            report.kept.append("\(what): \(removed) removed (not in the bootstrap)")
        }
    }

    /// After a bootstrap: removes the objects the bootstrap does not hold, except those created locally and not yet
    /// integrated (their upload is judged, and a refused one comes back as a compensating write). Returns them, for
    /// the trace.
    ///
    /// A bootstrap holds every object of the new view, so an object it lacks is outside the view or gone from the
    /// server. The bootstrap's removals cover the objects the server knows the file held under the old view; this
    /// covers the others: after a reconnect, the server's old view is the last *complete* subscription set, while
    /// the file may hold objects of a later set that never completed (downloaded under it, or created locally under
    /// it) — the server sent no changes of those, their removal included, and its bootstrap cannot remove an object
    /// it no longer has. (Found by the 300-step convergence hunt: a client kept an object another client had deleted.)
    func syncSweep(_ sweep: BootstrapSweep, keeping pending: PendingLocalChanges) -> [String] {
        var removed: [String] = []
        for table in tablesByName.values where sweep.upserted[ObjectIdentifier(table)] != nil {
            guard let pk = table.primaryKeyProperty, let column = table.columnOfProperty[pk] else { continue }
            let type = table.schema.allProperties[pk].type
            // The primary keys only, in one query (not each row loaded whole).
            guard let stmt = try? connection.cached(
                "SELECT rowid, \(SQL.quote(table.columnNames[column])) FROM \(table.sqlName)"),
                let rows = try? stmt.rows()
            else { continue }
            for row in rows {
                guard row.count == 2, case .integer(let rowid) = row[0] else { continue }
                let key = row[1].value(type: type)
                let text = PendingLocalChanges.key(table.schema.className, key)
                guard !sweep.holds(table, key: text), !pending.isCreated(text) else { continue }
                deleteRow(self.row(table, rowid))
                removed.append("\(table.schema.className) \(key.subscriptionText)")
            }
        }
        return removed
    }
}
