import OutpostCore

extension AppDefinition {
    /// Outpost-only: what the server does with the event library's `AuditEvent` collection (`events`):
    ///
    /// ```json
    /// "events": { "retention_days": 365, "primary_keys": { "Reading": "serial" } }
    /// ```
    ///
    /// `retention_days` is how long an event is kept after its `timestamp` (absent: for ever); housekeeping deletes
    /// older ones (``AuditRetention``). `primary_keys` names, per class, the field of an event's objects that holds
    /// the primary key, for classes whose key is not `_id` (only local Realms can have such classes; the audit index
    /// looks for `_id` otherwise).
    public struct Events: Sendable, Hashable {
        /// Days an event is kept after its timestamp; nil keeps events for ever.
        public var retentionDays: Int?
        /// The primary key field of classes whose key is not `_id`.
        public var primaryKeys: [String: String]

        public init(retentionDays: Int? = nil, primaryKeys: [String: String] = [:]) {
            self.retentionDays = retentionDays
            self.primaryKeys = primaryKeys
        }

        init(_ reader: ConfigurationReader) throws(ConfigurationError) {
            try reader.rejectUnknownFields(["retention_days", "primary_keys"])
            if let value = reader.value("retention_days") {
                guard case .int(let days) = value else { throw reader.wrongType("retention_days", "an integer", value) }
                guard days > 0, days <= Int64(Int32.max) else {
                    throw ConfigurationError(.invalidValue, path: reader.path(of: "retention_days"),
                        "must be a positive number of days (leave it out to keep events for ever), found \(days)")
                }
                retentionDays = Int(days)
            }
            primaryKeys = [:]
            if let keys = try reader.object("primary_keys") {
                for className in keys.fields.keys.sorted() {
                    guard case .string(let field)? = keys.fields[className], !field.isEmpty else {
                        throw ConfigurationError(.wrongType, path: keys.path(of: className),
                            "expected the name of the class's primary key field")
                    }
                    primaryKeys[className] = field
                }
            }
        }

        /// The section as configuration JSON (nil when everything is the default).
        var json: JSONValue? {
            var fields: [String: JSONValue] = [:]
            if let retentionDays { fields["retention_days"] = .int(Int64(retentionDays)) }
            if !primaryKeys.isEmpty { fields["primary_keys"] = .object(primaryKeys.mapValues(JSONValue.string)) }
            return fields.isEmpty ? nil : .object(fields)
        }
    }
}
