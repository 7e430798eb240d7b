import OutpostCore

extension AppDefinition {
    /// The top-level fields whose values storage indexes for this app (``DocumentStorage/createFieldIndexes(_:)``): the
    /// queryable fields, which subscriptions and Data API filters name, the partition key, and the fields the rules'
    /// `apply_when` and document filters read, which every Data API read of a user's documents looks up.
    public var indexedFieldNames: Set<String> {
        var fields = Set(sync.queryableFieldsNames + sync.collectionQueryableFieldsNames.values.joined()
            + sync.indexedQueryableFieldsNames)
        if let partition = sync.partition { fields.insert(partition.key) }
        if let rules = try? RuleSet.parse(rules: .object(rules), defaultRule: defaultRule) {
            for role in rules.collections.values.joined() + rules.defaultRoles {
                let filters = [role.applyWhen, role.documentFilters.read, role.documentFilters.write].compactMap { $0 }
                for filter in filters { fields.formUnion(filter.referencedFields) }
            }
        }
        fields.remove("_id")
        fields.remove("*")
        return fields
    }
}
