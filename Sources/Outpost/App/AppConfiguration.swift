import Foundation

/// How an ``App`` reaches its server and where it keeps its files, as Realm Swift's `AppConfiguration`.
///
/// ```swift
/// let app = App(id: "outpost-dev", configuration: AppConfiguration(baseURL: "http://127.0.0.1:9090"))
/// ```
///
/// The values are read when the app is first created; later changes to a configuration have no effect on it (as in
/// Realm). Outpost makes this a struct (Realm's is a class).
public struct AppConfiguration: Sendable {
    /// The server's base URL, `http(s)://host:port`. nil means ``defaultBaseURL``.
    public var baseURL: String?
    /// Sends the app's HTTP requests. nil means a `URLSession`-based ``RLMNetworkTransport``.
    public var transport: RLMNetworkTransport?
    /// The timeout of HTTP requests (not sync connections), in milliseconds. Default 60 s.
    public var defaultRequestTimeoutMS: UInt = 60_000
    /// Use one sync connection per user instead of one per synced Realm.
    public var enableSessionMultiplexing: Bool = false
    /// The sync client's timeouts.
    public var syncTimeouts: SyncTimeoutOptions?
    /// The directory for user metadata and synced Realm files: `<rootDirectory>/<appId>/users.json` and
    /// `<rootDirectory>/<appId>/<userId>/…`. nil means `<current directory>/mongodb-realm`.
    ///
    /// Outpost-only: Realm chooses this directory itself.
    public var rootDirectory: URL?

    /// The base URL used when none is given: outpost-server's default address.
    ///
    /// Outpost-only: Realm's default is the MongoDB cloud.
    public static let defaultBaseURL = "http://127.0.0.1:9090"

    /// - Parameters:
    ///   - baseURL: the server, `http(s)://host:port` (default ``defaultBaseURL``).
    ///   - transport: sends the HTTP requests (default: `URLSession`).
    ///   - defaultRequestTimeoutMS: the HTTP request timeout in milliseconds (default 60 000).
    ///   - enableSessionMultiplexing: one sync connection per user.
    ///   - syncTimeouts: the sync client's timeouts.
    ///   - rootDirectory: Outpost-only; where users and synced files live (default `./mongodb-realm`).
    public init(
        baseURL: String? = nil, transport: RLMNetworkTransport? = nil, defaultRequestTimeoutMS: UInt? = nil,
        enableSessionMultiplexing: Bool? = nil, syncTimeouts: SyncTimeoutOptions? = nil, rootDirectory: URL? = nil
    ) {
        self.baseURL = baseURL
        self.transport = transport
        if let defaultRequestTimeoutMS { self.defaultRequestTimeoutMS = defaultRequestTimeoutMS }
        if let enableSessionMultiplexing { self.enableSessionMultiplexing = enableSessionMultiplexing }
        self.syncTimeouts = syncTimeouts
        self.rootDirectory = rootDirectory
    }

    /// The root directory in effect.
    var resolvedRootDirectory: URL {
        (rootDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent("mongodb-realm")).standardizedFileURL
    }

    /// The base URL in effect, without a trailing slash.
    var resolvedBaseURL: String {
        var text = baseURL ?? Self.defaultBaseURL
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
