import OutpostCore

/// The part of a read that storage can look up in its indexes: top-level fields (and `_id`) that must each equal one
/// of some values, all conditions together (AND).
///
/// Equality is MongoDB's, as rule expressions and Data API filters evaluate it (``RuleExpression/fieldEquals(_:anyOf:)``):
/// `5` equals `5.0`, an array field equals a value when an element does, `null` equals a missing field. Drivers
/// translate what they can to SQL on an index, which may find more documents than match, and return only those for
/// which ``matches(_:)`` holds, so a query reads the same documents on every driver.
public struct DocumentQuery: Sendable, Hashable {
    /// One field that must equal one of `values` (an empty list matches nothing).
    public struct Condition: Sendable, Hashable {
        /// A top-level field name (no dotted path), or `_id`.
        public var field: String
        public var values: [Value]

        public init(field: String, values: [Value]) {
            self.field = field
            self.values = values
        }

        public func matches(_ document: Document) -> Bool {
            RuleExpression.fieldEquals(document[field], anyOf: values)
        }
    }

    public var conditions: [Condition]

    public init(_ conditions: [Condition] = []) {
        self.conditions = conditions
    }

    /// The query every document matches.
    public static let all = DocumentQuery()

    public func matches(_ document: Document) -> Bool {
        conditions.allSatisfy { $0.matches(document) }
    }

    /// The query with the conditions of both.
    public func and(_ other: DocumentQuery) -> DocumentQuery {
        DocumentQuery(conditions + other.conditions)
    }
}

extension DocumentQuery {
    /// The equality conditions every document matching `expression` meets (``RuleExpression/equalityConditions(context:)``).
    ///
    /// - Parameter includingNull: whether conditions that a missing field can meet (`{"f": null}`) are kept. A filter
    ///   evaluated on a redacted document (Data API reads) must drop them: a field the user cannot read is missing
    ///   there, whatever storage holds.
    package init(requiredBy expression: RuleExpression, context: RuleContext, includingNull: Bool = true) {
        self.init(expression.equalityConditions(context: context).compactMap { field, values in
            if !includingNull, field != "_id", values.contains(where: { $0.isNull }) { return nil }
            return Condition(field: field, values: values)
        })
    }
}
