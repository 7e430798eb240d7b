import OutpostCore

/// One app served by `outpost-server`: its id, which auth providers are on, how it syncs, its schema and its rules,
/// as read from one JSON file (see `docs/configuration.md`). Not the client's `AppConfiguration` (Realm's name for
/// where an app's server is and how the client talks to it).
///
/// Schema and rules are kept as the raw JSON of the file, in App Services' shape; the rules engine and the sync
/// engine interpret them.
public struct AppDefinition: Sendable, Hashable {
    /// The id clients use (`App(id:)`); letters, digits, `-` and `_`.
    public var appId: String
    /// A display name (defaults to the app id).
    public var name: String
    public var auth: Auth
    public var sync: Sync
    /// Per collection, the JSON schema in App Services' shape:
    /// `{"title": "Item", "bsonType": "object", "properties": {…}, "required": […]}`.
    package var schema: [String: JSONValue]
    /// Per collection, the rule object `{"roles": […]}` in App Services' shape.
    package var rules: [String: JSONValue]
    /// The rule for collections without their own entry, `{"roles": […]}`, or nil.
    package var defaultRule: JSONValue?
    public var dataAPI: DataAPI
    /// The `AuditEvent` collection's retention and audit index settings (Outpost-only).
    public var events: Events
    /// App Services functions and their values (docs/functions.md).
    public var functions = Functions()

    package init(
        appId: String, name: String? = nil, auth: Auth = Auth(), sync: Sync = Sync(), schema: [String: JSONValue] = [:],
        rules: [String: JSONValue] = [:], defaultRule: JSONValue? = nil, dataAPI: DataAPI = DataAPI(),
        events: Events = Events()
    ) {
        self.appId = appId
        self.name = name ?? appId
        self.auth = auth
        self.sync = sync
        self.schema = schema
        self.rules = rules
        self.defaultRule = defaultRule
        self.dataAPI = dataAPI
        self.events = events
    }

    /// The collections that have a schema, sorted.
    public var schemaCollectionNames: [String] { schema.keys.sorted() }

    /// The collections that have their own rule, sorted.
    public var ruleCollectionNames: [String] { rules.keys.sorted() }
}

extension AppDefinition {
    /// Which auth providers are on, and how long tokens live.
    public struct Auth: Sendable, Hashable {
        /// `anon-user`: a new user at each login, no credentials.
        public var anonymousEnabled: Bool
        /// `local-userpass`: email and password.
        public var emailPasswordEnabled: Bool
        /// New email/password users are confirmed at once; otherwise they confirm with a token (see `docs/server.md`).
        public var emailPasswordAutoConfirm: Bool
        /// `api-key`: user API keys.
        public var apiKeysEnabled: Bool
        /// Outpost-only (`auth.email_password.token_webhook_url`): where confirmation and password reset tokens are
        /// POSTed for a service of the app's to mail them; without it they go to the server log.
        public var emailPasswordTokenWebhook: String?
        /// `custom-token`: logins with a JWT signed by the app's own identity provider (nil: off).
        public var customToken: CustomToken?
        /// How long an access token is valid (default 1800 s, as App Services).
        public var accessTokenLifetimeSeconds: Int
        /// How long a refresh token and its session are valid (default 60 days, as App Services).
        public var refreshTokenLifetimeDays: Int
        /// Limits on failed logins and new users (on by default).
        public var throttling: Throttling

        public init(
            anonymousEnabled: Bool = false, emailPasswordEnabled: Bool = false, emailPasswordAutoConfirm: Bool = false,
            apiKeysEnabled: Bool = false, customToken: CustomToken? = nil, accessTokenLifetimeSeconds: Int = 1800,
            refreshTokenLifetimeDays: Int = 60, throttling: Throttling = Throttling()
        ) {
            self.customToken = customToken
            self.anonymousEnabled = anonymousEnabled
            self.emailPasswordEnabled = emailPasswordEnabled
            self.emailPasswordAutoConfirm = emailPasswordAutoConfirm
            self.apiKeysEnabled = apiKeysEnabled
            self.accessTokenLifetimeSeconds = accessTokenLifetimeSeconds
            self.refreshTokenLifetimeDays = refreshTokenLifetimeDays
            self.throttling = throttling
        }
    }

