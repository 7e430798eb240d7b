/// The outcome of choosing a role for a sync session and collection (``RuleSet/role(forCollection:context:forSync:)``).
public enum RoleChoice: Hashable, Sendable {
    /// The first role whose `apply_when` is true; its permissions apply.
    case role(Role)
    /// No role's `apply_when` is true (or the collection has no roles): no access to the collection.
    case noMatchingRole
    /// The first matching role cannot be used with Sync: access is denied and later roles are not tried.
    case notSyncCompatible(Role, reason: RuleError)

    /// The chosen role, or nil when access is denied.
    public var role: Role? {
        if case .role(let role) = self { return role }
        return nil
    }
}
