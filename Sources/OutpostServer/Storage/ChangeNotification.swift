/// An announcement that an app's history reached a server version.
public struct ChangeNotification: Sendable, Hashable {
    public var appId: String
    public var serverVersion: Int64

    public init(appId: String, serverVersion: Int64) {
        self.appId = appId
        self.serverVersion = serverVersion
    }
}