    /// How clients sync.
    public struct Sync: Sendable, Hashable {
        public enum Mode: String, Sendable, Hashable, CaseIterable {
            /// Flexible Sync: clients subscribe to queries over the queryable fields.
            case flexible
            /// Partition-Based Sync: each synced file holds the documents of one partition value.
            case partition
        }

        public var mode: Mode
        /// Partition-Based Sync's settings (present exactly when `mode` is `partition`).
        public var partition: Partition?
        /// Fields every collection's subscriptions may query (`_id` is always queryable).
        public var queryableFieldsNames: [String]
        /// Fields only one collection's subscriptions may query.
        public var collectionQueryableFieldsNames: [String: [String]]
        /// App Services' indexed queryable fields: the server indexes them for Data API reads, with the other queryable
        /// fields and those the rules read (``AppDefinition/indexedFieldNames``, docs/storage-server.md).
        public var indexedQueryableFieldsNames: [String]
        /// Development mode: the schema follows what clients upload.
        public var developmentModeEnabled: Bool
        /// Collections of asymmetric objects (Data Ingest, flexible sync only): uploads insert documents, which are
        /// never downloaded nor subscribed to.
        public var asymmetricTables: [String] = []

        public init(
            mode: Mode = .flexible, partition: Partition? = nil, queryableFieldsNames: [String] = [],
            collectionQueryableFieldsNames: [String: [String]] = [:], indexedQueryableFieldsNames: [String] = [],
            developmentModeEnabled: Bool = false
        ) {
            self.mode = mode
            self.partition = partition
            self.queryableFieldsNames = queryableFieldsNames
            self.collectionQueryableFieldsNames = collectionQueryableFieldsNames
            self.indexedQueryableFieldsNames = indexedQueryableFieldsNames
            self.developmentModeEnabled = developmentModeEnabled
        }

        /// The fields a subscription on `collection` may query: `_id`, the app-wide ones and the collection's own.
        public func queryableFields(of collection: String) -> Set<String> {
            Set(["_id"] + queryableFieldsNames + (collectionQueryableFieldsNames[collection] ?? []))
        }
    }

    /// Partition-Based Sync's partition key.
    public struct Partition: Sendable, Hashable {
        public enum KeyType: String, Sendable, Hashable, CaseIterable {
            case string, int, objectId, uuid
        }

        /// The field that holds each document's partition value.
        public var key: String
        public var type: KeyType
        /// Whether every document must have a partition value.
        public var required: Bool
        /// The read permission expression (App Services' `permissions.read`), raw JSON; nil when absent.
        package var readPermission: JSONValue?
        /// The write permission expression (App Services' `permissions.write`), raw JSON; nil when absent.
        package var writePermission: JSONValue?

        package init(
            key: String, type: KeyType, required: Bool = false, readPermission: JSONValue? = nil,
            writePermission: JSONValue? = nil
        ) {
            self.key = key
            self.type = type
            self.required = required
            self.readPermission = readPermission
            self.writePermission = writePermission
        }
    }

    /// The Data API (direct collection access over HTTP).
    public struct DataAPI: Sendable, Hashable {
        public var enabled: Bool
        /// The most documents one write request may insert, change or delete (`max_documents_per_write`).
        public var maxDocumentsPerWrite: Int
        /// The most bytes of Extended JSON one write request may leave in documents, which its history changeset
        /// holds too (`max_write_bytes`); at least one document of the largest size must fit.
        public var maxWriteBytes: Int

        public static let defaultMaxDocumentsPerWrite = 10_000
        public static let defaultMaxWriteBytes = 64 * 1024 * 1024

        public init(
            enabled: Bool = false, maxDocumentsPerWrite: Int = defaultMaxDocumentsPerWrite,
            maxWriteBytes: Int = defaultMaxWriteBytes
        ) {
            self.enabled = enabled
            self.maxDocumentsPerWrite = maxDocumentsPerWrite
            self.maxWriteBytes = maxWriteBytes
        }
    }
}
