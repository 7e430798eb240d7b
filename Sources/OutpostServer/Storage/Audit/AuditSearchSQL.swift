/// The SQL of an ``AuditSearch``, the same for both drivers but for their placeholders.
///
/// A search is driven by the most selective index it can use: the object's rows (`audit_event_objects`, keyed
/// `(app, class, pk, ts, event_id)`) when it names an object, else the user's rows (`audit_event_users`, keyed
/// `(app, value, ts, event_id)`), else `audit_events` itself (keyed `(app, ts, event_id)`, with indexes on
/// `(app, activity, ts, event_id)` and `(app, event_type, ts, event_id)`). The time range and the cursor are a range
/// of that index, read backwards (newest first) and cut at the limit, so a page reads about its own rows. The other
/// conditions are checked on the event's row (a join by its key) or, for a user next to an object, by a lookup of the
/// user's row. A page's event rows and documents are joined to its keys once they are cut at the limit.
struct AuditSearchSQL {
    enum Argument: Hashable, Sendable {
        case text(String)
        case integer(Int64)
    }

    var sql: String
    var arguments: [Argument]

    /// The columns of a page's rows, in order: ts, event_id, user_id, activity, event_type, batch_seq, objects,
    /// user_values, body.
    ///
    /// The page's keys are found first, cut at the limit (the subquery), and only they are joined to their event rows
    /// and documents: PostgreSQL's planner, which cannot tell that `(ts, event_id)` is the event rows' key, otherwise
    /// joined every match of a user (a thousand rows) and sorted them to keep fifty (19 ms instead of 1 at 100,000
    /// events, and a hash join over the whole event table on a small database).
    static func page(
        appId: String, _ search: AuditSearch, limit: Int, placeholder: @escaping (Int) -> String
    ) -> AuditSearchSQL {
        var builder = Builder(appId: appId, search, cursor: true, placeholder: placeholder)
        let needsEvents = builder.driver != .events && (search.activity != nil || search.eventType != nil)
        let limitParameter = builder.bind(.integer(Int64(max(0, limit))))
        let sql = """
            SELECT r.ts, r.event_id, r.user_id, r.activity, r.event_type, r.batch_seq, r.objects, r.user_values, d.body
            FROM (SELECT x.app, x.ts, x.event_id FROM \(builder.from(joiningEvents: needsEvents))
                WHERE \(builder.conditions.joined(separator: " AND "))
                ORDER BY x.ts DESC, x.event_id DESC LIMIT \(limitParameter)) AS p
            JOIN audit_events r ON r.app = p.app AND r.ts = p.ts AND r.event_id = p.event_id
            LEFT JOIN documents d ON d.app = r.app AND d.collection = 'AuditEvent'
                AND d.pk_key = ('{"$oid":"' || r.event_id || '"}')
            ORDER BY p.ts DESC, p.event_id DESC
            """
        return AuditSearchSQL(sql: sql, arguments: builder.arguments)
    }

    /// One row, one column: how many events match (the cursor is ignored).
    static func count(appId: String, _ search: AuditSearch, placeholder: @escaping (Int) -> String) -> AuditSearchSQL {
        let builder = Builder(appId: appId, search, cursor: false, placeholder: placeholder)
        let needsEvents = builder.driver != .events && (search.activity != nil || search.eventType != nil)
        let sql = """
            SELECT count(*) FROM \(builder.from(joiningEvents: needsEvents))
            WHERE \(builder.conditions.joined(separator: " AND "))
            """
        return AuditSearchSQL(sql: sql, arguments: builder.arguments)
    }

    /// The index a search reads.
    enum Driver {
        case objects, users, events
    }

    private struct Builder {
        let driver: Driver
        var conditions: [String] = []
        var arguments: [Argument] = []
        let placeholder: (Int) -> String

        init(appId: String, _ search: AuditSearch, cursor: Bool, placeholder: @escaping (Int) -> String) {
            self.placeholder = placeholder
            driver = search.object != nil ? .objects : search.user != nil ? .users : .events
            let event = driver == .events ? "x" : "e"
            conditions.append("x.app = \(bind(.text(appId)))")
            if let object = search.object {
                conditions.append("x.class = \(bind(.text(object.className)))")
                conditions.append("x.pk = \(bind(.text(object.primaryKey)))")
            } else if let user = search.user {
                conditions.append("x.value = \(bind(.text(user)))")
            }
            if let since = search.since { conditions.append("x.ts >= \(bind(.integer(since)))") }
            if let until = search.until { conditions.append("x.ts <= \(bind(.integer(until)))") }
            if cursor, let after = search.after {
                // A row value: both drivers read it as a range of the index (SQLite's "scrolling window" form).
                conditions.append("(x.ts, x.event_id) < (\(bind(.integer(after.timestamp))), \(bind(.text(after.eventId))))")
            }
            if let user = search.user, driver == .objects {
                conditions.append("""
                    EXISTS (SELECT 1 FROM audit_event_users u WHERE u.app = x.app AND u.value = \(bind(.text(user)))
                        AND u.ts = x.ts AND u.event_id = x.event_id)
                    """)
            }
            if let activity = search.activity { conditions.append("\(event).activity = \(bind(.text(activity)))") }
            if let type = search.eventType { conditions.append("\(event).event_type = \(bind(.text(type)))") }
        }

        mutating func bind(_ argument: Argument) -> String {
            arguments.append(argument)
            return placeholder(arguments.count)
        }

        /// The FROM clause: the driving table as `x`, joined to the events' table as `e` when asked and it is not
        /// the driving table itself (when it is, the conditions on the event's columns name `x`).
        func from(joiningEvents: Bool) -> String {
            switch driver {
            case .events: return "audit_events x"
            case .objects, .users:
                let table = driver == .objects ? "audit_event_objects" : "audit_event_users"
                return joiningEvents
                    ? "\(table) x JOIN audit_events e ON e.app = x.app AND e.ts = x.ts AND e.event_id = x.event_id"
                    : "\(table) x"
            }
        }
    }
}
