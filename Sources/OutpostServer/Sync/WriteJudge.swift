import OutpostCore

/// Decides whether one object's change from an upload is allowed: the role's insert, delete, write filter and
/// field permissions, and whether the object lies in the session's subscriptions (flexible sync) or partition
/// (partition-based sync). A permission failure wins over an out-of-view failure (reference/sync.md §4.4).
struct WriteJudge {
    let view: SessionView

    /// Whether a stored document lies outside the session's partition (partition-based sync), so that the upload
    /// must treat it as absent: another partition's documents do not exist for this session (docs/protocol.md §5).
    func isInAnotherPartition(_ collection: String, _ stored: Document) -> Bool {
        view.settings.mode == .partition && !view.matchesQuery(collection, stored)
    }

    /// nil when allowed, else the reason in the seed page's wording. `changed` is sorted.
    func reason(collection: String, primaryKey: Value, before: Document?, after: Document?, changed: [String]) -> String? {
        guard view.settings.mode == .flexible else {
            // The partition check of the upload compared the instructions' values; this compares the result.
            if let after, !view.matchesQuery(collection, after) { return Self.outsideView(collection, primaryKey) }
            return nil
        }
        var target: String { "write to \"\(primaryKey.plainText)\" in table \"\(collection)\"" }
        if let denial = permissionDenial(collection: collection, before: before, after: after, changed: changed) {
            return "\(target) \(denial)"
        }
        // Asymmetric objects are never subscribed to: only the role decides.
        if view.settings.asymmetricTables.contains(collection) { return nil }
        let inView: Bool
        switch (before, after) {
        case (nil, let after?): inView = view.matchesQuery(collection, after)
        case (let before?, _): inView = view.matchesQuery(collection, before)
        case (nil, nil): inView = true
        }
        return inView ? nil : Self.outsideView(collection, primaryKey)
    }

    /// The original's reason for a write to an object the session does not sync.
    static func outsideView(_ collection: String, _ primaryKey: Value) -> String {
        "write to \"\(primaryKey.plainText)\" in table \"\(collection)\" not allowed; object is outside of the current query view"
    }

    private func permissionDenial(collection: String, before: Document?, after: Document?, changed: [String]) -> String? {
        guard let chosen = view.role(for: collection) else {
            return "was denied: no role applies to this user for table \"\(collection)\""
        }
        return Self.denial(by: chosen, context: view.context, before: before, after: after, changed: changed)
    }

    /// Why the chosen role denies the change, or nil. The role is read through its box (`chosen.role.…`): taking
    /// it out as a value copied it (a dozen retains) for every object judged.
    private static func denial(
        by chosen: SessionView.ChosenRole, context: RuleContext, before: Document?, after: Document?, changed: [String]
    ) -> String? {
        if chosen.writesEverything { return nil }
        switch (before, after) {
        case (nil, let after?):
            guard chosen.role.canWrite(after, context: context) else { return byFilter(chosen.role.name) }
            // `canInsert` without evaluating the write filter a second time.
            guard chosen.role.insert.evaluate(after, context: context) else {
                return "was denied by insert permission in role \"\(chosen.role.name)\""
            }
        case (let before?, nil):
            guard chosen.role.canWrite(before, context: context) else { return byFilter(chosen.role.name) }
            guard chosen.role.canDelete(before, context: context) else {
                return "was denied by delete permission in role \"\(chosen.role.name)\""
            }
        case (let before?, let after?):
            guard chosen.role.canWrite(before, context: context), chosen.role.canWrite(after, context: context) else {
                return byFilter(chosen.role.name)
            }
        case (nil, nil):
            return nil
        }
        if chosen.role.hasUniformFieldPermissions {
            // Every field gets the same answer: check the first one the loop below would report.
            guard let field = changed.first(where: { $0 != "_id" }) else { return nil }
            if !chosen.role.canWrite(field: field, document: after ?? before, context: context) {
                return "was denied by field permissions in role \"\(chosen.role.name)\" for field \"\(field)\""
            }
            return nil
        }
        for field in changed where field != "_id" {
            if !chosen.role.canWrite(field: field, document: after ?? before, context: context) {
                return "was denied by field permissions in role \"\(chosen.role.name)\" for field \"\(field)\""
            }
        }
        return nil
    }

    /// The reason for a write filter's denial.
    private static func byFilter(_ roleName: String) -> String {
        "was denied by write filter in role \"\(roleName)\""
    }
}
