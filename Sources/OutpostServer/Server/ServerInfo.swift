/// What a running server reports once it listens (see ``OutpostServerApplication``'s `onServerRunning`).
public struct ServerInfo: Sendable, Hashable {
    /// The bound host.
    public var host: String
    /// The bound port (the real one when the configuration asked for port 0).
    public var port: Int
    /// The app id clients use.
    public var appId: String
    /// The admin key.
    public var adminKey: String

    /// `http://<host>:<port>`.
    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// The line `outpost-server` prints at start.
    public var banner: String {
        "outpost-server listening on \(url) — app id: \(appId) — admin key: \(adminKey)"
    }
}
