import OutpostCore

/// Decides whether one object's change from an upload is allowed: the role's insert, delete, write filter and
/// field permissions, and (flexible sync) whether the object lies in the session's subscriptions. A permission
/// failure wins over an out-of-view failure (reference/sync.md §4.4).
struct WriteJudge {
    let view: SessionView

    /// nil when allowed, else the reason in the seed page's wording.
    func reason(collection: String, primaryKey: Value, before: Document?, after: Document?, changed: Set<String>) -> String? {
        guard view.settings.mode == .flexible else { return nil }
        var target: String { "write to \"\(primaryKey.plainText)\" in table \"\(collection)\"" }
        if let denial = permissionDenial(collection: collection, before: before, after: after, changed: changed) {
            return "\(target) \(denial)"
        }
        let inView: Bool
        switch (before, after) {
        case (nil, let after?): inView = view.matchesQuery(collection, after)
        case (let before?, _): inView = view.matchesQuery(collection, before)
        case (nil, nil): inView = true
        }
        return inView ? nil : "\(target) not allowed; object is outside of the current query view"
    }

    private func permissionDenial(collection: String, before: Document?, after: Document?, changed: Set<String>) -> String? {
        guard let chosen = view.role(for: collection) else {
            return "was denied: no role applies to this user for table \"\(collection)\""
        }
        return Self.denial(by: chosen.role, context: view.context, before: before, after: after, changed: changed)
    }

    /// Why `role` denies the change, or nil.
    private static func denial(
        by role: Role, context: RuleContext, before: Document?, after: Document?, changed: Set<String>
    ) -> String? {
        switch (before, after) {
        case (nil, let after?):
            guard role.canWrite(after, context: context) else { return byFilter(role) }
            // `canInsert` without evaluating the write filter a second time.
            guard role.insert.evaluate(after, context: context) else {
                return "was denied by insert permission in role \"\(role.name)\""
            }
        case (let before?, nil):
            guard role.canWrite(before, context: context) else { return byFilter(role) }
            guard role.canDelete(before, context: context) else { return "was denied by delete permission in role \"\(role.name)\"" }
        case (let before?, let after?):
            guard role.canWrite(before, context: context), role.canWrite(after, context: context) else { return byFilter(role) }
        case (nil, nil):
            return nil
        }
        if role.hasUniformFieldPermissions {
            // Every field gets the same answer: check the first one the loop below would report.
            var first: String?
            for field in changed where field != "_id" && (first.map { field < $0 } ?? true) { first = field }
            guard let field = first else { return nil }
            if !role.canWrite(field: field, document: after ?? before, context: context) {
                return "was denied by field permissions in role \"\(role.name)\" for field \"\(field)\""
            }
            return nil
        }
        for field in changed.sorted() where field != "_id" {
            if !role.canWrite(field: field, document: after ?? before, context: context) {
                return "was denied by field permissions in role \"\(role.name)\" for field \"\(field)\""
            }
        }
        return nil
    }

    /// The reason for a write filter's denial. A function, not a local computed variable: capturing the role in
    /// one copied it (a dozen retains) for every object judged.
    private static func byFilter(_ role: Role) -> String {
        "was denied by write filter in role \"\(role.name)\""
    }
}
